import { writeFileSync } from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { RawSession } from '../test/raw-mcp-http';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveGatewayHttp } from './http';
import { createElicitationApprovals } from './serve';
import { AnswerRelay, SessionStore } from './state-sessions';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = 'replica-token-0123456789abcdef';

interface Replica {
  readonly gateway: Gateway;
  readonly http: HttpGateway;
}

describe.runIf(hasRedisServer())('attack review: 2025-era sessions shared through Redis', () => {
  let redis: RedisServer;
  const replicas: Replica[] = [];
  const dir = tempDir('dsh-review-');
  writeFileSync(join(dir, 'a.txt'), 'a');

  async function startReplica(
    http: { maxSessions?: number; sessionIdleMs?: number } = {},
    state: { redis?: string; prefix?: string; deadlineMs?: number } = {},
  ): Promise<Replica> {
    const approvals = createElicitationApprovals();
    const gateway = await buildGateway(
      loadedIn(dir, {
        mcpServers: {},
        exampleTools: { writable: false },
        permissions: { ask: ['list_dir'], allow: ['read_file'] },
        pins: 'off',
        state: { redis: redis.url, prefix: 'review:', ...state },
      }),
      { approver: approvals.approver, askScope: (exec) => approvals.scopeOf(exec.callId) },
    );
    const served = await serveGatewayHttp(gateway, { port: 0, token: TOKEN, approvals, ...http });
    const replica = { gateway, http: served };
    replicas.push(replica);
    return replica;
  }

  const headers = (sid?: string) => ({
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}),
  });

  /** A session opened (initialize, initialized) on `replica` by a client that can elicit. */
  async function open(replica: Replica): Promise<string> {
    return (await new RawSession(replica.http.url, TOKEN).open({ elicitation: {} })).id;
  }

  async function list(replica: Replica, sid: string): Promise<number> {
    const res = await fetch(replica.http.url, {
      method: 'POST',
      headers: headers(sid),
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    await res.text();
    return res.status;
  }

  async function close(replica: Replica, sid: string): Promise<number> {
    const res = await fetch(replica.http.url, { method: 'DELETE', headers: headers(sid) });
    await res.text();
    return res.status;
  }

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const { http, gateway } of replicas.splice(0)) {
      await http.close().catch(() => {});
      await gateway.close().catch(() => {});
    }
    await redis?.stop();
  });

  it('a session in use keeps its record in the store', async () => {
    const idle = 1500;
    const [a, b] = [
      await startReplica({ sessionIdleMs: idle }),
      await startReplica({ sessionIdleMs: idle }),
    ];
    const sid = await open(a as Replica);
    // In use all along, on both replicas, never idle for more than 300 ms.
    for (let i = 0; i < 10; i++) {
      expect(await list(i % 2 ? (b as Replica) : (a as Replica), sid)).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
    }
    const c = await startReplica({ sessionIdleMs: idle });
    expect(await list(c, sid)).toBe(200); // observed: 404, the record expired 1.5 s after initialize
  });

  it('take-overs count against maxSessions', async () => {
    const a = await startReplica({ maxSessions: 2 });
    const b = await startReplica({ maxSessions: 2 });
    const ids = [await open(a), await open(a), await open(b), await open(b)];
    for (const sid of ids) await list(b, sid);
    expect(b.http.sessions).toBeLessThanOrEqual(2); // observed: 4
  });

  it('a session whose DELETE was answered stays closed when the store was down at the time', async () => {
    const a = await startReplica();
    const b = await startReplica();
    const sid = await open(a);
    expect(await list(b, sid)).toBe(200);
    await redis.kill();
    const status = await close(a, sid);
    await redis.restart();
    await new Promise((r) => setTimeout(r, 1500)); // the replicas reconnect
    // The DELETE said the session is gone, or it told the client to retry.
    const after = [await list(a, sid), await list(b, sid)];
    expect({ status, after }).toEqual(
      status >= 500 ? { status, after: [200, 200] } : { status, after: [404, 404] },
    ); // observed: DELETE 200, then [200, 200]: resurrected on a (take-over) and alive on b
  });

  it('a take-over racing a DELETE does not bring the session back', async () => {
    const a = await startReplica();
    const b = await startReplica();
    const sid = await open(a);
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let readDone: () => void = () => {};
    const read = new Promise<void>((r) => {
      readDone = r;
    });
    const original = SessionStore.prototype.get;
    const spy = vi.spyOn(SessionStore.prototype, 'get').mockImplementation(async function (
      this: SessionStore,
      id: string,
    ) {
      const record = await original.call(this, id);
      readDone();
      await gate; // b has read the record; the DELETE lands now
      return record;
    });
    try {
      const pending = list(b, sid);
      await read;
      spy.mockRestore();
      expect(await close(a, sid)).toBe(200);
      await new Promise((r) => setTimeout(r, 200)); // the close is announced to b
      release();
      await pending;
    } finally {
      spy.mockRestore();
      release();
    }
    expect(await list(b, sid)).toBe(404); // observed: 200, b serves a deleted session
  });

  it('a replica whose subscription dropped for a moment still learns of a close', async () => {
    const a = await startReplica();
    const b = await startReplica();
    const sid = await open(a);
    expect(await list(b, sid)).toBe(200);
    const admin = new Redis(redis.url);
    try {
      // CLIENT KILL TYPE pubsub: every subscriber connection dropped, as a network blip would.
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      expect(await close(b, sid)).toBe(200);
    } finally {
      admin.disconnect();
    }
    await new Promise((r) => setTimeout(r, 1500)); // a has resubscribed
    expect(await list(a, sid)).toBe(404); // observed: 200, a serves it until it idles out (30 min)
  });

  it("a 503 answered to a client never carries the store's URL (password in the query)", async () => {
    const url = `${redis.url}/?password=hunter2-secret`;
    const a = await startReplica({}, { redis: url, prefix: 'review-leak:' });
    const sid = await open(a);
    await redis.kill();
    try {
      const res = await fetch(a.http.url, {
        method: 'POST',
        headers: headers(sid),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'abcdefabcdef~0',
          result: { action: 'decline' },
        }),
      });
      const text = await res.text();
      expect(res.status).toBe(503);
      expect(text).not.toContain('hunter2'); // observed: the URL, password and all
      expect(text).not.toContain(String(redis.port)); // nor where the store is
    } finally {
      await redis.restart();
    }
  });

  it('an answer published while the asking replica resubscribes is not lost behind a 202', async () => {
    const a = await startReplica();
    const b = await startReplica();
    const sid = await open(a);
    expect(await list(b, sid)).toBe(200);
    const call = await fetch(a.http.url, {
      method: 'POST',
      headers: headers(sid),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'list_dir', arguments: {} },
      }),
    });
    const reader = (call.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    const until = async (pattern: RegExp, ms: number): Promise<RegExpExecArray | undefined> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const hit = pattern.exec(seen);
        if (hit) return hit;
        const left = deadline - Date.now();
        if (left <= 0) return undefined;
        const chunk = await Promise.race([
          reader.read(),
          new Promise<undefined>((r) => setTimeout(() => r(undefined), left)),
        ]);
        if (!chunk || chunk.done) return pattern.exec(seen) ?? undefined;
        seen += Buffer.from(chunk.value).toString('utf8');
      }
    };
    const asked = await until(
      /"method":"elicitation\/create"[^\n]*"id":"([0-9a-f]{12}~\d+)"|"id":"([0-9a-f]{12}~\d+)"[^\n]*"method":"elicitation\/create"/,
      10_000,
    );
    expect(asked).toBeDefined();
    const questionId = (asked?.[1] ?? asked?.[2]) as string;
    const admin = new Redis(redis.url);
    let status: number;
    try {
      // CLIENT KILL TYPE pubsub: every subscriber connection dropped, as a network blip would.
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      const answer = await fetch(b.http.url, {
        method: 'POST',
        headers: headers(sid),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: questionId,
          result: { action: 'accept', content: { allow: true } },
        }),
      });
      await answer.text();
      status = answer.status;
    } finally {
      admin.disconnect();
    }
    const finished = (await until(/"id":5/, 5000)) !== undefined;
    void reader.cancel().catch(() => {});
    // Either the answer reached the call, or the client was told to send it again.
    expect({ status, finished }).toEqual(
      status === 503 ? { status, finished } : { status, finished: true },
    );
    // observed: { status: 202, finished: false }: the answer went nowhere, the call waits on
  });

  it('a 2025-03-26 batch mixing an answer for another replica with a request for this one: both are served', async () => {
    const a = await startReplica();
    const b = await startReplica();
    const v = '2025-03-26';
    const h = (sid?: string) => ({
      ...headers(),
      ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': v } : {}),
    });
    const init = await fetch(a.http.url, {
      method: 'POST',
      headers: h(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: v,
          capabilities: { elicitation: {} },
          clientInfo: { name: 'old', version: '1' },
        },
      }),
    });
    await init.text();
    const sid = init.headers.get('mcp-session-id') as string;
    await (
      await fetch(a.http.url, {
        method: 'POST',
        headers: h(sid),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const call = await fetch(a.http.url, {
      method: 'POST',
      headers: h(sid),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'list_dir', arguments: {} },
      }),
    });
    const reader = (call.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    const until = async (pattern: RegExp): Promise<RegExpExecArray | undefined> => {
      for (;;) {
        const hit = pattern.exec(seen);
        if (hit) return hit;
        const chunk = await reader.read();
        if (chunk.done) return undefined;
        seen += Buffer.from(chunk.value).toString('utf8');
      }
    };
    const asked = await until(/"id":"([0-9a-f]{12}~\d+)"/);
    const questionId = asked?.[1] as string;
    const batch = await fetch(b.http.url, {
      method: 'POST',
      headers: h(sid),
      body: JSON.stringify([
        { jsonrpc: '2.0', id: questionId, result: { action: 'accept', content: { allow: true } } },
        { jsonrpc: '2.0', id: 9, method: 'ping' },
      ]),
    });
    // The ping is answered here; the answer went to the replica that asked, whose call finishes.
    expect(batch.status).toBe(200);
    expect(await batch.text()).toContain('"id":9');
    expect(await until(/"id":5[,}][^\n]*a\.txt|a\.txt[^\n]*"id":5[,}]/)).toBeDefined();
    void reader.cancel().catch(() => {});
  });

  it('a replica keeps the sessions it opens (the push of a new session’s expiry never races its record)', async () => {
    const a = await startReplica();
    // Only the initialize (its client's next request may go to another replica).
    const initialize = async () => {
      const res = await fetch(a.http.url, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'fresh', version: '1' },
          },
        }),
      });
      await res.text();
      return res.headers.get('mcp-session-id') as string;
    };
    const opened = await Promise.all(Array.from({ length: 8 }, initialize));
    await new Promise((r) => setTimeout(r, 300));
    expect(a.http.sessions).toBe(opened.length);
    // Held here, they are served here even with the store gone.
    await redis.kill();
    try {
      for (const sid of opened) expect(await list(a, sid)).toBe(200);
    } finally {
      await redis.restart();
    }
  });

  it('questions never answered (their call abandoned) are forgotten', async () => {
    const a = await startReplica();
    const wrappers: { deliver: unknown }[] = [];
    const original = AnswerRelay.prototype.tagged;
    const spy = vi.spyOn(AnswerRelay.prototype, 'tagged').mockImplementation(function (
      this: AnswerRelay,
      lean,
    ) {
      const wrapped = original.call(this, lean);
      wrappers.push(wrapped);
      return wrapped;
    });
    let sid: string;
    try {
      sid = await open(a);
    } finally {
      spy.mockRestore();
    }
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const call = await fetch(a.http.url, {
        method: 'POST',
        headers: headers(sid),
        signal: controller.signal,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 100 + i,
          method: 'tools/call',
          params: { name: 'list_dir', arguments: {} },
        }),
      });
      const reader = (call.body as ReadableStream<Uint8Array>).getReader();
      let seen = '';
      while (!seen.includes('elicitation/create')) {
        const chunk = await reader.read();
        if (chunk.done) break;
        seen += Buffer.from(chunk.value).toString('utf8');
      }
      expect(seen).toContain('elicitation/create');
      controller.abort(); // the client walks away: the call is abandoned, its question never answered
      await reader.cancel().catch(() => {});
    }
    await new Promise((r) => setTimeout(r, 300));
    // The size of `asked`, read from the closure of the session's wrapper through the inspector.
    const inspector = new Inspector();
    inspector.connect();
    let size: number | undefined;
    try {
      (globalThis as Record<string, unknown>).__probe = (
        wrappers[0] as { deliver: unknown }
      ).deliver;
      const { result } = await inspector.post('Runtime.evaluate', {
        expression: 'globalThis.__probe',
      });
      const fn = await inspector.post('Runtime.getProperties', {
        objectId: result.objectId as string,
      });
      const scopes = (fn.internalProperties ?? []).find((p) => p.name === '[[Scopes]]');
      const list = await inspector.post('Runtime.getProperties', {
        objectId: scopes?.value?.objectId as string,
      });
      for (const scope of list.result) {
        if (!scope.value?.objectId) continue;
        const vars = await inspector.post('Runtime.getProperties', {
          objectId: scope.value.objectId,
        });
        const asked = vars.result.find((v) => v.name === 'asked');
        if (!asked?.value?.objectId) continue;
        const got = await inspector.post('Runtime.callFunctionOn', {
          objectId: asked.value.objectId,
          functionDeclaration: 'function () { return this.size; }',
          returnByValue: true,
        });
        size = got.result.value as number;
      }
    } finally {
      inspector.disconnect();
    }
    expect(size).toBe(0); // observed: 5, one per question never answered, for the session's life
  });
});
