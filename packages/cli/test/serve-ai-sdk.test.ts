// The gateway driven by an MCP client that does not use the official SDK: the Vercel AI SDK's
// own (@ai-sdk/mcp), in both protocol generations it speaks (2026-07-28 by discovery, 2025-11-25
// by initialize), over stdio and Streamable HTTP.
import { createMCPClient, ElicitationRequestSchema, type MCPClient } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  CHANGING_SERVER,
  CLI,
  cleanEnv,
  type ServeProcess,
  startServe,
  tempDir,
  writeConfig,
} from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const TOKEN = 'ai-sdk-token-0123456789abcdef';
const clients: MCPClient[] = [];
const serves: ServeProcess[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.allSettled(serves.map((s) => s.stop()));
});

function askConfig(): string {
  const dir = tempDir();
  writeConfig(dir, {
    mcpServers: { changing: { command: process.execPath, args: [CHANGING_SERVER] } },
    permissions: { ask: ['mcp__changing__echo'], allow: ['mcp__changing__grow'] },
  });
  return dir;
}

let http: ServeProcess;
beforeAll(async () => {
  http = await startServe([], { cwd: askConfig(), env: cleanEnv({ DSH_TOOLS_TOKEN: TOKEN }) });
  serves.push(http);
});

/**
 * The AI SDK gives a stdio server one second to answer `server/discover`, then falls back to
 * `initialize`. `serve` answers the handshake while its servers start (serve-early.test.ts), but
 * a node process's start alone can pass a second on a loaded machine: waiting for the answer (the
 * transport flag the SDK reads) keeps the generation under test the one asked for, without a
 * clock in the test.
 */
class WaitingStdioTransport extends StdioMCPTransport {
  readonly waitsForProtocolVersionDiscovery = true;
}

const transports = {
  stdio: () =>
    new WaitingStdioTransport({
      command: process.execPath,
      args: [CLI, 'serve'],
      cwd: askConfig(),
      env: cleanEnv() as Record<string, string>,
    }),
  http: () => ({
    type: 'http' as const,
    url: http.url,
    headers: { authorization: `Bearer ${TOKEN}` },
  }),
};

const textOf = (result: object) =>
  (((result as { content?: unknown }).content ?? []) as { text?: string }[])
    .map((b) => b.text ?? '')
    .join('\n');

for (const [wire, transport] of Object.entries(transports)) {
  for (const discovery of [true, false]) {
    const generation = discovery ? '2026-07-28 (discovery)' : '2025-11-25 (initialize)';
    describe(`@ai-sdk/mcp over ${wire}, ${generation}`, () => {
      async function connect(elicit?: 'accept' | 'decline'): Promise<MCPClient> {
        const client = await createMCPClient({
          transport: transport(),
          protocolVersionDiscovery: discovery,
          ...(elicit ? { capabilities: { elicitation: {} } } : {}),
        });
        clients.push(client);
        if (elicit) {
          client.onElicitationRequest(ElicitationRequestSchema, async () =>
            elicit === 'accept'
              ? { action: 'accept', content: { allow: true } }
              : { action: 'decline' },
          );
        }
        return client;
      }

      it('lists the tools and runs an allowed call', async () => {
        const client = await connect();
        expect(client.initializeResult.protocolVersion).toBe(
          discovery ? '2026-07-28' : '2025-11-25',
        );
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('mcp__changing__echo');
        const grown = await client.callTool({ name: 'mcp__changing__grow', arguments: {} });
        expect(grown.isError).toBeFalsy();
        expect(textOf(grown)).toMatch(/^added extra_\d+$/);
      });

      it('asks through elicitation; the answer decides the call', async () => {
        const yes = await connect('accept');
        const allowed = await yes.callTool({
          name: 'mcp__changing__echo',
          arguments: { text: `allowed over ${wire}` },
        });
        expect(textOf(allowed)).toBe(`allowed over ${wire}`);
        const no = await connect('decline');
        const declined = await no.callTool({
          name: 'mcp__changing__echo',
          arguments: { text: 'no' },
        });
        expect(declined.isError).toBe(true);
        expect(textOf(declined)).toContain('declined');
      });

      it('a client without elicitation is told no one could be asked', async () => {
        const client = await connect();
        const result = await client.callTool({
          name: 'mcp__changing__echo',
          arguments: { text: 'x' },
        });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain('no one was asked');
        expect(textOf(result)).not.toMatch(/\.\./);
      });
    });
  }
}
