import type { Context, Fiber } from '@deepseek-ai/cordis';
import type { McpServerConfig, McpServerHandle, McpStatusEvent } from '@dsh-tools/mcp-bridge';
import { describe, expectTypeOf, it } from 'vitest';
import { McpServer } from './cordis';

declare const ctx: Context;

describe('McpServer typing', () => {
  it('takes one server of the bridge as its config', () => {
    expectTypeOf(McpServer.apply).parameter(1).toEqualTypeOf<McpServerConfig>();
    expectTypeOf(
      ctx.plugin(McpServer, { name: 'fs', command: 'npx', args: ['-y', 'server'] }),
    ).toEqualTypeOf<Fiber & PromiseLike<Fiber>>();
    ctx.plugin(McpServer, { name: 'docs', url: 'https://mcp.example.com/mcp' });
    ctx.plugin(McpServer, {
      name: 'docs',
      url: new URL('https://mcp.example.com/mcp'),
      headers: { authorization: 'Bearer x' },
      trust: true,
      timeoutMs: 5_000,
      reconnect: false,
      onError: (error) => expectTypeOf(error).toEqualTypeOf<Error>(),
    });
  });

  it('refuses a config that is not one server', () => {
    // @ts-expect-error the config is required
    ctx.plugin(McpServer);
    // @ts-expect-error a server needs a command or a url
    ctx.plugin(McpServer, { name: 'x' });
    // @ts-expect-error not both
    ctx.plugin(McpServer, { name: 'x', command: 'a', url: 'http://x' });
    // @ts-expect-error the name is required
    ctx.plugin(McpServer, { command: 'a' });
    // @ts-expect-error args are strings
    ctx.plugin(McpServer, { name: 'x', command: 'a', args: [1] });
    // @ts-expect-error headers belong to HTTP servers
    ctx.plugin(McpServer, { name: 'x', command: 'a', headers: {} });
  });

  it('types the mcp/status event with the bridge handle', () => {
    ctx.on('mcp/status', (event, server) => {
      expectTypeOf(event).toEqualTypeOf<McpStatusEvent>();
      expectTypeOf(server).toEqualTypeOf<McpServerHandle>();
    });
  });
});
