import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  CHANGING_SERVER,
  CLI,
  cleanEnv,
  runCli,
  type ServeProcess,
  startServe,
  tempDir,
  until,
  writeConfig,
} from './helpers';

// Each test starts real processes (the CLI, MCP servers); on a loaded two-core machine running
// every package's tests at once that takes far longer than a unit test may.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const TOKEN = 'test-token-0123456789abcdef';
const clients: Client[] = [];
const serves: ServeProcess[] = [];

afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.allSettled(serves.map((s) => s.stop()));
});

/** A config with the test server whose tool list changes, and the example file tools. */
function changingConfig(): string {
  const dir = tempDir();
  writeConfig(dir, {
    exampleTools: { writable: false },
    mcpServers: { changing: { command: process.execPath, args: [CHANGING_SERVER] } },
  });
  return dir;
}

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

/** Waits for `notifications/tools/list_changed` from the gateway. */
function listChanged(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
  });
}

describe('dsh-tools serve over stdio, driven by the SDK client', () => {
  it('lists the tools, runs an allowed call, returns error results, and passes list_changed on', async () => {
    const cwd = changingConfig();
    const client = newClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve'],
        cwd,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'read_file',
      'list_dir',
      'mcp__changing__echo',
      'mcp__changing__fail',
      'mcp__changing__grow',
    ]);
    const readFile = tools.find((t) => t.name === 'read_file');
    expect(readFile?.inputSchema.required).toEqual(['path']);
    expect(readFile?.annotations?.readOnlyHint).toBe(true);

    const echoed = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'through the gateway' },
    });
    expect(echoed.isError).toBe(false);
    expect(textOf(echoed)).toBe('through the gateway');

    // Validation happens in the gateway: the server never sees a call with a wrong argument type.
    const invalid = await client.callTool({ name: 'mcp__changing__echo', arguments: { text: 5 } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toContain('text');

    const failed = await client.callTool({ name: 'mcp__changing__fail', arguments: {} });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('failing on purpose');

    const changed = listChanged(client);
    const grown = await client.callTool({ name: 'mcp__changing__grow', arguments: {} });
    expect(textOf(grown)).toBe('added extra_1');
    await changed;
    const after = await client.listTools();
    expect(after.tools.map((t) => t.name)).toContain('mcp__changing__extra_1');
    const extra = await client.callTool({ name: 'mcp__changing__extra_1', arguments: {} });
    expect(textOf(extra)).toBe('extra_1 ran');
  });

  it('serves a 2026-07-28 client over stdio too (version negotiation)', async () => {
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve'],
        cwd: changingConfig(),
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('mcp__changing__echo');
    const echoed = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'modern' },
    });
    expect(textOf(echoed)).toBe('modern');
  });

  it('refuses to serve when a configured server fails to start, unless --allow-partial', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      exampleTools: true,
      mcpServers: { broken: { command: process.execPath, args: ['-e', 'process.exit(7)'] } },
    });
    const refused = await runCli(['serve'], { cwd: dir });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('Not serving: "broken" failed to start');
    expect(refused.stderr).toContain('--allow-partial');

    const client = newClient();
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', '--allow-partial'],
        cwd: dir,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['read_file', 'list_dir', 'write_file']);
  });
});

describe('dsh-tools serve --http, driven by the SDK client', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--max-body-bytes', '4096', '--max-sessions', '3'], {
      cwd: changingConfig(),
      env: cleanEnv({ DSH_TOOLS_TOKEN: TOKEN }),
    });
    serves.push(serve);
  });

  const transport = (token = TOKEN) =>
    new StreamableHTTPClientTransport(new URL(serve.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });

  it('lists the tools, runs an allowed call and passes list_changed on (2025 sessions)', async () => {
    const client = newClient();
    await client.connect(transport());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('mcp__changing__echo');
    const echoed = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'over http' },
    });
    expect(echoed.isError).toBe(false);
    expect(textOf(echoed)).toBe('over http');

    const before = tools.length;
    const changed = listChanged(client);
    await client.callTool({ name: 'mcp__changing__grow', arguments: {} });
    await changed;
    const after = await client.listTools();
    expect(after.tools.length).toBe(before + 1);
  });

  it('serves a 2026-07-28 client too (version negotiation)', async () => {
    const client = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    clients.push(client);
    await client.connect(transport());
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('read_file');
    const result = await client.callTool({ name: 'list_dir', arguments: {} });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('dsh-tools.json');
  });

  it('refuses a wrong or missing token (401) and the client sees it', async () => {
    const client = newClient();
    await expect(client.connect(transport('wrong-token-0123456789'))).rejects.toSatisfy(
      (error: unknown) => error instanceof SdkHttpError || /401|Unauthorized/i.test(String(error)),
    );
    const missing = await fetch(serve.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toContain('Bearer');
    expect(await missing.text()).toContain('Missing bearer token');
    const wrong = await fetch(serve.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}x`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(wrong.status).toBe(401);
  });

  it('refuses a foreign Origin (403), allows a loopback one', async () => {
    const init = (origin: string) => ({
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        origin,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      }),
    });
    const evil = await fetch(serve.url, init('http://evil.example'));
    expect(evil.status).toBe(403);
    expect(await evil.text()).toContain('Origin');
    const local = await fetch(serve.url, init('http://localhost:3000'));
    expect(local.status).toBe(200);
    const session = local.headers.get('mcp-session-id');
    expect(session).toBeTruthy();
    await local.body?.cancel();
    // Leave no session behind for the limit test below.
    const closed = await fetch(serve.url, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session ?? '' },
    });
    expect(closed.status).toBe(200);
  });

  it('refuses a request over --max-body-bytes (413), declared or streamed', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'mcp__changing__echo', arguments: { text: 'x'.repeat(10_000) } },
    });
    const declared = await fetch(serve.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: big,
    });
    expect(declared.status).toBe(413);
    // Without a Content-Length (chunked), the bound applies while reading.
    const streamed = await fetch(serve.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    // An oversized call from a real client fails, and the gateway goes on serving.
    const client = newClient();
    await client.connect(transport());
    await expect(
      client.callTool({ name: 'mcp__changing__echo', arguments: { text: 'x'.repeat(10_000) } }),
    ).rejects.toThrow();
    const small = await client.callTool({
      name: 'mcp__changing__echo',
      arguments: { text: 'small' },
    });
    expect(textOf(small)).toBe('small');
  });

  it('bounds concurrent sessions (503 past --max-sessions, saying what to do); DELETE frees one', async () => {
    const own = await startServe(['--max-sessions', '2'], {
      cwd: changingConfig(),
      env: cleanEnv({ DSH_TOOLS_TOKEN: TOKEN }),
    });
    serves.push(own);
    const ownTransport = () =>
      new StreamableHTTPClientTransport(new URL(own.url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
    const first = ownTransport();
    await newClient().connect(first);
    await newClient().connect(ownTransport());
    await expect(newClient().connect(ownTransport())).rejects.toThrow(
      /Too many sessions: this gateway holds at most 2/,
    );
    // Ending a session (HTTP DELETE) frees its slot at once.
    await first.terminateSession();
    const again = newClient();
    await again.connect(ownTransport());
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
  });
});

describe('dsh-tools serve --http: refusals at start', () => {
  it('refuses a non-loopback address without a token, before listening', async () => {
    // 192.0.2.1 (TEST-NET-1) is never an address of this machine: were the check missing, the
    // bind itself would fail; the message tells the two apart.
    const { code, stderr } = await runCli(['serve', '--http', '192.0.2.1:0'], { env: cleanEnv() });
    expect(code).toBe(5);
    expect(stderr).toContain('Refusing to serve on 192.0.2.1 without a bearer token');
    expect(stderr).toContain('DSH_TOOLS_TOKEN');
  });

  it('refuses a token shorter than 16 characters, and a bad --http value', async () => {
    const short = await runCli(['serve', '--http', '127.0.0.1:0'], {
      env: cleanEnv({ DSH_TOOLS_TOKEN: 'short' }),
    });
    expect(short.code).toBe(5);
    expect(short.stderr).toContain('at least 16');
    const bad = await runCli(['serve', '--http', 'nowhere']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('host:port');
  });

  it('generates a token on loopback when none is configured, and requires it', async () => {
    const serve = await startServe([], { env: cleanEnv() });
    serves.push(serve);
    await until(() => /bearer token \(generated/.test(serve.stderr()));
    const token = /bearer token \(generated[^)]*\): (\S+)/.exec(serve.stderr())?.[1] ?? '';
    expect(token.length).toBeGreaterThanOrEqual(16);
    const client = newClient();
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serve.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const without = await fetch(serve.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(without.status).toBe(401);
  });
});
