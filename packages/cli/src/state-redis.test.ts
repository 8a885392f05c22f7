import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedisServer, type RedisServer, startRedis } from '../test/redis-server';
import { connectRedis, inStore, redactedUrl, StateUnavailableError } from './state-redis';

describe.runIf(hasRedisServer())('the state store connection', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(() => server?.stop());

  it('connects to a real redis-server and refuses a store it cannot reach, naming it without its password', async () => {
    const client = await connectRedis({ redis: server.url });
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    const error = await connectRedis({
      redis: 'redis://user:hunter2@127.0.0.1:1',
      deadlineMs: 300,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateUnavailableError);
    expect((error as Error).message).toContain('redis://user:***@127.0.0.1:1');
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('fails a command closed while the server is gone, and works again once it is back', async () => {
    const client = await connectRedis({ redis: server.url, deadlineMs: 500 });
    await client.set('k', 'v');
    await server.kill();
    const error = await inStore('read k', 500, () => client.get('k')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateUnavailableError);
    expect((error as Error).message).toContain('could not read k');
    await server.restart();
    await expect.poll(() => client.get('k').catch(() => 'down'), { timeout: 5000 }).toBe('v');
    client.disconnect();
  });

  it('hides a password in every URL shape', () => {
    expect(redactedUrl('rediss://:s3cret@host:6380/2')).toBe('rediss://:***@host:6380/2');
    expect(redactedUrl('redis://host:6379')).toBe('redis://host:6379');
    expect(redactedUrl('not a url s3cret')).not.toContain('s3cret');
  });
});
