import { type StdioOptions, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import { ARGS_FD, SECCOMP_FD, STATUS_FD } from './bwrap-args';
import { Capture } from './capture';
import type { RunCgroup } from './cgroup';
import { launcherArgs } from './launcher';
import type { ResolvedLimits } from './limits';
import type { SandboxConfig } from './options';
import type { RunInput } from './run-input';
import { escapeControls } from './terminal-output';
import type { SandboxLimitHit, SandboxRunResult } from './types';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a host pid is gone (or a zombie, which holds nothing and runs nothing). */
const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
};

/**
 * Waits until the sandbox's first process (its pid namespace's init) is gone: the kernel kills
 * every other process of the namespace before init finishes exiting, so nothing the run started
 * outlives the moment the run resolves.
 */
async function waitGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  for (let waited = 0; waited < 5_000 && !isGone(pid); waited += 5) await sleep(5);
}

/** How the launcher starts the run (see launcher.ts). */
export interface Launch {
  /** The host's bash. */
  readonly bash: string;
  /** bash `ulimit` arguments. */
  readonly ulimit: readonly string[];
  /** The run's cgroups, when the host lets this process make them. */
  readonly cgroup: RunCgroup | undefined;
}

export interface SpawnSpec {
  readonly cwd: string;
  /** The environment of the sandboxed program. */
  readonly env: Record<string, string>;
  readonly input: RunInput;
  readonly signals: readonly AbortSignal[];
  readonly config: SandboxConfig;
  readonly limits: ResolvedLimits;
  readonly sandboxed: boolean;
  readonly who: string;
  readonly launch: Launch | undefined;
  /** The seccomp program bubblewrap installs, handed over on its own pipe. */
  readonly seccomp?: Buffer | undefined;
  /** bubblewrap's `--args` content (the environment), handed over on its own pipe. */
  readonly bwrapArgs?: Buffer | undefined;
  /** Whether control sequences are kept in the output (default: escaped). */
  readonly rawOutput: boolean;
}

/** Which limit a run ran into, from its exit status and its cgroups. */
function limitHit(
  exitCode: number | null,
  stderr: string,
  limits: ResolvedLimits,
  cgroup: RunCgroup | undefined,
): SandboxLimitHit | undefined {
  const usage = cgroup?.usage();
  if (usage?.memoryKilled) {
    const peak = usage.memoryPeakBytes;
    return {
      limit: 'memoryBytes',
      value: limits.memoryBytes,
      detail: `a process was killed at the memory limit of ${limits.memoryBytes} bytes${peak ? ` (peak ${peak} bytes)` : ''}`,
    };
  }
  if (usage !== undefined && usage.processesRefused > 0) {
    return {
      limit: 'processes',
      value: limits.processes,
      detail: `${usage.processesRefused} process creations were refused at the limit of ${limits.processes} processes`,
    };
  }
  // Without a cgroup, RLIMIT_NPROC refuses forks; shells say so on stderr.
  if (usage === undefined && /fork: (retry: )?Resource temporarily unavailable/.test(stderr)) {
    return {
      limit: 'processes',
      value: limits.processes,
      detail: `process creation was refused at the limit of ${limits.processes} processes (RLIMIT_NPROC)`,
    };
  }
  // A process killed by a signal exits its shell (and bubblewrap) with 128 + the signal; a shell
  // that goes on after such a child says so on stderr in the C library's words.
  if (exitCode === 128 + constants.signals.SIGXCPU || /CPU time limit exceeded/.test(stderr)) {
    return {
      limit: 'cpuSeconds',
      value: limits.cpuSeconds,
      detail: `a process used its ${limits.cpuSeconds} CPU seconds and was stopped (SIGXCPU)`,
    };
  }
  if (exitCode === 128 + constants.signals.SIGXFSZ || /File size limit exceeded/.test(stderr)) {
    return {
      limit: 'fileSizeBytes',
      value: limits.fileSizeBytes,
      detail: `a process wrote past the file size limit of ${limits.fileSizeBytes} bytes (SIGXFSZ)`,
    };
  }
  if (/No space left on device/.test(stderr)) {
    return {
      limit: 'tmpBytes',
      value: limits.tmpBytes,
      detail: `a write found no space left: the sandbox's in-memory /tmp holds ${limits.tmpBytes} bytes and /dev/shm ${limits.shmBytes} (or the disk itself is full)`,
    };
  }
  if (/Too many open files/.test(stderr)) {
    return {
      limit: 'openFiles',
      value: limits.openFiles,
      detail: `a process reached the limit of ${limits.openFiles} open descriptors`,
    };
  }
  return undefined;
}

/**
 * Spawns one process in its own process group and resolves when it and everything it started
 * are gone. Past the time limit or on abort the group gets SIGTERM, then SIGKILL after the grace.
 * With a launcher, the process is a host bash that closes stray descriptors, sets the rlimits and
 * joins the run's cgroups before it becomes `file`; bubblewrap then starts with no environment and
 * reads the sandbox's from its argument pipe.
 */
export function spawnAndWait(
  file: string,
  args: readonly string[],
  spec: SpawnSpec,
): Promise<SandboxRunResult> {
  const { input, config, launch } = spec;
  return new Promise((resolve, reject) => {
    const stdio: StdioOptions = [input.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'];
    const keepFds: number[] = [];
    if (spec.sandboxed) {
      stdio[STATUS_FD] = 'pipe';
      stdio[SECCOMP_FD] = spec.seccomp ? 'pipe' : 'ignore';
      stdio[ARGS_FD] = 'pipe';
      keepFds.push(STATUS_FD, ...(spec.seccomp ? [SECCOMP_FD] : []), ARGS_FD);
    }
    const child =
      launch === undefined
        ? spawn(file, args, { cwd: spec.cwd, env: spec.env, detached: true, stdio })
        : spawn(
            launch.bash,
            launcherArgs({
              keepFds,
              cgroupProcs: launch.cgroup?.procs ?? [],
              ulimit: launch.ulimit,
              argv: [file, ...args],
            }),
            // bubblewrap gets the sandbox's environment through its argument pipe; an unconfined
            // run has no bubblewrap, so its program gets it from the launcher.
            { cwd: spec.cwd, env: spec.sandboxed ? {} : spec.env, detached: true, stdio },
          );
    const stdout = new Capture(input.maxOutputBytes);
    const stderr = new Capture(input.maxOutputBytes);
    let status = '';
    let stopped: 'timeout' | 'abort' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      // Not "has the first process exited": a background process may still hold the pipes open.
      if (stopped !== undefined || child.pid === undefined) return;
      stopped = why;
      const group = -child.pid;
      try {
        process.kill(group, 'SIGTERM');
      } catch {}
      killTimer = setTimeout(() => {
        try {
          process.kill(group, 'SIGKILL');
        } catch {}
      }, config.killGraceMs);
    };
    const timer = setTimeout(() => stop('timeout'), input.timeoutMs);
    const onAbort = () => stop('abort');
    for (const s of spec.signals) s.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      for (const s of spec.signals) s.removeEventListener('abort', onAbort);
    };
    child.stdout!.on('data', (c: Buffer) => stdout.push(c));
    child.stderr!.on('data', (c: Buffer) => stderr.push(c));
    const statusStream = child.stdio[STATUS_FD] as NodeJS.ReadableStream | null | undefined;
    statusStream?.on('data', (c: Buffer) => {
      if (status.length < 65_536) status += c.toString('utf8');
    });
    // A pipe the program closed early (it failed before reading) is reported by its exit status.
    const feed = (index: number, data: Buffer | undefined) => {
      const pipe = child.stdio[index] as NodeJS.WritableStream | null | undefined;
      if (!pipe || data === undefined) return;
      pipe.on('error', () => {});
      pipe.end(data);
    };
    feed(SECCOMP_FD, spec.sandboxed ? spec.seccomp : undefined);
    feed(ARGS_FD, spec.sandboxed ? spec.bwrapArgs : undefined);
    if (input.stdin && child.stdin) {
      // A command that exits without reading its input closes the pipe: that is not a failure.
      child.stdin.on('error', () => {});
      child.stdin.end(input.stdin);
    }
    const fail = (error: ToolError) => {
      launch?.cgroup?.remove();
      reject(error);
    };
    child.on('error', (error) => {
      cleanup();
      fail(
        new ToolError(
          ToolErrorCode.UNAVAILABLE,
          `${spec.who}: cannot start "${launch?.bash ?? file}": ${(error as Error).message}`,
          { cause: error },
        ),
      );
    });
    child.on('close', (code, signal) => {
      cleanup();
      let childPid: number | undefined;
      let exit: number | undefined;
      for (const line of status.split('\n')) {
        try {
          const record = JSON.parse(line) as { 'child-pid'?: number; 'exit-code'?: number };
          if (typeof record['child-pid'] === 'number') childPid = record['child-pid'];
          if (typeof record['exit-code'] === 'number') exit = record['exit-code'];
        } catch {}
      }
      void waitGone(childPid).then(() => {
        // bubblewrap wrote no exit code: the command never ran. A program that is not there is
        // the command's failure (a shell says 127); anything else is the sandbox's.
        const notFound = /^bwrap: execvp /m.test(stderr.text());
        if (
          spec.sandboxed &&
          stopped === undefined &&
          exit === undefined &&
          signal === null &&
          notFound
        ) {
          exit = 127;
        }
        if (spec.sandboxed && stopped === undefined && exit === undefined && signal === null) {
          fail(
            new ToolError(
              ToolErrorCode.UNAVAILABLE,
              `${spec.who}: bubblewrap could not set up the sandbox: ${stderr.text().trim().slice(0, 2000) || `exit code ${code}`}`,
            ),
          );
          return;
        }
        const exitCode = stopped ? null : (exit ?? code);
        const hit = limitHit(exitCode, stderr.text(), spec.limits, launch?.cgroup);
        launch?.cgroup?.remove();
        const truncated = stdout.dropped > 0 || stderr.dropped > 0;
        const text = (c: Capture) => (spec.rawOutput ? c.text() : escapeControls(c.text()));
        resolve({
          exitCode,
          signal: stopped ? (signal ?? 'SIGKILL') : signal,
          stdout: text(stdout),
          stderr: text(stderr),
          truncated,
          timedOut: stopped === 'timeout',
          aborted: stopped === 'abort',
          sandboxed: spec.sandboxed,
          ...(hit && { limit: hit }),
        });
      });
    });
  });
}
