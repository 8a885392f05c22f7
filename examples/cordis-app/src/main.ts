/**
 * A cordis app with the dsh-tools `tools` service: boots the service beside the real system-prompt
 * service, loads a tool plugin, a policy plugin and an MCP server (a real one, in its own process),
 * runs a success, a veto, invalid arguments, a timeout and an MCP call, then loads the Hooks,
 * Sandbox and Permission plugins around a shell tool and a file tool (a real `sh` hook, real
 * bubblewrap, real files in a temporary workspace) and shows each of them stop a call, disposes
 * everything, and prints every step as a readable trace.
 *
 * Run it with `pnpm demo` from the repository root (it builds the packages first).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '@deepseek-ai/cordis';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import {
  defineTool,
  errorResult,
  type InterceptedExecution,
  type InterceptorNext,
  type McpServerHandle,
  requireSandbox,
  ToolError,
  type ToolExecutionResult,
  textContent,
} from 'dsh-tools';
import { Hooks, McpServer, Permission, Sandbox, ToolRegistry } from 'dsh-tools/cordis';

/** Where the trace goes: one line per step. */
export type Print = (line: string) => void;

const NOTES: Record<string, string> = {
  todo: 'buy milk; review the tools PR',
  ideas: 'a plugin per MCP server',
  secrets: 'the launch codes',
};

/** Reads a note by title; `defineTool` infers `{ title: string }` from the spec. */
const readNote = defineTool({
  name: 'read_note',
  description: 'Read one note by its title.',
  parameters: { title: { type: 'string', required: true, description: 'The note title.' } },
  hints: { readOnly: true, concurrencySafe: true },
  execute({ title }) {
    // Own keys only: a title such as "constructor" must not read through the prototype.
    const text = Object.hasOwn(NOTES, title) ? NOTES[title] : undefined;
    if (text === undefined) throw new Error(`no note titled "${title}"`);
    return [textContent(text)];
  },
});

/** Searches the notes slowly: a 10 s search under a 50 ms limit, so its timeout always fires. */
const slowSearch = defineTool({
  name: 'slow_search',
  description: 'Search every note (slow).',
  parameters: { query: { type: 'string', required: true } },
  timeoutMs: 50,
  execute({ query }, exec) {
    return new Promise((resolve, reject) => {
      const work = setTimeout(() => resolve([textContent(`nothing matches "${query}"`)]), 10_000);
      // A well-behaved body stops when its signal aborts (the timeout, or the caller).
      exec.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(work);
          reject(exec.signal.reason);
        },
        { once: true },
      );
    });
  },
});

/**
 * A shell tool that runs its command only through the sandbox's confined runner: without a
 * Sandbox plugin, `requireSandbox` fails the call (`UNAVAILABLE`) rather than run it unconfined.
 * `hints.command` makes permission rules written `Bash(…)` apply to it.
 */
const shell = defineTool({
  name: 'shell',
  description: 'Run a shell command in the workspace.',
  parameters: { command: { type: 'string', required: true } },
  hints: { command: 'command' },
  async execute({ command }, exec) {
    const run = await requireSandbox(exec).run(['sh', '-c', command], { signal: exec.signal });
    if (run.timedOut) throw new ToolError('TIMEOUT', 'shell: out of time; the command was killed');
    return [textContent(`${run.stdout}${run.stderr}`.trim() || `exit ${run.exitCode}`)];
  },
});

/** Writes a note file; `path: 'write'` declares the argument, so the sandbox checks it. */
const saveNote = (workspace: string) =>
  defineTool({
    name: 'save_note',
    description: 'Save a note as a file of the workspace.',
    parameters: {
      path: { type: 'string', required: true, path: 'write' },
      text: { type: 'string', required: true },
    },
    execute({ path, text }) {
      writeFileSync(resolve(workspace, path), text);
      return [textContent(`saved ${path}`)];
    },
  });

/** A Claude Code PreToolUse hook, run by `/bin/sh` as Claude Code runs it: it blocks downloads. */
const GUARD_HOOK = `#!/bin/sh
payload=$(cat)
case "$payload" in
  *curl*|*wget*) echo "guard.sh: downloads are not allowed in this workspace" >&2; exit 2 ;;
esac
exit 0
`;

/** The demo's MCP server: a small stdio server built on the official MCP server SDK. */
const CALENDAR_SERVER = fileURLToPath(new URL('./calendar-server.mjs', import.meta.url));

/** Whether a process is still running (signal 0 only checks). */
const running = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const summary = (result: ToolExecutionResult): string => {
  const first = result.content[0];
  const text = first?.type === 'text' ? first.text : `${result.content.length} block(s)`;
  return result.isError ? `${result.error?.code ?? 'ERROR'}  ${text}` : `ok  ${text}`;
};

/** Boots the app, runs the scripted calls, shuts down; every step goes to `print`. */
export async function main(print: Print = console.log): Promise<void> {
  const root = new Context();
  // A real workspace for the file and shell tools; the trace names it `<workspace>`, so that it
  // reads the same on every run.
  const workspace = mkdtempSync(join(tmpdir(), 'dsh-cordis-app-'));
  const say = (step: string, text: string) =>
    print(`${step.padEnd(8)} ${text.split(workspace).join('<workspace>')}`);

  // Contained failures (a throwing observer, a body settling after its timeout) reach the
  // cordis logger; this exporter puts them into the trace.
  root.logger.exporter({
    export: (message) => say('logger', `[${message.type}] ${String(message.args[0])}`),
  });

  await root.plugin(SystemPrompt, {});
  await root.plugin(ToolRegistry, { timeoutGraceMs: 20 });
  say('boot', 'loaded the system-prompt service and the tools service (ctx.tools)');

  root.on('tools/change', ({ added, removed }) => {
    if (added.length) say('change', `+ ${added.join(', ')}`);
    if (removed.length) say('change', `- ${removed.join(', ')}`);
  });
  // The call first, then its result: the DeepSeek Harness's order.
  root.on('tools/result', (exec, result) => {
    say('result', `${exec.name} (${exec.callId}): ${summary(result)}`);
  });

  // A tool plugin: its tools live exactly as long as its fiber.
  const notes = await root.plugin({
    name: 'notes',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(readNote);
      ctx.tools.register(slowSearch);
    },
  });
  say('plugin', 'loaded "notes" (read_note, slow_search)');

  // A policy plugin: wraps every call through the `tools/execute` cordis event.
  await root.plugin({
    name: 'policy',
    apply(ctx: Context) {
      ctx.on('tools/execute', async (exec: InterceptedExecution, next: InterceptorNext) => {
        const title = exec.arguments.title;
        if (title === 'secrets') {
          say('policy', `deny ${exec.name} ${JSON.stringify(exec.arguments)}`);
          return errorResult(
            exec.callId,
            'DENIED',
            `Tool "${exec.name}": the "secrets" note is off limits (policy plugin)`,
          );
        }
        if (typeof title === 'string' && title !== title.toLowerCase()) {
          say('policy', `rewrite title "${title}" -> "${title.toLowerCase()}"`);
          return next({ ...exec, arguments: { ...exec.arguments, title: title.toLowerCase() } });
        }
        say('policy', `allow ${exec.name} ${JSON.stringify(exec.arguments)}`);
        return next();
      });
    },
  });
  say('plugin', 'loaded "policy" (a tools/execute listener)');

  // A flaky observer: it throws on every vetoed call. The service contains it (the result and the
  // other observers are untouched) and reports it to the cordis logger, naming the plugin.
  await root.plugin({
    name: 'audit',
    apply(ctx: Context) {
      ctx.on('tools/result', (_exec, result) => {
        if (result.error?.code === 'DENIED') throw new Error('the audit store is unreachable');
      });
    },
  });
  say('plugin', 'loaded "audit" (a tools/result listener that fails on vetoes)');

  // An MCP server: one McpServer plugin per server. Its tools are the plugin's; disposing it
  // closes the bridge and ends the server process.
  let calendarServer: McpServerHandle | undefined;
  root.on('mcp/status', (event, server) => {
    calendarServer = server;
    say('mcp', `${event.server}: ${event.previous} -> ${event.status}`);
  });
  const calendar = await root.plugin(McpServer, {
    name: 'calendar',
    command: process.execPath,
    args: [CALENDAR_SERVER],
  });
  say('plugin', 'loaded "calendar" (an MCP server in its own process)');

  const prompt = async () => {
    const assembly = await root.systemPrompt.assemble();
    const names = assembly.tools.map((tool: { name: string }) => tool.name);
    say('prompt', `the model sees ${names.length ? names.join(', ') : 'no tools'}`);
  };
  await prompt();

  const run = async (callId: string, name: string, args: unknown) => {
    say('call', `${name} ${JSON.stringify(args)} (${callId})`);
    return root.tools.execute({ callId, name, arguments: args as Record<string, unknown> });
  };

  await run('c1', 'read_note', { title: 'todo' });
  await run('c2', 'read_note', { title: 'Ideas' });
  await run('c3', 'read_note', { title: 'secrets' });
  await run('c4', 'read_note', { title: 42 });
  await run('c5', 'slow_search', { query: 'milk' });
  await run('m1', 'mcp__calendar__next_event', { calendar: 'work' });

  say('turn', 'executeAll: two reads in one model turn');
  await root.tools.executeAll([
    { callId: 'c6', name: 'read_note', arguments: { title: 'todo' } },
    { callId: 'c7', name: 'read_note', arguments: { title: 'nope' } },
  ]);

  // The interceptor plugins, around two more tools. Each installs its interceptor in ctx.tools at
  // its own priority, below the policy listener: hooks outermost, then sandbox, then permission.
  const hooksDir = join(workspace, '.hooks');
  mkdirSync(hooksDir);
  const guard = join(hooksDir, 'guard.sh');
  writeFileSync(guard, GUARD_HOOK);
  chmodSync(guard, 0o755);
  const workbench = await root.plugin({
    name: 'workbench',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(shell);
      ctx.tools.register(saveNote(workspace));
    },
  });
  const hooks = await root.plugin(Hooks, {
    hooks: { PreToolUse: [{ matcher: 'shell', hooks: [{ type: 'command', command: guard }] }] },
    cwd: workspace,
    sessionId: 'cordis-app-demo',
  });
  say('plugin', 'loaded "hooks" (a PreToolUse hook, .hooks/guard.sh)');
  const sandbox = await root.plugin(Sandbox, { mode: 'workspace-write', cwd: workspace });
  say('plugin', 'loaded "sandbox" (workspace-write, root <workspace>)');
  const permission = await root.plugin(Permission, {
    cwd: workspace,
    rules: { allow: ['Bash(echo:*)', 'Bash(curl:*)', 'save_note'], deny: ['Bash(rm:*)'] },
  });
  say('plugin', 'loaded "permission" (allow echo, curl and save_note; deny rm)');

  await run('s1', 'shell', { command: 'echo hello from the sandbox' });
  await run('s2', 'shell', { command: 'curl https://example.com' });
  await run('s3', 'shell', { command: 'rm -rf notes' });
  await run('s4', 'save_note', { path: '../outside.txt', text: 'escaped' });
  await run('s5', 'save_note', { path: 'ideas.txt', text: 'a plugin per interceptor' });
  // The host reaches the policy through the Permission plugin's service, ctx.permission.
  root.permission.setMode('plan');
  say('mode', `ctx.permission.setMode('plan'): mode is now "${root.permission.mode}"`);
  await run('s6', 'save_note', { path: 'ideas.txt', text: 'changed in plan mode' });
  root.permission.setMode('default');

  await permission.dispose();
  await sandbox.dispose();
  await hooks.dispose();
  say('plugin', 'disposed "permission", "sandbox" and "hooks": their interceptors are gone');
  // Nothing vetoes it now, and without the sandbox the shell refuses to run unconfined.
  await run('s7', 'shell', { command: 'rm -rf notes' });
  await workbench.dispose();

  await notes.dispose();
  say('plugin', 'disposed "notes"');
  const pid = calendarServer?.pid;
  await calendar.dispose();
  say(
    'plugin',
    `disposed "calendar": its server process ${running(pid) ? 'is still running' : 'has ended'}`,
  );
  await prompt();
  await run('c8', 'read_note', { title: 'todo' });

  await root.fiber.dispose();
  rmSync(workspace, { recursive: true, force: true });
  say('done', 'app disposed');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
