/**
 * The path half of the escape corpus: calls through a real registry, against a real file system
 * in a temp dir, each trying to make a tool read or write outside what the mode permits. Every
 * escape must come back SANDBOX_VIOLATION and leave the file system untouched; the "stays inside"
 * table proves the checks are not simply refusing everything.
 */
import { link as hardLink, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineTool } from '@dsh-tools/define-tool';
import type { InterceptedExecution, ToolDefinition, ToolView } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { link, makeTree, outcome, sandboxedRegistry, type Tree } from '../test/fixtures';
import { type SandboxViolationDetails, sandboxInterceptor } from './index';

let tree: Tree;
beforeAll(async () => {
  tree = await makeTree();
  const { ws, outside } = tree;
  await link(outside, `${ws}/out`);
  await link(`${outside}/secret.txt`, `${ws}/secret-link.txt`);
  await link('chain2', `${ws}/chain1`);
  await link('chain3', `${ws}/chain2`);
  await link('../outside', `${ws}/chain3`);
  await link('..', `${ws}/up`);
  await link(`${outside}/new-by-dangling.txt`, `${ws}/dangle`);
  await link('dangle2', `${ws}/dangle1`);
  await link(`${outside}/new-by-chain.txt`, `${ws}/dangle2`);
  await link(`${outside}/no-such-dir/new.txt`, `${ws}/dangle-deep`);
  await link(`${outside}/dir`, `${ws}/parent`);
  await link('loop2', `${ws}/loop1`);
  await link('loop1', `${ws}/loop2`);
  await link('.env', `${ws}/innocent`);
  await link('sub', `${ws}/insub`);
  await link('sub/planned.txt', `${ws}/dangle-inside`);
  await hardLink(`${outside}/secret.txt`, `${ws}/hard.txt`);
  await mkdir(`${ws}/\uff0e\uff0e`);
});
afterAll(() => tree.cleanup());

// The property test runs on a fixed seed (FC_SEED=<n> explores others); a failure names the seed.
const seed = Number(process.env.FC_SEED ?? 7);
console.info(`path-escapes property test: fast-check seed ${seed}`);

interface EscapeCase {
  readonly name: string;
  readonly tool: 'read_file' | 'write_file';
  /** The path argument, built from the tree. */
  readonly path: (t: Tree) => string;
  /** A fragment the violation's rule must contain. */
  readonly rule: string;
  /** A host file that must not exist afterwards (writes). */
  readonly mustNotExist?: (t: Tree) => string;
}

const pid = process.pid;
const escapes: readonly EscapeCase[] = [
  // traversal, plain and disguised
  {
    name: '../ plain',
    tool: 'write_file',
    path: () => '../outside/t1.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t1.txt`,
  },
  {
    name: '../ after a subdirectory',
    tool: 'write_file',
    path: () => 'sub/../../outside/t2.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t2.txt`,
  },
  {
    name: '../ mixed with ./',
    tool: 'write_file',
    path: () => './sub/./.././../outside/./t3.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t3.txt`,
  },
  {
    name: '../ with doubled slashes',
    tool: 'write_file',
    path: () => '..//outside//t4.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t4.txt`,
  },
  {
    name: '../ with doubled slashes after a subdirectory',
    tool: 'write_file',
    path: () => 'sub//..//..//outside/t5.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t5.txt`,
  },
  {
    name: '../ past the file system root',
    tool: 'write_file',
    path: (t) => `${'../'.repeat(40)}${t.outside.slice(1)}/t6.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t6.txt`,
  },
  {
    name: '../ through a directory that does not exist yet',
    tool: 'write_file',
    path: () => 'new-dir/../../outside/t7.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t7.txt`,
  },
  {
    name: 'trailing .. resolving to the parent',
    tool: 'write_file',
    path: () => 'sub/../..',
    rule: 'inside the roots',
  },
  // absolute paths
  {
    name: 'absolute path outside',
    tool: 'write_file',
    path: (t) => `${t.outside}/t8.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t8.txt`,
  },
  {
    name: 'absolute path into /etc',
    tool: 'write_file',
    path: () => '/etc/dsh-sandbox-escape',
    rule: 'inside the roots',
    mustNotExist: () => '/etc/dsh-sandbox-escape',
  },
  {
    name: 'absolute path through the root and ..',
    tool: 'write_file',
    path: (t) => `${t.ws}/../outside/t9.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t9.txt`,
  },
  {
    name: 'absolute path with a doubled leading slash',
    tool: 'write_file',
    path: (t) => `/${t.outside}/t10.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t10.txt`,
  },
  // symbolic links
  {
    name: 'symlinked directory to outside',
    tool: 'write_file',
    path: () => 'out/t11.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t11.txt`,
  },
  {
    name: 'symlink to an outside file',
    tool: 'write_file',
    path: () => 'secret-link.txt',
    rule: 'inside the roots',
  },
  {
    name: 'symlink chain (3 links) to outside',
    tool: 'write_file',
    path: () => 'chain1/t12.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t12.txt`,
  },
  {
    name: 'symlink to .. then down',
    tool: 'write_file',
    path: () => 'up/outside/t13.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t13.txt`,
  },
  {
    name: 'dangling symlink whose target is outside',
    tool: 'write_file',
    path: () => 'dangle',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/new-by-dangling.txt`,
  },
  {
    name: 'dangling symlink chain ending outside',
    tool: 'write_file',
    path: () => 'dangle1',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/new-by-chain.txt`,
  },
  {
    name: 'dangling symlink into a missing outside directory',
    tool: 'write_file',
    path: () => 'dangle-deep',
    rule: 'inside the roots',
  },
  {
    name: 'symlinked parent directory, new file',
    tool: 'write_file',
    path: () => 'parent/t14.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/dir/t14.txt`,
  },
  {
    name: 'symlinked parent directory, new nested path',
    tool: 'write_file',
    path: () => 'parent/a/b/t15.txt',
    rule: 'inside the roots',
  },
  {
    name: '.. after a symlinked directory (kernel: the target parent)',
    tool: 'write_file',
    path: () => 'parent/../t16.txt',
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t16.txt`,
  },
  { name: 'symlink loop', tool: 'write_file', path: () => 'loop1/t17.txt', rule: 'symbolic links' },
  { name: 'symlink loop on read', tool: 'read_file', path: () => 'loop2', rule: 'symbolic links' },
  // /proc magic links
  {
    name: '/proc/self/root',
    tool: 'write_file',
    path: (t) => `/proc/self/root${t.outside}/t18.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t18.txt`,
  },
  {
    name: '/proc/<pid>/root',
    tool: 'write_file',
    path: (t) => `/proc/${pid}/root${t.outside}/t19.txt`,
    rule: 'inside the roots',
    mustNotExist: (t) => `${t.outside}/t19.txt`,
  },
  {
    name: '/proc/thread-self/root',
    tool: 'write_file',
    path: (t) => `/proc/thread-self/root${t.outside}/t20.txt`,
    rule: 'inside the roots',
  },
  {
    name: '/proc/self/cwd (the host process cwd)',
    tool: 'write_file',
    path: () => '/proc/self/cwd/dsh-sandbox-t21.txt',
    rule: 'inside the roots',
    mustNotExist: () => `${process.cwd()}/dsh-sandbox-t21.txt`,
  },
  {
    name: '/proc/self/cwd/..',
    tool: 'write_file',
    path: () => '/proc/self/cwd/../dsh-sandbox-t22.txt',
    rule: 'inside the roots',
  },
  {
    name: '/proc/self/environ (host secrets)',
    tool: 'read_file',
    path: () => '/proc/self/environ',
    rule: 'denyRead "/proc/*/environ"',
  },
  {
    name: '/proc/<pid>/environ',
    tool: 'read_file',
    path: () => `/proc/${pid}/environ`,
    rule: 'denyRead "/proc/*/environ"',
  },
  {
    name: '/proc/self/root/proc/self/environ',
    tool: 'read_file',
    path: () => '/proc/self/root/proc/self/environ',
    rule: 'denyRead',
  },
  // deny lists
  { name: 'read .env', tool: 'read_file', path: () => '.env', rule: 'denyRead "**/.env*"' },
  {
    name: 'read .env through ..',
    tool: 'read_file',
    path: () => 'sub/../.env',
    rule: 'denyRead "**/.env*"',
  },
  {
    name: 'read .env through an innocently named symlink',
    tool: 'read_file',
    path: () => 'innocent',
    rule: 'denyRead "**/.env*"',
  },
  {
    name: 'read ~/.ssh (tilde expanded by the tool)',
    tool: 'read_file',
    path: () => '~/.ssh/id_ed25519',
    rule: 'denyRead "~/.ssh/**"',
  },
  {
    name: 'read ~/.ssh by absolute path',
    tool: 'read_file',
    path: () => `${homedir()}/.ssh/id_rsa`,
    rule: 'denyRead "~/.ssh/**"',
  },
  {
    name: 'read ~/.aws credentials',
    tool: 'read_file',
    path: () => `${homedir()}/.aws/credentials`,
    rule: 'denyRead "~/.aws/**"',
  },
  { name: 'write .env', tool: 'write_file', path: () => '.env', rule: '.env*' },
  {
    name: 'write .env.local (new)',
    tool: 'write_file',
    path: () => 'sub/.env.local',
    rule: '.env*',
    mustNotExist: (t) => `${t.ws}/sub/.env.local`,
  },
  {
    name: 'write a git hook',
    tool: 'write_file',
    path: () => '.git/hooks/pre-commit',
    rule: 'denyWrite "**/.git/hooks/**"',
  },
  {
    name: 'write a new git hook',
    tool: 'write_file',
    path: () => '.git/hooks/post-checkout',
    rule: 'denyWrite "**/.git/hooks/**"',
    mustNotExist: (t) => `${t.ws}/.git/hooks/post-checkout`,
  },
  { name: 'write ~/.bashrc', tool: 'write_file', path: () => '~/.bashrc', rule: '~/.bashrc' },
  {
    name: 'write ~/.zshrc by absolute path',
    tool: 'write_file',
    path: () => `${homedir()}/.zshrc`,
    rule: '',
  },
  { name: 'write ~/.profile', tool: 'write_file', path: () => '~/.profile', rule: '~/.profile' },
  // hard links
  {
    name: 'write through a hard link to an outside file',
    tool: 'write_file',
    path: () => 'hard.txt',
    rule: 'hard links',
  },
  // shape
  {
    name: 'null byte',
    tool: 'write_file',
    path: () => 'file.txt\u0000../../outside/t23.txt',
    rule: 'null byte',
  },
  {
    name: 'longer than PATH_MAX',
    tool: 'write_file',
    path: () => `${'a/'.repeat(2100)}x`,
    rule: 'PATH_MAX',
  },
  {
    name: 'longer than PATH_MAX in multibyte characters',
    tool: 'read_file',
    path: () => '\u00e9'.repeat(2100),
    rule: 'PATH_MAX',
  },
  {
    name: 'component longer than NAME_MAX',
    tool: 'write_file',
    path: () => `sub/${'n'.repeat(256)}`,
    rule: 'NAME_MAX',
  },
  {
    name: 'component longer than NAME_MAX in bytes only',
    tool: 'write_file',
    path: () => `sub/${'\u00e9'.repeat(128)}`,
    rule: 'NAME_MAX',
  },
  { name: 'empty path', tool: 'write_file', path: () => '', rule: 'empty' },
];

const allowed: readonly {
  name: string;
  tool: 'read_file' | 'write_file';
  path: (t: Tree) => string;
}[] = [
  { name: 'relative file', tool: 'write_file', path: () => 'ok1.txt' },
  { name: 'nested new file', tool: 'write_file', path: () => 'sub/ok2.txt' },
  { name: 'absolute inside the root', tool: 'write_file', path: (t) => `${t.ws}/ok3.txt` },
  { name: '.. that stays inside', tool: 'write_file', path: () => 'sub/../ok4.txt' },
  { name: 'symlink inside the root', tool: 'write_file', path: () => 'insub/ok5.txt' },
  {
    name: 'dangling symlink whose target is inside',
    tool: 'write_file',
    path: () => 'dangle-inside',
  },
  {
    name: 'fullwidth dots are a name, not ..',
    tool: 'write_file',
    path: () => '\uff0e\uff0e/ok6.txt',
  },
  { name: 'a name that merely starts with ..', tool: 'write_file', path: () => '..ok7.txt' },
  {
    name: 'reading outside the roots (reads are not confined)',
    tool: 'read_file',
    path: (t) => `${t.outside}/secret.txt`,
  },
  {
    name: 'reading through a symlink to outside',
    tool: 'read_file',
    path: () => 'secret-link.txt',
  },
];

describe('path escapes: workspace-write, through the registry', () => {
  it('the corpus is large enough', () => {
    expect(escapes.length).toBeGreaterThanOrEqual(50);
  });

  it.each(escapes)('blocks: $name', async (c) => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const before = await readFile(`${tree.outside}/secret.txt`, 'utf8');
    const args =
      c.tool === 'write_file' ? { path: c.path(tree), content: 'ESCAPED' } : { path: c.path(tree) };
    const result = await call(c.tool, args);
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(`Tool "${c.tool}"`);
    expect(result.error?.message).toContain('argument "path"');
    const details = result.error?.details as { violation: { rule: string; path: string } };
    expect(details.violation.rule).toContain(c.rule);
    expect(details.violation.path).toBe(c.path(tree).slice(0, 200));
    expect(await readFile(`${tree.outside}/secret.txt`, 'utf8')).toBe(before);
    if (c.mustNotExist) await expect(stat(c.mustNotExist(tree))).rejects.toThrow(/ENOENT/);
  });

  it.each(allowed)('lets through: $name', async (c) => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const args =
      c.tool === 'write_file' ? { path: c.path(tree), content: 'fine' } : { path: c.path(tree) };
    const result = await call(c.tool, args);
    expect(result.error).toBeUndefined();
  });

  it('names the argument, the path as given, the resolved target and the rule', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const result = await call('write_file', { path: 'out/x.txt', content: '' });
    expect(result.error?.message).toBe(
      `Tool "write_file": argument "path" = "out/x.txt" (resolves to "${tree.outside}/x.txt") may not be written: mode "workspace-write" permits writes only inside the roots ("${tree.ws}"). Use a path the sandbox permits.`,
    );
    expect(result.error?.details).toMatchObject({
      interceptor: 'sandbox',
      mode: 'workspace-write',
      tool: 'write_file',
      violation: {
        arg: 'path',
        access: 'write',
        path: 'out/x.txt',
        resolved: `${tree.outside}/x.txt`,
      },
    });
  });

  it('checks nested path arguments and names the element', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const result = await call('copy_files', {
      pairs: [
        { from: 'file.txt', to: 'copy1.txt' },
        { from: 'file.txt', to: '../outside/copy2.txt' },
      ],
    });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain('argument "pairs.1.to"');
    await expect(stat(`${tree.ws}/copy1.txt`)).rejects.toThrow(/ENOENT/);
    const read = await call('copy_files', { pairs: [{ from: '.env', to: 'copy3.txt' }] });
    expect(read.error?.message).toContain('argument "pairs.0.from"');
  });

  it('resolves the roots too: a symlinked root confines to its target', async () => {
    await link(tree.ws, `${tree.base}/ws-link`);
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: `${tree.base}/ws-link` });
    expect(outcome(await call('write_file', { path: 'via-link.txt', content: 'x' }))).toBe('ok');
    expect(await readFile(`${tree.ws}/via-link.txt`, 'utf8')).toBe('x');
    expect(outcome(await call('write_file', { path: '../outside/t30.txt', content: 'x' }))).toBe(
      'SANDBOX_VIOLATION',
    );
  });

  it('applies custom deny globs to resolved targets', async () => {
    const { call } = sandboxedRegistry({
      mode: 'workspace-write',
      cwd: tree.ws,
      denyRead: [`${tree.outside}/**`],
    });
    const result = await call('read_file', { path: 'secret-link.txt' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(`denyRead "${tree.outside}/**"`);
    // Which list and which glob, as data: a tool (dsh-tools check) need not read the message.
    const details = result.error?.details as SandboxViolationDetails | undefined;
    expect(details?.violation?.deny).toEqual({ list: 'denyRead', glob: `${tree.outside}/**` });
    expect(details?.rule).toBe(`denyRead "${tree.outside}/**"`);
    // A refusal by the mode names no glob.
    const write = await call('write_file', { path: `${tree.base}/mode-refused.txt`, content: 'x' });
    expect(write.error?.message).toContain('mode "workspace-write"');
    const writeDetails = write.error?.details as SandboxViolationDetails | undefined;
    expect(writeDetails?.rule).toContain('mode "workspace-write"');
    expect(writeDetails?.violation?.deny).toBeUndefined();
  });
});

describe('unicode: paths are bytes, as the kernel sees them', () => {
  const nfc = 'caf\u00e9';
  const nfd = 'cafe\u0301';
  it.each([
    { name: 'NFD sibling of an NFC root', root: nfc, target: nfd },
    { name: 'NFC sibling of an NFD root', root: nfd, target: nfc },
    { name: 'fullwidth solidus sibling', root: 'w', target: 'w\uff0f..' },
  ])('blocks writing to the $name', async ({ root, target }) => {
    const dir = `${tree.base}/u-${root.length}-${target.length}`;
    await mkdir(`${dir}/${root}`, { recursive: true });
    await mkdir(`${dir}/${target}`, { recursive: true });
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: `${dir}/${root}` });
    const result = await call('write_file', { path: `${dir}/${target}/x.txt`, content: 'x' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    await expect(stat(`${dir}/${target}/x.txt`)).rejects.toThrow(/ENOENT/);
    expect(outcome(await call('write_file', { path: `${dir}/${root}/x.txt`, content: 'x' }))).toBe(
      'ok',
    );
  });
});

describe('modes', () => {
  it('read-only vetoes every tool not marked readOnly, naming the mode', async () => {
    const { call } = sandboxedRegistry({ mode: 'read-only', cwd: tree.ws });
    for (const [tool, args] of [
      ['write_file', { path: 'ro.txt', content: 'x' }],
      ['bash', { command: 'true' }],
      ['copy_files', { pairs: [] }],
    ] as const) {
      const result = await call(tool, args);
      expect(outcome(result)).toBe('SANDBOX_VIOLATION');
      expect(result.error?.message).toContain(`Tool "${tool}" is not marked readOnly`);
      expect(result.error?.message).toContain('mode "read-only"');
    }
    await expect(stat(`${tree.ws}/ro.txt`)).rejects.toThrow(/ENOENT/);
    expect(outcome(await call('read_file', { path: 'file.txt' }))).toBe('ok');
    expect(outcome(await call('read_file', { path: '.env' }))).toBe('SANDBOX_VIOLATION');
  });

  it('read-only vetoes a write path even on a tool that claims readOnly', async () => {
    const registry = createToolRegistry();
    registry.use(sandboxInterceptor({ mode: 'read-only', cwd: tree.ws }), { name: 'sandbox' });
    registry.register({
      name: 'liar',
      description: 'claims readOnly, writes',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      hints: { readOnly: true, paths: [{ arg: 'path', access: 'write' }] },
      execute: async () => [{ type: 'text', text: 'ran' }],
    });
    const result = await registry.execute({ callId: '1', name: 'liar', arguments: { path: 'x' } });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain('mode "read-only" permits no writes');
  });

  it('full-access checks only the deny lists', async () => {
    const { call } = sandboxedRegistry({ mode: 'full-access', cwd: tree.ws });
    expect(outcome(await call('write_file', { path: '../outside/full.txt', content: 'x' }))).toBe(
      'ok',
    );
    expect(await readFile(`${tree.outside}/full.txt`, 'utf8')).toBe('x');
    expect(outcome(await call('write_file', { path: '.env', content: 'x' }))).toBe(
      'SANDBOX_VIOLATION',
    );
    expect(outcome(await call('read_file', { path: 'innocent' }))).toBe('SANDBOX_VIOLATION');
    expect(outcome(await call('write_file', { path: '~/.bashrc', content: 'x' }))).toBe(
      'SANDBOX_VIOLATION',
    );
  });

  it('workspace-write with several roots permits each of them', async () => {
    const { call } = sandboxedRegistry({
      mode: 'workspace-write',
      cwd: tree.ws,
      roots: ['.', `${tree.outside}/dir`],
    });
    expect(outcome(await call('write_file', { path: 'parent/multi.txt', content: 'x' }))).toBe(
      'ok',
    );
    expect(outcome(await call('write_file', { path: '../outside/multi.txt', content: 'x' }))).toBe(
      'SANDBOX_VIOLATION',
    );
  });
});

describe('hostile arguments the schema lets through', () => {
  /** A tool whose schema accepts anything, so that only the sandbox stands between. */
  const loose: ToolDefinition = {
    name: 'loose',
    description: 'accepts anything',
    parameters: { type: 'object', properties: { path: {}, files: {} } },
    hints: {
      paths: [
        { arg: 'path', access: 'write' },
        { arg: 'files.*', access: 'read' },
      ],
    },
    execute: async () => [{ type: 'text', text: 'ran' }],
  };
  const registry = createToolRegistry();
  let ran = 0;
  registry.register({
    ...loose,
    execute: async () => {
      ran++;
      return [{ type: 'text', text: 'ran' }];
    },
  });

  it.each([
    { name: 'a number', args: { path: 42 }, rule: 'must be a string (got number)' },
    { name: 'null', args: { path: null }, rule: 'must be a string (got null)' },
    { name: 'an object', args: { path: { toString: 'x' } }, rule: 'must be a string (got object)' },
    { name: 'an array', args: { path: ['a'] }, rule: 'must be a string (got array)' },
    {
      name: 'a boolean element',
      args: { files: ['ok', true] },
      rule: 'must be a string (got boolean)',
    },
    {
      name: 'a string where an array is hinted',
      args: { files: 'a' },
      rule: 'must be an array or object',
    },
    {
      name: '2,000 paths',
      args: { files: Array.from({ length: 2000 }, (_, i) => `f${i}`) },
      rule: 'more than 1000',
    },
    { name: 'a 1 MB path', args: { path: 'x'.repeat(1 << 20) }, rule: 'PATH_MAX' },
  ])('refuses $name', async ({ args, rule }) => {
    const dispose = registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws }), {
      name: 'sandbox',
    });
    const result = await registry.execute({ callId: 'h', name: 'loose', arguments: args });
    dispose();
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(rule);
    expect(ran).toBe(0);
  });

  it('an object of paths behind * is checked value by value', async () => {
    const dispose = registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws }), {
      name: 'sandbox',
    });
    const result = await registry.execute({
      callId: 'h',
      name: 'loose',
      arguments: { files: { a: 'file.txt', b: '.env' } },
    });
    dispose();
    expect(result.error?.message).toContain('argument "files.b"');
  });
});

describe('what the interceptor hands on', () => {
  it('passes allowed calls through unchanged, with a runner attached', async () => {
    const interceptor = sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws });
    const tool = {
      name: 't',
      description: 'd',
      parameters: { type: 'object' as const },
      hints: {},
      source: { kind: 'local' as const },
    };
    const exec = Object.freeze({
      callId: 'x',
      name: 't',
      arguments: Object.freeze({ a: 1 }),
      tool,
    });
    let seen: unknown;
    const result = await interceptor(exec, async (changed) => {
      seen = changed;
      return { callId: 'x', content: [], isError: false };
    });
    expect(result.isError).toBe(false);
    expect(seen).toMatchObject({ callId: 'x', name: 't', arguments: { a: 1 }, tool });
    expect((seen as { sandbox: { mode: string; run: unknown } }).sandbox.mode).toBe(
      'workspace-write',
    );
    expect(typeof (seen as { sandbox: { run: unknown } }).sandbox.run).toBe('function');
  });

  it('never throws: an execution without a tool view or arguments is a result', async () => {
    const interceptor = sandboxInterceptor({ mode: 'read-only', cwd: tree.ws });
    const hostile0 = { callId: 'x', name: 't' } as unknown as InterceptedExecution;
    const result = await interceptor(hostile0, async () => {
      throw new Error('must not be reached');
    });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('SANDBOX_VIOLATION');
    const interceptor2 = sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws });
    const hostile = await interceptor2(
      {
        callId: 'x',
        name: 't',
        tool: { hints: { paths: [{ arg: 'p', access: 'write' }] } },
      } as unknown as InterceptedExecution,
      async () => ({ callId: 'x', content: [], isError: false }),
    );
    // No arguments means no path to check: the call goes on (the registry always sends some).
    expect(hostile.isError).toBe(false);
  });

  it('refuses a malformed hints.paths entry instead of checking nothing', async () => {
    const interceptor = sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws });
    const result = await interceptor(
      {
        callId: 'x',
        name: 't',
        arguments: { p: '/etc/passwd' },
        // A hint the registry would not produce.
        tool: { hints: { paths: [{ arg: 'p', access: 'rw' }] } } as unknown as ToolView,
      },
      async () => ({ callId: 'x', content: [], isError: false }),
    );
    expect(result.error?.code).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain('malformed hints.paths');
  });
});

describe('file: URLs and URL readings of a path argument', () => {
  /** Tool bodies that take their path argument as a URL, as some file APIs let them. */
  const urlTools = (cwd: string) => {
    const cwdUrl = pathToFileURL(`${cwd}/`);
    const text = (t: string) => [{ type: 'text' as const, text: t }];
    return [
      defineTool({
        name: 'url_write',
        description: 'writeFile(new URL(path))',
        parameters: { path: { type: 'string', required: true, path: 'write' } },
        async execute({ path }) {
          await writeFile(new URL(path), 'ESCAPED');
          return text('ok');
        },
      }),
      defineTool({
        name: 'url_read',
        description: 'readFile(fileURLToPath(path))',
        parameters: { path: { type: 'string', required: true, path: 'read' } },
        hints: { readOnly: true },
        execute: async ({ path }) => text(await readFile(fileURLToPath(path), 'utf8')),
      }),
      defineTool({
        name: 'rel_write',
        description: 'writeFile(new URL(path, cwdUrl))',
        parameters: { path: { type: 'string', required: true, path: 'write' } },
        async execute({ path }) {
          await writeFile(new URL(path, cwdUrl), 'ESCAPED');
          return text('ok');
        },
      }),
      defineTool({
        name: 'rel_read',
        description: 'readFile(new URL(path, cwdUrl))',
        parameters: { path: { type: 'string', required: true, path: 'read' } },
        hints: { readOnly: true },
        execute: async ({ path }) => text(await readFile(new URL(path, cwdUrl), 'utf8')),
      }),
    ];
  };
  const registryFor = (guarded: boolean) => {
    const registry = createToolRegistry();
    if (guarded) {
      registry.use(sandboxInterceptor({ mode: 'workspace-write', cwd: tree.ws }), {
        name: 'sandbox',
      });
    }
    for (const tool of urlTools(tree.ws)) registry.register(tool);
    return (name: string, path: string) =>
      registry.execute({ callId: 'u', name, arguments: { path } });
  };

  // Each write lands at outside/<file> when nothing stands in the way.
  const writes: readonly { name: string; tool: string; path: (t: Tree, file: string) => string }[] =
    [
      { name: 'file:///', tool: 'url_write', path: (t, f) => `file://${t.outside}/${f}` },
      {
        name: 'FILE:/// (any case)',
        tool: 'url_write',
        path: (t, f) => `FILE://${t.outside}/${f}`,
      },
      {
        name: 'file://localhost/',
        tool: 'url_write',
        path: (t, f) => `file://localhost${t.outside}/${f}`,
      },
      {
        name: 'file:/x (no authority)',
        tool: 'url_write',
        path: (t, f) => `file:${t.outside}/${f}`,
      },
      {
        name: 'file:x (no slash at all)',
        tool: 'url_write',
        path: (t, f) => `file:${t.outside.slice(1)}/${f}`,
      },
      {
        name: 'file: with %2e%2e',
        tool: 'url_write',
        path: (t, f) => `file://${t.ws}/%2e%2e/outside/${f}`,
      },
      {
        name: 'file: with %2E%2E and .%2e',
        tool: 'url_write',
        path: (t, f) => `file://${t.ws}/sub/%2E%2E/.%2e/outside/${f}`,
      },
      {
        name: 'file: with backslashes',
        tool: 'url_write',
        path: (t, f) => `file://${t.ws}\\sub\\..\\..\\outside/${f}`,
      },
      {
        name: 'file: behind leading spaces',
        tool: 'url_write',
        path: (t, f) => `  file://${t.outside}/${f}`,
      },
      {
        name: 'file: with a tab and a newline in the scheme',
        tool: 'url_write',
        path: (t, f) => `fi\tle:\n//${t.outside}/${f}`,
      },
      { name: 'relative %2e%2e', tool: 'rel_write', path: (_, f) => `%2e%2e/outside/${f}` },
      { name: 'relative ..\\', tool: 'rel_write', path: (_, f) => `..\\outside\\${f}` },
      { name: 'relative .<tab>.', tool: 'rel_write', path: (_, f) => `.\t./outside/${f}` },
      {
        name: 'relative ../ behind a leading space',
        tool: 'rel_write',
        path: (_, f) => ` ../outside/${f}`,
      },
      {
        name: 'relative sub/%2e%2e/%2E%2E',
        tool: 'rel_write',
        path: (_, f) => `sub/%2e%2e/%2E%2E/outside/${f}`,
      },
    ];

  it.each(writes.map((w, i) => ({ ...w, file: `url${i}.txt` })))(
    'writes outside unguarded, and is refused guarded: $name',
    async ({ tool, path, file }) => {
      const target = `${tree.outside}/${file}`;
      const unguarded = await registryFor(false)(tool, path(tree, file));
      expect(outcome(unguarded)).toBe('ok');
      expect(await readFile(target, 'utf8')).toBe('ESCAPED');
      await rm(target);

      const guarded = await registryFor(true)(tool, path(tree, file));
      expect(outcome(guarded)).toBe('SANDBOX_VIOLATION');
      expect(guarded.error?.message).toContain(`Tool "${tool}": argument "path"`);
      await expect(stat(target)).rejects.toThrow(/ENOENT/);
    },
  );

  it.each([
    { name: 'file:///…/.env', tool: 'url_read', path: (t: Tree) => `file://${t.ws}/.env` },
    {
      name: 'file: to .env through %2e%2e',
      tool: 'url_read',
      path: (t: Tree) => `file://${t.ws}/sub/%2e%2e/.env`,
    },
    { name: 'file: with .%65nv', tool: 'url_read', path: (t: Tree) => `file://${t.ws}/.%65nv` },
    { name: 'relative .%65nv', tool: 'rel_read', path: () => '.%65nv' },
    { name: 'relative sub/%2e%2e/.env', tool: 'rel_read', path: () => 'sub/%2e%2e/.env' },
  ])('reads a secret unguarded, and is refused guarded: $name', async ({ tool, path }) => {
    const unguarded = await registryFor(false)(tool, path(tree));
    expect(unguarded.content).toEqual([{ type: 'text', text: 'API_KEY=ws-secret-value\n' }]);
    const guarded = await registryFor(true)(tool, path(tree));
    expect(outcome(guarded)).toBe('SANDBOX_VIOLATION');
    expect(JSON.stringify(guarded.content)).not.toContain('ws-secret-value');
  });

  it('refuses a file: URL naming the plain path to use instead, even one inside the root', async () => {
    const call = registryFor(true);
    const inside = await call('url_write', `file://${tree.ws}/sub/%2e%2e/ok.txt`);
    expect(inside.error?.message).toBe(
      `Tool "url_write": argument "path" = "file://${tree.ws}/sub/%2e%2e/ok.txt" may not be written: the path is a file: URL, not a path; pass the plain path "${tree.ws}/ok.txt" instead (a file really named so is passed as "./file:…"). Use a path the sandbox permits.`,
    );
    const host = await call('url_write', `file://evil.example${tree.outside}/h.txt`);
    expect(host.error?.message).toContain('its host "evil.example" is not this machine');
    const slash = await call('url_read', `file://${tree.ws}/a%2fb`);
    expect(slash.error?.message).toContain('does not decode to a path');
    await expect(stat(`${tree.ws}/ok.txt`)).rejects.toThrow(/ENOENT/);
  });

  it('lets through a file really named "file:…" spelt ./file:…, and URL readings that stay inside', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    expect(outcome(await call('write_file', { path: './file:named.txt', content: 'x' }))).toBe(
      'ok',
    );
    expect(await readFile(`${tree.ws}/file:named.txt`, 'utf8')).toBe('x');
    expect(outcome(await call('write_file', { path: '100%25 done.txt', content: 'x' }))).toBe('ok');
    expect(outcome(await call('write_file', { path: 'sub\\x.txt', content: 'x' }))).toBe('ok');
    expect(outcome(await call('write_file', { path: 'what?.txt', content: 'x' }))).toBe('ok');
  });
});

describe('which values hints.paths point at', () => {
  const interceptor = sandboxInterceptor({ mode: 'workspace-write', cwd: '/var/tmp' });
  const run = (paths: unknown, args: Record<string, unknown>) =>
    interceptor(
      {
        callId: 'x',
        name: 't',
        arguments: args,
        tool: { hints: { paths } } as unknown as ToolView,
      },
      async () => ({ callId: 'x', content: [], isError: false }),
    );

  it.each([
    ['null', [null]],
    ['undefined', [undefined]],
    ['a number arg', [{ arg: 5, access: 'read' }]],
    ['no access', [{ arg: 'p' }]],
    ['a long one, shown cut to 100 characters', [{ arg: 'p'.repeat(300), access: 'x' }]],
  ])('refuses a malformed entry: %s', async (_, paths) => {
    const result = await run(paths, { p: 'file.txt' });
    expect(result.error?.code).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain('a malformed hints.paths entry (');
    expect(result.error?.message).not.toContain('p'.repeat(101));
  });

  it.each([
    ['an absent argument', { arg: 'p', access: 'write' }, {}],
    ['an argument present but undefined', { arg: 'p', access: 'write' }, { p: undefined }],
    ['a null container', { arg: 'files.*', access: 'write' }, { files: null }],
    ['a null container on the way', { arg: 'a.b', access: 'write' }, { a: null }],
    ['a name only the prototype has', { arg: 'constructor', access: 'write' }, {}],
    ['a nested name only the prototype has', { arg: 'a.toString', access: 'write' }, { a: {} }],
  ])('checks nothing for %s, and lets the call on', async (_, hint, args) => {
    expect((await run([hint], args)).isError).toBe(false);
  });

  it('a value that is there is checked, however it got there', async () => {
    const result = await run([{ arg: 'a.b', access: 'write' }], { a: { b: '/etc/x' } });
    expect(result.error?.message).toContain('argument "a.b" = "/etc/x"');
  });
});

describe('the file system stays as it was', () => {
  it('no escape wrote anything outside the root', async () => {
    const { readdir } = await import('node:fs/promises');
    const names = (await readdir(tree.outside)).sort();
    // full.txt is the one deliberate full-access write above.
    expect(names.filter((n) => n !== 'full.txt')).toEqual(['dir', 'secret.txt']);
  });
});

describe('property: whatever the path, an allowed write lands inside the root', () => {
  it('random paths of names, links, dots and slashes never write outside', async () => {
    const t = await makeTree();
    try {
      await link(t.outside, `${t.ws}/out`);
      await link('..', `${t.ws}/up`);
      await link('sub', `${t.ws}/insub`);
      await link(`${t.outside}/dangled.txt`, `${t.ws}/dangle`);
      await link('/proc/self/root', `${t.ws}/proc-root`);
      const { readdir, realpath } = await import('node:fs/promises');
      const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: t.ws });
      const parts = [
        'out',
        'up',
        'insub',
        'sub',
        'dangle',
        'proc-root',
        '..',
        '.',
        '',
        'ws',
        'outside',
        'n',
      ];
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.constantFrom(...parts), { minLength: 1, maxLength: 6 }),
          fc.boolean(),
          async (seq, absolute) => {
            const path = `${absolute ? `${t.ws}/` : ''}${seq.join('/')}`;
            const result = await call('write_file', { path, content: `p${++n}` });
            expect(['ok', 'SANDBOX_VIOLATION', 'TOOL_ERROR']).toContain(outcome(result));
            if (outcome(result) === 'ok') {
              // Where the example tool wrote it: path.resolve against the cwd, as its body does.
              const written = await realpath(resolve(t.ws, path));
              expect(written === t.ws || written.startsWith(`${t.ws}/`)).toBe(true);
            }
          },
        ),
        { seed, numRuns: 200 },
      );
      expect((await readdir(t.outside)).sort()).toEqual(['dir', 'secret.txt']);
      expect(await readdir(`${t.outside}/dir`)).toEqual([]);
      expect(await readFile(`${t.outside}/secret.txt`, 'utf8')).toBe('outside-secret\n');
    } finally {
      await t.cleanup();
    }
  });
});
