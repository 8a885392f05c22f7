import { describe, expect, it } from 'vitest';
import { connectMcpServer } from '../src/index';
import { call, FAULT_SERVER, newRegistry, startHttpServer, text, until } from './helpers';

describe('after close(), a call says the server was closed, never to retry', () => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`a call in flight when close() is called (${transport})`, async () => {
      const server =
        transport === 'http' ? await startHttpServer([FAULT_SERVER, 'http']) : undefined;
      try {
        const registry = newRegistry();
        const handle = await connectMcpServer(registry, {
          name: 'gone',
          ...(server
            ? { url: server.url }
            : { command: process.execPath, args: [FAULT_SERVER, 'stdio'] }),
          timeoutMs: 60_000,
          onError: () => {},
        });
        const calls = [call(registry, 'mcp__gone__hang'), call(registry, 'mcp__gone__hang')];
        await new Promise((resolve) => setTimeout(resolve, 200));
        await handle.close();
        for (const result of await Promise.all(calls)) {
          expect(result.error?.code).toBe('UNAVAILABLE');
          expect(text(result)).toMatch(/was closed/);
          expect(text(result)).toMatch(/Do not retry/i);
          expect(text(result)).not.toMatch(/retry in a|reconnecting/);
        }
      } finally {
        await server?.stop();
      }
    }, 30_000);
  }
});

describe('a startup failure over HTTP names its cause, not just "fetch failed"', () => {
  it('connection refused, a blocked port, a host that does not resolve', async () => {
    const server = await startHttpServer([FAULT_SERVER, 'http']);
    const port = server.port;
    await server.stop();
    const cases: [string, RegExp][] = [
      [`http://127.0.0.1:${port}/mcp`, /ECONNREFUSED.*is the server running/],
      ['http://127.0.0.1:1/mcp', /bad port.*use another port/],
      [
        'http://no-such-host.invalid/mcp',
        /(ENOTFOUND|EAI_AGAIN).*(does not resolve|could not be resolved)/,
      ],
    ];
    for (const [url, cause] of cases) {
      const error = await connectMcpServer(newRegistry(), {
        name: 'web',
        url,
        startupTimeoutMs: 5000,
        onError: () => {},
      }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(cause);
      expect((error as Error).message).not.toMatch(/fetch failed\.\n/);
    }
  }, 60_000);

  it('a call whose server went away names the cause too', async () => {
    const server = await startHttpServer([FAULT_SERVER, 'http']);
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      name: 'web',
      url: server.url,
      reconnect: { initialDelayMs: 10_000 },
      onError: () => {},
    });
    try {
      await server.stop();
      const result = await call(registry, 'mcp__web__echo', { text: 'x' });
      expect(result.error?.code).toBe('UNAVAILABLE');
      expect(text(result)).toMatch(/ECONNREFUSED|ECONNRESET|other side closed/);
      await until(() => handle.status === 'reconnecting');
    } finally {
      await handle.close();
    }
  }, 30_000);
});
