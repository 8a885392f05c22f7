import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerHandle } from '../src/index';
import { call, FAULT_SERVER, type HttpServer, newRegistry, startHttpServer, text } from './helpers';

const servers: HttpServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** Every text an error carries: its message and its causes', and its details. */
function texts(error: unknown, out: string[] = [], depth = 0): string[] {
  if (error instanceof Error && depth < 6) {
    out.push(error.message, String(error.stack ?? ''));
    const details = (error as { details?: unknown }).details;
    if (details !== undefined) out.push(JSON.stringify(details));
    texts(error.cause, out, depth + 1);
  }
  return out;
}

const secret = fc.stringMatching(/^[A-Za-z0-9]{10,20}$/);

describe('no failure path says a secret of the server URL', () => {
  it('a server that cannot be reached: rejection, status events and reports', async () => {
    const server = await startHttpServer([FAULT_SERVER, 'http']);
    const port = server.port;
    await server.stop();
    await fc.assert(
      fc.asyncProperty(secret, secret, secret, async (user, pass, token) => {
        const said: string[] = [];
        const url = `http://${user}:${pass}@127.0.0.1:${port}/mcp?token=${token}`;
        for (const target of [url, `http://127.0.0.1:${port}/mcp?token=${token}&other=${pass}`]) {
          const error = await connectMcpServer(newRegistry(), {
            name: 'web',
            url: target,
            startupTimeoutMs: 2000,
            onError: (e) => said.push(...texts(e)),
          }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(Error);
          said.push(...texts(error));
        }
        const all = said.join('\n');
        expect(all).toContain('127.0.0.1');
        for (const s of [user, pass, token]) expect(all).not.toContain(s);
      }),
      { numRuns: 4 },
    );
  }, 120_000);

  it('a live server: HTTP error answers, a timeout, tool and protocol errors, a call after close', async () => {
    const server = await startHttpServer([FAULT_SERVER, 'http']);
    servers.push(server);
    await fc.assert(
      fc.asyncProperty(secret, secret, async (token, key) => {
        const said: string[] = [];
        const registry = newRegistry();
        const handle: McpServerHandle = await connectMcpServer(registry, {
          name: 'web',
          url: `${server.url}?token=${token}&key=${key}`,
          timeoutMs: 500,
          reconnect: { maxAttempts: 1, initialDelayMs: 10 },
          onError: (e) => said.push(...texts(e)),
        });
        handle.on('status', (e) => said.push(...texts(e.error)));
        const results = [
          await call(registry, 'mcp__web__http-500'),
          await call(registry, 'mcp__web__http-422'),
          await call(registry, 'mcp__web__hang'),
          await call(registry, 'mcp__web__fail'),
          await call(registry, 'mcp__web__protocol-error'),
        ];
        await handle.close();
        results.push(await call(registry, 'mcp__web__echo', { text: 'x' }));
        for (const r of results) said.push(text(r), ...texts(r.error));
        const all = said.join('\n');
        expect(all).toContain('HTTP 500');
        for (const s of [token, key]) expect(all).not.toContain(s);
      }),
      { numRuns: 3 },
    );
  }, 120_000);
});
