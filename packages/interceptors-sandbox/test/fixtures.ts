import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { defineTool } from '@dsh-tools/define-tool';
import { ToolError, type ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { afterAll, afterEach } from 'vitest';
import { findBwrap, requireSandbox, type SandboxOptions, sandboxInterceptor } from '../src/index';

/** Where bubblewrap is on this machine, or `undefined`. */
export const BWRAP = findBwrap();
export const NO_BWRAP = BWRAP === undefined;
/** Under CI (`CI=true`) a missing bubblewrap fails the confinement tests instead of skipping them. */
export const IN_CI = process.env.CI === 'true';
/** Whether the tests that need bubblewrap skip: only where it is missing and this is not CI. */
export const SKIP_BWRAP = NO_BWRAP && !IN_CI;
export const NO_BWRAP_REASON =
  'bubblewrap (bwrap) is not installed: apt-get install bubblewrap to run the confinement tests';

/**
 * The title of a block that needs bubblewrap, saying whether and why it is skipped, so that a
 * skipped block reads as one in the report rather than as a quiet pass.
 */
export const needsBwrap = (title: string): string =>
  SKIP_BWRAP
    ? `${title} (SKIPPED: ${NO_BWRAP_REASON}; with CI=true these fail instead)`
    : NO_BWRAP
      ? `${title} (bubblewrap missing and CI=true: these fail)`
      : title;

/** Every scratch tree made by this test file, removed after it even when a test failed. */
const trees = new Set<string>();

/** One line of /proc/<pid>/stat as the numbers the cleanup needs, or `undefined` once it is gone. */
function procStat(pid: number): { ppid: number; pgrp: number; session: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z') return undefined;
    return { ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` works in one of the trees this test file made (a run's process, surely). */
const worksInATree = (pid: number): boolean => {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return [...trees].some((base) => cwd === base || cwd.startsWith(`${base}/`));
  } catch {
    return false;
  }
};

/**
 * Kills whatever the runs of this test file started and left behind: the runner spawns each run
 * detached (a session and process group of its own, a direct child of this process), so each
 * such child's group and every process descended from it get SIGKILL; and so does any process
 * whose working directory is in a tree {@link makeTree} made, which catches a daemon of an
 * unconfined run that left its group and lost its parent. Children of this process that lead no
 * session of their own (none of the runner's) are left alone. Returns the pids it killed.
 */
export function killLeftovers(): number[] {
  const parents = new Map<number, number>();
  const groups = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat === undefined) continue;
    parents.set(Number(entry), stat.ppid);
    groups.set(Number(entry), stat.pgrp);
  }
  const runs = [...parents]
    .filter(([pid, ppid]) => ppid === process.pid && procStat(pid)?.session === pid)
    .map(([pid]) => pid);
  const doomed = new Set([
    ...runs,
    ...[...parents.keys()].filter((pid) => pid !== process.pid && worksInATree(pid)),
  ]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!doomed.has(pid) && (doomed.has(ppid) || runs.includes(groups.get(pid) ?? -1))) {
        doomed.add(pid);
        grew = true;
      }
    }
  }
  for (const pid of runs) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
  for (const pid of doomed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return [...doomed];
}

/**
 * Registers the cleanup of a test file that runs commands: after each test, whatever its runs
 * left (see {@link killLeftovers}); after the file, every tree {@link makeTree} made. Call it at
 * the top level of the test file.
 */
export function cleanUpAfterTests(): void {
  afterEach(() => gone(killLeftovers()));
  afterAll(async () => {
    await gone(killLeftovers());
    for (const base of trees) await rm(base, { recursive: true, force: true });
    trees.clear();
  });
}

/** Waits (bounded) until every pid is gone or a zombie: a kill is delivered asynchronously. */
async function gone(pids: readonly number[]): Promise<void> {
  for (let i = 0; i < 250 && pids.some((pid) => procStat(pid) !== undefined); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
  trees.add(base);
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
  const cleanup = async () => {
    trees.delete(base);
    await rm(base, { recursive: true, force: true });
  };
  return { base, ws, outside, cleanup };
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
