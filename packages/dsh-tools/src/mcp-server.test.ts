import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Context } from '@deepseek-ai/cordis';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import type { McpServerHandle, McpStatusEvent } from '@dsh-tools/mcp-bridge';
import {
  errorResult,
  type ToolChangeEvent,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { McpServer, ToolRegistry } from './cordis';

/** The bridge's own fault-injection server (MCP SDK v1): a real server in its own process. */
const FAULT_SERVER = fileURLToPath(
  new URL('../../mcp-bridge/test/fault-server.mjs', import.meta.url),
);

let serial = 0;
/** A marker argument (the server ignores it) that finds this test's server processes in /proc. */
const newMarker = () => `dsh-tools-test-${process.pid}-${++serial}`;

/** Process ids whose command line holds `marker` (Linux /proc; the servers are our children). */
const processesWith = (marker: string): number[] => {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker))
        found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
};

const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** Polls every 20 ms, at most `tries` times: a safety net, never a measure of speed. */
const until = async (condition: () => boolean, tries = 250): Promise<void> => {
  for (let i = 0; i < tries; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met in time');
};

const stdio = (name: string, marker: string, env: Record<string, string> = {}) => ({
  name,
  command: process.execPath,
  args: [FAULT_SERVER, 'stdio', marker],
  env,
});

/** An app with the tools service, recording `mcp/status` and `tools/change`. */
const boot = async () => {
  const root = new Context();
  await root.plugin(SystemPrompt, {});
  await root.plugin(ToolRegistry);
  const statuses: McpStatusEvent[] = [];
  let handle: McpServerHandle | undefined;
  root.on('mcp/status', (event, server) => {
    statuses.push(event);
    handle = server;
  });
  const changes: ToolChangeEvent[] = [];
  root.on('tools/change', (event) => {
    changes.push(event);
  });
  return {
    root,
    statuses,
    changes,
    handle: () => {
      if (!handle) throw new Error('no mcp/status event yet');
      return handle;
    },
  };
};

const text = (result: ToolExecutionResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('\n');

const errorsLogged = (root: Context) =>
  root.logger.buffer.filter((m) => m.type === 'error').map((m) => String(m.args[0]));

describe('the McpServer plugin', () => {
  it('registers the server’s tools in ctx.tools and in the system prompt', async () => {
    const { root, statuses, handle } = await boot();
    const fiber = await root.plugin(McpServer, stdio('fault', newMarker()));
    const names = root.tools.schemas().map((s) => s.name);
    expect(names).toContain('mcp__fault__echo');
    expect(names).toEqual(handle().tools.map((t) => t.name));
    expect(root.tools.get('mcp__fault__echo')?.source).toEqual({
      kind: 'mcp',
      server: 'fault',
      tool: 'echo',
    });
    const assembly = await root.systemPrompt.assemble();
    const echo = assembly.tools.find((t: { name: string }) => t.name === 'mcp__fault__echo');
    expect(echo).toMatchObject({ description: 'Echoes its text.' });
    expect(echo?.parameters).toMatchObject({ type: 'object', required: ['text'] });
    expect(statuses).toEqual([{ server: 'fault', status: 'connected', previous: 'connecting' }]);
    expect(handle().status).toBe('connected');
    await fiber.dispose();
  });

  it('runs a call through ctx.tools and the tools/execute listeners', async () => {
    const { root } = await boot();
    const fiber = await root.plugin(McpServer, stdio('fault', newMarker()));
    const seen: string[] = [];
    await root.plugin({
      name: 'policy',
      apply(ctx: Context) {
        ctx.on('tools/execute', (exec, next) => {
          seen.push(`${exec.name} ${JSON.stringify(exec.arguments)} ${exec.tool.source?.kind}`);
          return exec.arguments.text === 'veto'
            ? errorResult(exec.callId, 'DENIED', 'vetoed by the policy plugin')
            : next({ ...exec, arguments: { text: `${String(exec.arguments.text)}!` } });
        });
      },
    });
    const ok = await root.tools.execute({
      callId: 'c1',
      name: 'mcp__fault__echo',
      arguments: { text: 'hi' },
    });
    expect(ok.isError).toBe(false);
    expect(text(ok)).toBe('hi!');
    const vetoed = await root.tools.execute({
      callId: 'c2',
      name: 'mcp__fault__echo',
      arguments: { text: 'veto' },
    });
    expect(vetoed.error).toEqual({ code: 'DENIED', message: 'vetoed by the policy plugin' });
    expect(seen).toEqual([
      'mcp__fault__echo {"text":"hi"} mcp',
      'mcp__fault__echo {"text":"veto"} mcp',
    ]);
    await fiber.dispose();
  });

  it('disposing it closes the bridge first, then its tools go, and the server process ends', async () => {
    const { root, statuses, changes, handle } = await boot();
    const marker = newMarker();
    const fiber = await root.plugin(McpServer, stdio('fault', marker));
    const pid = handle().pid;
    expect(pid).toBeTypeOf('number');
    expect(processesWith(marker)).toEqual([pid]);
    // A tool the server adds later (tools/list_changed) is held the same way.
    const added = await root.tools.execute({
      callId: 'c1',
      name: 'mcp__fault__set-tools',
      arguments: { add: ['late'] },
    });
    expect(added.isError).toBe(false);
    await until(() => root.tools.has('mcp__fault__late'));
    const count = root.tools.schemas().length;

    // When each tool leaves the registry, the bridge must already have let go of it (closed):
    // otherwise it could refresh into a disposed fiber and keep listing tools that are gone.
    const bridgeToolsAtRemoval: number[] = [];
    root.on('tools/change', (event) => {
      if (event.removed.length) bridgeToolsAtRemoval.push(handle().tools.length);
    });
    changes.length = 0;
    await fiber.dispose();
    expect(root.tools.schemas()).toEqual([]);
    expect(changes.flatMap((c) => c.removed)).toHaveLength(count);
    expect(bridgeToolsAtRemoval).toHaveLength(count);
    expect(bridgeToolsAtRemoval.every((n) => n === 0)).toBe(true);
    expect((await root.systemPrompt.assemble()).tools).toEqual([]);
    expect(handle().status).toBe('closed');
    expect(handle().tools).toEqual([]);
    expect(statuses.at(-1)).toMatchObject({ status: 'closed', previous: 'connected' });
    await until(() => isGone(pid as number));
    expect(processesWith(marker)).toEqual([]);
    expect(fiber.getEffects()).toEqual([]);
    expect(errorsLogged(root)).toEqual([]);
  });

  it('closes the server when the tools service goes, and starts a new one when it is back', async () => {
    const root = new Context();
    const service = await root.plugin(ToolRegistry);
    let handle: McpServerHandle | undefined;
    root.on('mcp/status', (_event, server) => {
      handle = server;
    });
    const marker = newMarker();
    const fiber = await root.plugin(McpServer, stdio('fault', marker));
    const first = handle?.pid as number;
    await service.dispose();
    await until(() => isGone(first));
    expect(handle?.status).toBe('closed');
    await root.plugin(ToolRegistry);
    await until(() => handle?.status === 'connected' && root.tools.has('mcp__fault__echo'));
    expect(handle?.pid).not.toBe(first);
    expect(processesWith(marker)).toEqual([handle?.pid]);
    await fiber.dispose();
    expect(processesWith(marker)).toEqual([]);
  });

  it('restarting the plugin replaces the server process', async () => {
    const { root, handle } = await boot();
    const marker = newMarker();
    const fiber = await root.plugin(McpServer, stdio('fault', marker));
    const first = handle().pid as number;
    await fiber.restart();
    expect(handle().status).toBe('connected');
    await until(() => isGone(first));
    expect(processesWith(marker)).toEqual([handle().pid]);
    expect(root.tools.has('mcp__fault__echo')).toBe(true);
    await fiber.dispose();
  });

  it('reports a crash and the reconnect as mcp/status, and still ends the new process', async () => {
    const { root, statuses, handle } = await boot();
    const marker = newMarker();
    const fiber = await root.plugin(McpServer, {
      ...stdio('fault', marker),
      reconnect: { initialDelayMs: 10, maxAttempts: 3 },
    });
    const first = handle().pid as number;
    const crashed = await root.tools.execute({
      callId: 'c1',
      name: 'mcp__fault__crash',
      arguments: {},
    });
    expect(crashed.error?.code).toBe('UNAVAILABLE');
    await until(() => handle().status === 'connected' && handle().pid !== first);
    expect(statuses.map((e) => e.status)).toEqual(['connected', 'reconnecting', 'connected']);
    const echoed = await root.tools.execute({
      callId: 'c2',
      name: 'mcp__fault__echo',
      arguments: { text: 'back' },
    });
    expect(text(echoed)).toBe('back');
    const second = handle().pid as number;
    await fiber.dispose();
    await until(() => isGone(first) && isGone(second));
    expect(processesWith(marker)).toEqual([]);
  });

  it('a throwing mcp/status listener is logged; the plugin and the other listeners go on', async () => {
    const { root, statuses } = await boot();
    root.on('mcp/status', () => {
      throw new Error('status board offline');
    });
    const fiber = await root.plugin(McpServer, stdio('fault', newMarker()));
    await fiber.dispose();
    expect(statuses.map((e) => e.status)).toEqual(['connected', 'closed']);
    await until(() => errorsLogged(root).length === 2);
    expect(errorsLogged(root).every((line) => line.includes('status board offline'))).toBe(true);
  });

  it('a server that fails at start fails the plugin with its stderr, leaving nothing behind', async () => {
    const { root, statuses } = await boot();
    const marker = newMarker();
    const fiber = root.plugin(McpServer, stdio('broken', marker, { FAULT_START: 'exit' }));
    const failure = await fiber.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toMatch(
      /MCP server "broken" .* exited during startup \(exit code 3\)/,
    );
    expect(failure?.message).toContain('cannot open database /nonexistent/db.sqlite');
    expect(failure?.message).toContain('fatal: giving up');
    // cordis reports the plugin's failure through its logger, as for any plugin whose apply rejects.
    expect(errorsLogged(root).join('\n')).toContain('exited during startup');
    expect(root.tools.schemas()).toEqual([]);
    expect(statuses).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
    await fiber.dispose();
  });

  it('a server silent at start is killed when its startup time is up', async () => {
    const { root } = await boot();
    const marker = newMarker();
    const fiber = root.plugin(McpServer, {
      ...stdio('silent', marker, { FAULT_START: 'silent' }),
      startupTimeoutMs: 300,
    });
    await until(() => processesWith(marker).length === 1);
    await expect(fiber).rejects.toThrow(/did not finish starting within 300 ms/);
    await until(() => processesWith(marker).length === 0);
    expect(root.tools.schemas()).toEqual([]);
  });

  it('disposed while starting: waits for the start, then closes it; nothing left, nothing logged', async () => {
    const { root } = await boot();
    const marker = newMarker();
    const fiber = root.plugin(McpServer, stdio('slow', marker, { FAULT_LIST_DELAY_MS: '200' }));
    await until(() => processesWith(marker).length === 1);
    await fiber.dispose();
    expect(root.tools.schemas()).toEqual([]);
    await until(() => processesWith(marker).length === 0);
    expect(errorsLogged(root)).toEqual([]);
  });

  it('reports what the bridge contained to the cordis logger, or to onError when given', async () => {
    const { root } = await boot();
    // Another plugin already holds one of the server's public names: that tool is left out.
    await root.plugin({
      name: 'squatter',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register({
          name: 'mcp__fault__echo',
          description: 'Not the server’s echo.',
          parameters: { type: 'object', properties: {} },
          execute: () => [textContent('local')],
        });
      },
    });
    const fiber = await root.plugin(McpServer, stdio('fault', newMarker()));
    expect(root.tools.has('mcp__fault__stats')).toBe(true);
    expect(errorsLogged(root).join('\n')).toMatch(/registry refused tool "mcp__fault__echo"/);
    await fiber.dispose();

    const reported: string[] = [];
    const custom = await root.plugin(McpServer, {
      ...stdio('fault', newMarker()),
      onError: (error) => reported.push(error.message),
    });
    expect(reported.join('\n')).toMatch(/registry refused tool "mcp__fault__echo"/);
    await custom.dispose();
  });

  it('connects over Streamable HTTP with { name, url }', async () => {
    const { root, handle } = await boot();
    const fiber = await root.plugin(McpServer, { name: 'remote', url: await httpServer() });
    expect(handle().status).toBe('connected');
    const result = await root.tools.execute({
      callId: 'c1',
      name: 'mcp__remote__echo',
      arguments: { text: 'over http' },
    });
    expect(text(result)).toBe('over http');
    await fiber.dispose();
    expect(root.tools.schemas()).toEqual([]);
    expect(handle().status).toBe('closed');
  });
});

describe('malformed and hostile config', () => {
  const failure = async (config: unknown) => {
    const root = new Context();
    await root.plugin(ToolRegistry);
    const error = await root.plugin(McpServer, config as never).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(root.tools.schemas()).toEqual([]);
    return error?.message;
  };

  it('fails the plugin naming what is wrong, and starts nothing', async () => {
    expect(await failure(undefined)).toMatch(/McpServer plugin: the config must be one server/);
    expect(await failure('npx server')).toMatch(/got string/);
    expect(await failure({})).toMatch(/"name" must be a non-empty string/);
    expect(await failure({ name: 'x' })).toMatch(/exactly one of "command" .* or "url"/);
    expect(await failure({ name: 'x', command: 'a', url: 'http://x' })).toMatch(/exactly one/);
    expect(await failure({ name: 'x', command: 'a', args: 'b' })).toMatch(
      /"args" must be an array/,
    );
    expect(await failure({ name: 'x', url: 'file:///etc/passwd' })).toMatch(/http: or https:/);
    expect(await failure({ name: 'x', command: 'a', onError: 'log' })).toMatch(
      /"onError" must be a function/,
    );
    expect(await failure({ name: 'x', command: 'a', trust: 'false' })).toMatch(/"trust"/);
    expect(await failure({ name: 'n'.repeat(100_000), command: 'a' })).toMatch(/at most 256/);
    expect(await failure({ name: 'x', command: '/nonexistent/mcp-server' })).toMatch(
      /command not found/,
    );
  });

  it('fails the plugin on any value that is not a server, registering nothing', async () => {
    const root = new Context();
    await root.plugin(ToolRegistry);
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (config) => {
        const error = await root.plugin(McpServer, config as never).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(/McpServer plugin|connectMcpServer/);
        expect(root.tools.schemas()).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('fails the plugin when reading the config throws', async () => {
    const hostile = {
      name: 'x',
      get command(): string {
        throw new Error('no command for you');
      },
    };
    expect(await failure(hostile)).toMatch(/no command for you/);
  });
});

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts the fault server in HTTP mode and resolves its URL once it listens. */
const httpServer = () =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [FAULT_SERVER, 'http'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const port = /PORT=(\d+)/.exec(out)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}/mcp`);
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the HTTP fault server exited (${code})`)));
  });
