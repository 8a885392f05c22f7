import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorResult, type Interceptor } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from './config';
import { buildGateway, type ServerProgressEvent } from './gateway';
import { PolicyConfigError, PolicyUnavailableError } from './policies';

/** Polls `condition` every 10 ms, at most `tries` times. */
async function until(condition: () => boolean, tries = 500): Promise<void> {
  for (let i = 0; i < tries && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error('condition not met in time');
}

const here = dirname(fileURLToPath(import.meta.url));
const CHANGING = join(here, '..', 'test', 'fixtures', 'changing-server.mjs');
const CRASH = join(here, '..', 'test', 'fixtures', 'crash-server.mjs');

const loadedOf = (config: LoadedConfig['config']): LoadedConfig => ({
  config,
  file: '/virtual/dsh-tools.json',
  baseDir: here,
  warnings: [],
});

/** A policy that records its name on the way in and out (the seam's contract, not a real policy). */
const recording =
  (name: string, log: string[], act?: Interceptor): Interceptor =>
  async (exec, next) => {
    log.push(`${name}>`);
    const result = act ? await act(exec, next) : await next();
    log.push(`<${name}`);
    return result;
  };

describe('buildGateway: the policy seam', () => {
  it('installs hooks outermost, then sandbox, then permission, and records the trail', async () => {
    const log: string[] = [];
    const gateway = await buildGateway(
      loadedOf({
        mcpServers: {},
        exampleTools: true,
        hooks: {},
        sandbox: { mode: 'workspace-write' },
        permissions: {},
      }),
      {
        recordTrails: true,
        policies: {
          permission: () => recording('permission', log),
          hooks: () => recording('hooks', log),
          sandbox: () =>
            recording('sandbox', log, (exec, next) =>
              next({ ...exec, arguments: { ...exec.arguments, path: '.' } }),
            ),
        },
      },
    );
    expect(gateway.policies).toEqual(['hooks', 'sandbox', 'permission']);
    gateway.trails.begin('c1');
    const result = await gateway.registry.execute({
      callId: 'c1',
      name: 'list_dir',
      arguments: { path: 'nowhere' },
    });
    expect(result.isError).toBe(false);
    expect(log).toEqual(['hooks>', 'sandbox>', 'permission>', '<permission', '<sandbox', '<hooks']);
    expect(gateway.trails.take('c1', result).map((s) => `${s.layer}:${s.outcome}`)).toEqual([
      'hooks:passed',
      'sandbox:rewrote',
      'permission:passed',
      'tool:ran',
    ]);
    await gateway.close();
  });

  it('a veto is in the trail with its code and message; the tool does not run', async () => {
    const gateway = await buildGateway(
      loadedOf({ mcpServers: {}, exampleTools: true, permissions: { deny: ['x'] } }),
      {
        recordTrails: true,
        policies: {
          permission: () => (exec) => errorResult(exec.callId, 'DENIED', 'no writes today'),
        },
      },
    );
    gateway.trails.begin('c2');
    const result = await gateway.registry.execute({
      callId: 'c2',
      name: 'list_dir',
      arguments: {},
    });
    expect(gateway.trails.take('c2', result)).toEqual([
      expect.objectContaining({
        layer: 'permission',
        outcome: 'vetoed',
        code: 'DENIED',
        message: 'no writes today',
      }),
    ]);
    await gateway.close();
  });

  it('a section without a factory is refused before any server starts', async () => {
    const events: ServerProgressEvent[] = [];
    await expect(
      buildGateway(
        loadedOf({
          mcpServers: { s: { command: process.execPath, args: [CHANGING] } },
          sandbox: { mode: 'read-only' },
        }),
        { policies: {}, onServer: (e) => events.push(e) },
      ),
    ).rejects.toBeInstanceOf(PolicyUnavailableError);
    expect(events).toEqual([]);
  });

  it('a factory that throws, or a policy whose ready rejects, is a PolicyConfigError naming the section', async () => {
    await expect(
      buildGateway(loadedOf({ mcpServers: {}, hooks: {} }), {
        policies: {
          hooks: () => {
            throw new TypeError('bad matcher');
          },
        },
      }),
    ).rejects.toThrow(
      /The "hooks" section of \/virtual\/dsh-tools.json cannot be used: bad matcher/,
    );
    const notReady = Object.assign((async (_e, next) => next()) as Interceptor, {
      ready: Promise.reject(new Error('rule "Bash(" is malformed')),
    });
    const failed = buildGateway(loadedOf({ mcpServers: {}, permissions: {} }), {
      policies: { permission: () => notReady },
    });
    await expect(failed).rejects.toBeInstanceOf(PolicyConfigError);
    await expect(failed).rejects.toThrow(/permissions.*malformed/);
  });

  it('the real default policies enforce the config (no factories passed)', async () => {
    const gateway = await buildGateway(
      loadedOf({ mcpServers: {}, exampleTools: true, permissions: { deny: ['list_dir'] } }),
    );
    const result = await gateway.registry.execute({
      callId: 'c3',
      name: 'list_dir',
      arguments: {},
    });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('deny rule "list_dir"');
    await gateway.close();
  });
});

describe('buildGateway: MCP servers', () => {
  it('connects servers in parallel, reports progress, keeps a failed one in failures with its reason', async () => {
    const events: string[] = [];
    const gateway = await buildGateway(
      loadedOf({
        mcpServers: {
          good: { command: process.execPath, args: [CHANGING] },
          bad: { command: process.execPath, args: [CRASH] },
        },
      }),
      { onServer: (e) => events.push(`${e.server}:${e.phase}`) },
    );
    expect(events.filter((e) => e.endsWith(':connecting')).sort()).toEqual([
      'bad:connecting',
      'good:connecting',
    ]);
    expect(events).toContain('good:connected');
    expect(events).toContain('bad:failed');
    expect([...gateway.servers.keys()]).toEqual(['good']);
    expect(gateway.failures).toHaveLength(1);
    expect(gateway.failures[0]?.error.message).toContain('missing API key FAKE_KEY');
    expect(gateway.registry.schemas().map((s) => s.name)).toEqual([
      'mcp__good__echo',
      'mcp__good__fail',
      'mcp__good__grow',
    ]);
    const pid = gateway.servers.get('good')?.pid;
    expect(pid).toBeGreaterThan(0);
    await gateway.close();
    await gateway.close();
    expect(gateway.registry.schemas()).toEqual([]);
  });
});

describe('buildGateway: askScope and modeOf', () => {
  it('questions of one scope are put one at a time, of different scopes at once; modeOf picks the mode per call', async () => {
    const asked: string[] = [];
    const answers = new Map<string, () => void>();
    const gateway = await buildGateway(
      loadedOf({ mcpServers: {}, exampleTools: true, permissions: { ask: ['list_dir'] } }),
      {
        approver: (request) =>
          new Promise((resolve) => {
            asked.push(request.exec.callId);
            answers.set(request.exec.callId, () => resolve({ kind: 'allow' }));
          }),
        askScope: (exec) => exec.callId.split(':')[0],
        modeOf: (exec) => (exec.callId.startsWith('bypass') ? 'bypassPermissions' : undefined),
      },
    );
    const run = (callId: string) =>
      gateway.registry.execute({ callId, name: 'list_dir', arguments: {} });
    const a1 = run('a:1');
    const a2 = run('a:2');
    const b1 = run('b:1');
    await until(() => asked.length === 2);
    // a:2 waits behind a:1 (one scope); b:1 is asked at once (another scope).
    expect(asked.sort()).toEqual(['a:1', 'b:1']);
    answers.get('b:1')?.();
    expect((await b1).isError).toBe(false);
    answers.get('a:1')?.();
    await until(() => asked.length === 3);
    answers.get('a:2')?.();
    expect([(await a1).isError, (await a2).isError]).toEqual([false, false]);
    // A call whose mode is bypassPermissions is not asked.
    expect((await run('bypass:1')).isError).toBe(false);
    expect(asked).toHaveLength(3);
    await gateway.close();
  });
});
