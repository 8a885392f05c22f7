/**
 * How the parts of a call become one decision (`finish` in verdict.ts): the worst part, then the
 * mode, with the reason, the trail and who decided. Each test fails under a one-line change the
 * mutation run (`pnpm mutate:permission`) found surviving in verdict.ts.
 */
import type { InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { bash, call, edit, makeProject, read } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision, PermissionMode } from '../types';

const { root, home } = makeProject();
const decideIn = async (
  mode: PermissionMode,
  rules: PermissionRules,
  exec: InterceptedExecution,
  grant?: string,
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode });
  await policy.ready;
  if (grant !== undefined) await policy.addGrant({ rule: grant });
  return policy.explain(exec);
};
const modeNotes = (d: PermissionDecision) => d.trail.filter((e) => e.kind === 'mode');

describe('read-only tools', () => {
  it('a read-only tool without paths runs in default mode, and says why', async () => {
    const d = await decideIn('default', {}, call('Status', {}, { readOnly: true }));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('Status is read-only and mode "default" runs read-only tools');
    expect(d.decidedBy).toEqual({ kind: 'mode', mode: 'default' });
    expect(modeNotes(d)).toEqual([{ kind: 'mode', mode: 'default', note: 'Status is read-only' }]);
  });

  it('a read outside the working directories asks, naming it', async () => {
    const d = await decideIn(
      'default',
      {},
      call(
        'Read',
        { file_path: '/etc/passwd' },
        {
          readOnly: true,
          paths: [{ arg: 'file_path', access: 'read' }],
        },
      ),
    );
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'no rule allows "file_path=/etc/passwd; Read" (outside the working directories) and mode "default" asks for reads outside the working directories',
    );
    expect(modeNotes(d)).toEqual([
      { kind: 'mode', mode: 'default', note: 'no rule decides; the mode asks' },
    ]);
  });
});

describe('plan mode', () => {
  it('denies a tool that is not read-only, saying so in the reason and the trail', async () => {
    const d = await decideIn('plan', {}, edit('x.txt'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toBe(
      'plan mode: only read-only tools run while planning, and Edit is not read-only',
    );
    expect(d.decidedBy).toEqual({ kind: 'mode', mode: 'plan' });
    expect(modeNotes(d)).toEqual([{ kind: 'mode', mode: 'plan', note: 'Edit is not read-only' }]);
  });

  it('denies a shell command not proven read-only, saying what it may do', async () => {
    const d = await decideIn('plan', {}, bash('touch x'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toBe(
      'plan mode: only read-only tools and shell commands proven read-only run while planning, and this command is not (it may write, run a program, connect, read outside the working directories, or use a program or option without a model)',
    );
    expect(modeNotes(d)).toEqual([
      { kind: 'mode', mode: 'plan', note: 'Bash: the command is not proven read-only' },
    ]);
  });

  it('runs a shell command its models prove read-only', async () => {
    const d = await decideIn('plan', {}, bash('ls'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe(
      `the command is proven read-only by its programs' models and mode "plan" runs read-only commands`,
    );
    expect(modeNotes(d)).toEqual([
      {
        kind: 'mode',
        mode: 'plan',
        note: "the command is proven read-only by its programs' models",
      },
    ]);
  });
});

describe('plan mode asks nothing', () => {
  it('denies a read-only tool an ask rule names, instead of asking', async () => {
    const d = await decideIn('plan', { ask: ['Read(./README.md)'] }, read('README.md'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toMatch(
      /^ask rule "Read\(\.\/README\.md\)" .* matched "file_path=README\.md"/,
    );
    // Plan mode denies it, and says so (not "dontAsk").
    expect(d.reason).toMatch(/; mode "plan" denies whatever would ask$/);
    expect(modeNotes(d)).toEqual([
      { kind: 'mode', mode: 'plan', note: 'plan denies what would ask' },
    ]);
  });
});

describe('a command that cannot be understood', () => {
  it('asks, decided by the parser, naming what was not understood', async () => {
    const d = await decideIn('default', { allow: ['Bash'] }, bash('eval "$X"'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      '"eval \\"$X\\"" cannot be fully understood (eval runs "$X", which is not known before it runs), so it is never allowed without asking',
    );
    expect(d.decidedBy).toEqual({
      kind: 'unparsed',
      reason: 'eval runs "$X", which is not known before it runs',
    });
  });
});

describe('dontAsk', () => {
  it('denies what would ask, both steps in the trail', async () => {
    const d = await decideIn('dontAsk', {}, bash('touch x'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toBe(
      'no rule allows "touch x" and mode "dontAsk" asks for tools that may change things; mode "dontAsk" denies whatever would ask',
    );
    expect(d.decidedBy).toEqual({ kind: 'mode', mode: 'dontAsk' });
    expect(modeNotes(d)).toEqual([
      { kind: 'mode', mode: 'dontAsk', note: 'no rule decides; the mode asks' },
      { kind: 'mode', mode: 'dontAsk', note: 'dontAsk denies what would ask' },
    ]);
  });
});

describe('bypassPermissions', () => {
  const rules = { ask: ['Bash(touch:*)'], deny: ['Bash(rm:*)', 'Read(./.env)'] };
  it('skips an ask rule but not a deny later on the line', async () => {
    const d = await decideIn('bypassPermissions', rules, bash('touch x; rm y'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain('matched "rm y"');
  });

  it('skips an ask rule but not a file operand that may be a denied file', async () => {
    const d = await decideIn('bypassPermissions', rules, bash('touch x; cat "$F"'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'the file operand "$F" is not known before it runs and could be a file a path rule protects (read)',
    );
  });

  it('skipping an ask rule is recorded, and the rule is what decided', async () => {
    const d = await decideIn('bypassPermissions', rules, bash('touch x'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('it runs touch x');
    expect(d.decidedBy).toMatchObject({ kind: 'rule', rule: 'Bash(touch:*)' });
    expect(modeNotes(d)).toEqual([
      { kind: 'mode', mode: 'bypassPermissions', note: 'bypassPermissions skips ask rules' },
    ]);
  });

  it('records skipping only when an ask was skipped, among other parts too', async () => {
    const rules = { ask: ['Bash(touch:*)'], allow: ['Bash(ls:*)'] };
    const plain = await decideIn('bypassPermissions', rules, bash('ls'));
    expect(plain.behavior).toBe('allow');
    expect(modeNotes(plain)).toEqual([]);
    const mixed = await decideIn('bypassPermissions', rules, bash('touch x; ls'));
    expect(mixed.behavior).toBe('allow');
    expect(modeNotes(mixed)).toEqual([
      { kind: 'mode', mode: 'bypassPermissions', note: 'bypassPermissions skips ask rules' },
    ]);
    const allowed = await decideIn('default', rules, bash('ls'));
    expect(modeNotes(allowed)).toEqual([]);
  });

  it('allows what no rule names, saying so', async () => {
    const d = await decideIn('bypassPermissions', {}, bash('touch x'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('mode "bypassPermissions" allows touch x');
    expect(d.decidedBy).toEqual({ kind: 'mode', mode: 'bypassPermissions' });
    expect(modeNotes(d)).toEqual([
      {
        kind: 'mode',
        mode: 'bypassPermissions',
        note: 'bypassPermissions allows what no rule denies',
      },
    ]);
  });
});

describe('the worst part', () => {
  it('of two equally bad parts, the first is the one named', async () => {
    const d = await decideIn('default', { deny: ['Bash(rm:*)'] }, bash('rm a; rm b'));
    expect(d.reason).toBe('deny rule "Bash(rm:*)" (options, deny[0]) matched "rm a": it runs rm a');
  });

  it('a deny lists no grants, though a grant allowed another part', async () => {
    const allowed = await decideIn('default', {}, bash('ls'), 'Bash(ls:*)');
    expect(allowed.grants).toHaveLength(1);
    const d = await decideIn('default', { deny: ['Bash(rm:*)'] }, bash('ls; rm x'), 'Bash(ls:*)');
    expect(d.behavior).toBe('deny');
    expect(d.grants).toEqual([]);
  });

  it('a part no rule decided is decided by the policy, with its reason', async () => {
    const d = await decideIn(
      'default',
      { allow: ['Bash(cat:*)'], deny: ['Read(./.env)'] },
      bash('cat "$F"'),
    );
    expect(d.behavior).toBe('ask');
    expect(d.decidedBy).toEqual({
      kind: 'policy',
      reason:
        'the file operand "$F" is not known before it runs and could be a file a path rule protects (read)',
    });
  });

  it('of several allowed parts, the reason names them all', async () => {
    const d = await decideIn('default', { allow: ['Bash(ls:*)', 'Bash(pwd:*)'] }, bash('ls; pwd'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('every part is allowed (ls; pwd)');
  });
});

describe('acceptEdits', () => {
  it('accepts an edit inside the working directories, saying so', async () => {
    const d = await decideIn('acceptEdits', {}, edit('x.txt'));
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe(
      'mode "acceptEdits" accepts file edits inside the working directories (file_path=x.txt; Edit)',
    );
    expect(modeNotes(d)).toEqual([
      {
        kind: 'mode',
        mode: 'acceptEdits',
        note: 'file edits inside the working directories are accepted',
      },
    ]);
  });

  it('asks for an edit outside them', async () => {
    const d = await decideIn('acceptEdits', {}, edit('/etc/x.txt'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'no rule allows "file_path=/etc/x.txt; Edit" (outside the working directories) and mode "acceptEdits" asks for tools that may change things',
    );
  });
});
