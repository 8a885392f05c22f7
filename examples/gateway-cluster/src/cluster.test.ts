import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a plain ES module without types (the example is run with node, not built)
import { missingPrograms, startCluster } from '../cluster.mjs';

// Real processes: Redis, three replicas of the built CLI, HAProxy. On a loaded two-core machine
// their start takes far longer than a unit test may.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

interface Part {
  readonly name: string;
  readonly port: number;
  readonly running: boolean;
  readonly log: string;
  start(): Promise<void>;
  kill(signal?: string): Promise<void>;
}
interface Cluster {
  readonly url: string;
  readonly token: string;
  readonly redis: Part & { readonly url: string };
  readonly replicas: readonly Part[];
  stop(): Promise<void>;
}

/** One HTTP request of a client: what it was, and which replica HAProxy sent it to. */
interface Hop {
  readonly kind: string;
  replica?: string;
  status?: number;
}

function kindOf(body: unknown): string {
  if (typeof body !== 'string') return 'GET/DELETE';
  try {
    const message = JSON.parse(body) as { method?: string; result?: unknown; error?: unknown };
    if (message.method) return message.method;
    return 'result' in message || 'error' in message ? 'answer' : '?';
  } catch {
    return '?';
  }
}

/** A fetch that records each request and the replica that answered it (HAProxy's X-Replica). */
function recording(hops: Hop[]): typeof fetch {
  return async (input, init) => {
    const hop: Hop = { kind: kindOf(init?.body) };
    hops.push(hop);
    const response = await fetch(input, init);
    hop.replica = response.headers.get('x-replica') ?? undefined;
    hop.status = response.status;
    return response;
  };
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');
}

type Reply = { action: 'accept' | 'decline'; content?: { allow: boolean } };

describe.runIf(missingPrograms().length === 0 || process.env.CI === 'true')(
  'examples/gateway-cluster: three replicas on Redis behind HAProxy',
  () => {
    let cluster: Cluster;
    const clients: Client[] = [];

    async function connect(hops: Hop[], reply: () => Reply | Promise<Reply>): Promise<Client> {
      const client = new Client(
        { name: 'cluster-test', version: '1.0.0' },
        { capabilities: { elicitation: {} } },
      );
      client.setRequestHandler('elicitation/create', async () => reply());
      clients.push(client);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(cluster.url), {
          requestInit: { headers: { authorization: `Bearer ${cluster.token}` } },
          fetch: recording(hops),
        }),
      );
      return client;
    }

    beforeAll(async () => {
      cluster = (await startCluster()) as Cluster;
    });
    afterEach(async () => {
      await Promise.allSettled(clients.splice(0).map((c) => c.close()));
    });
    afterAll(async () => {
      await cluster?.stop();
    });

    it('one command starts Redis, three replicas and HAProxy, all listening', () => {
      expect(cluster.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(cluster.replicas).toHaveLength(3);
      for (const part of [cluster.redis, ...cluster.replicas]) expect(part.running).toBe(true);
    });

    it("a session's requests go round the replicas, and every one of them serves it", async () => {
      const hops: Hop[] = [];
      const client = await connect(hops, () => ({ action: 'decline' }));
      for (let i = 0; i < 6; i++) {
        const read = await client.callTool({
          name: 'read_file',
          arguments: { path: 'dsh-tools.json' },
        });
        expect(read.isError).toBe(false);
        expect(textOf(read)).toContain('"state"');
      }
      const served = new Set(hops.filter((h) => h.kind === 'tools/call').map((h) => h.replica));
      expect(served).toEqual(new Set(['r1', 'r2', 'r3']));
      // (The standing GET stream may still be waiting for its headers: it has no status yet.)
      expect(hops.filter((h) => h.status !== undefined && h.status >= 400)).toEqual([]);
      expect(hops.filter((h) => h.kind !== 'GET/DELETE' && h.status === undefined)).toEqual([]);
    });

    it('a question asked by one replica is answered through another, and decides the call', async () => {
      const hops: Hop[] = [];
      let reply: Reply = { action: 'accept', content: { allow: true } };
      const client = await connect(hops, () => reply);
      for (const allow of [true, false, true]) {
        reply = allow ? { action: 'accept', content: { allow: true } } : { action: 'decline' };
        const before = hops.length;
        const listed = await client.callTool({ name: 'list_dir', arguments: {} });
        expect(listed.isError).toBe(!allow);
        expect(textOf(listed)).toContain(allow ? 'cluster.mjs' : 'declined');
        const mine = hops.slice(before);
        const call = mine.find((h) => h.kind === 'tools/call');
        const answer = mine.find((h) => h.kind === 'answer');
        // The answer's POST may get its 202 after the call's result came back on the stream: its
        // hop learns the replica when that response arrives, so wait for it (bounded).
        await vi.waitFor(() => expect(answer?.replica).toMatch(/^r\d$/), { timeout: 5000 });
        expect(call?.replica).toMatch(/^r\d$/);
        expect(answer?.replica).not.toBe(call?.replica);
      }
    });

    it('a replica SIGKILLed mid-call: that call fails, the session and every other call carry on', async () => {
      const hops: Hop[] = [];
      let asked: (() => void) | undefined;
      const question = new Promise<void>((resolve) => {
        asked = resolve;
      });
      let hold: ((reply: Reply) => void) | undefined;
      const client = await connect(hops, () => {
        asked?.();
        return new Promise<Reply>((resolve) => {
          hold = resolve;
        });
      });
      const pending = client
        .callTool({ name: 'list_dir', arguments: {} })
        .then((r) => ({ ok: !r.isError, text: textOf(r) }))
        .catch((error: unknown) => ({ ok: false, text: String(error) }));
      await question;
      const asking = hops.find((h) => h.kind === 'tools/call')?.replica as string;
      const victim = cluster.replicas[Number(asking.slice(1)) - 1] as Part;
      await victim.kill('SIGKILL');
      // The answer comes too late: the replica that asked is gone, and its call with it.
      hold?.({ action: 'accept', content: { allow: true } });
      const outcome = await pending;
      expect(outcome.ok).toBe(false);
      // Said by a survivor, where the client resumed the broken stream: not a timeout.
      expect(outcome.text).toContain('The tool call did not finish');
      expect(outcome.text).toContain('Call the tool again');
      // The survivors serve the same session, without a new initialize.
      for (let i = 0; i < 4; i++) {
        const read = await client.callTool({
          name: 'read_file',
          arguments: { path: 'dsh-tools.json' },
        });
        expect(read.isError).toBe(false);
      }
      const after = hops.filter((h) => h.kind === 'initialize');
      expect(after).toHaveLength(1);
      await victim.start();
    });

    it('Redis restarted mid-run: calls go on, and sessions outlive it', async () => {
      const hops: Hop[] = [];
      const client = await connect(hops, () => ({ action: 'accept', content: { allow: true } }));
      await client.callTool({ name: 'read_file', arguments: { path: 'dsh-tools.json' } });
      await cluster.redis.kill('SIGKILL');
      await cluster.redis.start();
      // The replicas reconnect by themselves (at most a second apart).
      await expect
        .poll(
          async () => {
            const results = await Promise.all(
              [0, 1, 2].map(() =>
                client
                  .callTool({ name: 'list_dir', arguments: {} })
                  .then((r) => !r.isError)
                  .catch(() => false),
              ),
            );
            return results.every(Boolean);
          },
          { timeout: 20_000, interval: 500 },
        )
        .toBe(true);
      // A new client's session, opened after the restart, is served by every replica too.
      const fresh: Hop[] = [];
      const second = await connect(fresh, () => ({ action: 'decline' }));
      // Round robin also spends turns on the session's other requests (the initialized
      // notification, the event stream), so calls go on until every replica has answered one,
      // at most twelve: a replica left out of the rotation still fails the test.
      const replicasServing = () =>
        new Set(fresh.filter((h) => h.kind === 'tools/call').map((h) => h.replica)).size;
      for (let i = 0; i < 12 && replicasServing() < 3; i++) {
        expect(
          (await second.callTool({ name: 'read_file', arguments: { path: 'dsh-tools.json' } }))
            .isError,
        ).toBe(false);
      }
      expect(replicasServing()).toBe(3);
      expect(hops.filter((h) => h.kind === 'initialize')).toHaveLength(1);
    });
  },
);
