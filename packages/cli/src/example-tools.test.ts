import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { permissionInterceptor } from '@dsh-tools/interceptors-permission';
import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { createExampleTools } from './example-tools';

let root: string;
let outside: string;
const registry = () => {
  const r = createToolRegistry({ onError: () => {} });
  for (const tool of createExampleTools({ root })) r.register(tool);
  return r;
};
let n = 0;
const call = (name: string, args: Record<string, unknown>) =>
  registry().execute({ callId: `c${++n}`, name, arguments: args });
const text = (r: { content: readonly { type: string; text?: string }[] }) =>
  r.content.map((b) => b.text).join('');

beforeEach(() => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ex-')));
  root = join(base, 'work');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree');
  mkdirSync(join(root, 'sub'));
});

describe('example tools', () => {
  it('read_file reads inside the workspace, with line offset and limit', async () => {
    expect(text(await call('read_file', { path: 'a.txt' }))).toBe('one\ntwo\nthree');
    expect(text(await call('read_file', { path: 'a.txt', offset: 1, limit: 1 }))).toBe('two');
    expect(text(await call('read_file', { path: join(root, 'a.txt') }))).toBe('one\ntwo\nthree');
  });

  it('list_dir under a permission policy leaves out what its Read denies cover, without asking', async () => {
    writeFileSync(join(root, '.env'), 'TOKEN=1');
    mkdirSync(join(root, 'secrets'));
    symlinkSync(join(root, '.env'), join(root, 'env-link'));
    const asked: string[] = [];
    const r = registry();
    r.use(
      permissionInterceptor({
        cwd: root,
        rules: { allow: ['list_dir'], deny: ['Read(./.env)', 'Read(./secrets/**)'] },
        approve: (request) => {
          asked.push(request.reason);
          return { kind: 'deny', reason: 'no' };
        },
      }),
    );
    const listed = await r.execute({ callId: 'l', name: 'list_dir', arguments: { path: '.' } });
    expect(text(listed)).toBe('a.txt\nsub/');
    expect(asked).toEqual([]);
    // Without the policy the names are there: the exclusion is what hides them.
    expect(text(await call('list_dir', {}))).toBe('.env\na.txt\nenv-link@\nsecrets/\nsub/');
  });

  it('list_dir lists sorted entries, directories marked', async () => {
    expect(text(await call('list_dir', {}))).toBe('a.txt\nsub/');
    expect(text(await call('list_dir', { path: 'sub' }))).toBe('(empty directory)');
  });

  it('write_file writes atomically, creating parents, and leaves no temporary file', async () => {
    const result = await call('write_file', { path: 'sub/deep/new.txt', content: 'hello' });
    expect(result.isError).toBe(false);
    expect(readFileSync(join(root, 'sub/deep/new.txt'), 'utf8')).toBe('hello');
    expect(text(await call('list_dir', { path: 'sub/deep' }))).toBe('new.txt');
  });

  it('refuses paths outside the workspace: "..", absolute, and through a symlink', async () => {
    symlinkSync(outside, join(root, 'link'));
    for (const path of [
      '../outside/secret.txt',
      join(outside, 'secret.txt'),
      'link/secret.txt',
      'sub/../../outside/secret.txt',
    ]) {
      const result = await call('read_file', { path });
      expect(result.isError).toBe(true);
      expect(result.error?.code).toBe('SANDBOX_VIOLATION');
      expect(result.error?.message).toContain('outside the workspace');
    }
    const write = await call('write_file', { path: 'link/new.txt', content: 'x' });
    expect(write.error?.code).toBe('SANDBOX_VIOLATION');
  });

  it('says what is wrong with a path: missing, a directory, a NUL byte', async () => {
    expect((await call('read_file', { path: 'nope.txt' })).error?.message).toContain(
      'does not exist',
    );
    expect((await call('read_file', { path: 'sub' })).error?.message).toContain(
      'is a directory; use list_dir',
    );
    expect((await call('list_dir', { path: 'a.txt' })).error?.message).toContain(
      'is not a directory',
    );
    expect((await call('read_file', { path: 'a\0b' })).error?.code).toBe('INVALID_ARGS');
  });

  it('bounds what it reads and writes', async () => {
    writeFileSync(join(root, 'big.txt'), 'x'.repeat(300 * 1024));
    const read = text(await call('read_file', { path: 'big.txt' }));
    expect(read).toContain('cut: the file has 307200 bytes');
    expect(read.length).toBeLessThan(270 * 1024);
    const write = await call('write_file', {
      path: 'huge.txt',
      content: 'x'.repeat(1024 * 1024 + 1),
    });
    expect(write.error?.code).toBe('INVALID_ARGS');
  });

  it('writable: false leaves write_file out', () => {
    expect(createExampleTools({ root, writable: false }).map((t) => t.name)).toEqual([
      'read_file',
      'list_dir',
    ]);
  });

  it('property: no path, however built from "..", "/" and names, reads a file outside the workspace', async () => {
    symlinkSync('../outside', join(root, 'up'));
    const segment = fc.constantFrom(
      '..',
      '.',
      'sub',
      'up',
      'outside',
      'secret.txt',
      'a.txt',
      '',
      '/',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { maxLength: 6 }),
        fc.boolean(),
        async (parts, absolute) => {
          const path = (absolute ? '/' : '') + parts.join('/');
          if (path === '') return;
          const result = await call('read_file', { path });
          if (!result.isError) expect(text(result)).not.toContain('secret');
        },
      ),
      { numRuns: 200 },
    );
  });
});
