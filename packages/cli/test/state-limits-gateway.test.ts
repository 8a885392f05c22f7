import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DshToolsConfig } from '../src/config';
import { buildGateway, type Gateway } from '../src/gateway';
import { type HttpGateway, serveSharedGatewayHttp, tokenSha256 } from '../src/http';
import { createLimiter } from '../src/limits';
import { openSharedState, type SharedState } from '../src/state-redis';
import { bareGateway } from './bare-gateway';
import { loadedIn, tempDir } from './helpers';
import { RawSession, resultText } from './raw-mcp-http';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

// Limits through whole gateways: two gateways built from one config (two replicas) count one
// budget in a real redis-server, in process and over HTTP (429 with Retry-After from either).

describe.runIf(hasRedisServer())('limits shared by the replicas of a gateway', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  /** Calls `list_dir` on each gateway in turn, `times` times; how many ran. */
  async function alternate(gateways: Gateway[], times: number, identity?: string) {
    let ran = 0;
    const refusals: string[] = [];
    for (let i = 0; i < times; i++) {
      const gateway = gateways[i % gateways.length] as Gateway;
      const result = await gateway.registry.execute({
        callId: String(i),
        name: 'list_dir',
        arguments: { path: '.' },
        ...(identity ? { identity } : {}),
      } as never);
      if (result.isError) refusals.push(`${result.error?.code}: ${result.error?.message}`);
      else ran++;
    }
    return { ran, refusals };
  }

  async function replicas(config: DshToolsConfig, count: number): Promise<Gateway[]> {
    const dir = tempDir();
    return Promise.all(Array.from({ length: count }, () => buildGateway(loadedIn(dir, config))));
  }

  it('unguarded (no state), each replica counts its own budget: two let twice the limit through', async () => {
    const gateways = await replicas(
      { mcpServers: {}, exampleTools: true, limits: { callsPerMinute: 3 } },
      2,
    );
    try {
      expect((await alternate(gateways, 8)).ran).toBe(6);
    } finally {
      await Promise.all(gateways.map((g) => g.close()));
    }
  });

  it('with state, two replicas spend one budget, per client, refusing with the limit’s message', async () => {
    const gateways = await replicas(
      {
        mcpServers: {},
        exampleTools: true,
        limits: { callsPerMinute: 3 },
        clients: [{ name: 'ci', tokenSha256: 'a'.repeat(64), limits: { callsPerMinute: 2 } }],
        state: { redis: redis.url, prefix: 'replicas-a:' },
      },
      2,
    );
    try {
      const local = await alternate(gateways, 8);
      expect(local.ran).toBe(3);
      expect(local.refusals[0]).toMatch(
        /^UNAVAILABLE: The gateway's limit of 3 calls a minute for client "local" is reached; retry in 20 s\.$/,
      );
      expect((await alternate(gateways, 5, 'ci')).ran).toBe(2);
    } finally {
      await Promise.all(gateways.map((g) => g.close()));
    }
  });

  describe('over HTTP', () => {
    const ALICE = 'alice-limit-token-0123456789';
    const servers: HttpGateway[] = [];
    const states: SharedState[] = [];
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const state = await openSharedState({ redis: redis.url, prefix: 'replicas-http:' });
        states.push(state);
        const gateway = bareGateway({ echo: true });
        const limiter = createLimiter(
          undefined,
          new Map([['alice', { callsPerMinute: 2 }]]),
          state,
        );
        gateway.registry.use(
          limiter.interceptor((exec) =>
            typeof exec.identity === 'string' ? exec.identity : undefined,
          ),
          { name: 'limits', priority: 999_999 },
        );
        Object.assign(gateway, { limits: limiter, state });
        servers.push(
          await serveSharedGatewayHttp(gateway, {
            port: 0,
            clients: [{ name: 'alice', tokenSha256: tokenSha256(ALICE) }],
          }),
        );
      }
    });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.close()));
      await Promise.all(states.map((s) => s.close()));
    });

    it('a call over the shared limit is answered 429 with Retry-After by the replica it lands on', async () => {
      const [a, b] = servers as [HttpGateway, HttpGateway];
      const onA = await new RawSession(a.url, ALICE).open();
      for (let i = 0; i < 2; i++) {
        expect(resultText(await (await onA.call('echo', { text: `#${i}` })).result())).toBe(
          `#${i}`,
        );
      }
      const onB = await new RawSession(b.url, ALICE).open();
      const over = await onB.post({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: 'x' } },
      });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
      const body = (await over.json()) as { id: unknown; error: { message: string } };
      expect(body.id).toBe(7);
      expect(body.error.message).toContain('limit of 2 calls a minute for client "alice"');
    });
  });
});
