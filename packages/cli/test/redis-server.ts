import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Whether the Redis tests run: when Debian's `redis-server` is installed, and always under CI
 * (`.ci/run` installs it, so there a missing server fails the tests instead of skipping them).
 */
export const hasRedisServer = (): boolean =>
  process.env.CI === 'true' ||
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;

/** A port free on loopback now (the kernel's choice; the server binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** A real `redis-server` a test started: its URL, and how to kill, restart and stop it. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Its data directory (the append-only file lives here). */
  readonly dir: string;
  /** SIGKILLs the server (no save on the way out), and waits for it to be gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory (after {@link kill}). */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP): its connections stay open and nothing answers (a slow store). */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Stops it and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on a free loopback port, in a fresh directory, with the persistence a
 * gateway's grants need (an append-only file synced on every write: an acknowledged write
 * survives a crash of the server). Waits until it accepts connections.
 */
export async function startRedis(): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const proc = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--save',
          '',
          '--protected-mode',
          'yes',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      child = proc;
      let out = '';
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`redis-server did not start in 10 s:\n${out}`));
      }, 10_000);
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`));
      });
    });
  const gone = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    kill: gone,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    restart: async () => {
      await gone();
      await launch();
    },
    stop: async () => {
      child?.kill('SIGCONT');
      await gone();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
