/**
 * Path grants and a tool's own path allow rules: a grant written with a relative path covers the
 * project's files, a grant outranks an ask path rule (never a deny rule), and a tool's own allow
 * rule allows the paths no Read / Edit rule covers.
 */
import type { InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { bash, call, edit, makeProject, read } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision } from '../types';

const { root, home } = makeProject();
const decideIn = async (
  rules: PermissionRules,
  exec: InterceptedExecution,
  grants: readonly string[] = [],
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode: 'default' });
  await policy.ready;
  for (const rule of grants) await policy.addGrant({ rule });
  return policy.explain(exec);
};

describe('a path grant written relative', () => {
  it.each([
    ['Edit(./x.txt)', 'x.txt'],
    ['Edit(src/**)', 'src/new.ts'],
    ['Edit(/src/**)', 'src/new.ts'],
    ['Edit(x.txt)', 'src/sub/x.txt'],
  ])('%s covers %s in the project', async (grant, file) => {
    const d = await decideIn({}, edit(file), [grant]);
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toMatchObject({ kind: 'grant' });
    expect(d.trail).toContainEqual(
      expect.objectContaining({ kind: 'grant', rule: grant, matched: true }),
    );
  });

  it('covers only its own path, resolved against the project', async () => {
    expect((await decideIn({}, edit('y.txt'), ['Edit(./x.txt)'])).behavior).toBe('ask');
    expect((await decideIn({}, edit(`${home}/x.txt`), ['Edit(./x.txt)'])).behavior).toBe('ask');
    // `/x` is the project's, as in a rule from options, not the filesystem root's.
    expect((await decideIn({}, edit('/tmp/dsh-grant-x.txt'), ['Edit(/tmp/**)'])).behavior).toBe(
      'ask',
    );
    expect(
      (await decideIn({}, edit('/tmp/dsh-grant-x.txt'), ['Edit(//tmp/dsh-grant-x.txt)'])).behavior,
    ).toBe('allow');
  });

  it('never outranks a deny rule', async () => {
    const d = await decideIn({ deny: ['Read(./.env)'] }, read('.env'), ['Read(./.env)']);
    expect(d.behavior).toBe('deny');
  });
});

describe('a path grant and an ask path rule', () => {
  it('the grant of the asking rule allows what it asked about', async () => {
    const rules = { ask: ['Read(./README.md)'] };
    expect((await decideIn(rules, read('README.md'))).behavior).toBe('ask');
    const d = await decideIn(rules, read('README.md'), ['Read(./README.md)']);
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toMatchObject({ kind: 'grant' });
  });

  it('an absolute grant outranks an ask rule too, and a grant elsewhere does not', async () => {
    const rules = { ask: ['Edit(./src/**)'] };
    const granted = await decideIn(rules, edit('src/a.ts'), [`Edit(/${root}/src/a.ts)`]);
    expect(granted.behavior).toBe('allow');
    const other = await decideIn(rules, edit('src/a.ts'), [`Edit(/${root}/src/b.ts)`]);
    expect(other.behavior).toBe('ask');
    expect(other.reason).toContain('ask rule "Edit(./src/**)"');
  });
});

describe('a path grant and a shell command', () => {
  it('does not answer an ask path rule for a file a command reads (a shell grant does)', async () => {
    const rules = { allow: ['Bash(cat:*)'], ask: ['Read(./README.md)'] };
    const d = await decideIn(rules, bash('cat README.md'), ['Read(./README.md)']);
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('ask rule "Read(./README.md)"');
    expect((await decideIn(rules, bash('cat README.md'), ['Bash(cat README.md)'])).behavior).toBe(
      'allow',
    );
  });
});

describe("a tool's own path allow rule", () => {
  const COPY = {
    paths: [
      { arg: 'from', access: 'read' as const },
      { arg: 'to', access: 'write' as const },
    ],
  };
  const copy = (from: string, to: string) => call('Copy', { from, to }, COPY);

  it('allows the paths it covers when no Read / Edit rule does', async () => {
    const d = await decideIn({ allow: ['Copy(./**)'] }, copy('README.md', 'x.txt'));
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toMatchObject({ kind: 'rule', rule: 'Copy(./**)' });
  });

  it('asks for a path it does not cover', async () => {
    const d = await decideIn({ allow: ['Copy(./src/**)'] }, copy('src/a.ts', 'x.txt'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('to=x.txt');
  });

  it('is outranked by a Read / Edit ask or deny rule on the path', async () => {
    const allow = ['Copy(./**)'];
    expect(
      (await decideIn({ allow, ask: ['Read(./README.md)'] }, copy('README.md', 'x.txt'))).behavior,
    ).toBe('ask');
    expect(
      (await decideIn({ allow, deny: ['Edit(./x.txt)'] }, copy('README.md', 'x.txt'))).behavior,
    ).toBe('deny');
  });

  it('a directory holding a protected path still asks', async () => {
    const d = await decideIn({ allow: ['Copy(./**)'], deny: ['Read(./.env)'] }, copy('.', 'x'));
    expect(d.behavior).toBe('ask');
  });
});
