import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerHandle, type McpStatusEvent } from '../src/index';
import {
  call,
  FAULT_SERVER,
  type HttpServer,
  newRegistry,
  startHttpServer,
  text,
  until,
} from './helpers';

const handles: McpServerHandle[] = [];
const servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

async function faultHttp(env: Record<string, string> = {}): Promise<HttpServer> {
  const server = await startHttpServer([FAULT_SERVER, 'http'], env);
  servers.push(server);
  return server;
}

describe('Streamable HTTP, fault server', () => {
  it('discovers, calls and maps content over HTTP', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      headers: { 'x-test': 'yes' },
      onError: () => {},
    });
    handles.push(handle);
    expect(handle.pid).toBeUndefined();
    expect(registry.get('mcp__web__echo')?.source).toEqual({
      kind: 'mcp',
      server: 'web',
      tool: 'echo',
    });
    expect(text(await call(registry, 'mcp__web__echo', { text: 'over http' }))).toBe('over http');
    const all = await call(registry, 'mcp__web__all-content');
    expect(all.content.map((b) => b.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource_link',
      'resource',
      'resource',
    ]);
  });

  it('follows tools/list_changed over HTTP', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      onError: () => {},
    });
    handles.push(handle);
    await call(registry, 'mcp__web__set-tools', { add: ['late'] });
    await until(() => registry.get('mcp__web__late') !== undefined);
  });

  it('survives a dropped session: the next call re-initializes and goes through', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const statuses: McpStatusEvent[] = [];
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
      onError: () => {},
    });
    handles.push(handle);
    handle.on('status', (e) => statuses.push(e));
    await call(registry, 'mcp__web__drop-sessions');
    const after = await call(registry, 'mcp__web__echo', { text: 'again' });
    expect(after.isError).toBe(false);
    expect(text(after)).toBe('again');
    expect(statuses.map((e) => e.status)).toEqual(['reconnecting', 'connected']);
  });

  it('resolves every pending call with UNAVAILABLE when the server crashes mid-call', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      // Far longer than the test may take: a hang until the timeout would fail it.
      timeoutMs: 60_000,
      reconnect: { initialDelayMs: 5000 },
      onError: () => {},
    });
    handles.push(handle);
    const hung = call(registry, 'mcp__web__hang');
    const crash = await call(registry, 'mcp__web__crash');
    expect(crash.error?.code).toBe('UNAVAILABLE');
    expect((await hung).error?.code).toBe('UNAVAILABLE');
    expect(handle.status).toBe('reconnecting');
  });

  it('a timed-out call does not count as a lost connection', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const statuses: string[] = [];
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      timeoutMs: 300,
      onError: () => {},
    });
    handles.push(handle);
    handle.on('status', (e) => statuses.push(e.status));
    expect((await call(registry, 'mcp__web__hang')).error?.code).toBe('TIMEOUT');
    expect(text(await call(registry, 'mcp__web__echo', { text: 'fine' }))).toBe('fine');
    expect(statuses).toEqual([]);
  });

  it('a 500 answer to one call fails that call only; the others and the session go on', async () => {
    const server = await faultHttp();
    const registry = newRegistry();
    const statuses: string[] = [];
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      onError: () => {},
    });
    handles.push(handle);
    handle.on('status', (e) => statuses.push(e.status));
    const slow = call(registry, 'mcp__web__progress', { steps: 5, intervalMs: 100 });
    const failed = await call(registry, 'mcp__web__http-500');
    expect(failed.error?.code).toBe('UNAVAILABLE');
    expect(failed.error?.message).toContain('HTTP 500');
    expect(failed.error?.message).toContain('"http-500"');
    const done = await slow;
    expect(done.isError).toBe(false);
    expect(text(done)).toBe('done after 5 steps, token=true');
    // A refusal (4xx other than a lost session) is the server's answer, not an outage.
    const refused = await call(registry, 'mcp__web__http-422');
    expect(refused.error?.code).toBe('MCP_ERROR');
    expect(refused.error?.message).toContain('HTTP 422');
    expect(statuses).toEqual([]);
    expect(handle.status).toBe('connected');
    expect(text(await call(registry, 'mcp__web__echo', { text: 'fine' }))).toBe('fine');
  });

  it('fails fast while the server is down, and reconnects when it is back on the same port', async () => {
    const first = await faultHttp();
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: first.url,
      reconnect: { initialDelayMs: 50, maxDelayMs: 100, maxAttempts: 100 },
      onError: () => {},
    });
    handles.push(handle);
    await first.stop();
    // No call is needed to notice: the server's event stream does not come back.
    await until(() => handle.status === 'reconnecting');
    const down = await call(registry, 'mcp__web__echo', { text: 'x' });
    expect(down.error?.code).toBe('UNAVAILABLE');
    expect(registry.get('mcp__web__echo')).toBeDefined();
    const again = await call(registry, 'mcp__web__echo', { text: 'x' });
    expect(again.error?.code).toBe('UNAVAILABLE');
    expect(again.error?.message).toContain('reconnecting');
    await faultHttp({ FAULT_PORT: String(first.port) });
    await until(() => handle.status === 'connected', 500);
    expect(text(await call(registry, 'mcp__web__echo', { text: 'back' }))).toBe('back');
  });

  it('reports an unreachable URL at connect', async () => {
    const server = await faultHttp();
    const port = server.port;
    await server.stop();
    const error = await connectMcpServer(newRegistry(), {
      name: 'web',
      url: `http://127.0.0.1:${port}/mcp`,
      startupTimeoutMs: 2000,
    }).catch((e) => e);
    expect(error.message).toContain('MCP server "web"');
    expect(error.message).toContain('Check that the server is running');
  });
});
