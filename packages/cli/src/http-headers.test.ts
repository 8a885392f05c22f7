import { request } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { type HttpGateway, serveGatewayHttp } from './http';

const TOKEN = 'unit-token-0123456789abcdef';
let http: HttpGateway;
const errors: Error[] = [];

const gateway = bareGateway();

beforeAll(async () => {
  http = await serveGatewayHttp(gateway, {
    port: 0,
    token: TOKEN,
    onError: (e) => errors.push(e),
  });
});
afterAll(() => http.close());

/** One request with exactly these header lines (node:http would refuse to send some of them). */
function rawHeaders(headers: readonly [string, string][]): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port: http.port,
      method: 'POST',
      path: '/mcp',
      setHost: false,
      headers: headers.flat(),
    } as never);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  });
}

/** The status line of a request written byte for byte on a socket (control characters too). */
function rawSocket(hostLine: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(http.port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0)));
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
    socket.end(
      `POST /mcp HTTP/1.1\r\nHost: ${hostLine}\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

const base: [string, string][] = [
  ['authorization', `Bearer ${TOKEN}`],
  ['content-type', 'application/json'],
  ['accept', 'application/json, text/event-stream'],
];

const MALFORMED_HOSTS = [
  '127.0.0.1@attacker.com',
  'localhost@attacker.com:80',
  '::1',
  '::1:8765',
  '[::1',
  '127.0.0.1:99999',
  '127.0.0.1:port',
  '',
  ' ',
  'local host',
  '127.0.0.1/evil',
  '127.0.0.1?x',
  '127.0.0.1#x',
  'user:pass@127.0.0.1',
  `127.0.0.1${'a'.repeat(4000)}`,
  '127.0.0.1%00',
  '127.0.0.1\\evil',
];

describe('serveGatewayHttp: malformed Host and Origin headers with a valid token', () => {
  it('answers each listed malformed Host with a 4xx, never 500', async () => {
    for (const host of MALFORMED_HOSTS) {
      const status = await rawHeaders([['host', host], ...base]);
      expect({ host, status: Math.floor(status / 100) }).toEqual({ host, status: 4 });
    }
  });

  it('answers control characters and a huge Host with a 4xx (written on a raw socket)', async () => {
    for (const host of ['127.0.0.1\x01', '127.0.0.1\x7f', '127.0.0.1\ttab', 'a'.repeat(20_000)]) {
      const status = await rawSocket(host);
      expect({ host: host.slice(0, 20), status: Math.floor(status / 100) }).toEqual({
        host: host.slice(0, 20),
        status: 4,
      });
    }
    expect(errors.filter((e) => /500|Internal/i.test(e.message))).toEqual([]);
  });

  it('answers malformed Origins with a 4xx', async () => {
    for (const origin of [
      'http://127.0.0.1@attacker.com',
      'http://::1',
      'null',
      '',
      'not a url',
      'http://localhost:3000/path',
      `http://${'a'.repeat(4000)}`,
    ]) {
      const status = await rawHeaders([
        ['host', `127.0.0.1:${http.port}`],
        ['origin', origin],
        ...base,
      ]);
      expect({ origin, status: Math.floor(status / 100) }).toEqual({ origin, status: 4 });
    }
  });

  it('property: any Host that is not a plain loopback host[:port] is a 4xx with a valid token', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed for the Host property: ${seed} (FC_SEED=${seed} to replay)`);
    const printable = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    });
    const host = fc.oneof(
      printable,
      fc
        .tuple(
          fc.constantFrom('127.0.0.1', 'localhost', '[::1]'),
          fc.constantFrom('@', '/', '\\\\', '?', '#', '%', ' ', ':x', ':-1', '::'),
          printable,
        )
        .map(([h, sep, tail]) => `${h}${sep}${tail}`),
      fc.ipV6(),
      fc.domain(),
    );
    await fc.assert(
      fc.asyncProperty(host, async (value) => {
        const plainLoopback = /^(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?$/.test(value);
        const status = await rawHeaders([['host', value], ...base]);
        if (plainLoopback) expect(status).not.toBe(403);
        else expect(status).toBeGreaterThanOrEqual(400);
        expect(status).toBeLessThan(500);
      }),
      { seed, numRuns: 150 },
    );
  });
});
