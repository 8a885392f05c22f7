/**
 * The tools an agent host would register, working in the world's repository: `Bash` (runs its
 * command with `bash -c`, unsandboxed: these corpora test the permission layer alone), `Grep` (a
 * directory reader with a path hint) and `Deploy` (no hints at all). Registered in a real registry,
 * with or without the permission interceptor in front.
 */
import { spawn } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  ApprovalRequest,
  Interceptor,
  ToolDefinition,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import { textContent } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import { toolEnv, type World } from './fixture';

/** How long one command may run before its whole process group is killed. */
export const COMMAND_TIMEOUT_MS = 8000;

/** Runs `bash -c line` in `cwd`; stdout and stderr together; never throws. */
export function runBash(line: string, cwd: string, home: string): Promise<string> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', line], {
      cwd,
      env: toolEnv(home),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (data) => {
      out += data;
    });
    child.stderr.on('data', (data) => {
      out += data;
    });
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      out += `\n[killed after ${COMMAND_TIMEOUT_MS} ms]`;
      kill();
    }, COMMAND_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      done(`spawn failed: ${error.message}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // Background children of the line (`cmd &`) must not outlive it.
      kill();
      done(`${out}\n[exit ${code}]`);
    });
  });
}

/** A glob over one file name: `*`, `?` and literal text. */
const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/**
 * What the `Grep` tool's body reads: the file, or every file under the directory (not `.git`),
 * leaving out what `exclude` covers (a body that honours the call's exclusion passes it).
 */
function grepFiles(
  root: string,
  glob?: string,
  exclude?: { covers(path: string): boolean },
): string[] {
  if (exclude?.covers(root)) return [];
  const stat = statSync(root);
  if (!stat.isDirectory()) return [root];
  const match = glob ? globToRegExp(glob) : undefined;
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === '.git' || name === 'node_modules') continue;
      const full = join(dir, name);
      if (exclude?.covers(full)) continue;
      const entry = lstatSync(full);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && (!match || match.test(name))) out.push(full);
    }
  };
  walk(root);
  return out;
}

/**
 * The `Grep` tool over the world's repository. With `honoursExclude` its path hint says so and its
 * body leaves out what the call's exclusion covers (an in-process reader no sandbox can hold).
 */
export function grepTool(world: World, { honoursExclude = false } = {}): ToolDefinition {
  return {
    name: 'Grep',
    description: 'Searches file contents under a path (default: the working directory).',
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string' },
        path: { type: 'string' },
        glob: { type: 'string' },
        ignoreCase: { type: 'boolean' },
      },
      required: ['pattern'],
    },
    hints: {
      readOnly: true,
      paths: [{ arg: 'path', access: 'read', ...(honoursExclude && { honoursExclude }) }],
    },
    execute: (args, exec) => {
      const pattern = new RegExp(String(args.pattern), args.ignoreCase ? 'i' : '');
      const root = resolve(world.repo, String(args.path ?? '.'));
      const glob = args.glob === undefined ? undefined : String(args.glob);
      const lines: string[] = [];
      for (const file of grepFiles(root, glob, honoursExclude ? exec.exclude : undefined)) {
        for (const line of readFileSync(file, 'utf8').split('\n')) {
          if (pattern.test(line)) lines.push(`${file}:${line}`);
        }
      }
      return [textContent(lines.join('\n') || 'no matches')];
    },
  };
}

/** Every question the approver was asked; it answers deny. */
export interface Questions {
  readonly asked: ApprovalRequest[];
  approve(request: ApprovalRequest): { kind: 'deny'; reason: string };
}

export function denyingApprover(): Questions {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve(request) {
      asked.push(request);
      return { kind: 'deny', reason: 'the attack harness answers deny' };
    },
  };
}

/** A registry with the three tools, and the interceptor in front when one is given. */
export function worldRegistry(
  world: World,
  interceptor?: Interceptor,
  ran: { count: number } = { count: 0 },
): ToolRegistry {
  const registry = createToolRegistry({ timeoutMs: COMMAND_TIMEOUT_MS * 2 });
  const counted = <T>(body: () => Promise<T>) => {
    ran.count++;
    return body();
  };
  registry.register({
    name: 'Bash',
    description: 'Runs a shell command in the project.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
    hints: { command: 'command' },
    execute: (args) =>
      counted(async () => [
        textContent(await runBash(String(args.command), world.repo, world.home)),
      ]),
  });
  const grep = grepTool(world);
  registry.register({
    ...grep,
    execute: (args, exec) => counted(async () => grep.execute(args, exec)),
  });
  registry.register({
    name: 'Deploy',
    description: 'Deploys the project (a tool with no hints).',
    parameters: { type: 'object', properties: { target: { type: 'string' } } },
    execute: () =>
      counted(async () => [
        textContent(await runBash(`touch '${world.mark}'`, world.repo, world.home)),
      ]),
  });
  if (interceptor) registry.use(interceptor, { name: 'permission' });
  return registry;
}

let calls = 0;
/** Runs one tool call through the registry. */
export function callTool(
  registry: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolExecutionResult> {
  return registry.execute({ callId: `attack-${++calls}`, name, arguments: args });
}

/** All text of a result, error message included. */
export const resultText = (result: ToolExecutionResult): string =>
  [
    ...result.content.map((block) => ('text' in block ? String(block.text) : '')),
    result.error?.message ?? '',
  ].join('\n');
