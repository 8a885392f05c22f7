import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The in-repo fault-injection server. */
export const FAULT_SERVER = join(here, 'fault-server.mjs');
/** Makes a server that listens on a bare port bind 127.0.0.1 and print the port it got. */
export const LOOPBACK = join(here, 'loopback.mjs');
/** server-everything's launcher, from node_modules (never npx: tests must not download). */
export const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

/** A registry as a host would make one. */
export function newRegistry(): ToolRegistry {
  return createToolRegistry({ onError: () => {} });
}

let callCounter = 0;

/** Runs one call through the registry, as the agent loop would. */
export function call(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<ToolExecutionResult> {
  callCounter++;
  return registry.execute({
    callId: `call-${callCounter}`,
    name,
    arguments: args,
    ...(signal ? { signal } : {}),
  });
}

/** The text of a result's blocks. */
export const text = (result: ToolExecutionResult): string =>
  result.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');

/** Whether a process id is gone (kill(pid, 0) says ESRCH). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Polls a condition every 20 ms, at most `tries` times. */
export async function until(condition: () => boolean, tries = 250): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met in time');
}

/** An HTTP server process of the tests, stopped in afterAll. */
export interface HttpServer {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a server process that prints `PORT=<n>` on stdout or `LISTENING_PORT=<n>` on stderr
 * (the loopback preload) and waits for it.
 */
export function startHttpServer(
  args: readonly string[],
  env: Record<string, string> = {},
  path = '/mcp',
): Promise<HttpServer> {
  const child = spawn(process.execPath, [...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not report its port:\n${out}`));
    }, 15_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /(?:^|\n)(?:LISTENING_)?PORT=(\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      const port = Number(match[1]);
      resolve({
        url: `http://127.0.0.1:${port}${path}`,
        port,
        child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGKILL');
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}`));
    });
  });
}
