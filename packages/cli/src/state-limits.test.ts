import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { createLimiter, type LimitRefusal, type LimitSlot, MemoryLimiter } from './limits';
import { StoreLimiter } from './state-limits';
import { openRedisState, type RedisState } from './state-redis';

// Limits counted in a real redis-server by two limiters on two connections: two replicas of a
// gateway, as far as the store can tell.

const refused = (x: LimitSlot | LimitRefusal | undefined): x is LimitRefusal =>
  typeof x === 'object' && x !== null && 'message' in x;

const SEED = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);

describe.runIf(hasRedisServer())('limits in the state store', () => {
  let server: RedisServer;
  const states: RedisState[] = [];
  const open = async (prefix = 'dsh:', deadlineMs = 500) => {
    const state = await openRedisState({ redis: server.url, prefix, deadlineMs });
    states.push(state);
    return state;
  };
  let unique = 0;
  const client = () => `client-${unique++}`;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(states.map((s) => s.close()));
    await server?.stop();
  });

  it('unguarded (each replica counting in its own memory), two replicas let twice the budget through', async () => {
    const perMinute = 5;
    const replicas = [0, 1].map(() => new MemoryLimiter({ callsPerMinute: perMinute }));
    let admitted = 0;
    for (let i = 0; i < 20; i++) {
      if (!refused(replicas[i % 2]?.acquire('alice', 't'))) admitted++;
    }
    expect(admitted).toBe(2 * perMinute);
  });

  it('two replicas sharing one budget never admit more than the burst plus what refilled (property)', async () => {
    const [a, b] = [await open(), await open()];
    console.log(`fast-check seed ${SEED} (FC_SEED=${SEED} replays it)`);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        // Each step: which replica, and how many calls it starts at once (sent together).
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1, max: 4 })), {
          minLength: 1,
          maxLength: 25,
        }),
        async (perMinute, steps) => {
          const who = client();
          const replicas = [a, b].map((s) =>
            createLimiter({ callsPerMinute: perMinute }, new Map(), s),
          );
          const started = performance.now();
          let admitted = 0;
          let attempts = 0;
          for (const [replica, batch] of steps) {
            const limiter = replicas[replica] as (typeof replicas)[number];
            const slots = await Promise.all(
              Array.from({ length: batch }, () => limiter.acquire(who, 'echo')),
            );
            attempts += batch;
            for (const slot of slots) {
              expect(refused(slot) && slot.storeUnavailable).toBeFalsy();
              if (!refused(slot)) admitted++;
            }
          }
          const elapsed = performance.now() - started;
          // Redis's clock ran at most as long as the run: that much refilled, no more.
          expect(admitted).toBeLessThanOrEqual(
            Math.floor(perMinute + (elapsed * perMinute) / 60_000),
          );
          // A bucket starts full: the first calls up to the burst are never refused.
          expect(admitted).toBeGreaterThanOrEqual(Math.min(attempts, perMinute));
        },
      ),
      { seed: SEED, numRuns: 40 },
    );
  });

  it('answers as the in-process limiter does: the same message, the same wait', async () => {
    const state = await open();
    const who = client();
    const limiter = createLimiter({ callsPerMinute: 3 }, new Map(), state);
    const memory = new MemoryLimiter({ callsPerMinute: 3 }, new Map(), () => 0);
    for (let i = 0; i < 3; i++) {
      expect(refused(await limiter.acquire(who, 't'))).toBe(false);
      memory.acquire(who, 't');
    }
    const fourth = await limiter.acquire(who, 't');
    const expected = memory.acquire(who, 't') as LimitRefusal;
    expect(refused(fourth) && fourth.message).toBe(expected.message);
    // Twenty seconds for the next token, less the few ms the test took.
    expect(refused(fourth) && fourth.retryAfterMs).toBeGreaterThan(19_000);
    expect(refused(fourth) && fourth.retryAfterMs).toBeLessThanOrEqual(20_000);
    const checked = await limiter.check(who, 't');
    expect(checked?.message).toBe(expected.message);
    expect(checked?.storeUnavailable).toBeUndefined();
    // The bucket expires once it would be full again: an idle client leaves nothing behind.
    const ttl = await state.redis.pttl(`dsh:limit:${who}:tokens`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('calls at once are shared: a slot taken on one replica is refused on the other until released', async () => {
    const [a, b] = [await open(), await open()];
    const who = client();
    const config = { tools: { 'mcp__*': { concurrent: 2 } } };
    const [one, two] = [a, b].map((s) => createLimiter(config, new Map(), s));
    const first = await one?.acquire(who, 'mcp__docs__read');
    const second = await two?.acquire(who, 'mcp__docs__write');
    expect(refused(first) || refused(second)).toBe(false);
    const third = await two?.acquire(who, 'mcp__docs__read');
    expect(refused(third) && third.retryAfterMs).toBe(1000);
    expect(refused(third) && third.message).toBe(
      `The gateway's limit of 2 calls at once for client "${who}" on tools "mcp__*" is reached; retry when one of them has finished.`,
    );
    // Tools the pattern does not cover are not held up.
    expect(refused(await two?.acquire(who, 'list_dir'))).toBe(false);
    (first as LimitSlot).release();
    await expect.poll(async () => refused(await two?.check(who, 'mcp__docs__read'))).toBe(false);
    expect(refused(await two?.acquire(who, 'mcp__docs__read'))).toBe(false);
  });

  it('a slot of a replica that died mid-call is freed when its lease lapses; a live call keeps renewing it', async () => {
    const survivor = await open();
    const dying = await openRedisState({ redis: server.url, deadlineMs: 500 });
    const who = client();
    const config = { concurrent: 1 };
    const leaseMs = 1000;
    const alive = new StoreLimiter(config, new Map(), survivor, { leaseMs });
    const doomed = new StoreLimiter(config, new Map(), dying, { leaseMs });
    const held = await doomed.acquire(who, 't');
    expect(refused(held)).toBe(false);
    // Two and a half leases long (renewed every third of one), the running call's renewals keep its slot.
    await new Promise((r) => setTimeout(r, 2.5 * leaseMs));
    expect(refused(await alive.acquire(who, 't'))).toBe(true);
    // The replica is gone (its connection with it): nothing releases the slot…
    await dying.close();
    expect(refused(await alive.acquire(who, 't'))).toBe(true);
    // …until its lease lapses.
    await expect
      .poll(async () => refused(await alive.check(who, 't')), { timeout: 10_000 })
      .toBe(false);
    const after = await alive.acquire(who, 't');
    expect(refused(after)).toBe(false);
    (after as LimitSlot).release();
    (held as LimitSlot).release();
  });

  it('refund gives back a call that asked to be sent again, never past a full bucket', async () => {
    const state = await open();
    const who = client();
    const limiter = createLimiter({ callsPerMinute: 1 }, new Map(), state);
    const until = async () => {
      // The refund is sent without waiting: wait for the store to have it.
      await expect.poll(async () => refused(await limiter.check(who, 't'))).toBe(false);
    };
    expect(refused(await limiter.acquire(who, 't'))).toBe(false);
    expect(refused(await limiter.acquire(who, 't'))).toBe(true);
    limiter.refund(who, 't');
    await until();
    expect(refused(await limiter.acquire(who, 't'))).toBe(false);
    expect(refused(await limiter.acquire(who, 't'))).toBe(true);
    limiter.refund(who, 't');
    limiter.refund(who, 't');
    await until();
    expect(refused(await limiter.acquire(who, 't'))).toBe(false);
    expect(refused(await limiter.acquire(who, 't'))).toBe(true);
  });

  it('two gateways on one Redis with different prefixes do not share a budget', async () => {
    const [a, b] = [await open('team-a:'), await open('team-b:')];
    const who = client();
    const [one, two] = [a, b].map((s) => createLimiter({ callsPerMinute: 1 }, new Map(), s));
    expect(refused(await one?.acquire(who, 't'))).toBe(false);
    expect(refused(await one?.acquire(who, 't'))).toBe(true);
    expect(refused(await two?.acquire(who, 't'))).toBe(false);
    expect(await a.redis.keys(`team-a:limit:${who}*`)).toEqual([`team-a:limit:${who}:tokens`]);
  });
});

describe.runIf(hasRedisServer())('limits when the state store is gone', () => {
  let server: RedisServer;
  let state: RedisState;
  beforeAll(async () => {
    server = await startRedis();
    state = await openRedisState({ redis: server.url, deadlineMs: 400 });
  });
  afterAll(async () => {
    await state?.close();
    await server?.stop();
  });

  it('a store too slow to answer refuses the call at the deadline, while the store is still stalled', async () => {
    const limiter = createLimiter({ callsPerMinute: 100 }, new Map(), state);
    const admin = await openRedisState({ redis: server.url });
    try {
      const pauseMs = 3000;
      await admin.redis.call('CLIENT', 'PAUSE', String(pauseMs), 'ALL');
      const started = performance.now();
      const slow = await limiter.acquire('alice', 'echo');
      expect(refused(slow) && slow.storeUnavailable).toBe(true);
      // Bounded by the 400 ms deadline: answered before the stall is over.
      expect(performance.now() - started).toBeLessThan(pauseMs);
      await expect
        .poll(async () => refused(await limiter.acquire('alice', 'echo')), { timeout: 10_000 })
        .toBe(false);
    } finally {
      await admin.close();
    }
  });

  it('refuses every call as retryable, naming the store (never lets one through uncounted), and counts again once it is back', async () => {
    const limiter = createLimiter({ callsPerMinute: 100, concurrent: 5 }, new Map(), state);
    const registry = createToolRegistry();
    let ran = 0;
    registry.register({
      name: 'echo',
      description: 'Says it ran.',
      parameters: { type: 'object', properties: {} },
      execute: async () => {
        ran++;
        return [{ type: 'text', text: 'ran' }];
      },
    });
    registry.use(
      limiter.interceptor(() => 'alice'),
      { name: 'limits' },
    );
    expect((await registry.execute({ callId: '1', name: 'echo', arguments: {} })).isError).toBe(
      false,
    );
    await server.kill();
    const down = await limiter.acquire('alice', 'echo');
    expect(refused(down) && down.storeUnavailable).toBe(true);
    expect(refused(down) && down.message).toContain(
      "The gateway's limits could not be counted in its state store",
    );
    // Said to a client: never the store's (internal) address.
    expect(refused(down) && down.message).not.toContain(state.where);
    expect(refused(down) && down.message).toContain('refused rather than run uncounted');
    expect(refused(down) && down.retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect((await limiter.check('alice', 'echo'))?.storeUnavailable).toBe(true);
    const call = await registry.execute({ callId: '2', name: 'echo', arguments: {} });
    expect(call.error?.code).toBe('UNAVAILABLE');
    expect(call.error?.details).toEqual({ retryAfterMs: expect.any(Number) });
    expect(ran).toBe(1);
    // A refund the store cannot take is dropped, never a rejection.
    expect(() => limiter.refund('alice', 'echo')).not.toThrow();
    await server.restart();
    await expect
      .poll(
        async () => (await registry.execute({ callId: '3', name: 'echo', arguments: {} })).isError,
        {
          timeout: 10_000,
        },
      )
      .toBe(false);
    expect(ran).toBe(2);
  });
});
