import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { RawSession } from '../test/raw-mcp-http';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveSharedGatewayHttp, tokenSha256 } from './http';
import { createElicitationApprovals } from './serve';
import { SessionStore } from './state-sessions';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
const ALICE = 'alice-token-0123456789abcdef';
const MALLORY = 'mallory-token-0123456789abcdef';

describe.runIf(hasRedisServer())('attack review: take-over shared between principals', () => {
  let redis: RedisServer;
  const started: { gateway: Gateway; http: HttpGateway }[] = [];
  const dir = tempDir('dsh-review-pr-');
  const replica = async () => {
    const approvals = createElicitationApprovals();
    const gateway = await buildGateway(
      loadedIn(dir, {
        mcpServers: {},
        exampleTools: { writable: false },
        pins: 'off',
        state: { redis: redis.url, prefix: 'review-pr:' },
      }),
      { approver: approvals.approver, askScope: (exec) => approvals.scopeOf(exec.callId) },
    );
    const http = await serveSharedGatewayHttp(gateway, {
      port: 0,
      approvals,
      clients: [
        { name: 'alice', tokenSha256: tokenSha256(ALICE) },
        { name: 'mallory', tokenSha256: tokenSha256(MALLORY) },
      ],
    });
    started.push({ gateway, http });
    return http;
  };
  const headers = (token: string, sid?: string) => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' } : {}),
  });
  const list = async (url: string, token: string, sid: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: headers(token, sid),
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    await res.text();
    return res.status;
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

  it("another principal's take-over in flight does not answer the owner 404", async () => {
    const a = await replica();
    const b = await replica();
    const sid = (await new RawSession(a.url, ALICE).open()).id;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let reading: () => void = () => {};
    const read = new Promise<void>((r) => {
      reading = r;
    });
    const original = SessionStore.prototype.get;
    const spy = vi.spyOn(SessionStore.prototype, 'get').mockImplementation(async function (
      this: SessionStore,
      id: string,
    ) {
      const record = await original.call(this, id);
      reading();
      await gate; // a store a little slow
      return record;
    });
    try {
      const mallory = list(b.url, MALLORY, sid); // Mallory learned the id; his take-over starts first
      await read;
      const alice = list(b.url, ALICE, sid); // Alice's request joins it
      await new Promise((r) => setTimeout(r, 100));
      release();
      expect(await mallory).toBe(404);
      expect(await alice).toBe(200); // observed: 404, "Session not found", her session is lost to her
    } finally {
      spy.mockRestore();
      release();
    }
  });
});
