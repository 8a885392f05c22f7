import { afterEach, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpHttpServerConfig, type McpServerHandle } from '../src/index';
import { call, newRegistry, text, until } from './helpers';
import { type RawHttpServer, startRawHttpServer } from './raw-http-server';

let server: RawHttpServer | undefined;
let handle: McpServerHandle | undefined;
afterEach(async () => {
  await handle?.close();
  await server?.stop();
  handle = undefined;
  server = undefined;
});

async function connect(extra: Partial<McpHttpServerConfig> = {}) {
  server = await startRawHttpServer();
  const registry = newRegistry();
  handle = await connectMcpServer(registry, {
    name: 'raw',
    url: server.url,
    timeoutMs: 300,
    reconnect: { initialDelayMs: 10_000 },
    onError: () => {},
    ...extra,
  });
  return registry;
}

describe('every call closes its HTTP request when it settles', () => {
  it('30 calls timed out on stalled event streams leave no response open', async () => {
    const registry = await connect();
    const results = await Promise.all(
      Array.from({ length: 30 }, () => call(registry, 'mcp__raw__stall-sse')),
    );
    for (const r of results) expect(r.error?.code).toBe('TIMEOUT');
    await until(() => server?.openCalls() === 0);
    expect(handle?.status).toBe('connected');
  }, 30_000);

  it('calls on endless progress streams, stopped by maxTotalTimeoutMs or aborted, leave none open', async () => {
    const registry = await connect({ maxTotalTimeoutMs: 400 });
    const abort = new AbortController();
    const aborted = call(registry, 'mcp__raw__progress-forever', {}, abort.signal);
    setTimeout(() => abort.abort(), 100);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call(registry, 'mcp__raw__progress-forever')),
    );
    for (const r of results) expect(r.error?.code).toBe('TIMEOUT');
    expect((await aborted).error?.code).toBe('ABORTED');
    await until(() => server?.openCalls() === 0);
  }, 30_000);
});

describe('one broken response stream fails its own call only', () => {
  for (const broken of ['cut-sse', 'bad-json-sse'] as const) {
    it(`${broken}: ten healthy concurrent calls succeed and the connection stays up`, async () => {
      const registry = await connect({ timeoutMs: 10_000 });
      const healthy = Array.from({ length: 10 }, (_, i) =>
        call(registry, i % 2 ? 'mcp__raw__echo' : 'mcp__raw__sse-echo', {
          text: `ok-${i}`,
          delayMs: 500,
        }),
      );
      const bad = await call(registry, `mcp__raw__${broken}`);
      expect(bad.error?.code).toBe('UNAVAILABLE');
      expect(text(bad)).toMatch(/response stream of the call/);
      const results = await Promise.all(healthy);
      results.forEach((r, i) => {
        expect(r.isError).toBe(false);
        expect(text(r)).toBe(`ok-${i}`);
      });
      expect(handle?.status).toBe('connected');
    }, 30_000);
  }
});

describe('HTTP responses are bounded by maxMessageBytes', () => {
  for (const tool of ['huge-json', 'huge-sse'] as const) {
    it(`${tool}: a response over the limit fails its call, naming size and limit`, async () => {
      const registry = await connect({ timeoutMs: 10_000, maxMessageBytes: 1024 * 1024 });
      const result = await call(registry, `mcp__raw__${tool}`, { bytes: 8 * 1024 * 1024 });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/larger than the limit of 1048576 bytes/);
      // The connection and the other calls go on.
      expect(text(await call(registry, 'mcp__raw__echo', { text: 'after' }))).toBe('after');
      expect(handle?.status).toBe('connected');
      await until(() => server?.openCalls() === 0);
    }, 30_000);
  }

  it('a response under the limit goes through whole', async () => {
    const registry = await connect({ timeoutMs: 10_000, maxMessageBytes: 1024 * 1024 });
    const result = await call(registry, 'mcp__raw__huge-sse', { bytes: 256 * 1024 });
    expect(result.isError).toBe(false);
    expect(text(result).length).toBeGreaterThanOrEqual(256 * 1024);
  }, 30_000);
});
