/**
 * The fifth round's tests for shell/match.ts: how a glob rule (`Bash(git log *)`) is matched
 * against a command's words. Each test fails under a one-line change that survived the mutation
 * runs (`pnpm mutate:permission`), listed in docs/permission-mutation.md.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';

const { root, home } = makeProject();
const behaviorOf = async (rules: PermissionRules, line: string) => {
  const policy = permissionInterceptor({ cwd: root, home, rules });
  await policy.ready;
  return (await policy.explain(bash(line))).behavior;
};

describe('a glob rule', () => {
  it('sees the program once, then its arguments', async () => {
    // Were the program matched again among its arguments, `echo x` would read as `echo echo x`,
    // which `echo * x` matches: denied.
    const rules = { allow: ['Bash(echo:*)'], deny: ['Bash(echo * x)'] };
    expect(await behaviorOf(rules, 'echo x')).toBe('allow');
    expect(await behaviorOf(rules, 'echo a x')).toBe('deny');
  });

  it('makes only a trailing " *" optional, and the whole rule before it', async () => {
    const log = { allow: ['Bash(git log *)'] };
    // Were the optional tail cut to the rule's first two characters, `git log` alone would not
    // match `git log *`.
    expect(await behaviorOf(log, 'git log')).toBe('allow');
    expect(await behaviorOf(log, 'git log -1')).toBe('allow');
    // Were every rule's last two characters optional, `cat *.md` would allow `cat notes.`, and
    // `cat *.md` is no rule about `cat x.`.
    const md = { allow: ['Bash(cat *.md)'] };
    expect(await behaviorOf(md, 'cat notes.md')).toBe('allow');
    expect(await behaviorOf(md, 'cat notes.')).toBe('ask');
  });
});
