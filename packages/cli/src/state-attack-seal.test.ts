import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveGatewayHttp } from './http';
import { createElicitationApprovals } from './serve';
import { redisState, type SharedState } from './state-redis';
import { AnswerRelay, SessionStore } from './state-sessions';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const TOKEN = 'replica-token-0123456789abcdef';

/** The size of the Map in private field `field` of `obj` (read through the inspector). */
async function privateMapSize(obj: object, field: string): Promise<number> {
  const session = new Session();
  session.connect();
  try {
    (globalThis as Record<string, unknown>).__probe = obj;
    const { result } = await session.post('Runtime.evaluate', { expression: 'globalThis.__probe' });
    const props = await session.post('Runtime.getProperties', {
      objectId: result.objectId as string,
      ownProperties: true,
    });
    // (privateProperties: in the protocol, not in Node 20's typings of it.)
    const privates = (
      props as { privateProperties?: { name: string; value?: { objectId?: string } }[] }
    ).privateProperties;
    const found = (privates ?? []).find((p) => p.name === field);
    const size = await session.post('Runtime.callFunctionOn', {
      objectId: found?.value?.objectId as string,
      functionDeclaration: 'function () { return this.size; }',
      returnByValue: true,
    });
    return size.result.value as number;
  } finally {
    session.disconnect();
  }
}

describe.runIf(hasRedisServer())('attack review: seal key and memory', () => {
  let redis: RedisServer;
  const started: { gateway: Gateway; http: HttpGateway }[] = [];
  const dir = tempDir('dsh-review-seal-');
  writeFileSync(join(dir, 'a.txt'), 'a');
  const approvalsOf = new Map<Gateway, ReturnType<typeof createElicitationApprovals>>();
  const build = async () => {
    const approvals = createElicitationApprovals();
    const gateway = await buildGateway(
      loadedIn(dir, {
        mcpServers: {},
        exampleTools: { writable: false },
        permissions: { ask: ['list_dir'], allow: ['read_file'] },
        pins: 'off',
        state: { redis: redis.url, prefix: 'review-seal:', deadlineMs: 300 },
      }),
      { approver: approvals.approver, askScope: (exec) => approvals.scopeOf(exec.callId) },
    );
    approvalsOf.set(gateway, approvals);
    return gateway;
  };
  const serve = async (gateway: Gateway) => {
    const http = await serveGatewayHttp(gateway, {
      port: 0,
      token: TOKEN,
      approvals: approvalsOf.get(gateway) as ReturnType<typeof createElicitationApprovals>,
    });
    started.push({ gateway, http });
    return http;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const { http, gateway } of started) {
      await http.close().catch(() => {});
      await gateway.close().catch(() => {});
    }
    await redis?.stop();
  });

  it('a store that stalls once while a replica starts does not break its 2026-07-28 questions for good', async () => {
    const gateway = await build();
    // The store fails one command (as a stalled one times out): the read of the seal key.
    const redisOfGateway = redisState(gateway.state as SharedState).redis as unknown as {
      set: (...a: unknown[]) => Promise<unknown>;
    };
    const set = redisOfGateway.set;
    let failed = 0;
    // (The patch stays: it fails only the first read.)
    redisOfGateway.set = function (this: unknown, ...a: unknown[]) {
      if (String(a[0]).endsWith('seal-key') && failed++ === 0) {
        return Promise.reject(new Error('Command timed out'));
      }
      return set.apply(this, a);
    };
    const http = await serve(gateway);
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' as const } },
    );
    client.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { allow: true },
    }));
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const call = () =>
        client
          .callTool({ name: 'list_dir', arguments: {} })
          .then((r) => JSON.stringify(r))
          .catch((e: unknown) => String(e));
      // The first call meets the one failed read of the key; the next one must not.
      const first = await call();
      expect(failed).toBe(1);
      expect(first).not.toContain('a.txt');
      expect(await call()).toContain('a.txt'); // before: the failed read was kept for good
    } finally {
      await client.close();
    }
  });

  it('sessions closed through another replica are forgotten by the one that opened them', async () => {
    const a = await serve(await build());
    const b = await serve(await build());
    const stores: SessionStore[] = [];
    const original = SessionStore.prototype.put;
    const spy = vi.spyOn(SessionStore.prototype, 'put').mockImplementation(async function (
      this: SessionStore,
      ...args: Parameters<SessionStore['put']>
    ) {
      stores.push(this);
      return original.apply(this, args);
    });
    const headers = (sid?: string) => ({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}),
    });
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(a.url, {
          method: 'POST',
          headers: headers(),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'x', version: '1' },
            },
          }),
        });
        await res.text();
        const sid = res.headers.get('mcp-session-id') as string;
        const del = await fetch(b.url, { method: 'DELETE', headers: headers(sid) });
        await del.text();
      }
    } finally {
      spy.mockRestore();
    }
    await expect.poll(() => a.sessions).toBe(0);
    const storeOfA = stores[0] as SessionStore;
    expect(await privateMapSize(storeOfA, '#touched')).toBe(0); // observed: 20, never cleared
  });

  it('a serve that fails to start (subscribe timed out) leaves no heartbeat saying it runs', async () => {
    const gateway = await build();
    const state = gateway.state as unknown as {
      subscribe: unknown;
      redis: { keys(p: string): Promise<string[]> };
    };
    const subscribe = state.subscribe;
    state.subscribe = () => Promise.reject(new Error('Command timed out'));
    const tags: string[] = [];
    const listen = AnswerRelay.prototype.listen;
    const spy = vi.spyOn(AnswerRelay.prototype, 'listen').mockImplementation(function (
      this: AnswerRelay,
      onError,
    ) {
      tags.push(this.tag);
      return listen.call(this, onError);
    });
    const error = await serveGatewayHttp(gateway, { port: 0, token: TOKEN }).catch(
      (e: unknown) => e,
    );
    state.subscribe = subscribe;
    spy.mockRestore();
    expect(error).toBeInstanceOf(Error);
    await new Promise((r) => setTimeout(r, 4000)); // past the heartbeat key's 3 s
    expect(await state.redis.keys(`review-seal:replica:${tags[0]}`)).toEqual([]); // observed: one key, refreshed every second
    await gateway.close();
  });
});
