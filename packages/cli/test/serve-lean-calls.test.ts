import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  CHANGING_SERVER,
  CLI,
  cleanEnv,
  EXAMPLE_SERVER,
  tempDir,
  until,
  writeConfig,
} from './helpers';

// Real processes on a shared two-core machine (see serve.test.ts).
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const children: ChildProcessWithoutNullStreams[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
  for (const child of children.splice(0)) child.kill();
});

function config(): string {
  const dir = tempDir();
  writeConfig(dir, {
    mcpServers: {
      notes: { command: process.execPath, args: [EXAMPLE_SERVER] },
      changing: { command: process.execPath, args: [CHANGING_SERVER] },
    },
    permissions: { allow: ['mcp__notes__*', 'mcp__changing__fail'] },
  });
  return dir;
}

/** `dsh-tools serve` spoken to line by line, as a client's bytes reach it. */
function rawServe(cwd: string) {
  const child = spawn(process.execPath, [CLI, 'serve'], { cwd, env: cleanEnv() });
  children.push(child);
  const lines: string[] = [];
  let buffer = '';
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      lines.push(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
    }
  });
  const send = (message: unknown) =>
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  /** The answer to request `id` (its raw line), once it came. */
  const answer = async (id: number | string) => {
    const tail = `"id":${JSON.stringify(id)}`;
    const mine = (l: string) => l.includes(`${tail}}`) || l.includes(`${tail},`);
    await until(() => lines.some(mine), 1200);
    const line = lines.find(mine) ?? '';
    lines.splice(lines.indexOf(line), 1);
    return line;
  };
  const initialize = async () => {
    send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      },
    });
    await answer('init');
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };
  return { send, answer, initialize, lines };
}

const call = (id: number, name: string, args?: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});

describe('dsh-tools serve: tools/call on the lean path (2025 sessions over stdio)', () => {
  it('answers byte for byte as the SDK path does: results, error results, images', async () => {
    const serve = rawServe(config());
    const calls: [string, unknown][] = [
      ['mcp__notes__get_note', { id: 1 }],
      ['mcp__notes__get_note', { id: 999 }],
      ['mcp__notes__get_note', { id: 'x' }],
      ['mcp__notes__get_note', undefined],
      ['mcp__notes__note_card', { id: 1 }],
      ['mcp__changing__fail', {}],
      ['no_such_tool', {}],
    ];
    // Before `initialize`, a call takes the SDK server's path; after it, the lean one.
    const viaSdk: string[] = [];
    for (const [i, [name, args]] of calls.entries()) {
      serve.send(call(i, name, args));
      viaSdk.push(await serve.answer(i));
    }
    await serve.initialize();
    const viaLean: string[] = [];
    for (const [i, [name, args]] of calls.entries()) {
      serve.send(call(i, name, args));
      viaLean.push(await serve.answer(i));
    }
    expect(viaLean).toEqual(viaSdk);
    expect(viaLean[0]).toContain('"isError":false');
    expect(viaLean[2]).toContain('must be integer');
    expect(viaLean[4]).toContain('"type":"image"');
    expect(viaLean[6]).toContain('Unknown tool \\"no_such_tool\\"');
  });

  it('answers a malformed request as the SDK does, answers bad lines as JSON-RPC says, and goes on serving', async () => {
    const serve = rawServe(config());
    await serve.initialize();
    serve.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } });
    const noName = JSON.parse(await serve.answer(1));
    expect(noName.error.code).toBe(-32602);
    expect(noName.error.message).toContain('Invalid tools/call request');
    serve.send(call(2, 'mcp__notes__get_note', []));
    expect(JSON.parse(await serve.answer(2)).error.message).toContain('expected record');
    // Lines the SDK's own stdio transport drops without a word get JSON-RPC's answers: not JSON
    // (Parse error), not JSON-RPC or an id that is no id (Invalid Request, id null when it cannot
    // be read), a batch on a protocol version without batches. None of them runs anything.
    serve.send('{"jsonrpc":"2.0","id":3,"method":"tools/call",');
    serve.send('[1,2]');
    serve.send({ ...call(4, 'mcp__notes__get_note', { id: 1 }), extra: true });
    serve.send({ ...call(5, 'mcp__notes__get_note', { id: 1 }), id: 1.5 });
    serve.send(call(6, 'mcp__notes__get_note', { id: 1 }));
    expect(await serve.answer(6)).toContain('Welcome');
    const errors = serve.lines.splice(0).map((line) => JSON.parse(line));
    expect(errors.map((e) => [e.id, e.error.code])).toEqual([
      [null, -32700],
      [null, -32600],
      [4, -32600],
      [null, -32600],
    ]);
    expect(errors[1].error.message).toContain('negotiated MCP protocol version 2025-06-18');
  });

  it('cancels a lean call on notifications/cancelled: it is never answered', async () => {
    const serve = rawServe(config());
    await serve.initialize();
    serve.send(call(1, 'mcp__notes__wait', { ms: 1500 }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    serve.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, reason: 'not needed' },
    });
    serve.send(call(2, 'mcp__notes__wait', { ms: 1 }));
    expect(await serve.answer(2)).toContain('Waited 1 ms');
    // Past the time the call would have taken: still no answer to it.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(serve.lines).toEqual([]);
  });

  it('runs many concurrent calls from an SDK client, each answered in full', async () => {
    const client = new Client({ name: 'many', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve'],
        cwd: config(),
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        client.callTool({ name: 'mcp__notes__get_note', arguments: { id: i % 2 === 0 ? 1 : 999 } }),
      ),
    );
    results.forEach((result, i) => {
      expect(result.isError).toBe(i % 2 !== 0);
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      expect(text).toContain(i % 2 === 0 ? 'Welcome' : 'no note #999');
    });
  });
});
