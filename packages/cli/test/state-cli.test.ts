import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, cleanEnv, runCli, startServe, tempDir, writeConfig } from './helpers';
import { RawSession } from './raw-mcp-http';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const TOKEN = 'state-cli-token-0123456789abcdef';

describe('the CLI with a state store it cannot reach', () => {
  it('refuses to start, naming the store without its password (exit 3, not an internal error)', async () => {
    const cwd = tempDir();
    writeConfig(cwd, {
      exampleTools: { writable: false },
      state: { redis: 'redis://admin:hunter2@127.0.0.1:1', deadlineMs: 300 },
    });
    for (const args of [['inspect'], ['call', 'read_file', '{"path":"dsh-tools.json"}']]) {
      const run = await runCli(args, { cwd });
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain('Cannot reach the state store redis://admin:***@127.0.0.1:1');
      expect(run.stderr).not.toContain('hunter2');
      expect(run.stderr).not.toContain('internal error');
    }
  });
});

describe.runIf(hasRedisServer())('serve --http with limits in a store that goes away', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  it('answers a call 503 with Retry-After (the store, not the client’s budget), and 200 again once it is back', async () => {
    const cwd = tempDir();
    writeConfig(cwd, {
      exampleTools: { writable: false },
      limits: { callsPerMinute: 1000 },
      state: { redis: redis.url, deadlineMs: 300 },
    });
    const serve = await startServe([], { cwd, env: cleanEnv({ DSH_TOOLS_TOKEN: TOKEN }) });
    try {
      const session = await new RawSession(serve.url, TOKEN).open();
      const call = () =>
        session.post({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'read_file', arguments: { path: 'dsh-tools.json' } },
        });
      const before = await call();
      expect(before.status).toBe(200);
      expect(await before.text()).toContain('"isError":false');
      await redis.kill();
      const down = await call();
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      const body = (await down.json()) as { id: number; error: { message: string } };
      expect(body.id).toBe(2);
      expect(body.error.message).toMatch(/state store/);
      await redis.restart();
      await expect.poll(async () => (await call()).status, { timeout: 15_000 }).toBe(200);
    } finally {
      await serve.stop();
    }
  });
});
