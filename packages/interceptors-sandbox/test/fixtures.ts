import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { defineTool } from '@dsh-tools/define-tool';
import { ToolError, type ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { findBwrap, requireSandbox, type SandboxOptions, sandboxInterceptor } from '../src/index';

/** Where bubblewrap is on this machine, or `undefined`: runner tests skip only then. */
export const BWRAP = findBwrap();
export const NO_BWRAP = BWRAP === undefined;
export const NO_BWRAP_REASON =
  'bubblewrap (bwrap) is not installed: apt-get install bubblewrap to run the confinement tests';

/**
 * A scratch tree on the real file system:
 *
 * ```
 * base/
 *   ws/            the writable root and cwd
 *     file.txt  sub/inner.txt  .env (a secret)  .git/hooks/pre-commit
 *   outside/       never writable
 *     secret.txt  dir/
 * ```
 */
export interface Tree {
  readonly base: string;
  readonly ws: string;
  readonly outside: string;
  cleanup(): Promise<void>;
}

export async function makeTree(): Promise<Tree> {
  // Not under /tmp: the sandbox mounts a fresh /tmp, which would hide "outside" and make every
  // escape from the root fail for the wrong reason (the target would simply not exist inside).
  const parent = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();
  const base = await realpath(await mkdtemp(`${parent}/dsh-sandbox-`));
  const ws = `${base}/ws`;
  const outside = `${base}/outside`;
  await mkdir(`${ws}/sub`, { recursive: true });
  await mkdir(`${ws}/.git/hooks`, { recursive: true });
  await mkdir(`${outside}/dir`, { recursive: true });
  await writeFile(`${ws}/file.txt`, 'inside\n');
  await writeFile(`${ws}/sub/inner.txt`, 'inner\n');
  await writeFile(`${ws}/.env`, 'API_KEY=ws-secret-value\n');
  await writeFile(`${ws}/.git/hooks/pre-commit`, '#!/bin/sh\nexit 0\n');
  await writeFile(`${outside}/secret.txt`, 'outside-secret\n');
  return { base, ws, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Creates `link` pointing at `target` (relative or absolute, dangling allowed). */
export const link = (target: string, path: string) => symlink(target, path);

/**
 * The example tools of the README: a reader and a writer that declare their path arguments, and a
 * shell that declares its command and runs it only through the sandbox's runner.
 */
export function exampleTools(cwd: string) {
  const readFileTool = defineTool({
    name: 'read_file',
    description: 'Read a text file of the workspace',
    parameters: { path: { type: 'string', required: true, path: 'read' } },
    hints: { readOnly: true },
    async execute({ path }) {
      return [{ type: 'text', text: await readFile(resolve(cwd, path), 'utf8') }];
    },
  });
  const writeFileTool = defineTool({
    name: 'write_file',
    description: 'Write a text file of the workspace',
    parameters: {
      path: { type: 'string', required: true, path: 'write' },
      content: { type: 'string', required: true },
    },
    hints: { destructive: true },
    async execute({ path, content }) {
      await writeFile(resolve(cwd, path), content);
      return [{ type: 'text', text: `wrote ${content.length} characters` }];
    },
  });
  const copyFilesTool = defineTool({
    name: 'copy_files',
    description: 'Copy files',
    parameters: {
      pairs: {
        type: 'array',
        required: true,
        items: {
          type: 'object',
          properties: {
            from: { type: 'string', required: true, path: 'read' },
            to: { type: 'string', required: true, path: 'write' },
          },
        },
      },
    },
    async execute({ pairs }) {
      for (const { from, to } of pairs)
        await writeFile(resolve(cwd, to), await readFile(resolve(cwd, from)));
      return [{ type: 'text', text: `copied ${pairs.length}` }];
    },
  });
  const bashTool = defineTool({
    name: 'bash',
    description: 'Run a shell command in the workspace',
    parameters: { command: { type: 'string', required: true } },
    hints: { command: 'command' },
    async execute({ command }, exec) {
      const run = await requireSandbox(exec).run(['bash', '-c', command], { signal: exec.signal });
      if (run.aborted)
        throw new ToolError('ABORTED', 'bash: the call was aborted; the command was killed');
      if (run.timedOut)
        throw new ToolError('TIMEOUT', 'bash: the command ran out of time and was killed');
      return {
        content: [{ type: 'text', text: `${run.stdout}${run.stderr}exit ${run.exitCode}` }],
        structuredContent: { ...run },
      };
    },
  });
  return { readFileTool, writeFileTool, copyFilesTool, bashTool };
}

/** A real registry with the sandbox installed and the example tools registered. */
export function sandboxedRegistry(options: SandboxOptions & { cwd: string }) {
  const registry = createToolRegistry();
  registry.use(sandboxInterceptor(options), { name: 'sandbox' });
  const tools = exampleTools(options.cwd);
  for (const tool of Object.values(tools)) registry.register(tool);
  let n = 0;
  const call = (name: string, args: Record<string, unknown>, signal?: AbortSignal) =>
    registry.execute({ callId: `c${++n}`, name, arguments: args, ...(signal && { signal }) });
  return { registry, call };
}

/** The error code of a result, or `'ok'`. */
export const outcome = (result: ToolExecutionResult): string => result.error?.code ?? 'ok';

/** Host pids whose command line contains `marker` (other than this process). */
export async function pidsWith(marker: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}
