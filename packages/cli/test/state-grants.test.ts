/**
 * Grants in a real redis-server, shared by replicas: each replica is a gateway of its own (its own
 * connection to the store), built from the same config, as `serve` builds it.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPermissionGrant,
  permissionInterceptor,
  type SharedGrantStore,
} from '@dsh-tools/interceptors-permission';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../src/gateway';
import { createRedisGrantStore, grantStoreOf, type RedisGrantStore } from '../src/state-grants';
import { openRedisState, type RedisState, StateUnavailableError } from '../src/state-redis';
import { loadedIn, tempDir } from './helpers';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

/** One seed for the races here, printed so that a failure replays (`FC_SEED=<seed>`). */
const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`redis grant races: fast-check seed ${SEED} (FC_SEED=${SEED} replays)`);

describe.runIf(hasRedisServer())('grants shared by replicas through Redis', () => {
  let server: RedisServer;
  const opened: { close(): Promise<void> }[] = [];
  let prefixes = 0;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterEach(async () => {
    await Promise.allSettled(opened.splice(0).map((o) => o.close()));
  });
  afterAll(() => server?.stop());

  /** A fresh key prefix per test, so that tests never see each other's grants. */
  const freshPrefix = () => `t${++prefixes}:`;

  /** `n` replicas of one gateway config on the store under `prefix`; writes ask (no approver). */
  async function replicas(n: number, prefix: string, deadlineMs = 1000): Promise<Gateway[]> {
    const dir = tempDir('dsh-grants-');
    mkdirSync(join(dir, 'out'));
    const loaded = loadedIn(dir, {
      mcpServers: {},
      exampleTools: { writable: true },
      permissions: {},
      state: { redis: server.url, prefix, deadlineMs },
    });
    const made = await Promise.all(Array.from({ length: n }, () => buildGateway(loaded)));
    opened.push(...made);
    return made;
  }

  /** A connection of its own, as an operator's `dsh-tools grant` opens it. */
  async function operator(prefix: string): Promise<SharedGrantStore> {
    const state = await openRedisState({ redis: server.url, prefix, deadlineMs: 1000 });
    opened.push(state);
    return createRedisGrantStore(state, { listen: false });
  }

  let calls = 0;
  /** A write through `gateway`: `ran` when the tool ran, else the refusal's code. */
  async function write(gateway: Gateway): Promise<string> {
    const result = await gateway.registry.execute({
      callId: `c${++calls}`,
      name: 'write_file',
      // A file per call: concurrent writes of one file may fail in the tool, not the policy.
      arguments: { path: `out/${calls}.txt`, content: 'x' },
    });
    return result.isError ? (result.error?.code ?? 'no code') : 'ran';
  }

  const grant = (extra: { uses?: number; expiresInMs?: number } = {}) =>
    createPermissionGrant({ rule: 'write_file', by: 'operator', ...extra });

  it('a grant added through one replica is used by another, its uses counted across both', async () => {
    const prefix = freshPrefix();
    const [a, b] = (await replicas(2, prefix)) as [Gateway, Gateway];
    const store = await operator(prefix);
    expect(await write(a)).toBe('DENIED');
    await store.add(grant({ uses: 2 }));
    // A replica may hold the list it read a moment ago until the announcement reaches it.
    await expect.poll(() => write(a)).toBe('ran');
    expect(await write(b)).toBe('ran');
    expect(await write(b)).toBe('DENIED');
    expect(await write(a)).toBe('DENIED');
    expect(await store.list()).toEqual([]);
  });

  it('the last use, raced from two replicas, is spent exactly once (many seeded rounds)', async () => {
    const prefix = freshPrefix();
    const [a, b] = (await replicas(2, prefix)) as [Gateway, Gateway];
    const store = await operator(prefix);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
        async (uses, onA) => {
          const given = await store.add(grant({ uses }));
          // Both replicas have read the grant before the race starts.
          await expect
            .poll(async () => (await grantsSeen(a, given.id)) && (await grantsSeen(b, given.id)))
            .toBe(true);
          const outcomes = await Promise.all(onA.map((x) => write(x ? a : b)));
          expect(outcomes.filter((o) => o === 'ran')).toHaveLength(Math.min(uses, onA.length));
          expect(outcomes.filter((o) => o !== 'ran').every((o) => o === 'DENIED')).toBe(true);
          const left = (await store.list()).find((g) => g.id === given.id)?.usesLeft;
          expect(left).toBe(uses > onA.length ? uses - onA.length : undefined);
          await store.revoke(given.id);
        },
      ),
      { seed: SEED, numRuns: 100 },
    );
  }, 60_000);

  /** Whether `gateway`'s store lists grant `id` now. */
  async function grantsSeen(gateway: Gateway, id: string): Promise<boolean> {
    const state = gateway.state as RedisState;
    return (await grantStoreOf(state).list()).some((g) => g.id === id);
  }

  it("a grant expires by Redis's clock, even given by a replica whose clock is an hour ahead", async () => {
    const prefix = freshPrefix();
    const [a] = (await replicas(1, prefix)) as [Gateway];
    const store = await operator(prefix);
    const ahead = Date.now() + 3_600_000;
    const given = await store.add(
      createPermissionGrant({ rule: 'write_file', by: 'operator', expiresInMs: 400, now: ahead }),
    );
    expect(given.expiresAt).toBeLessThan(ahead);
    await expect.poll(() => write(a)).toBe('ran');
    await expect.poll(() => write(a), { timeout: 5000 }).toBe('DENIED');
    expect(await store.list()).toEqual([]);
  });

  it('a revoke is seen by the other replica at its very next call', async () => {
    const prefix = freshPrefix();
    const [a, b] = (await replicas(2, prefix)) as [Gateway, Gateway];
    const store = await operator(prefix);
    const given = await store.add(grant());
    await expect.poll(() => write(b)).toBe('ran');
    expect(await write(a)).toBe('ran');
    expect(await store.revoke(given.id)).toBe(true);
    // No wait for the announcement: b's kept list still has the grant, and spending it asks Redis.
    expect(await write(b)).toBe('DENIED');
    expect(await write(a)).toBe('DENIED');
    expect(await store.revoke(given.id)).toBe(false);
  });

  it('a replica hears of a grant added or revoked elsewhere at once (not at the end of its kept list)', async () => {
    const prefix = freshPrefix();
    const states = await Promise.all(
      [0, 1].map(() => openRedisState({ redis: server.url, prefix, deadlineMs: 1000 })),
    );
    opened.push(...states);
    const [mine, theirs] = states.map((state) =>
      createRedisGrantStore(state, { maxAgeMs: 3_600_000 }),
    ) as [RedisGrantStore, RedisGrantStore];
    expect(await mine.listening).toBe(true);
    expect(await mine.list()).toEqual([]);
    const given = await theirs.add(grant());
    await expect.poll(async () => (await mine.list()).map((g) => g.id)).toEqual([given.id]);
    await theirs.revoke(given.id);
    await expect.poll(async () => (await mine.list()).length).toBe(0);
  });

  it('a grant in the store that cannot be read is reported and skipped; the others still list', async () => {
    const prefix = freshPrefix();
    const state = await openRedisState({ redis: server.url, prefix, deadlineMs: 1000 });
    opened.push(state);
    const errors: unknown[] = [];
    const store = createRedisGrantStore(state, { listen: false, onError: (e) => errors.push(e) });
    const given = await store.add(grant());
    await state.redis.hset(`${prefix}grant:broken`, 'grant', '{not json');
    await state.redis.sadd(`${prefix}grants`, 'broken');
    expect((await store.list()).map((g) => g.id)).toEqual([given.id]);
    expect(String(errors[0])).toContain(
      `The grant ${prefix}grant:broken in the state store ${state.where} cannot be read`,
    );
    expect(String(errors[0])).toContain('dsh-tools grant revoke broken');
  });

  it('Redis SIGKILLed and restarted: an acknowledged grant is still there, and replicas use it again', async () => {
    const prefix = freshPrefix();
    const [a] = (await replicas(1, prefix)) as [Gateway];
    const store = await operator(prefix);
    const given = await store.add(grant({ uses: 5 }));
    await expect.poll(() => write(a)).toBe('ran');
    await server.kill();
    await server.restart();
    await expect.poll(() => write(a), { timeout: 10_000 }).toBe('ran');
    await expect
      .poll(async () => (await store.list().catch(() => [])).map((g) => [g.id, g.usesLeft]), {
        timeout: 10_000,
      })
      .toEqual([[given.id, 3]]);
  }, 30_000);

  it('store down: a grant does not apply (the call is refused as without it, reported), and applies again once Redis is back', async () => {
    const prefix = freshPrefix();
    const state = await openRedisState({ redis: server.url, prefix, deadlineMs: 500 });
    opened.push(state);
    const errors: unknown[] = [];
    const dir = tempDir('dsh-grants-');
    const policy = permissionInterceptor({
      cwd: dir,
      grants: grantStoreOf(state),
      onError: (error) => errors.push(error),
    });
    await policy.ready;
    const [gateway] = (await replicas(1, prefix, 500)) as [Gateway];
    await policy.addGrant({ rule: 'Bash(npm test)', uses: 3 });
    const store = await operator(prefix);
    await store.add(grant({ uses: 3 }));
    const exec = {
      callId: 'x',
      name: 'Bash',
      arguments: { command: 'npm test' },
      tool: {
        name: 'Bash',
        description: '',
        parameters: { type: 'object' },
        hints: { command: 'command' },
        source: { kind: 'local' },
      },
    } as unknown as Parameters<typeof policy>[0];
    const outcome = async () => {
      let ran = false;
      await policy(exec, async () => {
        ran = true;
        return { callId: 'x', content: [], isError: false };
      });
      return ran ? 'ran' : 'refused';
    };
    await expect.poll(outcome).toBe('ran');
    await expect.poll(() => write(gateway)).toBe('ran');
    await server.kill();
    try {
      expect(await outcome()).toBe('refused');
      expect(await write(gateway)).toBe('DENIED');
      const reported = errors.at(-1) as Error;
      expect(reported.message).toMatch(/shared grant store could not .*fail closed/);
      expect(reported.cause).toBeInstanceOf(StateUnavailableError);
      await expect(policy.listGrants()).rejects.toBeInstanceOf(StateUnavailableError);
      await expect(policy.addGrant({ rule: 'Bash(ls)' })).rejects.toThrow(/could not store/);
    } finally {
      await server.restart();
    }
    await expect.poll(outcome, { timeout: 10_000 }).toBe('ran');
    await expect.poll(() => write(gateway), { timeout: 10_000 }).toBe('ran');
  }, 30_000);
});
