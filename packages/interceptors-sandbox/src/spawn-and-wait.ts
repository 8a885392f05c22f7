import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import { Capture } from './capture';
import type { SandboxConfig } from './options';
import type { RunInput } from './run-input';
import type { SandboxRunResult } from './types';

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

export interface SpawnSpec {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly input: RunInput;
  readonly signals: readonly AbortSignal[];
  readonly config: SandboxConfig;
  readonly sandboxed: boolean;
  readonly who: string;
}

/**
 * Spawns one process in its own process group and resolves when it and everything it started
 * are gone. Past the time limit or on abort the group gets SIGTERM, then SIGKILL after the grace.
 * The environment goes through spawn's `env` rather than bwrap's `--setenv`: argv is readable by
 * every user in /proc, the environment only by the owner.
 */
export function spawnAndWait(
  file: string,
  args: readonly string[],
  spec: SpawnSpec,
): Promise<SandboxRunResult> {
  const { input, config } = spec;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: [input.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', spec.sandboxed ? 'pipe' : 'ignore'],
    });
    const stdout = new Capture(input.maxOutputBytes);
    const stderr = new Capture(input.maxOutputBytes);
    let status = '';
    let stopped: 'timeout' | 'abort' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      if (stopped !== undefined || child.pid === undefined || child.exitCode !== null) return;
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
    const statusStream = child.stdio[3] as NodeJS.ReadableStream | null;
    statusStream?.on('data', (c: Buffer) => {
      if (status.length < 65_536) status += c.toString('utf8');
    });
    if (input.stdin && child.stdin) {
      // A command that exits without reading its input closes the pipe: that is not a failure.
      child.stdin.on('error', () => {});
      child.stdin.end(input.stdin);
    }
    child.on('error', (error) => {
      cleanup();
      reject(
        new ToolError(
          ToolErrorCode.UNAVAILABLE,
          `${spec.who}: cannot start "${file}": ${(error as Error).message}`,
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
          reject(
            new ToolError(
              ToolErrorCode.UNAVAILABLE,
              `${spec.who}: bubblewrap could not set up the sandbox: ${stderr.text().trim().slice(0, 2000) || `exit code ${code}`}`,
            ),
          );
          return;
        }
        const truncated = stdout.dropped > 0 || stderr.dropped > 0;
        resolve({
          exitCode: stopped ? null : (exit ?? code),
          signal: stopped ? (signal ?? 'SIGKILL') : signal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          truncated,
          timedOut: stopped === 'timeout',
          aborted: stopped === 'abort',
          sandboxed: spec.sandboxed,
        });
      });
    });
  });
}
