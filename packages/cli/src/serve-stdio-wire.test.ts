import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { bareGateway } from '../test/bare-gateway';
import { buildGateway, type Gateway } from './gateway';
import { createElicitationApprovals, type ElicitationApprovals, serveGatewayStdio } from './serve';

const gateway = bareGateway({ echo: true });

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** The gateway served over a pair of in-memory pipes, spoken to line by line. */
async function serve(over: Gateway = gateway, approvals?: ElicitationApprovals) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served = await serveGatewayStdio(over, {
    streams: { stdin, stdout },
    ...(approvals ? { approvals } : {}),
  });
  stops.push(async () => {
    stdin.end();
    await served.stop();
  });
  const lines: unknown[] = [];
  let buffer = '';
  const waiters: (() => void)[] = [];
  stdout.on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  const send = (value: unknown) =>
    stdin.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  /** The next line written, in order. */
  const next = async (): Promise<unknown> => {
    while (lines.length === 0) await new Promise<void>((r) => waiters.push(r));
    return lines.shift();
  };
  /** Nothing more is written while a request sent after `sent` is answered. */
  const nothingBefore = async (id: number) => {
    send({ jsonrpc: '2.0', id, method: 'tools/list' });
    const line = (await next()) as { id?: unknown };
    expect(line.id).toBe(id);
  };
  const initialize = async (protocolVersion: string, capabilities: object = {}) => {
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '1' } },
    });
    const init = (await next()) as { result: { protocolVersion: string } };
    expect(init.result.protocolVersion).toBe(protocolVersion);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };
  return { send, next, nothingBefore, initialize };
}

const call = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'echo', arguments: { text } },
});
const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const note = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
const textOf = (r: unknown) =>
  ((r as { result: { content: { text: string }[] } }).result.content[0] as { text: string }).text;

describe('serve over stdio: JSON-RPC batches on protocol 2025-03-26', () => {
  it('a batch of requests gets one array with every response', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([call(1, 'one'), list(2), call(3, 'three')]);
    const batch = (await s.next()) as { id: number }[];
    expect(Array.isArray(batch)).toBe(true);
    expect(batch.map((r) => r.id).sort()).toEqual([1, 2, 3]);
    expect(textOf(batch.find((r) => r.id === 1))).toBe('one');
    expect(textOf(batch.find((r) => r.id === 3))).toBe('three');
  });

  it('a batch of notifications gets no answer at all', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([note, note]);
    await s.nothingBefore(9);
  });

  it('a mixed batch gets the responses of its requests only', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([note, call(4, 'four'), note]);
    const batch = (await s.next()) as { id: number }[];
    expect(batch.map((r) => r.id)).toEqual([4]);
    expect(textOf(batch[0])).toBe('four');
  });

  it('an empty batch is one Invalid Request error, not an array', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([]);
    expect(await s.next()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: expect.stringContaining('empty') },
    });
  });

  it('an invalid member is answered with its own error in the array; the others run', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([
      42,
      call(5, 'five'),
      { jsonrpc: '2.0', id: 6 },
      { jsonrpc: '1.0', id: 7, method: 'x' },
    ]);
    const batch = (await s.next()) as { id: unknown; error?: { code: number } }[];
    expect(batch).toHaveLength(4);
    const errors = batch.filter((r) => r.error);
    expect(errors.map((r) => [r.id, r.error?.code])).toEqual([
      [null, -32600],
      [6, -32600],
      [7, -32600],
    ]);
    expect(textOf(batch.find((r) => r.id === 5))).toBe('five');
  });

  it('a batch whose requests share an id with one in flight answers the duplicate with an error', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send([call(8, 'a'), call(8, 'b')]);
    const batch = (await s.next()) as { id: unknown; error?: { message: string } }[];
    expect(batch).toHaveLength(2);
    expect(batch.filter((r) => r.error).map((r) => r.error?.message)).toEqual([
      expect.stringContaining('already used'),
    ]);
  });
});

describe('serve over stdio: any batch on 2025-03-26', () => {
  it('property: one array with one response per request and one error per invalid member, none for notifications', async () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed for the batch property: ${seed} (FC_SEED=${seed} to replay)`);
    const s = await serve();
    await s.initialize('2025-03-26');
    let nextId = 1000;
    const member = fc.oneof(
      fc.constant('call'),
      fc.constant('list'),
      fc.constant('note'),
      fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.constant({ jsonrpc: '2.0' })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(member, { minLength: 1, maxLength: 8 }), async (members) => {
        const requests: number[] = [];
        let invalid = 0;
        const batch = members.map((m) => {
          if (m === 'call' || m === 'list') {
            const id = nextId++;
            requests.push(id);
            return m === 'call' ? call(id, `t${id}`) : list(id);
          }
          if (m === 'note') return note;
          invalid++;
          return m;
        });
        s.send(batch);
        if (requests.length === 0 && invalid === 0) {
          await s.nothingBefore(nextId++);
          return;
        }
        const answer = (await s.next()) as { id: unknown; error?: unknown }[];
        expect(Array.isArray(answer)).toBe(true);
        expect(
          answer
            .filter((r) => r.error === undefined)
            .map((r) => r.id)
            .sort(),
        ).toEqual([...requests].sort());
        expect(answer.filter((r) => r.error !== undefined)).toHaveLength(invalid);
      }),
      { seed, numRuns: 60 },
    );
  });
});

describe('serve over stdio: a batch whose call asks the client', () => {
  it('the question goes out on its own, the answer may come in a batch, and the batch response waits for the call', async () => {
    const approvals = createElicitationApprovals();
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-batch-ask-')));
    const asking = await buildGateway(
      {
        config: { mcpServers: {}, exampleTools: true, permissions: { ask: ['list_dir'] } },
        file: join(dir, 'dsh-tools.json'),
        baseDir: dir,
        warnings: [],
      },
      { approver: approvals.approver },
    );
    stops.push(() => asking.close());
    const s = await serve(asking, approvals);
    await s.initialize('2025-03-26', { elicitation: {} });
    s.send([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_dir', arguments: {} } },
      list(2),
    ]);
    const question = (await s.next()) as { id: number; method: string };
    expect(question.method).toBe('elicitation/create');
    s.send([
      { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { allow: true } } },
    ]);
    const batch = (await s.next()) as { id: number; result: { isError?: boolean } }[];
    expect(batch.map((r) => r.id).sort()).toEqual([1, 2]);
    expect(batch.find((r) => r.id === 1)?.result.isError).toBe(false);
  });
});

describe('serve over stdio: batches refused where the protocol forbids them', () => {
  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`on ${version}: one error naming the version, nothing runs`, async () => {
      const s = await serve();
      await s.initialize(version);
      s.send([call(1, 'never')]);
      const refusal = (await s.next()) as { id: unknown; error: { code: number; message: string } };
      expect(refusal.id).toBeNull();
      expect(refusal.error.code).toBe(-32600);
      expect(refusal.error.message).toContain(`negotiated MCP protocol version ${version}`);
      expect(refusal.error.message).toContain('Send each message on its own line');
      await s.nothingBefore(2);
    });
  }

  it('before initialize: refused, saying initialize comes alone first', async () => {
    const s = await serve();
    s.send([
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    ]);
    const refusal = (await s.next()) as { error: { message: string } };
    expect(refusal.error.message).toContain('send initialize on its own line first');
  });

  it('a line that is not JSON gets a Parse error, and serving goes on', async () => {
    const s = await serve();
    await s.initialize('2025-03-26');
    s.send('{"jsonrpc":');
    expect(await s.next()).toMatchObject({ id: null, error: { code: -32700 } });
    await s.nothingBefore(3);
  });
});
