import { spawn } from 'node:child_process';

/** How long to keep reading after the hook exited, before its leftovers are killed. */
const DRAIN_MS = 200;

/** What one hook process run produced. */
export interface RawHookRun {
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  /** Set when the run did not end on its own terms. */
  readonly failure?: {
    readonly kind: 'timeout' | 'overflow' | 'spawn' | 'aborted';
    readonly message: string;
  };
  /** The hook's process id (its process group id as well), when it started. */
  readonly pid?: number;
}

/** What {@link runHookProcess} needs. */
export interface RunHookRequest {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly input: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal | undefined;
}

const formatBytes = (bytes: number): string =>
  bytes % 1_048_576 === 0
    ? `${bytes / 1_048_576} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`;

/**
 * Runs one hook command with `sh -c` in its own process group, feeds it `input` on stdin, and
 * collects stdout and stderr up to `maxOutputBytes` each. Never rejects. The whole group is killed
 * (SIGKILL to `-pid`) on timeout, on overflow, on abort, and when the hook exited but something
 * it left behind still holds its stdout or stderr open after a short drain: a forked child can
 * neither outlive a timeout nor hang the call.
 */
export const runHookProcess = (request: RunHookRequest): Promise<RawHookRun> =>
  new Promise((resolve) => {
    const started = performance.now();
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let exited = false;
    let openStreams = 2;
    let failure: RawHookRun['failure'];
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('/bin/sh', ['-c', request.command], {
        cwd: request.cwd,
        env: request.env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      resolve({
        exitCode: null,
        exitSignal: null,
        stdout: '',
        stderr: '',
        durationMs: performance.now() - started,
        failure: {
          kind: 'spawn',
          message: `could not be started (${error instanceof Error ? error.message : String(error)})`,
        },
      });
      return;
    }
    const pid = child.pid;

    const killGroup = () => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ESRCH: the group is already gone.
      }
    };

    const onAbort = () => {
      failure ??= { kind: 'aborted', message: 'was stopped because the call was aborted' };
      killGroup();
    };

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      request.signal?.removeEventListener('abort', onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      resolve({
        exitCode,
        exitSignal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        durationMs: performance.now() - started,
        ...(failure !== undefined && { failure }),
        ...(pid !== undefined && { pid }),
      });
    };

    const maybeFinish = () => {
      if (exited && openStreams === 0) finish();
    };

    const collect = (which: 'stdout' | 'stderr') => (chunk: Buffer) => {
      if (settled) return;
      let size: number;
      if (which === 'stdout') {
        stdoutBytes += chunk.length;
        size = stdoutBytes;
      } else {
        stderrBytes += chunk.length;
        size = stderrBytes;
      }
      if (size > request.maxOutputBytes) {
        failure ??= {
          kind: 'overflow',
          message: `wrote more than ${formatBytes(request.maxOutputBytes)} to ${which} (the cap) and was killed`,
        };
        killGroup();
        finish();
        return;
      }
      (which === 'stdout' ? stdout : stderr).push(chunk);
    };

    const onStreamClosed = () => {
      openStreams--;
      maybeFinish();
    };

    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
    child.stdout?.on('close', onStreamClosed);
    child.stderr?.on('close', onStreamClosed);
    child.stdout?.on('error', () => {});
    child.stderr?.on('error', () => {});
    // A hook that exits without reading its input makes the write fail with EPIPE: not an error.
    child.stdin?.on('error', () => {});

    child.on('error', (error) => {
      failure ??= { kind: 'spawn', message: `could not be started (${error.message})` };
      killGroup();
      finish();
    });

    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      if (openStreams > 0) {
        // Whatever still holds the pipes was left behind by the hook; give it a moment to flush,
        // then end it.
        drainTimer = setTimeout(() => {
          killGroup();
          finish();
        }, DRAIN_MS);
      }
      maybeFinish();
    });

    timer = setTimeout(() => {
      failure ??= {
        kind: 'timeout',
        message: `did not finish within ${request.timeoutMs / 1000} s (its "timeout") and was killed`,
      };
      killGroup();
    }, request.timeoutMs);

    if (request.signal !== undefined) {
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
    }

    child.stdin?.end(request.input);
  });
