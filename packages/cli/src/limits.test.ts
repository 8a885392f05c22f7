import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { messagesOf, RawSession, resultText } from '../test/raw-mcp-http';
import { type HttpGateway, serveSharedGatewayHttp, tokenSha256 } from './http';
import { Limiter, type LimitRefusal } from './limits';

/** A clock the test moves. */
function clock() {
  let t = 0;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const refused = (x: unknown): x is LimitRefusal =>
  typeof x === 'object' && x !== null && 'message' in x;

describe('Limiter', () => {
  it('calls a minute: a burst up to the limit, then one more each 60/limit seconds, saying when', () => {
    const c = clock();
    const limiter = new Limiter({ callsPerMinute: 3 }, new Map(), c.now);
    for (let i = 0; i < 3; i++) expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    const fourth = limiter.acquire('alice', 't');
    expect(refused(fourth) && fourth.retryAfterMs).toBe(20_000);
    expect(refused(fourth) && fourth.message).toBe(
      'The gateway\'s limit of 3 calls a minute for client "alice" is reached; retry in 20 s.',
    );
    // Each client has its own bucket.
    expect(refused(limiter.acquire('bob', 't'))).toBe(false);
    c.advance(19_999);
    expect(refused(limiter.acquire('alice', 't'))).toBe(true);
    c.advance(1);
    expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    expect(refused(limiter.acquire('alice', 't'))).toBe(true);
  });

  it('never lets more than the limit through in any minute (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 }),
        (perMinute, gaps) => {
          const c = clock();
          const limiter = new Limiter({ callsPerMinute: perMinute }, new Map(), c.now);
          const admitted: number[] = [];
          for (const gap of gaps) {
            c.advance(gap);
            if (!refused(limiter.acquire('x', 't'))) admitted.push(c.now());
          }
          // Over any window of 60 s, at most the burst plus what refilled in it.
          for (let i = 0; i < admitted.length; i++) {
            const start = admitted[i] as number;
            const inWindow = admitted.filter((t) => t >= start && t < start + 60_000).length;
            expect(inWindow).toBeLessThanOrEqual(2 * perMinute);
          }
          // And over the whole run, no more than the burst plus the refill.
          const span = c.now();
          expect(admitted.length).toBeLessThanOrEqual(
            perMinute + Math.floor((span * perMinute) / 60_000),
          );
        },
      ),
      { seed: 24_002, numRuns: 200 },
    );
  });

  it('calls at once: a slot is held until the call ends; release is idempotent', () => {
    const limiter = new Limiter({ concurrent: 2 });
    const a = limiter.acquire('alice', 't');
    const b = limiter.acquire('alice', 't');
    const c = limiter.acquire('alice', 't');
    expect(refused(c) && c.message).toContain('limit of 2 calls at once for client "alice"');
    if (refused(a) || refused(b)) throw new Error('expected slots');
    a.release();
    a.release();
    expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    expect(refused(limiter.acquire('alice', 't'))).toBe(true);
  });

  it('per tool patterns, and a client’s own limits over the defaults', () => {
    const limiter = new Limiter(
      { callsPerMinute: 100, tools: { 'mcp__github__*': { callsPerMinute: 1 } } },
      new Map([['ci', { callsPerMinute: 1 }]]),
    );
    expect(refused(limiter.acquire('alice', 'mcp__github__create_issue'))).toBe(false);
    const second = limiter.acquire('alice', 'mcp__github__list');
    expect(refused(second) && second.message).toContain('on tools "mcp__github__*"');
    expect(refused(limiter.acquire('alice', 'read_file'))).toBe(false);
    expect(refused(limiter.acquire('ci', 'read_file'))).toBe(false);
    expect(refused(limiter.acquire('ci', 'read_file'))).toBe(true);
    // A call refused by one rule counts against none.
    expect(refused(limiter.acquire('bob', 'mcp__github__a'))).toBe(false);
    expect(refused(limiter.acquire('bob', 'mcp__github__a'))).toBe(true);
    for (let i = 0; i < 99; i++) expect(refused(limiter.acquire('bob', 'read_file'))).toBe(false);
  });

  it('of several limits reached, says the longest wait; a client’s own limits replace the defaults whole', () => {
    const c = clock();
    const limiter = new Limiter(
      { callsPerMinute: 120, concurrent: 1, tools: { t: { callsPerMinute: 1 } } },
      new Map([['ci', { callsPerMinute: 600 }]]),
      c.now,
    );
    const first = limiter.acquire('alice', 't');
    if ('message' in first) throw new Error('expected a slot');
    first.release();
    c.advance(100);
    // The client's bucket refills in 0.5 s, the tool's in 60 s: the answer is the tool's.
    for (let i = 0; i < 119; i++) limiter.acquire('alice', 'other');
    const refusal = limiter.check('alice', 't');
    expect(refusal?.retryAfterMs).toBeGreaterThan(59_000);
    expect(refusal?.message).toContain('on tools "t"');
    // ci's own limits: no concurrency limit, no tool limit from the defaults.
    const slots = [
      limiter.acquire('ci', 't'),
      limiter.acquire('ci', 't'),
      limiter.acquire('ci', 't'),
    ];
    expect(slots.every((slot) => !refused(slot))).toBe(true);
  });

  it('refund gives back a call that asked to be sent again, so it and its retry count once', () => {
    const limiter = new Limiter({ callsPerMinute: 1 });
    expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    limiter.refund('alice', 't');
    expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    expect(refused(limiter.acquire('alice', 't'))).toBe(true);
    // Never past a full bucket.
    limiter.refund('alice', 't');
    limiter.refund('alice', 't');
    expect(refused(limiter.acquire('alice', 't'))).toBe(false);
    expect(refused(limiter.acquire('alice', 't'))).toBe(true);
  });

  it('as an interceptor: refuses with UNAVAILABLE and retryAfterMs, frees the slot when the call ends', async () => {
    const registry = createToolRegistry();
    let release: () => void = () => {};
    registry.register({
      name: 'slow',
      description: 'Waits for the test.',
      parameters: { type: 'object', properties: {} },
      execute: () =>
        new Promise((resolve) => {
          release = () => resolve([{ type: 'text', text: 'done' }]);
        }),
    });
    const limiter = new Limiter({ concurrent: 1 });
    registry.use(
      limiter.interceptor(() => 'alice'),
      { name: 'limits' },
    );
    const first = registry.execute({ callId: 'a', name: 'slow', arguments: {} });
    await new Promise((r) => setImmediate(r));
    const second = await registry.execute({ callId: 'b', name: 'slow', arguments: {} });
    expect(second.isError).toBe(true);
    expect(second.error?.code).toBe('UNAVAILABLE');
    expect(second.error?.details).toEqual({ retryAfterMs: 1000 });
    release();
    expect((await first).isError).toBe(false);
    const third = registry.execute({ callId: 'c', name: 'slow', arguments: {} });
    await new Promise((r) => setImmediate(r));
    release();
    expect((await third).isError).toBe(false);
  });
});

describe('serve --http: a call over its client’s limit', () => {
  const ALICE = 'alice-limit-token-0123456789';
  const BOB = 'bob-limit-token-0123456789ab';
  let http: HttpGateway;
  const gateway = bareGateway({ echo: true });
  beforeAll(async () => {
    const limiter = new Limiter(undefined, new Map([['alice', { callsPerMinute: 2 }]]));
    gateway.registry.use(
      limiter.interceptor((exec) =>
        typeof exec.identity === 'string' ? exec.identity : undefined,
      ),
      { name: 'limits', priority: 999_999 },
    );
    Object.assign(gateway, { limits: limiter });
    http = await serveSharedGatewayHttp(gateway, {
      port: 0,
      clients: [
        { name: 'alice', tokenSha256: tokenSha256(ALICE) },
        { name: 'bob', tokenSha256: tokenSha256(BOB) },
      ],
    });
  });
  afterAll(() => http.close());

  it('gets 429 with Retry-After and a JSON-RPC error for its request; another client is not held up', async () => {
    const alice = await new RawSession(http.url, ALICE).open();
    for (let i = 0; i < 2; i++) {
      expect(resultText(await (await alice.call('echo', { text: `#${i}` })).result())).toBe(
        `#${i}`,
      );
    }
    const over = await alice.post({
      jsonrpc: '2.0',
      id: 42,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' } },
    });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
    const body = (await over.json()) as { id: unknown; error: { message: string } };
    expect(body.id).toBe(42);
    expect(body.error.message).toContain('limit of 2 calls a minute for client "alice"');
    // Other requests of the session go on, and so do other clients' calls.
    const list = await alice.post({ jsonrpc: '2.0', id: 43, method: 'tools/list' });
    for await (const m of messagesOf(list)) expect(m.result?.tools).toBeDefined();
    const bob = await new RawSession(http.url, BOB).open();
    expect(resultText(await (await bob.call('echo', { text: 'bob' })).result())).toBe('bob');
  });
});

describe('buildGateway with a limits section', () => {
  it('installs the limits outside every policy: a call over the limit is refused, per client', async () => {
    const { buildGateway } = await import('./gateway');
    const { loadedIn, tempDir } = await import('../test/helpers');
    const dir = tempDir();
    const gateway = await buildGateway(
      loadedIn(dir, {
        mcpServers: {},
        exampleTools: true,
        limits: { callsPerMinute: 1 },
        clients: [{ name: 'ci', tokenSha256: 'a'.repeat(64), limits: { callsPerMinute: 2 } }],
      }),
    );
    try {
      expect(gateway.limits).toBeDefined();
      const call = (callId: string, identity?: string) =>
        gateway.registry.execute({
          callId,
          name: 'list_dir',
          arguments: { path: '.' },
          ...(identity ? { identity } : {}),
        } as never);
      expect((await call('1')).isError).toBe(false);
      const over = await call('2');
      expect(over.error?.code).toBe('UNAVAILABLE');
      expect(over.error?.message).toContain('client "local"');
      expect((await call('3', 'ci')).isError).toBe(false);
      expect((await call('4', 'ci')).isError).toBe(false);
      expect((await call('5', 'ci')).error?.code).toBe('UNAVAILABLE');
    } finally {
      await gateway.close();
    }
  });
});
