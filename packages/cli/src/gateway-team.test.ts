import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { verifyAuditFiles } from './audit-verify';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveSharedGatewayHttp } from './http';
import { type GatewayClient, tokenSha256 } from './http-identities';
import { createElicitationApprovals } from './serve';

// A gateway a team shares, as `serve --http` runs it: two clients with their own tokens, an audit
// trail, a permission policy, the example tools and a real upstream MCP server (stdio, official
// SDK) that answers with the _meta it received; an OpenTelemetry SDK recording in memory.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const ECHO_SERVER = fileURLToPath(
  new URL('../../mcp-bridge/test/meta-echo-server.mjs', import.meta.url),
);
const token = (name: string) => `${name}-token-0123456789abcdef`;
const CLIENTS: GatewayClient[] = [
  { name: 'alice', tokenSha256: tokenSha256(token('alice')) },
  { name: 'bob', tokenSha256: tokenSha256(token('bob')) },
];

const exporter = new InMemorySpanExporter();
const dir = tempDir('dsh-team-');
writeFileSync(join(dir, 'a.txt'), 'a');
writeFileSync(join(dir, '.env'), 'SECRET=1');
const loaded = loadedIn(dir, {
  mcpServers: { echo: { command: process.execPath, args: [ECHO_SERVER] } },
  exampleTools: { writable: false },
  permissions: { allow: ['read_file', 'mcp__echo__meta'], deny: ['Read(./.env)'] },
  audit: { file: 'audit.jsonl', fsync: 'never' },
});

let gateway: Gateway;
let http: HttpGateway;
beforeAll(async () => {
  const manager = new AsyncLocalStorageContextManager();
  manager.enable();
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  const approvals = createElicitationApprovals();
  gateway = await buildGateway(loaded, { approver: approvals.approver });
  http = await serveSharedGatewayHttp(gateway, { port: 0, clients: CLIENTS, approvals });
});
afterAll(async () => {
  await http?.close();
  await gateway?.close();
  trace.disable();
  propagation.disable();
  context.disable();
});

async function connect(name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), {
      requestInit: { headers: { authorization: `Bearer ${token(name)}` } },
    }),
  );
  return client;
}

const call = (client: Client, name: string, args: object, meta?: Record<string, string>) =>
  client.request({
    method: 'tools/call',
    params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
  }) as Promise<{ content: { type: string; text: string }[]; isError?: boolean }>;

describe('a gateway a team shares', () => {
  it('records every call in the audit trail with the client that made it and the deciding rule', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob');
    try {
      expect((await call(alice, 'read_file', { path: 'a.txt' })).isError).toBeFalsy();
      expect((await call(bob, 'read_file', { path: '.env' })).isError).toBe(true);
      expect((await call(bob, 'no_such_tool', {})).isError).toBe(true);
    } finally {
      await alice.close();
      await bob.close();
    }
    const lines = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const byTool = lines
      .filter((l) => l.kind === 'call')
      .map((l) => [l.identity, l.tool, l.status]);
    expect(byTool).toEqual([
      ['alice', 'read_file', 'ok'],
      ['bob', 'read_file', 'error'],
      ['bob', 'no_such_tool', 'error'],
    ]);
    expect(lines[0].decision).toMatchObject({
      layer: 'permission',
      behavior: 'allow',
      rule: 'read_file',
    });
    expect(lines[1].decision).toMatchObject({
      layer: 'permission',
      behavior: 'deny',
      rule: 'Read(./.env)',
      origin: { file: join(dir, 'dsh-tools.json') },
    });
    expect(lines[2].decision).toEqual({ layer: 'registry', behavior: 'deny' });
    expect(await verifyAuditFiles([join(dir, 'audit.jsonl')])).toMatchObject({ ok: true });
  });

  it('continues the client trace: serve span, execute_tool, the bridge call, and the upstream server', async () => {
    exporter.reset();
    const alice = await connect('alice');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const clientSpan = '00f067aa0ba902b7';
    let received: Record<string, string>;
    try {
      const result = await call(
        alice,
        'mcp__echo__meta',
        {},
        {
          traceparent: `00-${traceId}-${clientSpan}-01`,
        },
      );
      received = JSON.parse(result.content[0]?.text ?? 'null');
    } finally {
      await alice.close();
    }
    const spans = exporter.getFinishedSpans();
    const serve = spans.find((s) => s.name === 'tools/call mcp__echo__meta');
    const execute = spans.find((s) => s.name === 'execute_tool mcp__echo__meta');
    const bridge = spans.find((s) => s.name === 'tools/call meta');
    for (const span of [serve, execute, bridge]) expect(span?.spanContext().traceId).toBe(traceId);
    expect(serve?.parentSpanContext?.spanId).toBe(clientSpan);
    expect(serve?.attributes).toMatchObject({
      'dsh.client': 'alice',
      'mcp.method.name': 'tools/call',
    });
    expect(execute?.parentSpanContext?.spanId).toBe(serve?.spanContext().spanId);
    expect(bridge?.parentSpanContext?.spanId).toBe(execute?.spanContext().spanId);
    // What arrived at the upstream server: the same trace, parented by the bridge's span.
    expect(received.traceparent).toBe(`00-${traceId}-${bridge?.spanContext().spanId}-01`);
  });
});
