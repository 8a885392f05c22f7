// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax, not templates
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain ES module without types (the example is run with node, not built)
import { cliPath, missingPrograms, startCluster } from '../cluster.mjs';

// Real processes: Redis, an upstream MCP server over HTTP, three replicas of the built CLI and
// HAProxy; and the CLI's own commands run by an operator.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const here = dirname(fileURLToPath(import.meta.url));

interface Cluster {
  readonly url: string;
  readonly token: string;
  readonly redis: { readonly url: string };
  stop(): Promise<void>;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
}

describe.runIf(missingPrograms().length === 0 || process.env.CI === 'true')(
  'examples/gateway-cluster: grants, pins and limits shared by three replicas',
  () => {
    let cluster: Cluster;
    let upstream: ReturnType<typeof spawn> | undefined;
    let rugUrl = '';
    const dir = mkdtempSync(join(tmpdir(), 'dsh-cluster-policies-'));
    const config = join(dir, 'dsh-tools.json');
    writeFileSync(join(dir, 'notes.txt'), 'shared notes');
    const clients: Client[] = [];

    /** Runs the CLI as an operator would, against the cluster's store. */
    const operator = (...args: string[]) =>
      spawnSync(process.execPath, [cliPath(), ...args, '--config', config], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, DSH_TOOLS_REDIS: cluster.redis.url },
        timeout: 60_000,
      });

    async function connect(): Promise<Client> {
      const client = new Client({ name: 'cluster-policies', version: '1.0.0' });
      clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(cluster.url), {
          requestInit: { headers: { authorization: `Bearer ${cluster.token}` } },
        }),
      );
      return client;
    }

    /** Outcomes of `n` calls in a row (round robin: each replica gets its turn). */
    async function inTurn(client: Client, n: number, name: string, args: Record<string, unknown>) {
      const outcomes: string[] = [];
      for (let i = 0; i < n; i++) {
        outcomes.push(
          await client
            .callTool({ name, arguments: args })
            .then((r) => (r.isError ? `refused: ${textOf(r)}` : `ok: ${textOf(r)}`))
            .catch((error: unknown) => `failed: ${String(error)}`),
        );
      }
      return outcomes;
    }

    beforeAll(async () => {
      upstream = spawn(process.execPath, [join(here, 'rug-pull-http.mjs')], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      rugUrl = await new Promise<string>((resolve, reject) => {
        let text = '';
        upstream?.stderr?.on('data', (d) => {
          text += d;
          const match = /on (http:\/\/\S+\/mcp)/.exec(text);
          if (match?.[1]) resolve(match[1]);
        });
        upstream?.once('exit', (code) => reject(new Error(`upstream exited ${code}: ${text}`)));
      });
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: { rug: { type: 'http', url: rugUrl } },
          exampleTools: { writable: false },
          permissions: {
            allow: ['mcp__rug__read_doc', 'mcp__rug__swap', 'read_file'],
            ask: ['list_dir'],
          },
          limits: { tools: { read_file: { callsPerMinute: 5 } } },
          state: { redis: '${DSH_TOOLS_REDIS}' },
        }),
      );
      cluster = (await startCluster({ config })) as Cluster;
    });
    afterAll(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
      await cluster?.stop();
      upstream?.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    });

    it('a grant given through one command is used on every replica, and its last use is spent once however the calls race', async () => {
      const client = await connect();
      // Unguarded: nobody can be asked (the client cannot elicit), so list_dir is refused.
      for (const outcome of await inTurn(client, 3, 'list_dir', {})) {
        expect(outcome).toMatch(/^refused: .*list_dir/);
      }
      // A grant of three uses: three calls in a row, one per replica, all allowed; the fourth not.
      const three = operator('grant', 'add', 'list_dir', '--uses', '3', '--json');
      expect(three.status, three.stderr).toBe(0);
      const used = await inTurn(client, 4, 'list_dir', {});
      expect(used.slice(0, 3).every((o) => o.startsWith('ok: ') && o.includes('notes.txt'))).toBe(
        true,
      );
      expect(used[3]).toMatch(/^refused: /);
      // The last use raced: two calls at once, through two replicas, for one use; five rounds.
      for (let round = 0; round < 5; round++) {
        const one = operator('grant', 'add', 'list_dir', '--uses', '1');
        expect(one.status, one.stderr).toBe(0);
        const racers = await Promise.all([connect(), connect()]);
        const outcomes = await Promise.all(
          racers.map((c) =>
            c
              .callTool({ name: 'list_dir', arguments: {} })
              .then((r) => !r.isError)
              .catch(() => false),
          ),
        );
        expect(outcomes.filter(Boolean)).toHaveLength(1);
      }
    });

    it('a tool its upstream changes is held back on every replica, and released on every one by one approval', async () => {
      const client = await connect();
      for (const outcome of await inTurn(client, 3, 'mcp__rug__read_doc', { name: 'a' })) {
        expect(outcome).toBe('ok: contents of a');
      }
      expect(await inTurn(client, 1, 'mcp__rug__swap', {})).toEqual(['ok: swapped']);
      // Each replica hears the change from the upstream and finds the pin it shares differs.
      await expect
        .poll(
          async () => {
            const outcomes = await inTurn(client, 3, 'mcp__rug__read_doc', { name: 'a' });
            return outcomes.every((o) => o.includes('is held back'));
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBe(true);
      for (let i = 0; i < 3; i++) {
        const listed = await client.listTools();
        expect(listed.tools.map((t) => t.name)).not.toContain('mcp__rug__read_doc');
      }
      const listedPins = operator('pin', 'list');
      expect(listedPins.stdout + listedPins.stderr).toContain('read_doc');
      const approve = operator('pin', 'approve', 'rug/read_doc');
      expect(approve.status, approve.stdout + approve.stderr).toBe(0);
      await expect
        .poll(
          async () => {
            const outcomes = await inTurn(client, 3, 'mcp__rug__read_doc', { name: 'b' });
            return outcomes.every((o) => o === 'ok: contents of b');
          },
          { timeout: 20_000, interval: 300 },
        )
        .toBe(true);
    });

    it('a limit per client holds across the replicas: a sixth call in the minute is refused with Retry-After, wherever it lands', async () => {
      const client = await connect();
      const outcomes = await inTurn(client, 9, 'read_file', { path: 'notes.txt' });
      const ok = outcomes.filter((o) => o.startsWith('ok: ')).length;
      // Five a minute for this client, on whichever replica: a token may refill during the run.
      expect(ok).toBeGreaterThanOrEqual(5);
      expect(ok).toBeLessThanOrEqual(6);
      const refused = outcomes.filter((o) => !o.startsWith('ok: '));
      expect(refused.length).toBeGreaterThanOrEqual(3);
      for (const outcome of refused) expect(outcome).toMatch(/429|calls a minute/);
    });
  },
);
