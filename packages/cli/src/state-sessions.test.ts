import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveGatewayHttp } from './http';
import { createElicitationApprovals } from './serve';
import type { LeanTransport } from './serve-lean-calls';
import type { SharedState } from './state-redis';
import { AnswerRelay, answerTag, resumedCall } from './state-sessions';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = 'replica-token-0123456789abcdef';

interface Replica {
  readonly gateway: Gateway;
  readonly http: HttpGateway;
}

/** What one HTTP request of the client was, and which replica got it. */
interface Hop {
  readonly replica: number;
  readonly method: string;
  /** The JSON-RPC method, or `answer` for a response to the server's question. */
  readonly kind: string;
}

function kindOf(body: unknown): string {
  if (typeof body !== 'string') return '-';
  try {
    const message = JSON.parse(body) as { method?: string; result?: unknown; error?: unknown };
    if (message.method) return message.method;
    return 'result' in message || 'error' in message ? 'answer' : '?';
  } catch {
    return '?';
  }
}

/**
 * A fetch that sends each request to the next replica in turn, as a round-robin load balancer
 * without affinity does: a session's requests, and the answer to a question, alternate replicas.
 */
function roundRobin(replicas: readonly Replica[], hops: Hop[]): typeof fetch {
  let next = 0;
  return (input, init) => {
    const replica = next++ % replicas.length;
    const url = new URL(String(input instanceof Request ? input.url : input));
    const target = new URL((replicas[replica] as Replica).http.url);
    url.host = target.host;
    hops.push({ replica, method: init?.method ?? 'GET', kind: kindOf(init?.body) });
    return fetch(url, init);
  };
}

/**
 * A raw POST of `body` to `replica`, in the session of `client` when one is given (headers a
 * replica that never saw the session gets, as a load balancer would pass them on).
 */
function post(replica: Replica, body: unknown, client?: Client): Promise<Response> {
  const transport = client?.transport as StreamableHTTPClientTransport | undefined;
  return fetch(replica.http.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(transport
        ? {
            'mcp-session-id': transport.sessionId as string,
            'mcp-protocol-version': transport.protocolVersion as string,
          }
        : {}),
    },
    body: JSON.stringify(body),
  });
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
}

describe.runIf(hasRedisServer())('serve --http replicas sharing a Redis store', () => {
  let redis: RedisServer;
  const replicas: Replica[] = [];
  const clients: Client[] = [];
  const dir = tempDir('dsh-replicas-');
  writeFileSync(join(dir, 'a.txt'), 'a');

  async function startReplica(state: boolean): Promise<Replica> {
    const approvals = createElicitationApprovals();
    const gateway = await buildGateway(
      loadedIn(dir, {
        mcpServers: {},
        exampleTools: { writable: false },
        permissions: { ask: ['list_dir'], allow: ['read_file'] },
        pins: 'off',
        ...(state ? { state: { redis: redis.url, prefix: 'test-sessions:' } } : {}),
      }),
      { approver: approvals.approver, askScope: (exec) => approvals.scopeOf(exec.callId) },
    );
    const http = await serveGatewayHttp(gateway, { port: 0, token: TOKEN, approvals });
    const replica = { gateway, http };
    replicas.push(replica);
    return replica;
  }

  async function connect(
    group: readonly Replica[],
    hops: Hop[],
    answer: () => { action: 'accept' | 'decline'; content?: { allow: boolean } },
    modern = false,
  ): Promise<Client> {
    const client = new Client(
      { name: 'round-robin', version: '1.0.0' },
      {
        capabilities: { elicitation: {} },
        ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      },
    );
    client.setRequestHandler('elicitation/create', async () => answer());
    clients.push(client);
    await client.connect(
      new StreamableHTTPClientTransport(new URL((group[0] as Replica).http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        fetch: roundRobin(group, hops),
      }),
    );
    return client;
  }

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    for (const { http, gateway } of replicas.splice(0)) {
      await http.close();
      await gateway.close();
    }
    await redis?.stop();
  });

  it('without the store, a session whose requests alternate replicas is lost at its second request (the harm)', async () => {
    const group = [await startReplica(false), await startReplica(false)];
    const error = await connect(group, [], () => ({ action: 'decline' }))
      .then((client) => client.listTools())
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(/Session not found|404/);
  });

  it('with it, every request of a session is served by whichever replica it lands on', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const hops: Hop[] = [];
    const client = await connect(group, hops, () => ({ action: 'decline' }));
    for (let i = 0; i < 3; i++) {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('read_file');
    }
    for (let i = 0; i < 3; i++) {
      const read = await client.callTool({ name: 'read_file', arguments: { path: 'a.txt' } });
      expect(read.isError).toBe(false);
      expect(textOf(read)).toBe('a');
    }
    for (const kind of ['tools/list', 'tools/call']) {
      const served = hops.filter((h) => h.kind === kind).map((h) => h.replica);
      expect(new Set(served), kind).toEqual(new Set([0, 1]));
    }
    expect(group.map((r) => r.http.sessions)).toEqual([1, 1]);
  });

  it('a question asked on one replica is answered through the other, and the answer decides the call', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const hops: Hop[] = [];
    let reply: { action: 'accept' | 'decline'; content?: { allow: boolean } } = {
      action: 'accept',
      content: { allow: true },
    };
    const client = await connect(group, hops, () => reply);
    for (const [allow, expected] of [
      [true, false],
      [false, true],
      [true, false],
    ] as const) {
      reply = allow ? { action: 'accept', content: { allow: true } } : { action: 'decline' };
      const before = hops.length;
      const listed = await client.callTool({ name: 'list_dir', arguments: {} });
      expect(listed.isError).toBe(expected);
      if (allow) expect(textOf(listed)).toContain('a.txt');
      else expect(textOf(listed)).toContain('declined');
      const mine = hops.slice(before);
      const call = mine.find((h) => h.kind === 'tools/call') as Hop;
      const answer = mine.find((h) => h.kind === 'answer') as Hop;
      // The answer went to the replica that did not ask.
      expect(answer.replica).not.toBe(call.replica);
    }
  });

  it('a 2026-07-28 call whose question round is answered through another replica verifies there (one seal key)', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const hops: Hop[] = [];
    const client = await connect(
      group,
      hops,
      () => ({ action: 'accept', content: { allow: true } }),
      true,
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const listed = await client.callTool({ name: 'list_dir', arguments: {} });
    expect(listed.isError).toBe(false);
    expect(textOf(listed)).toContain('a.txt');
    const rounds = hops.filter((h) => h.kind === 'tools/call');
    expect(rounds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rounds.map((h) => h.replica)).size).toBe(2);
  });

  it('without the store, that second round is refused by the other replica (the harm)', async () => {
    const group = [await startReplica(false), await startReplica(false)];
    const client = await connect(
      group,
      [],
      () => ({ action: 'accept', content: { allow: true } }),
      true,
    );
    const outcome = await client
      .callTool({ name: 'list_dir', arguments: {} })
      .then((r) => textOf(r))
      .catch((e: unknown) => String(e));
    expect(outcome).not.toContain('a.txt');
  });

  it('a session closed (DELETE) through one replica is closed on the other', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const client = await connect(group, [], () => ({ action: 'decline' }));
    await client.listTools();
    await client.listTools();
    expect(group.map((r) => r.http.sessions)).toEqual([1, 1]);
    await (client.transport as StreamableHTTPClientTransport).terminateSession();
    await expect.poll(() => group.map((r) => r.http.sessions)).toEqual([0, 0]);
  });

  it('a client resuming a call stream (Last-Event-ID) is told at once that the call did not finish; a foreign or malformed id is no way in', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const client = await connect(group, [], () => ({ action: 'decline' }));
    await client.listTools();
    const transport = client.transport as StreamableHTTPClientTransport;
    const get = (replica: Replica, lastEventId: string, token = TOKEN) =>
      fetch(replica.http.url, {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          'mcp-session-id': transport.sessionId as string,
          'mcp-protocol-version': transport.protocolVersion as string,
          'last-event-id': lastEventId,
        },
      });
    const id = Buffer.from(JSON.stringify(42)).toString('base64url');
    // A replica that is gone (its tag never said it runs).
    const gone = await get(group[1] as Replica, `0123456789ab_${id}_3`);
    expect(gone.status).toBe(200);
    const body = await gone.text();
    const message = JSON.parse(body.slice(body.indexOf('data: ') + 6)) as {
      id: number;
      error: { message: string; data: { retryable: boolean } };
    };
    expect(message.id).toBe(42);
    expect(message.error.data.retryable).toBe(true);
    expect(message.error.message).toContain('stopped before it finished');
    // An id that is not one of ours is the SDK's business, as before (no crash, no call ended).
    for (const bad of [
      'x',
      `0123456789ab_${'%'.repeat(5)}_1`,
      `0123456789ab_${Buffer.from('{}').toString('base64url')}_1`,
    ]) {
      const res = await get(group[0] as Replica, bad);
      expect(res.status).toBeLessThan(500);
      await res.body?.cancel();
    }
  });

  it('with Redis frozen (a store that accepts and never answers), a request that needs it fails closed after the deadline (503), and works once it answers again', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const third = await startReplica(true);
    const client = await connect(group, [], () => ({ action: 'decline' }));
    await client.listTools();
    const list = () => post(third, { jsonrpc: '2.0', id: 8, method: 'tools/list' }, client);
    redis.pause();
    try {
      const frozen = await list();
      expect(frozen.status).toBe(503);
      const said = await frozen.text();
      expect(said).toContain("The gateway's state store could not read the session in time");
      // Said to a client: never the store's address or the driver's words.
      expect(said).not.toMatch(/127\.0\.0\.1|redis:\/\//);
      // A new session cannot be recorded either: refused the same way, not opened half-way.
      const opened = await post(third, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'x', version: '1' },
        },
      });
      expect(opened.status).toBe(503);
      expect(third.http.sessions).toBe(0);
    } finally {
      redis.resume();
    }
    await expect.poll(async () => (await list()).status, { timeout: 10_000 }).toBe(200);
  });

  it('with Redis gone, a request for a session held elsewhere fails closed and retryable (503), and works once it is back', async () => {
    const group = [await startReplica(true), await startReplica(true)];
    const third = await startReplica(true);
    const client = await connect(group, [], () => ({ action: 'decline' }));
    await client.listTools();
    const list = () => post(third, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, client);
    await redis.kill();
    // A replica that never saw the session cannot read it: 503 and Retry-After, not 404 (which
    // would tell the client its session is gone).
    const down = await list();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.text()).toContain('state store');
    // Those that hold it go on serving it.
    await client.listTools();
    await client.listTools();
    await redis.restart();
    // The store kept the session (append-only file): the third replica takes it over.
    await expect.poll(async () => (await list()).status, { timeout: 10_000 }).toBe(200);
    expect(third.http.sessions).toBe(1);
  });
});

describe('AnswerRelay.tagged: the ids of a replica’s questions, and their answers', () => {
  // `tagged` uses no store: a relay over a connection that is never used.
  const relay = new AnswerRelay(
    { prefix: 'unit:', redis: {} } as unknown as SharedState,
    () => undefined,
  );
  function wire() {
    const sent: JSONRPCMessage[] = [];
    const lean = {
      start: async () => {},
      close: async () => {},
      send: async (message: JSONRPCMessage) => {
        sent.push(message);
      },
      takeCall: () => false,
      abandon: () => {},
      cancel: () => {},
      protocolVersion: '2025-06-18',
    } as unknown as LeanTransport;
    const tagged = relay.tagged(lean);
    const received: JSONRPCMessage[] = [];
    tagged.onmessage = (message) => received.push(message);
    return { lean, tagged, sent, received };
  }

  it('tags each request it sends, and gives the server back its own id, once', async () => {
    const { lean, tagged, sent, received } = wire();
    await tagged.send({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} });
    const id = (sent[0] as { id: string }).id;
    expect(id).toBe(`${relay.tag}~0`);
    expect(answerTag({ jsonrpc: '2.0', id, result: {} })).toBe(relay.tag);
    const answer = { jsonrpc: '2.0' as const, id, result: { action: 'decline' } };
    lean.onmessage?.(answer);
    // The same answer again (a client retrying, or routed twice): dropped.
    lean.onmessage?.(answer);
    tagged.deliver(answer);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 0, result: { action: 'decline' } }]);
  });

  it('drops an answer to a question it never asked, and passes everything else on untouched', async () => {
    const { lean, tagged, sent, received } = wire();
    lean.onmessage?.({ jsonrpc: '2.0', id: `${relay.tag}~99`, result: {} });
    expect(received).toEqual([]);
    const request = { jsonrpc: '2.0' as const, id: 5, method: 'tools/call', params: {} };
    const foreign = { jsonrpc: '2.0' as const, id: 'abcdefabcdef~1', result: {} };
    const plain = { jsonrpc: '2.0' as const, id: 3, result: {} };
    for (const message of [request, foreign, plain]) lean.onmessage?.(message);
    expect(received).toEqual([request, foreign, plain]);
    // Responses and notifications it sends keep their ids.
    await tagged.send({ jsonrpc: '2.0', id: 5, result: { content: [] } });
    await tagged.send({ jsonrpc: '2.0', method: 'notifications/message', params: {} });
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 5, result: { content: [] } },
      { jsonrpc: '2.0', method: 'notifications/message', params: {} },
    ]);
  });

  it('reads only well-formed resume ids: property over arbitrary strings', () => {
    const ids = relay.eventIds('call-1');
    expect(resumedCall(ids(0))).toEqual({ tag: relay.tag, id: 'call-1' });
    expect(resumedCall(relay.eventIds(7)(12))).toEqual({ tag: relay.tag, id: 7 });
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`resumedCall property seed: ${seed} (FC_SEED replays it)`);
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const read = resumedCall(text);
        if (read === undefined) return true;
        // Anything read names a tag and an id of the two kinds JSON-RPC allows.
        return (
          /^[0-9a-f]{12}$/.test(read.tag) &&
          (typeof read.id === 'string' || Number.isSafeInteger(read.id))
        );
      }),
      { seed, numRuns: 2000 },
    );
    for (const bad of [
      '',
      'x',
      `${relay.tag}_`,
      `${relay.tag}_e30_1`,
      `${relay.tag}_${'A'.repeat(300)}_1`,
    ]) {
      expect(resumedCall(bad)).toBeUndefined();
    }
  });
});
