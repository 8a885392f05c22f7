import type {
  CallToolResult,
  JSONRPCMessage,
  RequestId,
  Server,
  Transport,
} from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { type LeanCallRoute, type LeanOutcome, leanToolCalls } from './serve-lean-calls';

/** A wire that records what is sent, and delivers what the test "receives". */
function fakeWire() {
  const sent: JSONRPCMessage[] = [];
  const wire: Transport = {
    start: async () => {},
    send: async (message) => {
      sent.push(message);
    },
    close: async () => {
      wire.onclose?.();
    },
  };
  return { wire, sent, receive: (message: unknown) => wire.onmessage?.(message as JSONRPCMessage) };
}

const SERVER = {} as Server;
const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: t }],
  isError,
});

interface Call {
  readonly id: RequestId;
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly signal: AbortSignal;
  finish(outcome: CallToolResult | Error): void;
}

/** A route whose calls wait for the test to finish them. */
function fakeRoute(server: Server | undefined) {
  const calls: Call[] = [];
  const handedOver: { id: RequestId; outcome: LeanOutcome }[] = [];
  const route: LeanCallRoute = {
    server: () => server,
    callTool: (_server, id, name, args, signal) =>
      new Promise<CallToolResult>((resolve, reject) => {
        calls.push({
          id,
          name,
          args,
          signal,
          finish: (o) => (o instanceof Error ? reject(o) : resolve(o)),
        });
      }),
    handOver: (_server, id, outcome) => {
      handedOver.push({ id, outcome });
    },
  };
  return { route, calls, handedOver };
}

/** `null`: a connection whose calls may not take the lean path. */
async function setUp(server: Server | null = SERVER) {
  const { wire, sent, receive } = fakeWire();
  const { route, calls, handedOver } = fakeRoute(server ?? undefined);
  const lean = leanToolCalls(wire, route);
  const delivered: unknown[] = [];
  lean.onmessage = (message) => {
    delivered.push(message);
  };
  const onclose = vi.fn();
  lean.onclose = onclose;
  await lean.start();
  return { lean, wire, sent, receive, calls, handedOver, delivered, onclose };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const call = (id: unknown, params: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params,
  ...extra,
});

describe('leanToolCalls', () => {
  it('answers a plain tools/call itself, written as the SDK writes a text result', async () => {
    const t = await setUp();
    t.receive(call(7, { name: 'echo', arguments: { text: 'hi' } }));
    expect(t.calls.map(({ id, name, args }) => ({ id, name, args }))).toEqual([
      { id: 7, name: 'echo', args: { text: 'hi' } },
    ]);
    // Block keys in another order, as a server may send them: written type first, as zod emits.
    t.calls[0]?.finish({
      content: [{ text: 'hi', type: 'text' } as { type: 'text'; text: string }],
      isError: false,
    });
    await settle();
    expect(JSON.stringify(t.sent)).toBe(
      '[{"result":{"content":[{"type":"text","text":"hi"}],"isError":false},"jsonrpc":"2.0","id":7}]',
    );
    expect(t.delivered).toEqual([]);
  });

  it('runs a call without arguments with {}', async () => {
    const t = await setUp();
    t.receive(call('a', { name: 'list' }));
    expect(t.calls[0]?.args).toEqual({});
  });

  it('leaves every message to the SDK until the route names a server', async () => {
    const t = await setUp(null);
    const request = call(1, { name: 'echo', arguments: {} });
    t.receive(request);
    expect(t.calls).toEqual([]);
    expect(t.delivered).toEqual([request]);
  });

  it('leaves a call outside the plain shape to the SDK, untouched', async () => {
    const t = await setUp();
    const unusual = [
      call(1, { name: 'echo', arguments: {}, _meta: { progressToken: 1 } }),
      call(2, { name: 'echo', arguments: {}, task: {} }),
      call(3, { name: 'echo', arguments: [] }),
      call(4, { name: 'echo', arguments: null }),
      call(5, { name: 5, arguments: {} }),
      call(6, { arguments: {} }),
      call(7, null),
      call(8, []),
      call(1.5, { name: 'echo', arguments: {} }),
      call(2 ** 60, { name: 'echo', arguments: {} }),
      call(null, { name: 'echo', arguments: {} }),
      call(9, { name: 'echo', arguments: {} }, { jsonrpc: '1.0' }),
      call(10, { name: 'echo', arguments: {} }, { extra: true }),
      call(11, { name: 'echo', arguments: JSON.parse('{"__proto__":{"x":1}}') }),
      { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: {} } },
      { jsonrpc: '2.0', id: 12, method: 'tools/list' },
      { jsonrpc: '2.0', id: 13, result: {} },
    ];
    for (const message of unusual) t.receive(message);
    expect(t.calls).toEqual([]);
    expect(t.delivered).toEqual(unusual);
  });

  it('hands a result that is not plain text to the SDK, with its request', async () => {
    const t = await setUp();
    const image = call(3, { name: 'card', arguments: {} });
    const structured = call(4, { name: 'add', arguments: {} });
    const annotated = call(5, { name: 'echo', arguments: {} });
    t.receive(image);
    t.receive(structured);
    t.receive(annotated);
    const results: CallToolResult[] = [
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }], isError: false },
      { content: [{ type: 'text', text: 'added' }], structuredContent: { id: 2 }, isError: false },
      {
        content: [{ type: 'text', text: 'x', annotations: { priority: 1 } }],
        isError: false,
      },
    ];
    t.calls.forEach((c, i) => {
      c.finish(results[i] as CallToolResult);
    });
    await settle();
    expect(t.sent).toEqual([]);
    expect(t.handedOver).toEqual(results.map((result, i) => ({ id: 3 + i, outcome: { result } })));
    expect(t.delivered).toEqual([image, structured, annotated]);
  });

  it('hands what the call threw to the SDK, which answers it as it answers a throwing handler', async () => {
    const t = await setUp();
    const request = call(9, { name: 'echo', arguments: {} });
    t.receive(request);
    const error = new Error('boom');
    t.calls[0]?.finish(error);
    await settle();
    expect(t.sent).toEqual([]);
    expect(t.handedOver).toEqual([{ id: 9, outcome: { error } }]);
    expect(t.delivered).toEqual([request]);
  });

  it('aborts a lean call on notifications/cancelled, answers nothing, and passes the notice on', async () => {
    const t = await setUp();
    t.receive(call(1, { name: 'wait', arguments: {} }));
    t.receive(call(2, { name: 'wait', arguments: {} }));
    const cancel = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'stop' },
    };
    t.receive(cancel);
    expect(t.calls[0]?.signal.aborted).toBe(true);
    expect(t.calls[0]?.signal.reason).toBe('stop');
    expect(t.calls[1]?.signal.aborted).toBe(false);
    expect(t.delivered).toEqual([cancel]);
    t.calls[0]?.finish(text('too late'));
    t.calls[1]?.finish(text('done'));
    await settle();
    expect(t.sent.map((m) => (m as { id: RequestId }).id)).toEqual([2]);
  });

  it('ignores a malformed cancellation for the lean calls (the SDK would reject it too)', async () => {
    const t = await setUp();
    t.receive(call(1, { name: 'wait', arguments: {} }));
    t.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } });
    t.receive({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 5 },
    });
    t.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: null });
    expect(t.calls[0]?.signal.aborted).toBe(false);
    expect(t.delivered).toHaveLength(3);
  });

  it('aborts the lean calls when the connection closes', async () => {
    const t = await setUp();
    t.receive(call(1, { name: 'wait', arguments: {} }));
    await t.wire.close();
    expect(t.calls[0]?.signal.aborted).toBe(true);
    expect(t.onclose).toHaveBeenCalledOnce();
    t.calls[0]?.finish(text('after close'));
    await settle();
    expect(t.sent).toEqual([]);
  });

  it('answers many concurrent calls, each under its own id', async () => {
    const t = await setUp();
    for (let i = 0; i < 200; i++) t.receive(call(i, { name: 'echo', arguments: { i } }));
    // Finished in reverse order: each answer still carries its request's id.
    for (const c of [...t.calls].reverse()) c.finish(text(`#${(c.args as { i: number }).i}`));
    await settle();
    expect(t.sent).toHaveLength(200);
    for (const m of t.sent as unknown as { id: number; result: CallToolResult }[]) {
      expect(m.result.content).toEqual([{ type: 'text', text: `#${m.id}` }]);
    }
  });
});

/** A call's own stream, as the HTTP side hands one to `takeCall`. */
function fakeSink() {
  const written: JSONRPCMessage[] = [];
  let ended = 0;
  let open = true;
  return {
    written,
    ended: () => ended,
    close: () => {
      open = false;
    },
    sink: {
      write: (message: JSONRPCMessage) => {
        if (!open) return false;
        written.push(message);
        return true;
      },
      end: () => {
        ended++;
        open = false;
      },
    },
  };
}

describe('leanToolCalls: a call taken with its own stream (HTTP)', () => {
  it('writes the answer to the call’s stream, not the wire, and ends it', async () => {
    const t = await setUp();
    const s = fakeSink();
    expect(t.lean.takeCall(call(3, { name: 'echo', arguments: { a: 1 } }), s.sink)).toBe(true);
    t.calls[0]?.finish(text('done'));
    await settle();
    expect(t.sent).toEqual([]);
    expect(t.delivered).toEqual([]);
    expect(JSON.stringify(s.written)).toBe(
      '[{"result":{"content":[{"type":"text","text":"done"}],"isError":false},"jsonrpc":"2.0","id":3}]',
    );
    expect(s.ended()).toBe(1);
  });

  it('sends what the server says about the call (a question, then the SDK’s answer) on its stream', async () => {
    const t = await setUp();
    const s = fakeSink();
    t.lean.takeCall(call('c', { name: 'echo', arguments: {} }), s.sink);
    // A question the call asks, related to it: on the call's stream. Another request's: the wire.
    const question = { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} } as const;
    await t.lean.send(question as JSONRPCMessage, { relatedRequestId: 'c' });
    await t.lean.send(question as JSONRPCMessage, { relatedRequestId: 'other' });
    expect(s.written).toEqual([question]);
    expect(t.sent).toEqual([question]);
    // A result outside the plain shape is handed to the SDK, whose response lands on the stream.
    t.calls[0]?.finish({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] });
    await settle();
    expect(t.handedOver.map((h) => h.id)).toEqual(['c']);
    expect(t.delivered).toHaveLength(1);
    await t.lean.send({ jsonrpc: '2.0', id: 'c', result: { content: [] } });
    expect(s.written).toHaveLength(2);
    expect(s.ended()).toBe(1);
    expect(t.sent).toEqual([question]);
  });

  it('refuses (does nothing with) what the lean path does not take', async () => {
    const t = await setUp();
    const s = fakeSink();
    expect(t.lean.takeCall({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, s.sink)).toBe(false);
    expect(t.lean.takeCall([call(1, { name: 'echo' })], s.sink)).toBe(false);
    expect(t.lean.takeCall(call(1, { name: 'echo', _meta: {} }), s.sink)).toBe(false);
    expect(t.lean.takeCall('text', s.sink)).toBe(false);
    // The same id twice while the first runs: the second goes to the SDK, which answers it.
    expect(t.lean.takeCall(call(2, { name: 'echo' }), s.sink)).toBe(true);
    expect(t.lean.takeCall(call(2, { name: 'echo' }), fakeSink().sink)).toBe(false);
    t.receive(call(5, { name: 'echo' }));
    expect(t.lean.takeCall(call(5, { name: 'echo' }), fakeSink().sink)).toBe(false);
    expect(t.calls.map((c) => c.id)).toEqual([2, 5]);
    const before = await setUp(null);
    expect(before.lean.takeCall(call(1, { name: 'echo' }), fakeSink().sink)).toBe(false);
    expect(before.calls).toEqual([]);
  });

  it('abandon aborts the call, ends its stream, and its late answer goes nowhere', async () => {
    const t = await setUp();
    const s = fakeSink();
    t.lean.takeCall(call(9, { name: 'wait' }), s.sink);
    t.lean.abandon(9, 'the client left');
    expect(t.calls[0]?.signal.aborted).toBe(true);
    expect(t.calls[0]?.signal.reason).toBe('the client left');
    expect(s.ended()).toBe(1);
    t.calls[0]?.finish(text('late'));
    await settle();
    expect(s.written).toEqual([]);
    expect(t.sent).toEqual([]);
    // Abandoning a call that is not running does nothing.
    t.lean.abandon(9, 'again');
    t.lean.abandon('never', 'x');
    expect(s.ended()).toBe(1);
  });

  it('a notifications/cancelled for the call ends its stream unanswered', async () => {
    const t = await setUp();
    const s = fakeSink();
    t.lean.takeCall(call(4, { name: 'wait' }), s.sink);
    t.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } });
    expect(t.calls[0]?.signal.aborted).toBe(true);
    t.calls[0]?.finish(text('late'));
    await settle();
    expect(s.written).toEqual([]);
    expect(s.ended()).toBe(1);
  });

  it('a question to a stream the client closed fails (the approver then denies), not the wire', async () => {
    const t = await setUp();
    const s = fakeSink();
    t.lean.takeCall(call(6, { name: 'echo' }), s.sink);
    s.close();
    await expect(
      t.lean.send(
        { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} },
        {
          relatedRequestId: 6,
        },
      ),
    ).rejects.toThrow(/closed the stream/);
    expect(t.sent).toEqual([]);
  });

  it('ends every open stream when the connection closes', async () => {
    const t = await setUp();
    const a = fakeSink();
    const b = fakeSink();
    t.lean.takeCall(call(1, { name: 'wait' }), a.sink);
    t.lean.takeCall(call(2, { name: 'wait' }), b.sink);
    await t.wire.close();
    expect([a.ended(), b.ended()]).toEqual([1, 1]);
    expect(t.calls.every((c) => c.signal.aborted)).toBe(true);
  });

  it('remembers the protocol version the connection negotiated', async () => {
    const t = await setUp();
    expect(t.lean.protocolVersion).toBeUndefined();
    t.lean.setProtocolVersion?.('2025-06-18');
    expect(t.lean.protocolVersion).toBe('2025-06-18');
  });
});
