import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { type Message, messagesOf, RawSession, resultText } from '../test/raw-mcp-http';
import { type HttpGateway, serveGatewayHttp } from './http';
import { batchRefusal } from './http-lean';

// The lean HTTP path answers a plain 2025-era tools/call on Node's own request and response; these
// tests hold it to what the SDK transport answers for the same request, and check that everything
// outside its shape still gets the SDK's answer.
const TOKEN = 'lean-token-0123456789abcdef';
const gateway = bareGateway({ echo: true });
const seen: { name: string; aborted: boolean }[] = [];
let release: (() => void) | undefined;
/** The waiting `hold` call's release (read through a function: set inside a tool body). */
const held = () => release;
gateway.registry.register({
  name: 'hold',
  description: 'Waits until the test releases it, or its call is aborted.',
  parameters: { type: 'object', properties: {} },
  execute: async (_args, { signal }) => {
    await new Promise<void>((resolve) => {
      release = resolve;
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
    seen.push({ name: 'hold', aborted: signal?.aborted ?? false });
    return [{ type: 'text', text: 'released' }];
  },
});
gateway.registry.register({
  name: 'image',
  description: 'Answers with an image (not a plain text result).',
  parameters: { type: 'object', properties: {} },
  execute: () => [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }],
});
let http: HttpGateway;

beforeAll(async () => {
  http = await serveGatewayHttp(gateway, { host: '127.0.0.1', port: 0, token: TOKEN });
});
afterAll(() => http.close());

/** A session opened by a raw client at `version` (the raw client's requests say 2025-06-18). */
async function rawSession(version = '2025-06-18') {
  const session = new RawSession(http.url, TOKEN);
  const response = await session.post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const id = response.headers.get('mcp-session-id') ?? '';
  for await (const _ of messagesOf(response)) break;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(http.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': version,
        'mcp-session-id': id,
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).body?.cancel();
  return { id, post };
}

const all = async (response: Response) => {
  const messages: Message[] = [];
  for await (const m of messagesOf(response)) messages.push(m);
  return messages;
};

const call = (id: number | string, name: string, args: unknown = {}, params = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...params },
});

describe('serve --http: the lean path of a plain tools/call', () => {
  it('answers as the SDK path does, on an SSE stream of the session', async () => {
    const s = await rawSession();
    const before = http.leanCalls;
    const lean = await s.post(call(1, 'echo', { text: 'hi' }));
    expect(http.leanCalls).toBe(before + 1);
    // `_meta` keeps a call off the lean path: the SDK's own answer to compare with.
    const sdk = await s.post(call(2, 'echo', { text: 'hi' }, { _meta: { k: 1 } }));
    expect(http.leanCalls).toBe(before + 1);
    for (const response of [lean, sdk]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      expect(response.headers.get('mcp-session-id')).toBe(s.id);
      expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    }
    const [a] = await all(lean);
    const [b] = await all(sdk);
    expect({ ...a, id: 0 }).toEqual({ ...b, id: 0 });
    expect(a).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'hi' }], isError: false },
    });
  });

  it('hands a result outside the plain shape to the SDK, which answers on the call’s stream', async () => {
    const s = await rawSession();
    const [answer] = await all(await s.post(call(3, 'image')));
    expect(answer?.id).toBe(3);
    expect(answer?.result?.content).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ]);
  });

  it('validates the arguments and refuses unknown tools, as every call is', async () => {
    const s = await rawSession();
    const [bad] = await all(await s.post(call(4, 'echo', { text: 5 })));
    expect(bad?.result?.isError).toBe(true);
    expect(resultText(bad as Message)).toMatch(/text/);
    const [unknown] = await all(await s.post(call(5, 'nope', {})));
    expect(unknown?.result?.isError).toBe(true);
  });

  it('a request failing a transport check gets the SDK’s answer, not the lean path’s', async () => {
    const s = await rawSession();
    const before = http.leanCalls;
    const notAcceptable = await s.post(call(6, 'echo', { text: 'x' }), {
      accept: 'application/json',
    });
    expect(notAcceptable.status).toBe(406);
    const wrongType = await s.post(call(7, 'echo', { text: 'x' }), {
      'content-type': 'text/plain',
    });
    expect(wrongType.status).toBe(415);
    const badVersion = await s.post(call(8, 'echo', { text: 'x' }), {
      'mcp-protocol-version': '1999-01-01',
    });
    expect(badVersion.status).toBe(400);
    const notJson = await s.post('{"jsonrpc":');
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('Parse error');
    for (const r of [notAcceptable, wrongType, badVersion]) await r.body?.cancel();
    expect(http.leanCalls).toBe(before);
  });

  it('a client that closes the call’s stream aborts the call, on either path; the session goes on', async () => {
    for (const params of [
      {},
      { _meta: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
    ]) {
      release = undefined;
      const s = await rawSession();
      seen.length = 0;
      const controller = new AbortController();
      const pending = fetch(http.url, {
        method: 'POST',
        signal: controller.signal,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'mcp-session-id': s.id,
        },
        body: JSON.stringify(call(9, 'hold', {}, params)),
      });
      while (held() === undefined) await sleep(5);
      controller.abort();
      await pending.catch(() => {});
      for (let i = 0; i < 200 && seen.length === 0; i++) await sleep(10);
      expect(seen).toEqual([{ name: 'hold', aborted: true }]);
      release = undefined;
      const [again] = await all(await s.post(call(10, 'echo', { text: 'still here' })));
      expect(resultText(again as Message)).toBe('still here');
    }
  });

  it('a call released later is answered on its own stream, among concurrent calls', async () => {
    const s = await rawSession();
    release = undefined;
    const heldCall = s.post(call('held', 'hold'));
    while (held() === undefined) await sleep(5);
    const quick = await Promise.all(
      Array.from({ length: 20 }, (_, i) => s.post(call(100 + i, 'echo', { text: `#${i}` }))),
    );
    const answers = await Promise.all(quick.map(all));
    answers.forEach((messages, i) => {
      expect(messages).toHaveLength(1);
      expect(messages[0]?.id).toBe(100 + i);
      expect(resultText(messages[0] as Message)).toBe(`#${i}`);
    });
    held()?.();
    const [late] = await all(await heldCall);
    expect(late?.id).toBe('held');
    expect(resultText(late as Message)).toBe('released');
    release = undefined;
  });
});

describe('serve --http: JSON-RPC batches by protocol version', () => {
  it('refuses a batch on a session that negotiated 2025-06-18 or later, saying why', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const s = await rawSession(version);
      const response = await s.post([
        call(1, 'echo', { text: 'a' }),
        call(2, 'echo', { text: 'b' }),
      ]);
      expect(response.status).toBe(400);
      const body = (await response.json()) as Message;
      expect(body.error?.code).toBe(-32600);
      expect(body.error?.message).toContain(`MCP protocol version ${version}`);
      expect(body.error?.message).toContain('Send each message in its own POST');
    }
  });

  it('runs a batch on a session that negotiated 2025-03-26', async () => {
    const s = await rawSession('2025-03-26');
    const response = await s.post(
      [call(1, 'echo', { text: 'a' }), call(2, 'echo', { text: 'b' })],
      { 'mcp-protocol-version': '2025-03-26' },
    );
    expect(response.status).toBe(200);
    const messages = await all(response);
    expect(messages.map((m) => [m.id, resultText(m)]).sort()).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it('batchRefusal: refuses exactly the versions after 2025-03-26', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2024-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }),
        (date) => {
          const version = date.toISOString().slice(0, 10);
          const refused = batchRefusal(version) !== undefined;
          expect(refused).toBe(version > '2025-03-26');
        },
      ),
      { seed: 23_2025, numRuns: 300 },
    );
    expect(batchRefusal(undefined)).toBeUndefined();
  });
});
