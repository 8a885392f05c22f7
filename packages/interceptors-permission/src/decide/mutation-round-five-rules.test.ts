/**
 * The fifth round's tests for decide/rules.ts: which rules are path rules, how a command
 * specifier is split, the longest rule, `Bash(*)`, and the rule sets themselves. Each test fails
 * under a one-line change that survived the mutation runs (`pnpm mutate:permission`), listed in
 * docs/permission-mutation.md.
 */
import { describe, expect, it } from 'vitest';
import { bash, edit, makeProject } from '../../test/helpers';
import {
  PermissionRuleError,
  type PermissionRuleSet,
  type PermissionRules,
  permissionInterceptor,
} from '../index';

const { root, home } = makeProject();
const decide = async (rules: PermissionRules | PermissionRuleSet[], line: string) => {
  const policy = permissionInterceptor({ cwd: root, home, rules });
  await policy.ready;
  return policy.explain(bash(line));
};

describe('path rules', () => {
  it.each(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit'])(
    'a %s rule is a path rule: a NUL in its path is refused',
    (tool) => {
      // Were the tool not a path family, its specifier would be read as a command, where a NUL
      // is the wildcard marker, and the rule would be taken.
      expect(() =>
        permissionInterceptor({ cwd: root, home, rules: { deny: [`${tool}(./src/\u0000x)`] } }),
      ).toThrow(/contains a NUL character/);
    },
  );
});

describe('command specifiers', () => {
  it('a tab separates words like a space', async () => {
    // Were the tab kept inside the word, `git\tlog` would be one word no command has.
    expect((await decide({ allow: ['Bash(git\tlog:*)'] }, 'git log')).behavior).toBe('allow');
  });

  it('Bash(*) is the whole tool, whose allow allows output redirection too', async () => {
    // Were `*` a glob over the command's words, the redirection would still be asked, and a
    // model's doubt would turn the allow into a question.
    const d = await decide({ allow: ['Bash(*)'] }, 'echo x > out.txt');
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('the whole tool is allowed');
  });
});

describe('the length of a rule', () => {
  it('4,096 characters is allowed; one more is refused', () => {
    const rule = (n: number) => `Bash(${'a'.repeat(n - 'Bash()'.length)})`;
    expect(rule(4096)).toHaveLength(4096);
    expect(() =>
      permissionInterceptor({ cwd: root, home, rules: { allow: [rule(4096)] } }),
    ).not.toThrow();
    expect(() =>
      permissionInterceptor({ cwd: root, home, rules: { allow: [rule(4097)] } }),
    ).toThrow(/is longer than 4096 characters/);
  });
});

describe('rule sets', () => {
  it('no rules at all is no rule: a call is decided by the mode', async () => {
    const policy = permissionInterceptor({ cwd: root, home });
    await policy.ready;
    const d = await policy.explain(edit(`${root}/src/a.ts`));
    expect(d.behavior).toBe('ask');
    expect(d.trail.filter((e) => e.kind === 'rule')).toEqual([]);
  });

  it('a set that is null or not an object is refused, saying so', () => {
    for (const set of [null, 'x', 1])
      expect(() =>
        permissionInterceptor({ cwd: root, home, rules: [set as unknown as PermissionRuleSet] }),
      ).toThrow(
        new PermissionRuleError(`Permission rules: a rule set is ${String(set)}, not an object.`),
      );
  });

  it("a set's file is named in a decision's reason", async () => {
    const file = `${root}/.claude/settings.json`;
    const d = await decide([{ source: 'project', file, deny: ['Bash(rm:*)'] }], 'rm x');
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain(`(project (${file}), deny[0])`);
  });
});
