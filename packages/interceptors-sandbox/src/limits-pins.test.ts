/**
 * Pins: every default deny entry and every bound has a test here that fails when the entry is
 * removed or the bound moved by one. Each of these single-line changes once passed every test.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { createToolRegistry } from '@dsh-tools/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUpAfterTests,
  makeTree,
  needsBwrap,
  outcome,
  pidsWith,
  SKIP_BWRAP,
  sandboxedRegistry,
  type Tree,
} from '../test/fixtures';
import {
  createSandboxRunner,
  DEFAULT_DENY_READ,
  DEFAULT_DENY_WRITE,
  type SandboxViolationDetails,
  sandboxInterceptor,
} from './index';
import { resolveSandboxOptions } from './options';
import { MAX_PATHS_PER_CALL } from './path-args';
import { checkAccess, snapshotPolicy } from './policy';
import { lexicalAbsolute } from './resolve-path';

let tree: Tree;
beforeAll(async () => {
  tree = await makeTree();
});
afterAll(() => tree.cleanup());
cleanUpAfterTests();

const home = homedir();

/** Each default read deny, as it must be, with a path that only it refuses. */
const READ_PINS: readonly (readonly [glob: string, path: string])[] = [
  ['**/.env*', 'sub/.env.production'],
  ['~/.ssh/**', '~/.ssh/id_ed25519'],
  ['~/.aws/**', '~/.aws/credentials'],
  ['~/.gnupg/**', '~/.gnupg/private-keys-v1.d/k.key'],
  ['~/.config/gcloud/**', '~/.config/gcloud/credentials.db'],
  ['~/.azure/**', '~/.azure/accessTokens.json'],
  ['~/.kube/**', '~/.kube/config'],
  ['~/.docker/config.json', '~/.docker/config.json'],
  ['~/.netrc', '~/.netrc'],
  ['~/.npmrc', '~/.npmrc'],
  ['~/.git-credentials', '~/.git-credentials'],
  ['/proc/*/environ', '/proc/1/environ'],
  ['/proc/*/task/*/environ', '/proc/1/task/1/environ'],
];

/** Each default write deny, as it must be, with a path that only it refuses. */
const WRITE_PINS: readonly (readonly [glob: string, path: string])[] = [
  ['**/.env*', '.env.local'],
  ['~/.ssh/**', '~/.ssh/authorized_keys'],
  ['~/.aws/**', '~/.aws/config'],
  ['**/.git/hooks/**', 'sub/.git/hooks/pre-push'],
  ['**/.git/config', '.git/config'],
  ['~/.bashrc', '~/.bashrc'],
  ['~/.bash_profile', '~/.bash_profile'],
  ['~/.bash_login', '~/.bash_login'],
  ['~/.bash_logout', '~/.bash_logout'],
  ['~/.profile', '~/.profile'],
  ['~/.zshrc', '~/.zshrc'],
  ['~/.zshenv', '~/.zshenv'],
  ['~/.zprofile', '~/.zprofile'],
  ['~/.zlogin', '~/.zlogin'],
  ['~/.config/fish/**', '~/.config/fish/config.fish'],
  ['~/.gitconfig', '~/.gitconfig'],
];

const expand = (path: string, cwd: string) =>
  path.startsWith('~/') ? `${home}${path.slice(1)}` : lexicalAbsolute(path, cwd);

describe('the default deny lists', () => {
  it('are exactly the written-out lists, in order', () => {
    expect(DEFAULT_DENY_READ).toEqual(READ_PINS.map(([glob]) => glob));
    expect(DEFAULT_DENY_WRITE).toEqual(WRITE_PINS.map(([glob]) => glob));
  });

  it.each(READ_PINS)('read deny %s refuses reading %s, by that glob', async (glob, path) => {
    const { call } = sandboxedRegistry({ mode: 'full-access', cwd: tree.ws });
    const result = await call('read_file', { path });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    const details = result.error?.details as SandboxViolationDetails | undefined;
    expect(details?.violation?.deny).toEqual({ list: 'denyRead', glob });
  });

  it.each(WRITE_PINS)('write deny %s refuses writing %s, by that glob', (glob, path) => {
    // The write list alone (read denies refuse writes too, and would hide a missing write entry),
    // in full-access, where nothing but the deny lists refuses a write.
    const config = resolveSandboxOptions({ mode: 'full-access', cwd: tree.ws }, 'test');
    const policy = { ...snapshotPolicy(config), denyRead: [] };
    const absolute = expand(path, tree.ws);
    expect(checkAccess(policy, 'write', absolute, [absolute])).toEqual({
      rule: `denyWrite "${glob}"`,
      deny: { list: 'denyWrite', glob },
    });
  });

  it.each(WRITE_PINS)(
    'write deny %s: writing %s is refused through the registry',
    async (glob, path) => {
      const { call } = sandboxedRegistry({ mode: 'full-access', cwd: tree.ws });
      const result = await call('write_file', { path, content: 'x' });
      expect(outcome(result)).toBe('SANDBOX_VIOLATION');
      const details = result.error?.details as SandboxViolationDetails | undefined;
      expect(details?.violation?.deny?.glob).toBe(glob);
    },
  );

  it('controls: what no entry names is read and written in full-access', async () => {
    const { call } = sandboxedRegistry({ mode: 'full-access', cwd: tree.ws });
    expect(
      outcome(await call('write_file', { path: 'sub/.envoy/../notes.txt', content: 'x' })),
    ).toBe('ok');
    expect(outcome(await call('read_file', { path: 'sub/notes.txt' }))).toBe('ok');
    const config = resolveSandboxOptions({ mode: 'full-access', cwd: tree.ws }, 'test');
    const policy = { ...snapshotPolicy(config), denyRead: [] };
    for (const near of [
      '~/.bashrc.d/x',
      '~/.sshd/x',
      '.git/configs',
      '~/.config/fishy',
      '/proc/1/env',
    ]) {
      const absolute = expand(near, tree.ws);
      expect(checkAccess(policy, 'write', absolute, [absolute]), near).toBeUndefined();
    }
  });
});

describe('MAX_PATHS_PER_CALL', () => {
  const registry = createToolRegistry();
  let ran = 0;
  registry.register({
    name: 'many',
    description: 'reads many files',
    parameters: { type: 'object', properties: { files: {}, more: {} } },
    hints: {
      readOnly: true,
      paths: [
        { arg: 'files.*', access: 'read' },
        { arg: 'more', access: 'read' },
      ],
    },
    execute: async () => {
      ran++;
      return [{ type: 'text', text: 'ran' }];
    },
  });
  registry.use(sandboxInterceptor({ mode: 'read-only', cwd: '/var/tmp' }), { name: 'sandbox' });
  const files = (n: number) => Array.from({ length: n }, (_, i) => `f${i}`);

  it('is 1000', () => {
    expect(MAX_PATHS_PER_CALL).toBe(1000);
  });

  it.each([
    { name: '1000 paths in one argument', args: { files: files(1000) }, ok: true },
    { name: '999 + 1 paths over two arguments', args: { files: files(999), more: 'x' }, ok: true },
    { name: '1001 paths in one argument', args: { files: files(1001) }, ok: false },
    {
      name: '1000 + 1 paths over two arguments',
      args: { files: files(1000), more: 'x' },
      ok: false,
    },
  ])('$name: accepted $ok', async ({ args, ok }) => {
    const before = ran;
    const result = await registry.execute({ callId: 'm', name: 'many', arguments: args });
    if (ok) {
      expect(outcome(result)).toBe('ok');
      expect(ran).toBe(before + 1);
    } else {
      expect(outcome(result)).toBe('SANDBOX_VIOLATION');
      expect(result.error?.message).toContain('more than 1000 path arguments in one call');
      expect(ran).toBe(before);
    }
  });
});

describe('a read deny is matched on the path as written and on where it resolves', () => {
  beforeAll(async () => {
    // A secret's name for an innocent file, and an innocent name for a secret.
    await symlink('file.txt', `${tree.ws}/.env.alias`);
    await symlink('.env', `${tree.ws}/harmless.txt`);
  });

  it('only the written path matches: .env.alias -> file.txt is refused', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const result = await call('read_file', { path: '.env.alias' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(`resolves to "${tree.ws}/file.txt"`);
    expect(result.error?.message).toContain('denyRead "**/.env*"');
  });

  it('only the resolved path matches: harmless.txt -> .env is refused', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const result = await call('read_file', { path: 'harmless.txt' });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toContain(`resolves to "${tree.ws}/.env"`);
    expect(result.error?.message).toContain('denyRead "**/.env*"');
  });

  it('control: the target read by its own innocent name is let through', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    expect(outcome(await call('read_file', { path: 'file.txt' }))).toBe('ok');
  });
});

/** Waits (bounded) until `probe` holds; a bound on waiting, never an assertion on time. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** `promise`, or a rejection naming `what` if it has not settled after `ms` (a hang guard). */
function settlesWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not resolve within ${ms} ms`)), ms);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

describe('kill of the whole process group, SIGKILL after the grace (unconfined path)', () => {
  // Without bubblewrap's pid namespace and --die-with-parent to hide a weaker kill, the runner's
  // own kill is all there is: a run whose group is not SIGKILLed never resolves (the grandchild
  // holds its stdout open).
  it.each([0, 150])(
    'a shell that ignores SIGTERM and its grandchild are both gone when the run resolves (grace %i ms)',
    async (killGraceMs) => {
      const marker = `dsh-pin-kill-${randomUUID()}`;
      const runner = createSandboxRunner({
        mode: 'workspace-write',
        cwd: tree.ws,
        allowUnsandboxed: true,
        bwrapPath: '/nonexistent/bwrap',
        killGraceMs,
      });
      const controller = new AbortController();
      const running = runner.run(
        ['bash', '-c', `trap '' TERM; (exec -a ${marker} sleep 100) & wait; : ${marker}`],
        { signal: controller.signal, timeoutMs: 60_000 },
      );
      // Both the shell (its script names the marker) and the sleep (named the marker) run, and
      // both ignore SIGTERM: the trap is set before the sleep is started, and inherited by it.
      await until(async () => (await pidsWith(marker)).length >= 2, 'the shell and its sleep');
      controller.abort();
      const result = await settlesWithin(running, killGraceMs + 10_000, 'the aborted run');
      expect(result).toMatchObject({ aborted: true, sandboxed: false, exitCode: null });
      expect(await pidsWith(marker)).toEqual([]);
    },
  );
});

describe('SIGTERM first, and the grace to act on it (unconfined path)', () => {
  it('a command that handles SIGTERM gets to run its handler before anything is killed', async () => {
    const marker = `dsh-pin-term-${randomUUID()}`;
    const runner = createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      allowUnsandboxed: true,
      bwrapPath: '/nonexistent/bwrap',
      // Long enough that only a kill without SIGTERM, or without a grace, stops the handler.
      killGraceMs: 30_000,
    });
    const controller = new AbortController();
    const running = runner.run(
      [
        'bash',
        '-c',
        `trap 'echo handled TERM >&2; exit 3' TERM; (exec -a ${marker} sleep 100) & wait; : ${marker}`,
      ],
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    await until(async () => (await pidsWith(marker)).length >= 2, 'the shell and its sleep');
    controller.abort();
    const result = await settlesWithin(running, 15_000, 'the aborted run');
    expect(result).toMatchObject({ aborted: true, stderr: 'handled TERM\n' });
    expect(await pidsWith(marker)).toEqual([]);
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('the deny-list scan depth (maskScan.depth)'), () => {
  const secret = (depth: number) => `DEPTH-${depth}-SECRET`;
  beforeAll(async () => {
    // ws/scan/.key (depth 0), ws/scan/d1/.key (depth 1), … each a secret the glob denies.
    let dir = `${tree.ws}/scan`;
    for (let depth = 0; depth <= 4; depth++) {
      await mkdir(dir, { recursive: true });
      await writeFile(`${dir}/.key`, `${secret(depth)}\n`);
      dir = `${dir}/d${depth + 1}`;
    }
  });
  const keyAt = (depth: number) =>
    ['scan', ...Array.from({ length: depth }, (_, i) => `d${i + 1}`), '.key'].join('/');

  // A glob with a wildcard before the name is found by walking from the cwd; the walk's depth
  // counts directories below the cwd, so scan/.key is at depth 1 from ws.
  it.each([1, 3])(
    'with depth %i, a secret at exactly that depth is masked, one deeper is not',
    async (depth) => {
      const runner = createSandboxRunner({
        mode: 'workspace-write',
        cwd: tree.ws,
        denyRead: ['**/.key'],
        maskScan: { depth },
      });
      const at = keyAt(depth - 1);
      const deeper = keyAt(depth);
      const run = runner.run(['sh', '-c', `cat ${at}; echo; cat ${deeper}`]);
      const result = await run.catch((error: Error) => error);
      if (result instanceof Error) {
        // A run whose scan cannot reach a secret may fail closed instead: that is not "masked one
        // deeper" either, so the bound still sits exactly here. The masked-at-depth half is then
        // proven by the run one level shallower below.
        expect(result.message).toMatch(/maskScan|deny-list scan/);
      } else {
        expect(result.stdout).not.toContain(secret(depth - 1));
        expect(result.stdout).toContain(secret(depth));
      }
      const shallower = await runner.run(['sh', '-c', `cat ${at}`]).catch((e: Error) => e);
      expect(shallower instanceof Error ? shallower.message : shallower.stdout).not.toContain(
        secret(depth - 1),
      );
    },
  );
});
