/**
 * A dangling link whose target lies in a denied directory is judged as its target: what a write
 * through the link creates. This layer once kept the link's name (`notes.txt`, allowed) while the
 * sandbox followed it (`secrets/planted.txt`, denied); both now resolve with the policy kit's
 * `resolvePath` in `real` mode, and the sandbox has the twin of this test. A real link in a temp
 * directory; the write is first made unguarded to show where it lands.
 */
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, edit, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { resolveLikeKernel } from './resolve';

const RULES = {
  allow: ['Edit(./notes.txt)', 'Edit(./fresh-link)', 'Bash(echo:*)'],
  deny: ['Edit(./secrets/**)'],
};

let root: string;
let home: string;
let planted: string;
beforeAll(() => {
  ({ root, home } = makeProject());
  planted = join(root, 'secrets', 'planted.txt');
  // Dangling: secrets/planted.txt does not exist until something writes through the link.
  symlinkSync('secrets/planted.txt', join(root, 'notes.txt'));
  symlinkSync('src/fresh.ts', join(root, 'fresh-link'));
});
afterAll(() => rmSync(dirname(root), { recursive: true, force: true }));

describe('a dangling link into a denied directory', () => {
  it('unguarded, a write to the link creates a file in the denied directory', () => {
    writeFileSync(join(root, 'notes.txt'), 'planted');
    expect(readFileSync(planted, 'utf8')).toBe('planted');
    rmSync(planted);
    expect(existsSync(planted)).toBe(false);
  });

  it('resolves to the link target, not the link name', () => {
    expect(resolveLikeKernel('notes.txt', root, home)).toEqual({
      lexical: join(root, 'notes.txt'),
      real: planted,
    });
  });

  it('an edit of the link is denied by the rule on the target', async () => {
    const policy = permissionInterceptor({ cwd: root, home, rules: RULES });
    await policy.ready;
    const decision = await policy.explain(edit('notes.txt'));
    expect(decision.behavior, decision.reason).toBe('deny');
    expect(decision.decidedBy).toMatchObject({ kind: 'rule', rule: 'Edit(./secrets/**)' });
  });

  it('a shell redirection into the link is denied by the rule on the target', async () => {
    const policy = permissionInterceptor({ cwd: root, home, rules: RULES });
    await policy.ready;
    const decision = await policy.explain(bash('echo planted > notes.txt'));
    expect(decision.behavior, decision.reason).toBe('deny');
  });

  it('control: a dangling link whose target is not denied is allowed by its rule', async () => {
    const policy = permissionInterceptor({ cwd: root, home, rules: RULES });
    await policy.ready;
    const decision = await policy.explain(edit('fresh-link'));
    expect(decision.behavior, decision.reason).not.toBe('deny');
  });
});
