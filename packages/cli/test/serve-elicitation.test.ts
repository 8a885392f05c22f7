import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CHANGING_SERVER, CLI, cleanEnv, tempDir, writeConfig } from './helpers';

// Each test starts real processes (the CLI, MCP servers); on a loaded two-core machine running
// every package's tests at once that takes far longer than a unit test may.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

function newClient(): Client {
  const client = new Client({ name: 'dsh-tools-test', version: '1.0.0' });
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content ?? []) as { type: string; text?: string }[])
    .map((b) => b.text ?? `[${b.type}]`)
    .join('\n');
}

describe('dsh-tools serve: an ask becomes an MCP elicitation', () => {
  function askConfig(): string {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { changing: { command: process.execPath, args: [CHANGING_SERVER] } },
      permissions: { ask: ['mcp__changing__echo'], allow: ['mcp__changing__grow'] },
    });
    return dir;
  }
  const stdio = (cwd: string) =>
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve'],
      cwd,
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });

  it('asks a client that declares elicitation; its answer decides the call', async () => {
    const cwd = askConfig();
    const questions: string[] = [];
    let answer: { action: 'accept' | 'decline'; content?: { allow: boolean } } = {
      action: 'accept',
      content: { allow: true },
    };
    const client = new Client(
      { name: 'asking', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    clients.push(client);
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push(String((request.params as { message?: string }).message));
      return answer;
    });
    await client.connect(stdio(cwd));
    const allowed = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'approved' },
    });
    expect(allowed.isError).toBe(false);
    expect(textOf(allowed)).toBe('approved');
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('mcp__changing__echo');
    expect(questions[0]).toContain('{"text":"approved"}');

    answer = { action: 'accept', content: { allow: false } };
    const unticked = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'no' },
    });
    expect(unticked.isError).toBe(true);
    expect(textOf(unticked)).toContain('without ticking "Allow this call"');

    answer = { action: 'decline' };
    const declined = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'no' },
    });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('declined');
    expect(questions).toHaveLength(3);
  });

  it('asks a 2026-07-28 client through input_required when it declares elicitation', async () => {
    const questions: string[] = [];
    let answer: { action: 'accept' | 'decline'; content?: { allow: boolean } } = {
      action: 'accept',
      content: { allow: true },
    };
    const client = new Client(
      { name: 'modern-asking', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } },
    );
    clients.push(client);
    client.setRequestHandler('elicitation/create', async (request) => {
      questions.push(String((request.params as { message?: string }).message));
      return answer;
    });
    await client.connect(stdio(askConfig()));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const allowed = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'approved per request' },
    });
    expect(textOf(allowed)).toBe('approved per request');
    expect(allowed.isError).toBe(false);
    expect(questions).toHaveLength(1);
    expect(questions[0]).toContain('{"text":"approved per request"}');

    answer = { action: 'decline' };
    const declined = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'no' },
    });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('declined');
    expect(questions).toHaveLength(2);
    // A call no rule asks about needs no round trip.
    const grown = await client.callTool({ name: 'mcp__changing__grow', arguments: {} });
    expect(grown.isError).toBe(false);
    expect(questions).toHaveLength(2);
  });

  it('a 2026-07-28 answer counts only for its own call: the sealed state is bound, forged state refused', async () => {
    // Manual mode: the test plays the client's multi-round-trip driver by hand.
    const AS_IS = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => ({ value }),
      },
    };
    const client = new Client(
      { name: 'manual', version: '1.0.0' },
      {
        capabilities: { elicitation: {} },
        versionNegotiation: { mode: 'auto' },
        inputRequired: { autoFulfill: false },
      },
    );
    clients.push(client);
    await client.connect(stdio(askConfig()));
    const call = (args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      client.request(
        {
          method: 'tools/call',
          params: { name: 'mcp__changing__echo', arguments: args, ...extra },
        },
        AS_IS,
        { allowInputRequired: true },
      ) as Promise<Record<string, unknown>>;
    const first = await call({ text: 'a' });
    expect(first.resultType).toBe('input_required');
    const keys = Object.keys(first.inputRequests as object);
    expect(keys).toHaveLength(1);
    const yes = { [keys[0]!]: { action: 'accept', content: { allow: true } } };
    const other = await call(
      { text: 'b' },
      { inputResponses: yes, requestState: first.requestState },
    );
    expect(other.isError).toBe(true);
    expect(textOf(other)).toContain('issued for another call');
    await expect(
      call({ text: 'a' }, { inputResponses: yes, requestState: 'forged' }),
    ).rejects.toThrow(/requestState/);
    const ok = await call({ text: 'a' }, { inputResponses: yes, requestState: first.requestState });
    expect(ok.isError).toBe(false);
    expect(textOf(ok)).toBe('a');
  });

  it('denies a 2026-07-28 client without elicitation, saying why', async () => {
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    clients.push(client);
    await client.connect(stdio(askConfig()));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = await client.callTool({ name: 'mcp__changing__echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('did not declare the elicitation capability');
  });

  it('denies the call, saying why, when the client cannot be asked', async () => {
    const client = newClient();
    await client.connect(stdio(askConfig()));
    const result = await client.callTool({ name: 'mcp__changing__echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('did not declare the elicitation capability');
    // Tools the rules allow still run.
    const grown = await client.callTool({ name: 'mcp__changing__grow', arguments: {} });
    expect(grown.isError).toBe(false);
  });
});
