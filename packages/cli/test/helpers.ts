import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DshToolsConfig, LoadedConfig } from '../src/config';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');

/**
 * The built CLI. The tests run it as a subprocess, exactly as a user runs the bin: `pnpm test`
 * builds every package first (turbo), and a stale build is refused below rather than tested.
 */
export const CLI = join(packageDir, 'dist', 'cli.mjs');
export const CHANGING_SERVER = join(here, 'fixtures', 'changing-server.mjs');
export const CRASH_SERVER = join(here, 'fixtures', 'crash-server.mjs');
export const EXAMPLE_SERVER = join(packageDir, 'dist', 'example-server.mjs');

/** Fails with what to do when dist/ is missing or older than a source file. */
export function assertBuilt(): void {
  let built: number;
  try {
    built = statSync(CLI).mtimeMs;
  } catch {
    throw new Error(
      `${CLI} is missing: run "pnpm --filter @dsh-tools/cli build" (pnpm test does it for you).`,
    );
  }
  const src = join(packageDir, 'src');
  for (const file of readdirSync(src)) {
    if (file.includes('.test')) continue;
    if (statSync(join(src, file)).mtimeMs > built + 1000) {
      throw new Error(
        `${CLI} is older than src/${file}: run "pnpm --filter @dsh-tools/cli build".`,
      );
    }
  }
}

/** A fresh temporary directory (real path: macOS-style /tmp links would confuse path checks). */
export function tempDir(prefix = 'dsh-cli-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * `config` as `loadConfig` would give it for a `dsh-tools.json` in `dir` (relative paths resolve
 * there), without writing the file: for tests that build a gateway in process.
 */
export function loadedIn(dir: string, config: DshToolsConfig): LoadedConfig {
  return { config, file: join(dir, 'dsh-tools.json'), baseDir: dir, warnings: [] };
}

/** Writes `config` as JSON to `dsh-tools.json` (or `name`) in `dir`; returns its path. */
export function writeConfig(dir: string, config: unknown, name = 'dsh-tools.json'): string {
  const file = join(dir, name);
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2));
  return file;
}

/** An environment without colour forcing or inherited tokens, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  delete env.DSH_TOOLS_TOKEN;
  return { ...env, ...extra };
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI to completion (at most `timeoutMs`, then it is killed and the test fails). */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? tempDir(),
      env: options.env ?? cleanEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`dsh-tools ${args.join(' ')} did not finish in time.\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A `dsh-tools serve --http` process of a test. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  readonly stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `dsh-tools serve --http 127.0.0.1:0 …` and waits for the address it printed. Tests bind
 * loopback on an ephemeral port only.
 */
export function startServe(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'serve', '--http', '127.0.0.1:0', ...args], {
      cwd: options.cwd ?? tempDir(),
      env: options.env ?? cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start in time.\nstderr: ${stderr}`));
    }, 60_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        const url = match[1];
        resolve({
          url,
          child,
          stderr: () => stderr,
          stop: () =>
            new Promise<void>((done) => {
              // A child killed by a signal has no exit code, only its signal.
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening.\nstderr: ${stderr}`));
    });
  });
}

/** Polls `condition` every 25 ms, at most `tries` times. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  tries = 400,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('condition not met in time');
}
