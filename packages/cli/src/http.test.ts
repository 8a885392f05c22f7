import { request } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { type HttpGateway, isLoopbackHost, serveGatewayHttp } from './http';

const TOKEN = 'unit-token-0123456789abcdef';
let http: HttpGateway;

// A gateway over a bare registry with one tool: the HTTP layer is what is under test here.
const gateway = bareGateway({ echo: true });

beforeAll(async () => {
  http = await serveGatewayHttp(gateway, {
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    maxBodyBytes: 2048,
    maxSessions: 2,
  });
});
afterAll(() => http.close());

/** A raw HTTP request (fetch would refuse to send some of these headers). */
function raw(options: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: http.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/mcp',
        headers: options.headers,
      },
      (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const auth = {
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

describe('serveGatewayHttp, hostile requests', () => {
  it('refuses a Host header that is not loopback (DNS rebinding)', async () => {
    const res = await raw({ headers: { ...auth, host: 'attacker.example:80' }, body: '{}' });
    expect(res.status).toBe(403);
  });

  it('answers 404 off the endpoint path, before authentication says anything', async () => {
    expect((await raw({ path: '/other', headers: auth, body: '{}' })).status).toBe(404);
  });

  it('garbage bodies are protocol errors, and the gateway goes on serving', async () => {
    for (const body of [
      'not json',
      '{"jsonrpc":"2.0"',
      '[]',
      'null',
      '{"jsonrpc":"2.0","id":1,"method":42}',
    ]) {
      const res = await raw({ headers: auth, body });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const ok = await raw({
      headers: auth,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    expect(ok.status).toBe(200);
  });

  it('a token in another scheme, or with the right prefix only, is refused', async () => {
    for (const authorization of [
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `bearer  ${TOKEN}`,
      'Bearer',
      `Bearer ${TOKEN}${'x'.repeat(5000)}`,
    ]) {
      expect((await raw({ headers: { ...auth, authorization }, body: '{}' })).status).toBe(401);
    }
  });

  it('refuses to start without a real token', async () => {
    await expect(serveGatewayHttp(gateway, { port: 0, token: 'short' })).rejects.toThrow(
      /at least 16/,
    );
    await expect(
      serveGatewayHttp(gateway, { port: 0, token: TOKEN, allowedOrigins: ['not a url'] }),
    ).rejects.toThrow(/is not a URL/);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of [
      '0.0.0.0',
      '::',
      '192.0.2.1',
      'example.com',
      '128.0.0.1',
      'localhost.evil.com',
      '',
    ]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });

  it('property: a host that is not an IPv4 127/8 address, ::1 or localhost is never loopback', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.domain(), fc.string()), (host) => {
        const expected =
          host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
        expect(isLoopbackHost(host)).toBe(expected);
      }),
    );
  });
});
