import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { type Message, RawSession, resultText } from '../test/raw-mcp-http';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveSharedGatewayHttp } from './http';
import { type GatewayClient, GatewayIdentities, tokenSha256 } from './http-identities';
import { createElicitationApprovals } from './serve';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const token = (name: string) => `${name}-token-0123456789abcdef`;
const CLIENTS: GatewayClient[] = [
  { name: 'alice', tokenSha256: tokenSha256(token('alice')) },
  { name: 'bob', tokenSha256: tokenSha256(token('bob')), tools: ['read_*'] },
  { name: 'carol', tokenSha256: tokenSha256(token('carol')), mode: 'bypassPermissions' },
  { name: 'dave', tokenSha256: tokenSha256(token('dave')).toUpperCase(), mode: 'dontAsk' },
  { name: 'erin', tokenSha256: tokenSha256(token('erin')) },
];

describe('GatewayIdentities', () => {
  const identities = new GatewayIdentities(CLIENTS);

  it('knows each client by its token, and nobody by another string', () => {
    for (const client of CLIENTS) {
      expect(identities.identify(`Bearer ${token(client.name)}`)?.name).toBe(client.name);
    }
    for (const header of [
      null,
      '',
      'Bearer',
      `bearer ${token('alice')}`,
      `Bearer  ${token('alice')}`,
      `Basic ${token('alice')}`,
      `Bearer ${token('alice')}x`,
      `Bearer ${tokenSha256(token('alice'))}`,
    ]) {
      expect(identities.identify(header)).toBeUndefined();
    }
  });

  it('refuses malformed or ambiguous clients', () => {
    const good = CLIENTS[0] as GatewayClient;
    expect(() => new GatewayIdentities([])).toThrow(/empty/);
    expect(() => new GatewayIdentities([good, { ...good }])).toThrow(/two clients are named/);
    expect(() => new GatewayIdentities([good, { ...good, name: 'x' }])).toThrow(/same token/);
    expect(() => new GatewayIdentities([{ ...good, tokenSha256: 'abc' }])).toThrow(/64 hex/);
    expect(() => new GatewayIdentities([{ ...good, name: 'a b' }])).toThrow(/not 1-64/);
  });

  it('a tools list allows its names and globs only', () => {
    expect(identities.allows('bob', 'read_file')).toBe(true);
    expect(identities.allows('bob', 'list_dir')).toBe(false);
    expect(identities.allows('alice', 'list_dir')).toBe(true);
    expect(identities.allows(undefined, 'list_dir')).toBe(true);
  });
});

const dir = tempDir('dsh-identities-');
writeFileSync(join(dir, 'a.txt'), 'a');
const loaded = loadedIn(dir, {
  mcpServers: {},
  exampleTools: { writable: false },
  permissions: { ask: ['list_dir'], allow: ['read_file'] },
});

let gateway: Gateway;
let http: HttpGateway;
beforeAll(async () => {
  const approvals = createElicitationApprovals();
  const modes = new Map(CLIENTS.map((c) => [c.name, c.mode]));
  gateway = await buildGateway(loaded, {
    approver: approvals.approver,
    askScope: (exec) => approvals.scopeOf(exec.callId),
    modeOf: (exec) => modes.get(approvals.identityOf(exec.callId) ?? ''),
  });
  http = await serveSharedGatewayHttp(gateway, { port: 0, clients: CLIENTS, approvals });
});
afterAll(async () => {
  await http.close();
  await gateway.close();
});

const session = (name: string, capabilities: Record<string, unknown> = { elicitation: {} }) =>
  new RawSession(http.url, token(name)).open(capabilities);
const list = async (s: RawSession) => {
  const response = await s.post({ jsonrpc: '2.0', id: 99, method: 'tools/list' });
  for await (const m of (await import('../test/raw-mcp-http')).messagesOf(response)) {
    return ((m.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
  }
  return [];
};

describe('serve --http with several clients', () => {
  it('each client sees and calls only the tools its list allows; a refusal names the client', async () => {
    const alice = await session('alice');
    const bob = await session('bob');
    expect(await list(alice)).toEqual(['read_file', 'list_dir']);
    expect(await list(bob)).toEqual(['read_file']);
    const read = await (await bob.call('read_file', { path: 'a.txt' })).result();
    expect(resultText(read)).toBe('a');
    const refused = await (await bob.call('list_dir', {})).result();
    expect(refused.result?.isError).toBe(true);
    expect(resultText(refused)).toContain('not available to client "bob"');
  });

  it('a session answers only its own client: another client’s token on it is a 404', async () => {
    const alice = await session('alice');
    const stolen = await alice.post({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, token('bob'));
    expect(stolen.status).toBe(404);
    expect(await stolen.text()).toContain('Session not found');
    // Nor can another client read its stream or end it.
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(http.url, {
        method,
        headers: {
          authorization: `Bearer ${token('bob')}`,
          accept: 'text/event-stream',
          'mcp-session-id': alice.id,
        },
      });
      expect({ method, status: response.status }).toEqual({ method, status: 404 });
      await response.body?.cancel();
    }
    // The session itself goes on, for its owner.
    expect(await list(alice)).toContain('list_dir');
  });

  it('two clients with their own tokens have questions pending at once', async () => {
    const alice = await session('alice');
    const other = await session('erin');
    const calls = await Promise.all([alice.call('list_dir', {}), other.call('list_dir', {})]);
    const questions: Message[] = await Promise.all(calls.map((c) => c.next()));
    expect(questions.map((q) => q.method)).toEqual(['elicitation/create', 'elicitation/create']);
    await other.answer(questions[1] as Message, { result: { action: 'decline' } });
    await alice.answer(questions[0] as Message, {
      result: { action: 'accept', content: { allow: true } },
    });
    const [a, b] = await Promise.all(calls.map((c) => c.next()));
    expect([a?.result?.isError, b?.result?.isError]).toEqual([false, true]);
  });

  it('a client’s permission mode applies to its calls only', async () => {
    // No elicitation: in the config's mode the ask cannot be put, so the call is denied.
    const alice = await session('alice', {});
    expect((await (await alice.call('list_dir', {})).result()).result?.isError).toBe(true);
    const carol = await session('carol', {});
    const bypassed = await (await carol.call('list_dir', {})).result();
    expect(bypassed.result?.isError).toBe(false);
    const dave = await session('dave', { elicitation: {} });
    const call = await dave.call('list_dir', {});
    const first = await call.next();
    // dontAsk: denied without a question.
    expect(first.method).toBeUndefined();
    expect(first.result?.isError).toBe(true);
  });

  it('a 2026-07-28 approval minted for one client is refused for another', async () => {
    const AS_IS = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => ({ value }),
      },
    };
    const connect = async (name: string) => {
      const client = new Client(
        { name, version: '1.0.0' },
        {
          capabilities: { elicitation: {} },
          versionNegotiation: { mode: 'auto' },
          inputRequired: { autoFulfill: false },
        },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { authorization: `Bearer ${token(name)}` } },
        }),
      );
      return client;
    };
    const alice = await connect('alice');
    const mallory = await connect('carol');
    try {
      const call = (client: Client, extra: Record<string, unknown> = {}) =>
        client.request(
          { method: 'tools/call', params: { name: 'list_dir', arguments: {}, ...extra } },
          AS_IS,
          { allowInputRequired: true },
        ) as Promise<Record<string, unknown>>;
      const first = await call(alice);
      expect(first.resultType).toBe('input_required');
      const key = Object.keys(first.inputRequests as object)[0] as string;
      const yes = { [key]: { action: 'accept', content: { allow: true } } };
      await expect(
        call(mallory, { inputResponses: yes, requestState: first.requestState }),
      ).rejects.toThrow(/requestState/);
      const ok = await call(alice, { inputResponses: yes, requestState: first.requestState });
      expect(ok.isError).toBe(false);
    } finally {
      await alice.close();
      await mallory.close();
    }
  });
});
