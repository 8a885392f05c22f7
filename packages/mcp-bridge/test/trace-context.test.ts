import { fileURLToPath } from 'node:url';
import { createToolRegistry } from '@dsh-tools/registry';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer } from '../src/index';

// A real SDK set up as an application sets it up: a provider recording in memory, the async
// context manager and the W3C propagator. The server is a real stdio MCP server (official SDK)
// that answers with the _meta it received.
const SERVER = fileURLToPath(new URL('./meta-echo-server.mjs', import.meta.url));
const exporter = new InMemorySpanExporter();
beforeAll(() => {
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
});
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

describe('trace context to the MCP server', () => {
  it('sends traceparent in params._meta, from a tools/call span under execute_tool', async () => {
    const registry = createToolRegistry();
    const bridge = await connectMcpServer(registry, {
      name: 'echo',
      command: process.execPath,
      args: [SERVER],
    });
    try {
      const result = await registry.execute({
        callId: 'c1',
        name: 'mcp__echo__meta',
        arguments: {},
      });
      expect(result.isError).toBe(false);
      const meta = JSON.parse((result.content[0] as { text: string }).text) as Record<
        string,
        string
      >;
      const spans = exporter.getFinishedSpans();
      const call = spans.find((s) => s.name === 'execute_tool mcp__echo__meta');
      const client = spans.find((s) => s.name === 'tools/call meta');
      expect(call).toBeDefined();
      expect(client?.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'meta',
        'dsh.mcp.server': 'echo',
        'network.transport': 'pipe',
      });
      expect(client?.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
      // traceparent: version-traceid-parentid-flags, the parent being the client span.
      const [version, traceId, parentId, flags] = meta.traceparent?.split('-') ?? [];
      expect(version).toBe('00');
      expect(traceId).toBe(call?.spanContext().traceId);
      expect(parentId).toBe(client?.spanContext().spanId);
      expect(flags).toBe('01');
      // The SDK's own progress token is kept beside it.
      expect(meta.progressToken).toBeDefined();
    } finally {
      await bridge.close();
    }
  });

  it('sends no _meta when nothing traces (no SDK, no propagator)', async () => {
    trace.disable();
    propagation.disable();
    const registry = createToolRegistry();
    const bridge = await connectMcpServer(registry, {
      name: 'echo2',
      command: process.execPath,
      args: [SERVER],
    });
    try {
      const result = await registry.execute({
        callId: 'c2',
        name: 'mcp__echo2__meta',
        arguments: {},
      });
      // Only what the SDK itself sends (the progress token), no trace context.
      const meta = JSON.parse((result.content[0] as { text: string }).text);
      expect(Object.keys(meta ?? {})).toEqual(['progressToken']);
    } finally {
      await bridge.close();
    }
  });
});
