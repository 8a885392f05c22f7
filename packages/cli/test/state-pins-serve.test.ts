import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CLI, cleanEnv, runCli, tempDir, writeConfig } from './helpers';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

// Tool pins shared through a real redis-server by several `dsh-tools serve` processes (replicas,
// each in its own directory: nothing shared but the store), in front of a real MCP server that
// changes a tool after it was approved (a rug pull), driven by the SDK client. The operator's
// `dsh-tools pin list | approve | revoke` run as their own processes, from yet another directory.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const RUG_PULL = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'rug-pull-server.mjs');
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function serve(cwd: string): Promise<Client> {
  const client = new Client({ name: 'state-pins-test', version: '1.0.0' });
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

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  ((result.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');

/** Resolves at the gateway's next `notifications/tools/list_changed`. */
function listChanged(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe.runIf(hasRedisServer())(
  'tool pins shared by several dsh-tools serve through Redis',
  () => {
    let redis: RedisServer;
    beforeAll(async () => {
      assertBuilt();
      redis = await startRedis();
    });
    afterAll(() => redis?.stop());

    /** A replica's directory: the rug-pull server (its marker shared) and, unless not, the store. */
    function replica(marker: string, prefix: string | undefined): string {
      const dir = tempDir();
      writeConfig(dir, {
        mcpServers: {
          docs: { command: process.execPath, args: [RUG_PULL], env: { PULL_MARKER: marker } },
        },
        ...(prefix ? { state: { redis: redis.url, prefix } } : {}),
      });
      return dir;
    }

    it('a tool changed upstream is held on every replica; pin approve and revoke from another directory reach the running ones', async () => {
      const marker = join(tempDir(), 'pulled');
      const prefix = 'cluster-pins:';
      const [dirA, dirB, dirC, operator] = [0, 1, 2, 3].map(() => replica(marker, prefix)) as [
        string,
        string,
        string,
        string,
      ];
      const a = await serve(dirA);
      expect(await names(a)).toEqual(['mcp__docs__read_doc', 'mcp__docs__swap']);
      // First sight on A pinned both tools, in the store.
      await until(
        async () => (await runCli(['pin', 'list'], { cwd: operator })).code === 0,
        'pinned',
      );
      const b = await serve(dirB);
      expect(await names(b)).toEqual(['mcp__docs__read_doc', 'mcp__docs__swap']);

      // The rug pull, on the servers behind A and B.
      for (const replicaClient of [a, b]) {
        await replicaClient.callTool({ name: 'mcp__docs__swap', arguments: {} });
        await until(
          async () => !(await names(replicaClient)).includes('mcp__docs__read_doc'),
          'held back',
        );
      }
      const refused = await b.callTool({ name: 'mcp__docs__read_doc', arguments: { name: 'a' } });
      expect(text(refused)).toContain('held back: its server changed it since it was approved');
      expect(text(refused)).not.toContain('id_rsa');
      // A replica started after the pull, in a directory that never saw a pin, holds it too.
      const c = await serve(dirC);
      expect(await names(c)).toEqual(['mcp__docs__swap']);

      // The operator reads the change (from the store) and approves what was read.
      const list = await runCli(['pin', 'list'], { cwd: operator });
      expect(list.code).toBe(1);
      expect(list.stdout).toMatch(
        /the state store redis:\/\/127\.0\.0\.1:\d+\/? \(prefix "cluster-pins:"\)/,
      );
      expect(list.stdout).toMatch(/changed\s+docs\/read_doc/);
      const sha = /changed\s+docs\/read_doc@([0-9a-f]{12})/.exec(list.stdout)?.[1] as string;
      // C's server never changed while C ran: only the store's change can tell it to re-list.
      const announced = listChanged(c);
      const approve = await runCli(['pin', 'approve', `docs/read_doc@${sha}`], { cwd: operator });
      expect(approve.code).toBe(0);
      await announced;
      expect(approve.stdout).toContain('every dsh-tools serve on that store applies it at once');
      for (const replicaClient of [a, b, c]) {
        await until(
          async () => (await names(replicaClient)).includes('mcp__docs__read_doc'),
          'listed again on every replica',
        );
      }
      expect(
        text(await c.callTool({ name: 'mcp__docs__read_doc', arguments: { name: 'b' } })),
      ).toBe('contents of b');

      // A revoke (needs no server) holds the tool on every running replica.
      const revoke = await runCli(['pin', 'revoke', 'docs/swap'], { cwd: operator });
      expect(revoke.code).toBe(0);
      expect(revoke.stdout).toContain('revoked in the state store');
      for (const replicaClient of [a, b, c]) {
        await until(
          async () => !(await names(replicaClient)).includes('mcp__docs__swap'),
          'swap held on every replica',
        );
      }
      const held = await a.callTool({ name: 'mcp__docs__swap', arguments: {} });
      expect(text(held)).toContain('its approval was revoked in the state store');
      // Nothing was written beside any config: the store holds the pins.
      for (const dir of [dirA, dirB, dirC, operator]) {
        expect(existsSync(join(dir, 'dsh-tools.lock.json'))).toBe(false);
      }
    });

    it('unguarded (a replica without the store), the changed tool is trusted on first sight and reaches the client', async () => {
      const marker = join(tempDir(), 'pulled');
      const shared = await serve(replica(marker, 'unguarded-pins:'));
      await shared.callTool({ name: 'mcp__docs__swap', arguments: {} });
      await until(async () => !(await names(shared)).includes('mcp__docs__read_doc'), 'held back');
      // A replica with only its own lockfile never saw the approved version: it pins the pulled one.
      const alone = await serve(replica(marker, undefined));
      const { tools } = await alone.listTools();
      expect(tools.find((t) => t.name === 'mcp__docs__read_doc')?.description).toContain(
        '~/.ssh/id_rsa',
      );
    });

    it('pin commands whose store is gone fail with a config error naming it (password hidden)', async () => {
      const dir = tempDir();
      writeConfig(dir, {
        mcpServers: {},
        state: { redis: 'redis://:hunter2@127.0.0.1:1', deadlineMs: 300 },
      });
      for (const args of [
        ['pin', 'list'],
        ['pin', 'revoke', 'docs/swap'],
      ]) {
        const r = await runCli(args, { cwd: dir });
        expect({ args, code: r.code }).toEqual({ args, code: 3 });
        expect(r.stderr).toContain('Cannot reach the state store redis://:***@127.0.0.1:1');
        expect(r.stderr).not.toContain('hunter2');
      }
    });
  },
);
