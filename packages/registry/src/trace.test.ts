import { errorResult, textContent } from '@dsh-tools/protocol';
import { context, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry, type ToolRegistryOptions } from './index';

// A real SDK (BasicTracerProvider with an in-memory exporter) and the async-hooks context manager,
// registered globally as an application registers them; the registry sees only the API.
const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  contextManager.enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => {
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const named = (name: string) => spans().filter((s) => s.name === name);
const events = (span: ReadableSpan) =>
  span.events.map((e) => [
    e.attributes?.['dsh.interceptor.name'],
    e.attributes?.['dsh.interceptor.outcome'],
  ]);

function registry(options: ToolRegistryOptions = {}) {
  const r = createToolRegistry(options);
  r.register({
    name: 'read',
    description: 'Reads',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    execute: async ({ path }) => {
      // The body's own span is a child of the call's.
      trace.getTracer('test').startActiveSpan('read body', (span) => span.end());
      if (path === 'boom') throw new Error('disk on fire');
      return [textContent(`contents of ${String(path)}`)];
    },
  });
  return r;
}

describe('execute_tool spans (OpenTelemetry GenAI conventions)', () => {
  it("one span per call, named and attributed, parent of the body's spans, child of the caller's", async () => {
    const r = registry();
    await trace.getTracer('test').startActiveSpan('agent turn', async (turn) => {
      const result = await r.execute({ callId: 'call-1', name: 'read', arguments: { path: 'a' } });
      expect(result.isError).toBe(false);
      turn.end();
    });
    const [call] = named('execute_tool read');
    expect(call?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read',
      'gen_ai.tool.call.id': 'call-1',
      'gen_ai.tool.type': 'function',
    });
    expect(call?.status.code).toBe(SpanStatusCode.UNSET);
    const [body] = named('read body');
    const [turn] = named('agent turn');
    expect(body?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
    expect(call?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId);
    expect(call?.spanContext().traceId).toBe(turn?.spanContext().traceId);
  });

  it('errors carry error.type (the result code) and an error status', async () => {
    const r = registry();
    await r.execute({ callId: 'c1', name: 'read', arguments: { path: 'boom' } });
    await r.execute({ callId: 'c2', name: 'reed', arguments: {} });
    await r.execute({ callId: 'c3', name: 'read', arguments: { path: 3 } });
    expect(spans().map((s) => [s.name, s.attributes['error.type'], s.status.code])).toEqual(
      expect.arrayContaining([
        ['execute_tool read', 'TOOL_ERROR', SpanStatusCode.ERROR],
        ['execute_tool reed', 'UNKNOWN_TOOL', SpanStatusCode.ERROR],
        ['execute_tool read', 'INVALID_ARGS', SpanStatusCode.ERROR],
      ]),
    );
  });

  it('each interceptor leaves an event: passed, rewrote, vetoed, answered, threw', async () => {
    const r = registry();
    r.use((_exec, next) => next(), { name: 'outer', priority: 50 });
    r.use(
      (exec, next) =>
        exec.arguments.path === 'x' ? next({ ...exec, arguments: { path: 'y' } }) : next(),
      { name: 'rewriter', priority: 40 },
    );
    r.use(
      async (exec, next) => {
        if (exec.arguments.path === 'deny') return errorResult(exec.callId, 'DENIED', 'no');
        if (exec.arguments.path === 'throw') throw new Error('policy bug');
        if (exec.arguments.path === 'answer') {
          await next();
          return { callId: exec.callId, content: [textContent('replaced')], isError: false };
        }
        return next();
      },
      { name: 'gate', priority: 30 },
    );
    for (const path of ['a', 'x', 'deny', 'throw', 'answer']) {
      await r.execute({ callId: path, name: 'read', arguments: { path } });
    }
    const byCall = Object.fromEntries(
      named('execute_tool read').map((s) => [s.attributes['gen_ai.tool.call.id'], events(s)]),
    );
    expect(byCall.a).toEqual([
      ['outer', 'passed'],
      ['rewriter', 'passed'],
      ['gate', 'passed'],
    ]);
    expect(byCall.x).toEqual([
      ['outer', 'passed'],
      ['rewriter', 'rewrote'],
      ['gate', 'passed'],
    ]);
    expect(byCall.deny).toEqual([
      ['outer', 'passed'],
      ['rewriter', 'passed'],
      ['gate', 'vetoed'],
    ]);
    expect(byCall.throw).toEqual([
      ['outer', 'passed'],
      ['rewriter', 'passed'],
      ['gate', 'threw'],
    ]);
    // It called next() (passed), then answered with a result of its own instead of the inner one.
    expect(byCall.answer).toEqual([
      ['outer', 'passed'],
      ['rewriter', 'passed'],
      ['gate', 'passed'],
      ['gate', 'answered'],
    ]);
  });

  it('executeAll: a span per call, refused ones included, each its own', async () => {
    const r = registry();
    await r.executeAll([
      { callId: 't1', name: 'read', arguments: { path: 'a' } },
      { callId: 't2', name: 'read', arguments: { path: 'b' } },
      { callId: 't3', name: 'nope', arguments: {} },
    ]);
    const ids = spans()
      .filter((s) => s.name.startsWith('execute_tool'))
      .map((s) => s.attributes['gen_ai.tool.call.id'])
      .sort();
    expect(ids).toEqual(['t1', 't2', 't3']);
    const bodies = named('read body').map((s) => s.parentSpanContext?.spanId);
    const calls = named('execute_tool read').map((s) => s.spanContext().spanId);
    expect(new Set(bodies)).toEqual(new Set(calls));
  });
});

describe('no SDK registered', () => {
  it('records nothing and changes no result', async () => {
    trace.disable();
    try {
      const r = registry();
      r.use((_exec, next) => next(), { name: 'outer' });
      const result = await r.execute({ callId: 'c1', name: 'read', arguments: { path: 'a' } });
      expect(result).toEqual({
        callId: 'c1',
        content: [textContent('contents of a')],
        isError: false,
      });
      expect(trace.getActiveSpan()).toBeUndefined();
      expect(spans()).toEqual([]);
    } finally {
      trace.setGlobalTracerProvider(
        new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      );
    }
  });
});

describe('tracerProvider', () => {
  it('a provider of its own gets the spans, the global one none; false records nothing', async () => {
    const own = new InMemorySpanExporter();
    const mine = registry({
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] }),
    });
    await mine.execute({ callId: 'm1', name: 'read', arguments: { path: 'a' } });
    expect(own.getFinishedSpans().map((s) => s.name)).toEqual(['execute_tool read']);
    expect(named('execute_tool read')).toEqual([]);
    const off = registry({ tracerProvider: false });
    const result = await off.execute({ callId: 'o1', name: 'read', arguments: { path: 'a' } });
    expect(result.isError).toBe(false);
    expect(named('execute_tool read')).toEqual([]);
    // The body's own span has no parent from us.
    expect(named('read body')[1]?.parentSpanContext).toBeUndefined();
  });

  it.each([null, true, 'global', {}, { getTracer: 1 }])(
    'refuses %j, saying what it takes',
    (value) => {
      expect(() => createToolRegistry({ tracerProvider: value as never })).toThrow(
        /"tracerProvider" must be an OpenTelemetry TracerProvider \(an object with getTracer\(\)\) or false/,
      );
    },
  );
});
