import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CLI, cleanEnv, runCli, tempDir, writeConfig } from './helpers';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

// Grants shared through a real redis-server by two `dsh-tools serve` processes (replicas, each in
// its own directory: nothing shared but the store), driven by the SDK client, which does not
// declare elicitation: a call that asks is denied. The operator's `dsh-tools grant` runs as its
// own process, from a third directory.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

describe.runIf(hasRedisServer())('grants shared by several dsh-tools serve through Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    assertBuilt();
    redis = await startRedis();
  });
  afterAll(() => redis?.stop());

  /** A directory with the config every replica and the operator use, on the store under `prefix`. */
  function configDir(prefix: string): string {
    const dir = tempDir();
    mkdirSync(join(dir, 'out'));
    writeConfig(dir, {
      mcpServers: {},
      exampleTools: { writable: true },
      permissions: {},
      state: { redis: redis.url, prefix },
    });
    return dir;
  }

  async function serve(cwd: string): Promise<Client> {
    const client = new Client({ name: 'grant-serve-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve'],
        cwd,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    return client;
  }

  let calls = 0;
  /** A write through `client`: `ran`, or the text of the refusal. */
  const write = async (client: Client): Promise<string> => {
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path: `out/${++calls}.txt`, content: 'x' },
    });
    const text = ((result.content ?? []) as { text?: string }[]).map((b) => b.text).join('\n');
    return result.isError ? text : 'ran';
  };

  it('an operator grant reaches both replicas; its last use, raced, is spent once; a revoke stops both', async () => {
    const prefix = 'serve-grants:';
    const [a, b] = await Promise.all([serve(configDir(prefix)), serve(configDir(prefix))]);
    const operator = join(configDir(prefix), 'dsh-tools.json');
    expect(await write(a)).toMatch(/Permission denied|not asked|elicitation/i);

    for (let round = 0; round < 5; round++) {
      const added = await runCli([
        'grant',
        'add',
        'write_file',
        '--uses',
        '1',
        '--json',
        '-c',
        operator,
      ]);
      expect(added.code).toBe(0);
      const outcomes = await Promise.all([write(a), write(b), write(a), write(b)]);
      const ran = outcomes.filter((o) => o === 'ran').length;
      expect(ran).toBeLessThanOrEqual(1);
      // None ran only when both replicas decided on a list read before the announcement: the
      // use is then still there, and the next call spends it.
      if (ran === 0) await expect.poll(() => write(round % 2 ? a : b)).toBe('ran');
      const left = await runCli(['grant', 'list', '--json', '-c', operator]);
      expect(JSON.parse(left.stdout).grants).toEqual([]);
    }

    const added = await runCli(['grant', 'add', 'write_file', '--json', '-c', operator]);
    const { grant } = JSON.parse(added.stdout);
    // A replica may use the list it read a moment ago until the announcement reaches it.
    await expect.poll(() => write(a), { timeout: 5000 }).toBe('ran');
    await expect.poll(() => write(b), { timeout: 5000 }).toBe('ran');
    const listed = await runCli(['grant', 'list', '--json', '-c', operator]);
    expect(JSON.parse(listed.stdout).grants.map((g: { id: string }) => g.id)).toEqual([grant.id]);
    expect((await runCli(['grant', 'revoke', grant.id, '-c', operator])).code).toBe(0);
    // No waiting: spending the grant asks Redis, which no longer has it.
    expect(await write(a)).not.toBe('ran');
    expect(await write(b)).not.toBe('ran');
  });
});
