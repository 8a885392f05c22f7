import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { openRedisState } from './state-redis';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

describe.runIf(hasRedisServer())('attack review: the shared state connection', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('a subscribe that failed while Redis was gone, asked again once it is back, hears its channel', async () => {
    const state = await openRedisState({ redis: redis.url, prefix: 'r:', deadlineMs: 500 });
    try {
      await state.subscribe('r:x', () => {}); // the subscriber connection exists
      await redis.kill();
      const failed = await state
        .subscribe('r:y', () => {})
        .then(
          () => 'ok',
          (e: unknown) => String(e),
        );
      expect(failed).toContain('StateUnavailableError');
      await redis.restart();
      await new Promise((r) => setTimeout(r, 1500)); // both connections are back
      const heard: string[] = [];
      await state.subscribe('r:y', (m) => heard.push(m)); // resolves: "subscribed"
      await expect
        .poll(
          async () => {
            await state.redis.publish('r:y', 'hello');
            return heard.length;
          },
          { timeout: 3000 },
        )
        .toBeGreaterThan(0); // observed: 0, Redis was never asked to subscribe
    } finally {
      await state.close();
    }
  });

  it('a first subscribe that failed (Redis gone) does not poison every later one', async () => {
    const state = await openRedisState({ redis: redis.url, prefix: 'r:', deadlineMs: 500 });
    try {
      await redis.kill();
      const failed = await state
        .subscribe('r:z', () => {})
        .then(
          () => 'ok',
          (e: unknown) => String(e),
        );
      expect(failed).not.toBe('ok');
      await redis.restart();
      await new Promise((r) => setTimeout(r, 1500));
      const later = await state
        .subscribe('r:w', () => {})
        .then(
          () => 'ok',
          (e: unknown) => String(e),
        );
      expect(later).toBe('ok'); // observed: the first failure again, for good
    } finally {
      await state.close();
    }
  });
});
