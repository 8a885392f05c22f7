/**
 * spawnAndWait on its own, written for the mutation run of spawn-and-wait.ts: what it reads from
 * bubblewrap's status pipe (played here by a small script that writes what bubblewrap would), which
 * limit a run's end points at, what it hands over on the pipes, and when it resolves. Real
 * processes, no bubblewrap needed: each case takes milliseconds, where a confined run takes a
 * bubblewrap start.
 */
import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { ToolError } from '@dsh-tools/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, type Tree } from '../test/fixtures';
import type { CgroupUsage, RunCgroup } from './cgroup';
import { findBash } from './launcher';
import { ulimitArgs } from './limits';
import { resolveSandboxOptions } from './options';
import type { RunInput } from './run-input';
import { type Launch, type SpawnSpec, spawnAndWait } from './spawn-and-wait';

cleanUpAfterTests();

let t: Tree;
beforeAll(async () => {
  t = await makeTree();
});
afterAll(() => t.cleanup());

const bash = findBash()!;
const config = (killGraceMs = 100) =>
  resolveSandboxOptions({ mode: 'workspace-write', cwd: t.ws, killGraceMs }, 'test');

const input = (over: Partial<RunInput> = {}): RunInput => ({
  argv: [],
  cwd: undefined,
  env: {},
  stdin: undefined,
  timeoutMs: 30_000,
  maxOutputBytes: 1 << 20,
  signal: undefined,
  rawOutput: false,
  ...over,
});

const spec = (over: Partial<SpawnSpec> = {}): SpawnSpec => {
  const c = config();
  return {
    cwd: t.ws,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    input: input(),
    signals: [],
    config: c,
    limits: c.limits,
    sandboxed: false,
    who: 'Tool "t"',
    launch: undefined,
    rawOutput: false,
    ...over,
  };
};

/** A cgroup that reports `usage` and counts how often it is given back. */
function fakeCgroup(usage: CgroupUsage) {
  let removed = 0;
  const cgroup: RunCgroup = {
    procs: [],
    countsProcesses: true,
    usage: () => usage,
    remove: () => {
      removed++;
    },
  };
  return { cgroup, removed: () => removed };
}

const launchWith = (cgroup: RunCgroup | undefined): Launch => ({
  bash,
  cgroup,
  ulimit: ulimitArgs(config().limits, false),
});

/** Runs `script` with sh, unconfined. */
const sh = (script: string, over: Partial<SpawnSpec> = {}) =>
  spawnAndWait('sh', ['-c', script], spec(over));

/** Runs `script` as if it were bubblewrap: fds 3 (status), 4 (seccomp) and 5 (args) as given. */
const fakeBwrap = (script: string, over: Partial<SpawnSpec> = {}) =>
  spawnAndWait(bash, ['-c', script], spec({ sandboxed: true, ...over }));

/** The state letter of a pid, or `undefined` once it is gone. */
const stateOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
};

describe('which limit a run ran into', () => {
  const c = () => config().limits;

  it.each([
    [
      'a process killed for its memory, with the peak',
      { memoryKilled: true, memoryPeakBytes: 4096 },
      'memoryBytes',
      / \(peak 4096 bytes\)$/,
    ],
    [
      'a process killed for its memory, peak unknown',
      { memoryKilled: true },
      'memoryBytes',
      /bytes$/,
    ],
    [
      'forks refused by the cgroup',
      { processesRefused: 3 },
      'processes',
      /^3 process creations were refused/,
    ],
  ] as const)('%s', async (_, usage, limit, detail) => {
    const { cgroup, removed } = fakeCgroup({ processesRefused: 0, memoryKilled: false, ...usage });
    const r = await sh('exit 1', { launch: launchWith(cgroup) });
    expect(r.limit?.limit).toBe(limit);
    expect(r.limit?.value).toBe(c()[limit]);
    expect(r.limit?.detail).toMatch(detail);
    expect(removed()).toBe(1);
  });

  it('the memory limit by its value in the words', async () => {
    const { cgroup } = fakeCgroup({ processesRefused: 0, memoryKilled: true });
    const r = await sh('exit 1', { launch: launchWith(cgroup) });
    expect(r.limit?.detail).toBe(
      `a process was killed at the memory limit of ${c().memoryBytes} bytes`,
    );
  });

  it.each([
    'bash: fork: retry: Resource temporarily unavailable',
    'sh: fork: Resource temporarily unavailable',
  ])('without a cgroup, a shell that says "%s" hit RLIMIT_NPROC', async (said) => {
    const r = await sh(`echo '${said}' >&2`, { launch: launchWith(undefined) });
    expect(r.limit).toEqual({
      limit: 'processes',
      value: c().processes,
      detail: `process creation was refused at the limit of ${c().processes} processes (RLIMIT_NPROC)`,
    });
  });

  it('with a cgroup that refused nothing, the same words point at no limit', async () => {
    const { cgroup } = fakeCgroup({ processesRefused: 0, memoryKilled: false });
    const r = await sh("echo 'fork: Resource temporarily unavailable' >&2", {
      launch: launchWith(cgroup),
    });
    expect(r.limit).toBeUndefined();
  });

  it.each([
    ['exit 152', 'cpuSeconds'],
    ["echo 'CPU time limit exceeded' >&2", 'cpuSeconds'],
    ['exit 153', 'fileSizeBytes'],
    ["echo 'File size limit exceeded (core dumped)' >&2", 'fileSizeBytes'],
    ["echo 'head: error writing: No space left on device' >&2", 'tmpBytes'],
    ["echo 'sh: Too many open files' >&2", 'openFiles'],
  ] as const)('`%s` is %s', async (script, limit) => {
    const r = await sh(script);
    expect(r.limit?.limit).toBe(limit);
    expect(r.limit?.value).toBe(c()[limit]);
  });

  it('each limit says what happened, with its value', async () => {
    const l = c();
    const detail = async (script: string) => (await sh(script)).limit?.detail;
    expect(await detail('exit 152')).toBe(
      `a process used its ${l.cpuSeconds} CPU seconds and was stopped (SIGXCPU)`,
    );
    expect(await detail('exit 153')).toBe(
      `a process wrote past the file size limit of ${l.fileSizeBytes} bytes (SIGXFSZ)`,
    );
    expect(await detail("echo 'No space left on device' >&2")).toBe(
      `a write found no space left: the sandbox's in-memory /tmp holds ${l.tmpBytes} bytes and /dev/shm ${l.shmBytes} (or the disk itself is full)`,
    );
    expect(await detail("echo 'Too many open files' >&2")).toBe(
      `a process reached the limit of ${l.openFiles} open descriptors`,
    );
  });

  it.each(['exit 0', 'exit 151', 'exit 154', "echo 'fork: failed' >&2"])(
    'control: `%s` points at no limit',
    async (script) => {
      expect((await sh(script)).limit).toBeUndefined();
    },
  );
});

describe("bubblewrap's status pipe", () => {
  it('the exit code is the one bubblewrap reports, not its own', async () => {
    const r = await fakeBwrap(
      'echo "{\\"child-pid\\": $$}" >&3; echo \'{"exit-code": 7}\' >&3; exit 0',
    );
    expect(r).toMatchObject({ exitCode: 7, signal: null, sandboxed: true });
  });

  it('lines that are not JSON records, or records of other kinds, are passed over', async () => {
    const r = await fakeBwrap(
      'echo \'noise\' >&3; echo \'{"exit-code": "9"}\' >&3; echo \'{"exit-code": 4}\' >&3; exit 0',
    );
    expect(r.exitCode).toBe(4);
  });

  it('is read up to 64 KiB: records past a flood are not taken', async () => {
    // bubblewrap writes a few short records; a pipe that floods cannot grow this process's memory.
    // At most one chunk (64 KiB) past the bound is kept, so 200,000 bytes surely bury the record.
    const flood = await fakeBwrap(
      'head -c 200000 /dev/zero | tr "\\0" x >&3; echo >&3; echo \'{"exit-code": 5}\' >&3; exit 0',
    ).catch((e: unknown) => e);
    expect(flood).toBeInstanceOf(ToolError);
    const within = await fakeBwrap(
      'head -c 60000 /dev/zero | tr "\\0" x >&3; echo >&3; echo \'{"exit-code": 5}\' >&3; exit 0',
    );
    expect(within.exitCode).toBe(5);
  });

  it('a record of another kind after the exit code does not undo it', async () => {
    const r = await fakeBwrap(
      'echo \'{"exit-code": 4}\' >&3; echo \'{"child-pid": 1}\' >&3; exit 0',
    );
    expect(r.exitCode).toBe(4);
  });

  it("a program's own stderr cannot change its exit code or fail the run", async () => {
    // The words bubblewrap uses for a missing program, written by the program itself.
    const r = await fakeBwrap(
      "echo 'bwrap: execvp x: No such file or directory' >&2; echo '{\"exit-code\": 5}' >&3; exit 0",
    );
    expect(r.exitCode).toBe(5);
    const u = await sh("echo 'bwrap: execvp x: No such file or directory' >&2; exit 3");
    expect(u.exitCode).toBe(3);
  });

  it('"bwrap: execvp" counts only at the start of a line', async () => {
    await expect(fakeBwrap("echo 'warning: bwrap: execvp x' >&2; exit 1")).rejects.toThrow(
      /could not set up the sandbox: warning: bwrap: execvp x$/,
    );
  });

  it('a bubblewrap killed by a signal, or stopped by the runner, is a result, not a failed setup', async () => {
    const killed = await fakeBwrap("echo 'bwrap: execvp x' >&2; kill -KILL $$");
    expect(killed).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false });
    const stopped = await fakeBwrap('sleep 30', { input: input({ timeoutMs: 100 }) });
    expect(stopped).toMatchObject({ exitCode: null, timedOut: true, sandboxed: true });
    // Stopped, and it exits with a code of its own and no exit record: still the stop's result.
    const exits = await fakeBwrap("trap 'exit 1' TERM; sleep 30 & wait", {
      input: input({ timeoutMs: 100 }),
    });
    expect(exits).toMatchObject({ exitCode: null, timedOut: true, sandboxed: true });
  });

  it("a failed setup quotes at most 2,000 characters of bubblewrap's words", async () => {
    const error = await fakeBwrap('head -c 5000 /dev/zero | tr "\\0" w >&2; exit 1').catch(
      (e: Error) => e,
    );
    expect((error as Error).message).toBe(
      `Tool "t": bubblewrap could not set up the sandbox: ${'w'.repeat(2000)}`,
    );
  });

  it('no exit code and no signal: the sandbox could not be set up, with its words', async () => {
    const error = await fakeBwrap("echo 'bwrap: Creating new namespace failed' >&2; exit 1").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('UNAVAILABLE');
    expect((error as ToolError).message).toBe(
      'Tool "t": bubblewrap could not set up the sandbox: bwrap: Creating new namespace failed',
    );
  });

  it('… and with nothing on stderr, its exit code', async () => {
    await expect(fakeBwrap('exit 3')).rejects.toThrow(
      /^Tool "t": bubblewrap could not set up the sandbox: exit code 3$/,
    );
  });

  it('a program bubblewrap could not find is exit code 127, the command failing', async () => {
    const r = await fakeBwrap("echo 'bwrap: execvp nosuch: No such file or directory' >&2; exit 1");
    expect(r.exitCode).toBe(127);
  });

  it('the cgroup is given back when the sandbox could not be set up', async () => {
    const { cgroup, removed } = fakeCgroup({ processesRefused: 0, memoryKilled: false });
    await expect(fakeBwrap('exit 1', { launch: launchWith(cgroup) })).rejects.toThrow(ToolError);
    expect(removed()).toBe(1);
  });

  it('unconfined, the process exit code is the result (no status pipe)', async () => {
    const r = await sh('echo \'{"exit-code": 7}\' >&3 2>/dev/null; exit 5');
    expect(r).toMatchObject({ exitCode: 5, sandboxed: false });
  });
});

describe('the pipes handed over', () => {
  const show =
    'for fd in 3 4 5; do [ -e /proc/self/fd/$fd ] && echo "open $fd"; done; cat <&4; cat <&5';

  it('the seccomp program on fd 4 and the arguments on fd 5, each read to its end', async () => {
    const r = await fakeBwrap(`${show}; echo '{"exit-code": 0}' >&3`, {
      seccomp: Buffer.from('SECCOMP-BYTES\n'),
      bwrapArgs: Buffer.from('ARGS-BYTES\n'),
    });
    expect(r.stdout).toBe('open 3\nopen 4\nopen 5\nSECCOMP-BYTES\nARGS-BYTES\n');
  });

  it('without a seccomp program, fd 4 is not open', async () => {
    const r = await fakeBwrap(`${show} 2>/dev/null; echo '{"exit-code": 0}' >&3`, {
      bwrapArgs: Buffer.from('ARGS-BYTES\n'),
    });
    expect(r.stdout).toBe('open 3\nopen 5\nARGS-BYTES\n');
  });

  it("through the launcher, the program joins the run's cgroups and runs under its rlimits", async () => {
    // Plain files stand in for cgroup.procs: the launcher writes its pid into each, then becomes
    // the program, so both files name the program's own pid. Checked without a fork bomb: a change
    // that drops the launcher or its limits must fail here, not leave a bomb unbounded on the host.
    const procs = [`${t.base}/procs-a`, `${t.base}/procs-b`];
    const cgroup: RunCgroup = {
      procs,
      countsProcesses: true,
      usage: () => ({ processesRefused: 0, memoryKilled: false }),
      remove: () => {},
    };
    const launch = launchWith(cgroup);
    const r = await fakeBwrap(
      'echo $$; ulimit -Sn; ulimit -Hn; ulimit -St; ulimit -Ht; echo \'{"exit-code": 0}\' >&3',
      { launch },
    );
    const [pid, ...ulimits] = r.stdout.trim().split('\n');
    for (const p of procs) expect(readFileSync(p, 'utf8')).toBe(`${pid}\n`);
    // What the launcher was asked for (capped at this host's hard limits): hard, then soft.
    const split = launch.ulimit.indexOf('--');
    const asked = (part: readonly string[], flag: string) => part[part.indexOf(flag) + 1];
    const [hard, soft] = [launch.ulimit.slice(0, split), launch.ulimit.slice(split + 1)];
    expect(ulimits).toEqual([
      asked(soft, '-n'),
      asked(hard, '-n'),
      asked(soft, '-t'),
      asked(hard, '-t'),
    ]);
    expect(asked(soft, '-t')).toBe(String(config().limits.cpuSeconds));
  });

  it('through the launcher, the same fds stay open and no other', async () => {
    const r = await fakeBwrap(
      `ls /proc/self/fd | sort -n | tr '\\n' ' '; cat <&4 <&5 >/dev/null; echo '{"exit-code": 0}' >&3`,
      {
        seccomp: Buffer.from('S'),
        bwrapArgs: Buffer.from('A'),
        launch: launchWith(undefined),
      },
    );
    // 0 1 2, the three pipes, and the descriptor ls opens to list them.
    expect(r.stdout.trim().split(' ').map(Number).slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('unconfined, none of them is open', async () => {
    const r = await sh(
      'for fd in 3 4 5; do [ -e /proc/self/fd/$fd ] && echo "open $fd"; done; true',
      {
        seccomp: Buffer.from('S'),
        bwrapArgs: Buffer.from('A'),
      },
    );
    expect(r.stdout).toBe('');
  });

  it('a program that never reads its pipes or stdin is not an error', async () => {
    const big = Buffer.alloc(4 << 20, 0x61);
    const r = await fakeBwrap('echo \'{"exit-code": 0}\' >&3; exec 4<&- 5<&- 0<&-', {
      seccomp: big,
      bwrapArgs: big,
      input: input({ stdin: big }),
    });
    expect(r.exitCode).toBe(0);
    const u = await sh('exec 0<&-; exit 0', { input: input({ stdin: big }) });
    expect(u.exitCode).toBe(0);
  });

  it('stdin is fed when given, and empty otherwise', async () => {
    expect((await sh('cat', { input: input({ stdin: Buffer.from('fed\n') }) })).stdout).toBe(
      'fed\n',
    );
    expect((await sh('cat; echo end')).stdout).toBe('end\n');
  });
});

describe('the process it starts', () => {
  it.each([
    ['directly', undefined],
    ['through the launcher', 'launch'],
  ] as const)(
    '%s: in the given cwd, with the given environment, leading its own group',
    async (_, how) => {
      const r = await sh('pwd; echo "$DSH_X"; cut -d" " -f1,5 /proc/$$/stat', {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DSH_X: 'x-value' },
        ...(how && { launch: launchWith(undefined) }),
      });
      const [cwd, x, stat] = r.stdout.trim().split('\n');
      expect(cwd).toBe(t.ws);
      expect(x).toBe('x-value');
      const [pid, pgrp] = stat!.split(' ');
      expect(pgrp).toBe(pid);
    },
  );

  it('a launcher with no cgroups to join writes nowhere', async () => {
    const dir = `${t.base}/empty-cwd`;
    await mkdir(dir);
    await sh('true', { cwd: dir, launch: launchWith(undefined) });
    expect(await readdir(dir)).toEqual([]);
  });

  it('confined through the launcher, bubblewrap starts with no environment', async () => {
    const r = await fakeBwrap('env | grep -c . ; echo \'{"exit-code": 0}\' >&3', {
      env: { PATH: '/usr/bin:/bin', DSH_X: 'x' },
      launch: launchWith(undefined),
    });
    // bash sets PWD, SHLVL and _ itself; nothing of the given environment arrives.
    expect(r.stdout).not.toContain('DSH_X');
    expect(Number(r.stdout.trim())).toBeLessThanOrEqual(3);
  });

  it.each([
    ['a program', undefined, '/nonexistent/program'],
    ['the launcher', '/nonexistent/bash', '/nonexistent/bash'],
  ])(
    '%s that cannot start is UNAVAILABLE, naming it, with the cause',
    async (_, bashPath, named) => {
      const { cgroup, removed } = fakeCgroup({ processesRefused: 0, memoryKilled: false });
      const launch = bashPath === undefined ? undefined : { ...launchWith(cgroup), bash: bashPath };
      const error = await spawnAndWait('/nonexistent/program', [], spec({ launch })).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolError);
      expect((error as ToolError).code).toBe('UNAVAILABLE');
      expect((error as ToolError).message).toMatch(
        new RegExp(`^Tool "t": cannot start "${named}": spawn ${named} ENOENT$`),
      );
      expect((error as ToolError).cause).toBeInstanceOf(Error);
      if (bashPath !== undefined) expect(removed()).toBe(1);
    },
  );

  it('a launcher that cannot start, or a sandbox that cannot be set up, without cgroups', async () => {
    const launch = { ...launchWith(undefined), bash: '/nonexistent/bash' };
    await expect(spawnAndWait('/nonexistent/program', [], spec({ launch }))).rejects.toThrow(
      /cannot start "\/nonexistent\/bash"/,
    );
    await expect(fakeBwrap('exit 1', { launch: launchWith(undefined) })).rejects.toThrow(
      /bubblewrap could not set up the sandbox/,
    );
  });
});

describe('when the run resolves', () => {
  it("only after the sandbox's first process (child-pid) is gone", async () => {
    // The first process outlives the "bubblewrap" by a moment, holding none of its pipes.
    const r = await fakeBwrap(
      'sleep 0.3 </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- & echo "{\\"child-pid\\": $!}" >&3; echo $!; echo \'{"exit-code": 0}\' >&3',
    );
    expect(stateOf(Number(r.stdout.trim())) ?? 'gone').toMatch(/^(gone|Z)$/);
  });

  it('a first process that is a zombie is gone: the run does not wait for it', async () => {
    // A short sleep ends after its parent became a long one (exec), which never reaps it.
    const r = await fakeBwrap(
      `(sleep 0.05 & echo $! > ${t.base}/zombie; exec sleep 3) </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- & sleep 0.3; echo "{\\"child-pid\\": $(cat ${t.base}/zombie)}" >&3; cat ${t.base}/zombie; echo '{"exit-code": 0}' >&3`,
    );
    // Resolved while the zombie was still there: it had not been waited for until its parent went.
    expect(stateOf(Number(r.stdout.trim()))).toBe('Z');
  });

  it('a first process that stays is waited for only a bounded while', async () => {
    await writeFile(`${t.base}/stays.sh`, 'exec sleep 60\n');
    const r = await fakeBwrap(
      `setsid sh ${t.base}/stays.sh </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- & echo "{\\"child-pid\\": $!}" >&3; echo $!; echo '{"exit-code": 0}' >&3`,
    );
    const pid = Number(r.stdout.trim());
    expect(stateOf(pid)).toMatch(/^[SR]$/);
    process.kill(pid, 'SIGKILL');
  }, 20_000);
});

describe('stopping a run', () => {
  it('past its time: SIGTERM to the group, timedOut, no exit code', async () => {
    const r = await sh('sleep 30', { input: input({ timeoutMs: 100 }) });
    expect(r).toMatchObject({ exitCode: null, timedOut: true, aborted: false, signal: 'SIGTERM' });
  });

  it('a process that ignores SIGTERM is SIGKILLed after the grace, and says so', async () => {
    const r = await sh("trap '' TERM; sleep 30 & wait", { input: input({ timeoutMs: 100 }) });
    expect(r).toMatchObject({ exitCode: null, timedOut: true, signal: 'SIGKILL' });
  });

  it('aborted: aborted, not timed out', async () => {
    const controller = new AbortController();
    const running = sh('echo started; sleep 30', { signals: [controller.signal] });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
  });

  it('the first reason to stop is the one reported: an abort, then the time limit in the grace', async () => {
    const controller = new AbortController();
    // SIGTERM is ignored, so the run lives through the grace; the time limit passes meanwhile.
    const running = sh("trap '' TERM; echo up; while :; do sleep 0.05; done", {
      signals: [controller.signal],
      input: input({ timeoutMs: 600 }),
      config: config(1500),
    });
    setTimeout(() => controller.abort(), 50);
    expect(await running).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGKILL' });
  });

  it('a stopped run names a signal even when its process ended in its own SIGTERM handler', async () => {
    const r = await sh("trap 'exit 3' TERM; echo up; while :; do sleep 0.05; done", {
      input: input({ timeoutMs: 100 }),
    });
    expect(r.exitCode).toBeNull();
    expect(r.timedOut).toBe(true);
    expect(r.signal).toMatch(/^SIG[A-Z]+$/);
  });

  it('a run leaves no listener on the signals it was given (one signal may serve many runs)', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await sh('exit 0', { signals: [controller.signal] });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal after the run ended changes nothing and kills nothing', async () => {
    const controller = new AbortController();
    const r = await sh('exit 0', { signals: [controller.signal] });
    controller.abort();
    expect(r).toMatchObject({ exitCode: 0, aborted: false });
  });

  it('a process killed by its own hand is reported by its signal, not as stopped', async () => {
    const r = await sh('kill -KILL $$');
    expect(r).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: false, aborted: false });
  });
});

describe('the output returned', () => {
  it('control sequences are escaped unless rawOutput', async () => {
    const script = "printf 'a\\033[2Jb\\n'; printf 'e\\007\\n' >&2";
    const escaped = await sh(script);
    expect(escaped.stdout).toBe('a\\x1b[2Jb\n');
    expect(escaped.stderr).toBe('e\\x07\n');
    const raw = await sh(script, { rawOutput: true });
    expect(raw.stdout).toBe('a\u001b[2Jb\n');
    expect(raw.stderr).toBe('e\u0007\n');
  });

  it('truncated on either stream past maxOutputBytes', async () => {
    const small = input({ maxOutputBytes: 4 });
    expect((await sh('echo 12345678', { input: small })).truncated).toBe(true);
    expect((await sh('echo 12345678 >&2', { input: small })).truncated).toBe(true);
    expect((await sh('echo 123', { input: small })).truncated).toBe(false);
  });
});
