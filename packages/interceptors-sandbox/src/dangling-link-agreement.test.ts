/**
 * A dangling link whose target lies in a denied directory is judged as its target: what
 * open(O_CREAT) through the link would create. The permission layer once kept the link's name
 * and the sandbox followed it, so the two judged one path differently; both now resolve with the
 * policy kit's `resolvePath` in `real` mode, and permission has the twin of this test. Real files
 * and a real link, the attack run unguarded first.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createToolRegistry } from '@dsh-tools/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleTools,
  link,
  makeTree,
  outcome,
  sandboxedRegistry,
  type Tree,
} from '../test/fixtures';

let t: Tree;
let planted: string;
beforeAll(async () => {
  t = await makeTree();
  await mkdir(`${t.ws}/secrets`);
  planted = `${t.ws}/secrets/planted.txt`;
  // Dangling: secrets/planted.txt does not exist until something writes through the link.
  await link('secrets/planted.txt', `${t.ws}/notes.txt`);
});
afterAll(() => t.cleanup());

describe('a dangling link into a denied directory', () => {
  it('unguarded, a write to the link creates a file in the denied directory', async () => {
    const registry = createToolRegistry();
    registry.register(exampleTools(t.ws).writeFileTool);
    const result = await registry.execute({
      callId: 'u1',
      name: 'write_file',
      arguments: { path: 'notes.txt', content: 'planted' },
    });
    expect(outcome(result)).toBe('ok');
    expect(await readFile(planted, 'utf8')).toBe('planted');
    await rm(planted);
  });

  it("guarded, the write is vetoed as the link's target, which is never created", async () => {
    const { call } = sandboxedRegistry({
      mode: 'workspace-write',
      cwd: t.ws,
      denyWrite: ['secrets/**'],
    });
    const result = await call('write_file', { path: 'notes.txt', content: 'planted' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(`(resolves to "${planted}")`);
    expect(existsSync(planted)).toBe(false);
  });

  it('control: a link whose target is allowed is written through', async () => {
    await link('sub/fresh.txt', `${t.ws}/fresh-link`);
    const { call } = sandboxedRegistry({
      mode: 'workspace-write',
      cwd: t.ws,
      denyWrite: ['secrets/**'],
    });
    const result = await call('write_file', { path: 'fresh-link', content: 'fine' });
    expect(outcome(result)).toBe('ok');
    expect(await readFile(`${t.ws}/sub/fresh.txt`, 'utf8')).toBe('fine');
  });
});
