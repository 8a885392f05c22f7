/**
 * `@deepseek-ai/dsh-mcp-client` on both tools services: upstream's MCP client connects a real
 * server (`@modelcontextprotocol/server-everything` over stdio, started by the test), registers
 * its tools as harness-shaped definitions on `ctx.tools`, and each call goes through the service's
 * pipeline to the server and back. Disposing the plugin removes the tools.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { boot, type Host, type HostName } from '../test/hosts';

// Node 20 has no Promise.withResolvers (Node 22 does), and dsh-mcp-client calls it when a
// connection closes. Polyfilled here, in this test only, so the plugin runs unchanged on the
// Node this repository supports; nothing of ours relies on it.
beforeAll(() => {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  P.withResolvers ??= <T>() => {
    let resolve!: (value: T) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
});

const require = createRequire(import.meta.url);
/** server-everything's launcher from node_modules (never npx: tests must not download). */
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** One host with upstream's MCP client connected to server-everything. */
async function scenario(name: HostName) {
  const host = await boot(name);
  hosts.push(host);
  const { apply, inject, name: pluginName, Config } = await import('@deepseek-ai/dsh-mcp-client');
  let changes = 0;
  host.root.on('tools/change', () => {
    changes++;
  });
  const fiber = await host.root.plugin(
    { apply, inject, name: pluginName, Config } as never,
    {
      serverName: 'everything',
      transport: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      failOnStartupError: true,
      reconnect: { enabled: false },
    } as never,
  );
  // server-everything registers its conditional tools once the client is initialized and says
  // `list_changed`; the client then swaps its whole generation (every tool disposed, every tool
  // registered again). When that happens depends on each service's speed (before the plugin is
  // ready on upstream, just after on ours), so the scenario starts once the swap is done: three
  // changes per tool. A call in flight during the swap is the subject of the report, not of this
  // scenario (ours aborts a call whose tool is unregistered; upstream lets it finish).
  await vi.waitFor(
    () => {
      const count = host.tools.schemas().length;
      if (count === 0 || changes < 3 * count) throw new Error(`${changes} changes, ${count} tools`);
    },
    { timeout: 15_000, interval: 20 },
  );
  const names = host.tools.schemas().map((s) => s.name);
  const echo = await host.call('mcp__everything__echo', { message: 'hello over MCP' });
  const add = await host.call('mcp__everything__get-sum', { a: 2, b: 40 });
  const invalid = await host.call('mcp__everything__get-sum', { a: 'two' });
  await (fiber as unknown as { dispose(): Promise<void> }).dispose();
  const afterDispose = host.tools.schemas().length;
  return { names, echo, add, invalid, afterDispose, root: host.root as Context };
}

describe('dsh-mcp-client', () => {
  it('registers the server’s tools and calls them the same way on both services', async () => {
    const upstream = await scenario('upstream');
    const ours = await scenario('ours');
    expect(upstream.names).toContain('mcp__everything__echo');
    expect(ours.names).toEqual(upstream.names);
    expect(upstream.echo).toEqual({
      isError: false,
      text: 'Echo: hello over MCP',
      code: undefined,
    });
    expect(ours.echo).toEqual(upstream.echo);
    expect(ours.add).toEqual(upstream.add);
    expect(ours.add.text).toContain('42');
    expect(upstream.afterDispose).toBe(0);
    expect(ours.afterDispose).toBe(0);
  });

  it('refuses invalid arguments: upstream at the server, ours before the server sees them', async () => {
    const upstream = await scenario('upstream');
    const ours = await scenario('ours');
    expect(upstream.invalid.isError).toBe(true);
    expect(upstream.invalid.text).toContain('Invalid arguments for tool get-sum');
    expect(ours.invalid.isError).toBe(true);
    expect(ours.invalid.code).toBe('INVALID_ARGS');
    expect(ours.invalid.text).toMatch(/"a"|\/a/);
  });
});
