/**
 * Behaviours of the call-level decision (rules and grants naming a whole tool, tools without
 * hints) that no other test pinned: each test here fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving in decide.ts.
 */
import { describe, expect, it } from 'vitest';
import { BASH_HINTS, bash, call, makeProject, READ_HINTS } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision, TrailEntry } from '../types';

const { root, home } = makeProject();
const policyOf = async (rules: PermissionRules) => {
  const policy = permissionInterceptor({ cwd: root, home, rules });
  await policy.ready;
  return policy;
};
const ruleEntries = (d: PermissionDecision, rule: string): TrailEntry[] =>
  d.trail.filter((e) => e.kind === 'rule' && e.rule === rule);

describe('rules naming a whole tool', () => {
  it('are recorded in the trail as matched, with why', async () => {
    const policy = await policyOf({ allow: ['Read'] });
    const d = await policy.explain(call('Read', { file_path: 'README.md' }, READ_HINTS));
    expect(d.behavior).toBe('allow');
    expect(ruleEntries(d, 'Read')).toContainEqual(
      expect.objectContaining({ matched: true, subject: 'Read', note: 'names the whole tool' }),
    );
    // The trail holds only the steps of this decision.
    for (const entry of d.trail) expect(entry).toHaveProperty('kind');
  });

  it('a whole-tool deny says so', async () => {
    const policy = await policyOf({ deny: ['Bash'] });
    const d = await policy.explain(bash('ls'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain('the rule names the whole tool Bash');
  });

  it('a shell call whose command is not a string is not understood, naming the argument', async () => {
    const policy = await policyOf({ allow: ['Bash'] });
    const d = await policy.explain(call('Bash', { command: 42 }, BASH_HINTS));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('argument command (the command line) is not a string');
  });

  it('a whole-tool ask on the shell asks even for a command an allow rule names', async () => {
    const policy = await policyOf({ allow: ['Bash(ls:*)'], ask: ['Bash'] });
    const d = await policy.explain(bash('ls'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('every Bash call asks');
  });

  it('a whole-tool allow on the shell allows an unlisted program and its redirection', async () => {
    const policy = await policyOf({ allow: ['Bash'] });
    expect((await policy.explain(bash('touch notes.txt'))).behavior).toBe('allow');
    expect((await policy.explain(bash('echo x > notes.txt'))).behavior).toBe('allow');
  });
});

describe('a grant naming the whole shell tool', () => {
  it('allows a line that only redirects, saying so', async () => {
    const policy = await policyOf({});
    await policy.addGrant({ rule: 'Bash' });
    const d = await policy.explain(bash('> notes.txt'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('granted (Bash)');
  });

  it('does not allow what cannot be understood', async () => {
    const policy = await policyOf({});
    await policy.addGrant({ rule: 'Bash' });
    expect((await policy.explain(bash('eval "$X"'))).behavior).toBe('ask');
  });

  it('allows what no rule covers, the redirection too, and is recorded in the trail', async () => {
    const policy = await policyOf({});
    const grant = await policy.addGrant({ rule: 'Bash' });
    const d = await policy.explain(bash('echo x > notes.txt'));
    expect(d.behavior, d.reason).toBe('allow');
    expect(d.grants).toEqual([grant]);
    expect(d.trail).toContainEqual({
      kind: 'grant',
      id: grant.id,
      rule: 'Bash',
      matched: true,
      subject: 'Bash',
    });
  });

  // deny > grant > ask > allow: a grant outweighs ask rules, never a deny.
  it('outweighs a whole-tool ask and ask rules, but not a deny', async () => {
    const policy = await policyOf({ ask: ['Bash', 'Bash(touch:*)'], deny: ['Bash(rm:*)'] });
    await policy.addGrant({ rule: 'Bash' });
    expect((await policy.explain(bash('ls'))).behavior).toBe('allow');
    expect((await policy.explain(bash('echo x > notes.txt'))).behavior).toBe('allow');
    expect((await policy.explain(bash('touch x'))).behavior).toBe('allow');
    expect((await policy.explain(bash('rm x'))).behavior).toBe('deny');
  });

  it('a grant on another tool or with a specifier is not a whole-tool grant', async () => {
    const policy = await policyOf({});
    await policy.addGrant({ rule: 'Read' });
    await policy.addGrant({ rule: 'Bash(ls:*)' });
    const d = await policy.explain(bash('echo x > notes.txt'));
    expect(d.behavior).toBe('ask');
    expect(d.trail.filter((e) => e.kind === 'grant' && e.subject === 'Bash')).toEqual([]);
  });
});

describe('a tool without hints', () => {
  it('is judged by its own rules only, and a rule with a specifier on it says so', async () => {
    const policy = await policyOf({
      allow: ['Deploy'],
      ask: ['Deploy(prod)', 'Read(./README.md)'],
      deny: ['Bash(rm:*)', 'Read(./.env)', 'Other(x)'],
    });
    const d = await policy.explain(call('Deploy', { target: 'prod' }));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('rule Deploy(prod) names Deploy');
    expect(d.trail).toContainEqual(
      expect.objectContaining({
        kind: 'rule',
        rule: 'Deploy(prod)',
        matched: true,
        note: 'the tool has no path or command hint to check the specifier against',
      }),
    );
    for (const other of ['Bash(rm:*)', 'Read(./.env)', 'Other(x)', 'Read(./README.md)'])
      expect(ruleEntries(d, other)).toEqual([]);
    // The rule naming the whole tool is checked once, as such.
    expect(ruleEntries(d, 'Deploy')).toEqual([
      expect.objectContaining({ matched: true, note: 'names the whole tool' }),
    ]);
  });

  it('a deny rule on it outweighs an ask rule, whichever is checked first', async () => {
    const policy = await policyOf({ deny: ['Deploy(a)'], ask: ['Deploy(b)'] });
    expect((await policy.explain(call('Deploy', {}))).behavior).toBe('deny');
    // Rules from two sources: the first source's ask is checked before the second's deny.
    const sources = permissionInterceptor({
      cwd: root,
      home,
      rules: [
        { source: 'project settings', ask: ['Deploy(a)'] },
        { source: 'user settings', deny: ['Deploy(b)'] },
      ],
    });
    expect((await sources.explain(call('Deploy', {}))).behavior).toBe('deny');
  });

  it('of two ask rules on it, the first is the one the question names', async () => {
    const policy = await policyOf({ ask: ['Deploy(a)', 'Deploy(b)'] });
    expect((await policy.explain(call('Deploy', {}))).reason).toContain(
      'rule Deploy(a) names Deploy',
    );
  });

  it('bypassPermissions skips its ask rules, never its deny rules', async () => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      mode: 'bypassPermissions',
      rules: { ask: ['Deploy(prod)', 'Publish'], deny: ['Remove(x)'] },
    });
    expect((await policy.explain(call('Deploy', {}))).behavior).toBe('allow');
    expect((await policy.explain(call('Publish', {}))).behavior).toBe('allow');
    expect((await policy.explain(call('Remove', {}))).behavior).toBe('deny');
  });

  it('allowed as a whole, it says so', async () => {
    const policy = await policyOf({ allow: ['Deploy'] });
    expect((await policy.explain(call('Deploy', {}))).reason).toBe(
      'the whole tool Deploy is allowed',
    );
  });
});

describe('a tool with path hints', () => {
  const COPY_HINTS = {
    paths: [
      { arg: 'from', access: 'read' as const },
      { arg: 'to', access: 'write' as const },
    ],
  };
  it('with every path allowed by a rule, is allowed by that rule', async () => {
    const policy = await policyOf({ allow: ['Read(./README.md)', 'Edit(./notes.txt)'] });
    const d = await policy.explain(
      call('Copy', { from: 'README.md', to: 'notes.txt' }, COPY_HINTS),
    );
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('every part is allowed (from=README.md; to=notes.txt; from=README.md)');
    expect(d.decidedBy).toMatchObject({ kind: 'rule', rule: 'Read(./README.md)' });
  });

  it('with one path no rule covers, asks for that path and the tool', async () => {
    const policy = await policyOf({ allow: ['Read(./README.md)'] });
    const d = await policy.explain(
      call('Copy', { from: 'README.md', to: 'notes.txt' }, COPY_HINTS),
    );
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('no rule allows "to=notes.txt; Copy"');
  });
});

describe('a grant naming a whole tool without hints', () => {
  it('allows the tool, and is what decided it', async () => {
    const policy = await policyOf({});
    const grant = await policy.addGrant({ rule: 'Deploy' });
    const d = await policy.explain(call('Deploy', { target: 'prod' }));
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toEqual({ kind: 'grant', grant });
    expect(d.grants).toEqual([grant]);
    expect(d.reason).toBe('granted (Deploy)');
  });

  it('outweighs a whole-tool ask', async () => {
    const policy = await policyOf({ ask: ['Deploy'] });
    const asked = await policy.explain(call('Deploy', {}));
    expect(asked.behavior).toBe('ask');
    expect(asked.reason).toContain('every Deploy call asks');
    await policy.addGrant({ rule: 'Deploy' });
    expect((await policy.explain(call('Deploy', {}))).behavior).toBe('allow');
  });
});
