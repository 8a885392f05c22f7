import { describe, expect, it } from 'vitest';
import { connectMcpServer, type McpStdioServerConfig } from '../src/index';
import { call, FAULT_SERVER, newRegistry, text } from './helpers';

const STARTUP_MS = 2000;
/** Far above the deadline: a connect still pending by then is the hang this file is about. */
const MARGIN_MS = 15_000;

function stalling(kind: string, extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return {
    name: 'stall',
    command: process.execPath,
    args: [FAULT_SERVER, 'stdio'],
    startupTimeoutMs: STARTUP_MS,
    reconnect: false,
    onError: () => {},
    ...extra,
    env: { FAULT_START: kind, ...(extra.env ?? {}) },
  };
}

/** The connect's rejection, or 'still pending' when it outlived the deadline by far. */
async function outcome(
  config: McpStdioServerConfig,
): Promise<Error | 'resolved' | 'still pending'> {
  let timer: NodeJS.Timeout | undefined;
  const registry = newRegistry();
  const result = await Promise.race([
    connectMcpServer(registry, config).then(
      async (handle) => {
        await handle.close();
        return 'resolved' as const;
      },
      (error: Error) => error,
    ),
    new Promise<'still pending'>((resolve) => {
      timer = setTimeout(() => resolve('still pending'), STARTUP_MS + MARGIN_MS);
    }),
  ]);
  clearTimeout(timer);
  expect(registry.schemas()).toHaveLength(0);
  return result;
}

// Every way a stdio server can stall a connect, each with the message it must end with.
const STALLS: readonly [string, Partial<McpStdioServerConfig>, RegExp][] = [
  ['silent', {}, /did not finish starting within 2000 ms/],
  [
    'oversize',
    { maxMessageBytes: 65_536, env: { FAULT_LINE_BYTES: String(1024 * 1024) } },
    /stdout line longer than the limit of 65536 bytes \(\d+ bytes/,
  ],
  [
    'oversize',
    {
      maxMessageBytes: 65_536,
      env: { FAULT_LINE_BYTES: String(1024 * 1024), FAULT_LINE_END: '0' },
    },
    /stdout line longer than the limit of 65536 bytes \(\d+ bytes and no end of line yet/,
  ],
  ['close-stdout', {}, /closed its stdout and did not finish starting within 2000 ms/],
  ['no-read', {}, /did not finish starting within 2000 ms/],
  ['init-only', {}, /2000 ms/],
  ['exit-mid-handshake', {}, /exited during startup \(exit code 0\)/],
  ['stderr-flood', {}, /did not finish starting within 2000 ms/],
];

describe('a server cannot stall connectMcpServer past startupTimeoutMs', () => {
  for (const [kind, extra, message] of STALLS) {
    it(`${kind}${extra.env?.FAULT_LINE_END === '0' ? ' (no end of line)' : ''}: rejects with what happened`, async () => {
      const result = await outcome(stalling(kind, extra));
      expect(result).toBeInstanceOf(Error);
      const text = (result as Error).message;
      expect(text).toContain('MCP server "stall"');
      expect(text).toMatch(message);
      if (kind === 'oversize') expect(text).not.toContain('exited during startup');
      // A flood of stderr is quoted as a bounded tail, not whole.
      expect(text.length).toBeLessThan(8000);
    });
  }

  it('reports an oversized line at the default limit too, rather than hanging', async () => {
    const result = await outcome(
      stalling('oversize', {
        startupTimeoutMs: 20_000,
        env: { FAULT_LINE_BYTES: String(64 * 1024 * 1024 + 1) },
      }),
    );
    expect(result).toBeInstanceOf(Error);
    expect((result as Error).message).toMatch(/longer than the limit of 67108864 bytes/);
  }, 60_000);

  it('rejects a maxMessageBytes that is not a whole number >= 1', async () => {
    for (const bad of [0, -1, 1.5, '1024', Number.NaN]) {
      await expect(
        connectMcpServer(newRegistry(), stalling('silent', { maxMessageBytes: bad as number })),
      ).rejects.toThrow(/"maxMessageBytes" must be a whole number >= 1/);
    }
  });
});

describe('a server cannot stall a call past its deadline', () => {
  it('ends a call whose answer is an oversized line at once, naming size and limit', async () => {
    const registry = newRegistry();
    const handle = await connectMcpServer(registry, {
      ...stalling('none'),
      maxMessageBytes: 65_536,
      timeoutMs: 60_000,
    });
    try {
      const result = await call(registry, 'mcp__stall__oversize', { bytes: 1024 * 1024 });
      expect(result.isError).toBe(true);
      expect(result.error?.code).toBe('UNAVAILABLE');
      expect(text(result)).toMatch(/longer than the limit of 65536 bytes/);
      expect(text(result)).not.toMatch(/exited, code/);
    } finally {
      await handle.close();
    }
  });
});
