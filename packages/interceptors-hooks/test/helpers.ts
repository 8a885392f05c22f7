// Shared by this package's tests: real hook scripts in a real temp dir, a real registry.
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineTool } from '@dsh-tools/define-tool';
import {
  type InterceptedExecution,
  type ToolArgs,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { hooksInterceptor } from '../src/index';
import type {
  HookCommandConfig,
  HookMatcherConfig,
  HookRunRecord,
  HooksConfig,
  HooksInterceptorOptions,
} from '../src/types';

/** A temp dir for one test's scripts and marker files. */
export const makeTempDir = async (): Promise<{
  readonly dir: string;
  readonly cleanup: () => Promise<void>;
}> => {
  const dir = await mkdtemp(join(tmpdir(), 'dsh-hooks-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
};

/** Writes an executable script and returns its path. */
export const writeScript = async (dir: string, name: string, body: string): Promise<string> => {
  const path = join(dir, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
};

/** A bash hook script. */
export const bashHook = (dir: string, name: string, body: string) =>
  writeScript(dir, name, `#!/usr/bin/env bash\n${body}\n`);

/** A node hook script (ESM), run as `node <path>`; returns that command. */
export const nodeHook = async (dir: string, name: string, body: string): Promise<string> =>
  `node ${await writeScript(dir, name, body)}`;

/** A PreToolUse hooks block: one group matching `matcher`, running `commands`. */
export const pre = (
  matcher: string,
  ...commands: (string | HookCommandConfig)[]
): HookMatcherConfig => ({
  matcher,
  hooks: commands.map((c) => (typeof c === 'string' ? { type: 'command', command: c } : c)),
});

/** Whether a process exists and is not a zombie (a zombie has exited; it only awaits reaping). */
export const isAlive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name, which may itself hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

/** Waits until a file exists (a hook wrote it); fails the test after a generous bound. */
export const waitForFile = async (path: string, ms = 15_000): Promise<string> => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (existsSync(path)) {
      const text = await readFile(path, 'utf8');
      if (text.endsWith('\n')) return text;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${path}`);
};

/** Polls until `check` holds; used only for conditions that become true, never for timing. */
export const eventually = async (check: () => boolean, ms = 10_000): Promise<boolean> => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
};

/**
 * A registry with two tools (`Bash` and `echo`) behind the hooks interceptor (outer) and a
 * recording interceptor (inner, standing in for permission or sandbox: it records what it saw).
 */
export const setup = (
  hooks: HooksConfig | HooksInterceptorOptions['hooks'],
  options: Partial<HooksInterceptorOptions> = {},
) => {
  const registry = createToolRegistry({ onError: () => {} });
  const bodyCalls: ToolArgs[] = [];
  const innerSaw: InterceptedExecution[] = [];
  const runs: HookRunRecord[] = [];
  registry.register(
    defineTool({
      name: 'Bash',
      description: 'Runs a command (not really: it echoes it)',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string' }, timeout: { type: 'number' } },
        required: ['command'],
        additionalProperties: false,
      },
      execute: (args) => {
        bodyCalls.push(args);
        return [textContent(`ran: ${args.command}`)];
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'echo',
      description: 'Echoes text',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
      execute: (args) => {
        bodyCalls.push(args);
        if (args.text === 'throw') throw new Error('echo failed on purpose');
        return {
          content: [textContent(`echo: ${args.text}`)],
          structuredContent: { echoed: args.text },
        };
      },
    }),
  );
  registry.use(
    hooksInterceptor({
      hooks,
      onHookRun: (record) => runs.push(record),
      ...options,
    }),
    { name: 'hooks', priority: 10 },
  );
  registry.use(
    (exec, next) => {
      innerSaw.push(exec);
      return next();
    },
    { name: 'inner-policy', priority: 0 },
  );
  let n = 0;
  const call = (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolExecutionResult> =>
    registry.execute({
      callId: `call-${++n}`,
      name,
      arguments: args,
      ...(signal !== undefined && { signal }),
    });
  return { registry, call, bodyCalls, innerSaw, runs };
};

/** The JSON a PreToolUse hook prints to decide. */
export const decisionJson = (
  decision: 'allow' | 'deny' | 'ask',
  reason: string,
  extra: Record<string, unknown> = {},
): string =>
  JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision,
      permissionDecisionReason: reason,
      ...extra,
    },
  });

/** A shell command that prints `text` (single-quoted safely). */
export const printing = (text: string): string => `printf '%s' '${text.replaceAll("'", "'\\''")}'`;
