import { chmod, writeFile } from 'node:fs/promises';
import { ToolError } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BWRAP,
  cleanUpAfterTests,
  exampleTools,
  IN_CI,
  makeTree,
  NO_BWRAP_REASON,
  needsBwrap,
  outcome,
  SKIP_BWRAP,
  sandboxedRegistry,
  type Tree,
} from '../test/fixtures';
import { bwrapArgs } from './bwrap-args';
import {
  createSandboxRunner,
  DEFAULT_DENY_READ,
  findBwrap,
  requireSandbox,
  sandboxInterceptor,
} from './index';
import { DEFAULT_LIMITS } from './limits';

let tree: Tree;
beforeAll(async () => {
  tree = await makeTree();
});
afterAll(() => tree.cleanup());
cleanUpAfterTests();

describe('where the confinement tests run', () => {
  // Under CI a machine without bubblewrap must not pass by skipping what it cannot run.
  it.runIf(IN_CI)('CI=true: bubblewrap is installed', () => {
    expect(BWRAP, NO_BWRAP_REASON).toBeDefined();
  });
});

describe('bwrapArgs', () => {
  const plan = {
    mode: 'workspace-write' as const,
    network: false,
    emptied: ['/tmp', '/run'],
    writableRoots: ['/w'],
    readonlyBinds: ['/tmp/cwd'],
    masks: { hideDirs: ['/home/u/.ssh'], hideFiles: ['/w/.env'], freeze: ['/w/.git/hooks'] },
    pins: ['/w/.git'],
    limits: DEFAULT_LIMITS,
    seccomp: true,
    cwd: '/w',
    argv: ['sh', '-c', 'echo hi'],
  };

  it('confines: every namespace, no capabilities, no nested user namespaces, / read-only', () => {
    const args = bwrapArgs(plan);
    for (const flag of [
      '--unshare-all',
      '--unshare-user',
      '--disable-userns',
      '--die-with-parent',
      '--new-session',
    ]) {
      expect(args).toContain(flag);
    }
    expect(args.join(' ')).toContain('--cap-drop ALL');
    expect(args).not.toContain('--share-net');
    expect(args.slice(args.indexOf('--ro-bind'), args.indexOf('--ro-bind') + 3)).toEqual([
      '--ro-bind',
      '/',
      '/',
    ]);
    expect(args.slice(-5)).toEqual(['3', '--', 'sh', '-c', 'echo hi']);
  });

  it('mounts in an order where the masks come last', () => {
    const args = bwrapArgs(plan).join(' ');
    const at = (s: string) => args.indexOf(s);
    expect(at('--ro-bind / /')).toBeLessThan(at('--tmpfs /tmp'));
    expect(at('--tmpfs /tmp')).toBeLessThan(at('--bind /w /w'));
    expect(at('--tmpfs /run')).toBeLessThan(at('--bind /w /w'));
    expect(at('--bind /w /w')).toBeLessThan(at('--ro-bind /tmp/cwd /tmp/cwd'));
    expect(at('--ro-bind /w/.git/hooks /w/.git/hooks')).toBeGreaterThan(at('--bind /w /w'));
    expect(at('--ro-bind /dev/null /w/.env')).toBeGreaterThan(at('--bind /w /w'));
    expect(at('--tmpfs /home/u/.ssh --remount-ro /home/u/.ssh')).toBeGreaterThan(
      at('--bind /w /w'),
    );
  });

  it('read-only binds nothing writable; full-access binds / read-write and keeps the host /tmp', () => {
    const ro = bwrapArgs({ ...plan, mode: 'read-only', writableRoots: [], pins: [] });
    expect(ro.join(' ')).not.toMatch(/--bind /);
    const full = bwrapArgs({
      ...plan,
      mode: 'full-access',
      emptied: ['/run'],
      writableRoots: [],
      network: true,
    });
    expect(full.join(' ')).toContain('--bind / /');
    expect(full.join(' ')).not.toContain('--tmpfs /tmp');
    expect(full).toContain('--share-net');
    expect(full.join(' ')).toContain('--cap-drop ALL');
  });
});

describe('run() input', () => {
  const runner = createSandboxRunner({ mode: 'read-only', cwd: '/' });
  it.each([
    ['no argv', undefined, undefined, 'non-empty array'],
    ['an empty argv', [], undefined, 'non-empty array'],
    ['a string argv', 'ls', undefined, 'non-empty array'],
    ['a number in argv', ['ls', 1], undefined, 'argv[1] must be a string'],
    ['a null byte in argv', ['ls', 'a\0b'], undefined, 'argv[1] contains a null byte'],
    ['an empty program', [''], undefined, 'argv[0] must name a program'],
    ['a huge argv', ['echo', 'x'.repeat(2 << 20)], undefined, 'larger than'],
    ['an unknown option', ['true'], { shell: true }, 'no option "shell"'],
    ['a bad env name', ['true'], { env: { 'A=B': 'x' } }, 'invalid variable name'],
    ['a non-string env value', ['true'], { env: { A: 1 } }, 'env.A'],
    ['a null byte in env', ['true'], { env: { A: 'x\0' } }, 'env.A'],
    ['a zero timeout', ['true'], { timeoutMs: 0 }, 'timeoutMs'],
    ['a fractional timeout', ['true'], { timeoutMs: 1.5 }, 'timeoutMs'],
    ['a huge timeout', ['true'], { timeoutMs: 2 ** 31 }, 'timeoutMs'],
    ['a negative output cap', ['true'], { maxOutputBytes: -1 }, 'maxOutputBytes'],
    ['stdin of the wrong type', ['true'], { stdin: 42 }, 'stdin'],
    ['a cwd with a null byte', ['true'], { cwd: 'a\0' }, 'cwd'],
    ['a signal that is not one', ['true'], { signal: {} }, 'AbortSignal'],
  ])('refuses %s with a TypeError naming it', async (_name, argv, options, message) => {
    // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
    const error = await runner.run(argv as any, options as any).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toContain(message);
    expect(error.message).toContain('sandbox runner');
  });

  it('property: any argv of strings without null bytes is accepted or refused, never thrown past', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.anything(), { maxLength: 4 }), async (argv) => {
        const outcome = await runner
          // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
          .run(argv as any, { timeoutMs: 5000 })
          .then(
            () => 'ran',
            (e) => (e instanceof TypeError || e instanceof ToolError ? 'refused' : e),
          );
        expect(['ran', 'refused']).toContain(outcome);
      }),
      { numRuns: 25 },
    );
  });
});

describe('without bubblewrap', () => {
  it('fails closed with UNAVAILABLE, saying how to install it', async () => {
    const runner = createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      bwrapPath: '/nonexistent/bwrap',
    });
    const error = await runner.run(['touch', 'unconfined.txt']).catch((e) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('apt-get install bubblewrap');
    expect(error.message).toContain('allowUnsandboxed');
    await expect(
      import('node:fs/promises').then((fs) => fs.stat(`${tree.ws}/unconfined.txt`)),
    ).rejects.toThrow();
  });

  it('through the registry, the bash tool gets UNAVAILABLE naming the tool', async () => {
    const { call } = sandboxedRegistry({
      mode: 'workspace-write',
      cwd: tree.ws,
      bwrapPath: '/nonexistent/bwrap',
    });
    const result = await call('bash', { command: 'touch unconfined2.txt' });
    expect(outcome(result)).toBe('UNAVAILABLE');
    expect(result.error?.message).toContain('Tool "bash"');
    expect(result.error?.message).toContain('apt-get install bubblewrap');
  });

  it('an unconfined run whose first process exits still stops at its time limit, and on abort', async () => {
    // A background process holds stdout after `sh` has exited: the run must still be stopped (the
    // whole group killed) when its time is up or its signal aborts, not wait for the background.
    const runner = createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      bwrapPath: '/nonexistent/bwrap',
      allowUnsandboxed: true,
      killGraceMs: 200,
    });
    const line = (file: string) => `sleep 60 & echo $! > ${file}; echo started`;
    const gone = async (file: string) => {
      const { readFile } = await import('node:fs/promises');
      const pid = Number((await readFile(file, 'utf8')).trim());
      for (let i = 0; i < 200; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((done) => setTimeout(done, 10));
      }
      return false;
    };
    const timed = await runner.run(['sh', '-c', line(`${tree.ws}/bg1.pid`)], { timeoutMs: 300 });
    expect(timed).toMatchObject({ timedOut: true, aborted: false, sandboxed: false });
    expect(timed.stdout).toContain('started');
    expect(await gone(`${tree.ws}/bg1.pid`)).toBe(true);
    const controller = new AbortController();
    const pending = runner.run(['sh', '-c', line(`${tree.ws}/bg2.pid`)], {
      timeoutMs: 120_000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 300);
    expect(await pending).toMatchObject({ aborted: true, timedOut: false });
    expect(await gone(`${tree.ws}/bg2.pid`)).toBe(true);
  }, 30_000);

  it('runs unconfined only with allowUnsandboxed, and says so', async () => {
    const runner = createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      bwrapPath: '/nonexistent/bwrap',
      allowUnsandboxed: true,
    });
    const r = await runner.run(['sh', '-c', 'echo $DSH_SANDBOX_UNSET; pwd'], { env: { X: '1' } });
    expect(r).toMatchObject({ exitCode: 0, sandboxed: false, stdout: `\n${tree.ws}\n` });
  });

  it('a bubblewrap that cannot set up the sandbox is UNAVAILABLE, with its message', async () => {
    // A real executable standing in for a bwrap that fails before running anything (as one
    // does where user namespaces are disabled): it writes no exit code to the status fd.
    const fake = `${tree.base}/broken-bwrap`;
    await writeFile(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
    );
    await chmod(fake, 0o755);
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws, bwrapPath: fake });
    const error = await runner.run(['true']).catch((e) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('No permissions to create new namespace');
  });
});

describe('findBwrap', () => {
  it.each([
    42,
    null,
    'bwrap',
    '/nonexistent/bwrap',
    '/etc/passwd',
    '/usr/bin\0/bwrap',
    `/${'x'.repeat(100_000)}`,
  ])('finds nothing at %j', (path) => {
    // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
    expect(findBwrap(path as any)).toBeUndefined();
  });

  it.skipIf(SKIP_BWRAP)('finds the installed one, by search or by path', () => {
    const found = findBwrap();
    expect(found).toMatch(/\/bwrap$/);
    expect(findBwrap(found)).toBe(found);
  });
});

describe('requireSandbox', () => {
  it('a tool run without the sandbox interceptor gets UNAVAILABLE, never an unconfined run', async () => {
    const registry = createToolRegistry();
    registry.register(exampleTools(tree.ws).bashTool);
    const result = await registry.execute({
      callId: '1',
      name: 'bash',
      arguments: { command: 'touch nosandbox.txt' },
    });
    expect(outcome(result)).toBe('UNAVAILABLE');
    expect(result.error?.message).toContain('Tool "bash" runs commands only inside a sandbox');
    expect(result.error?.message).toContain('sandboxInterceptor');
  });

  it.each([undefined, null, {}, { run: 'x' }])('refuses %j as a runner', (sandbox) => {
    // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
    expect(() => requireSandbox({ name: 't', sandbox } as any)).toThrow(/no sandbox interceptor/);
  });

  it('returns the runner the interceptor attached', async () => {
    const interceptor = sandboxInterceptor({ mode: 'read-only', cwd: tree.ws });
    const tool = {
      name: 't',
      description: 'd',
      parameters: { type: 'object' as const },
      hints: { readOnly: true },
      source: { kind: 'local' as const },
    };
    let mode: string | undefined;
    await interceptor({ callId: 'x', name: 't', arguments: {}, tool }, async (exec) => {
      mode = requireSandbox(exec!).mode;
      return { callId: 'x', content: [], isError: false };
    });
    expect(mode).toBe('read-only');
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap("the runner's contract"), () => {
  const runner = () => createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws });

  it('reports exit codes, stdout and stderr apart', async () => {
    const r = await runner().run(['sh', '-c', 'echo out; echo err >&2; exit 7']);
    expect(r).toEqual({
      exitCode: 7,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
      timedOut: false,
      aborted: false,
      sandboxed: true,
    });
  });

  it('feeds stdin, adds the caller env to a scrubbed one, honours cwd', async () => {
    const r = await runner().run(
      ['sh', '-c', 'cat; echo "$GREETING"; pwd; env | cut -d= -f1 | sort | tr "\\n" " "'],
      {
        stdin: 'from stdin\n',
        env: { GREETING: 'hello' },
        cwd: 'sub',
      },
    );
    expect(r.stdout).toContain(`from stdin\nhello\n${tree.ws}/sub\n`);
    const names = r.stdout.trim().split('\n').at(-1)!.split(' ');
    expect(names).toContain('PATH');
    expect(names).toContain('GREETING');
    expect(names).not.toContain('VITEST');
  });

  it('a program that does not exist is exit code 127, not a sandbox failure', async () => {
    const r = await runner().run(['dsh-no-such-program']);
    expect(r.exitCode).toBe(127);
    expect(r.stderr).toContain('dsh-no-such-program');
  });

  it('caps output with a marker and keeps running to completion', async () => {
    const r = await runner().run(
      ['sh', '-c', 'head -c 100000 /dev/zero | tr "\\0" a; echo done >&2'],
      {
        maxOutputBytes: 1000,
      },
    );
    expect(r.truncated).toBe(true);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.startsWith('a'.repeat(1000))).toBe(true);
    expect(r.stdout).toContain(
      '[sandbox: output truncated, 99000 bytes past maxOutputBytes dropped]',
    );
    expect(r.stderr).toBe('done\n');
  });

  it('refuses a cwd the deny list hides, before running anything', async () => {
    const error = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      denyRead: ['sub/**'],
    })
      .run(['ls'], { cwd: 'sub' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('SANDBOX_VIOLATION');
    expect(error.message).toContain('denyRead "sub/**"');
  });

  it('a symlink loop among the deny-list matches does not stop a run', async () => {
    const { symlink } = await import('node:fs/promises');
    await symlink('loop-y', `${tree.ws}/loop-x`);
    await symlink('loop-x', `${tree.ws}/loop-y`);
    await symlink('.env-b', `${tree.ws}/.env-a`);
    await symlink('.env-a', `${tree.ws}/.env-b`);
    const r = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      denyRead: ['loop-x', 'loop-y/**'],
    }).run(['sh', '-c', 'echo ran']);
    expect(r.stdout).toBe('ran\n');
  });

  it('fails closed when the deny-list scan would be unbounded', async () => {
    const error = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: tree.ws,
      maskScan: { maxEntries: 2 },
    })
      .run(['true'])
      .catch((e) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('maskScan.maxEntries');
  });

  it('the bash example tool runs through the registry, confined', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const ok = await call('bash', { command: 'echo hi > from-bash.txt && cat from-bash.txt' });
    expect(ok.content).toEqual([{ type: 'text', text: 'hi\nexit 0' }]);
    const outsideWrite = await call('bash', {
      command: `echo x > ${tree.outside}/from-bash.txt`,
    });
    expect(outsideWrite.structuredContent).toMatchObject({ sandboxed: true });
    expect((outsideWrite.structuredContent as { exitCode: number }).exitCode).not.toBe(0);
  });

  it('the defaults deny what the issue lists', () => {
    for (const glob of ['**/.env*', '~/.ssh/**', '~/.aws/**'])
      expect(DEFAULT_DENY_READ).toContain(glob);
  });
});
