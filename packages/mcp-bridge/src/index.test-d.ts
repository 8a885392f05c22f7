import type { ToolRegistryLike } from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  connectMcpServer,
  type McpServerConfig,
  type McpServerHandle,
  type McpServerStatus,
  type McpStatusEvent,
  type McpToolsChangeEvent,
  mcpToolName,
  parseMcpToolName,
} from './index';

declare const registry: ToolRegistryLike;

describe('connectMcpServer', () => {
  it('takes any ToolRegistryLike and resolves to a handle', () => {
    expectTypeOf(connectMcpServer).parameter(0).toEqualTypeOf<ToolRegistryLike>();
    expectTypeOf(connectMcpServer(registry, { name: 's', command: 'node' })).toEqualTypeOf<
      Promise<McpServerHandle>
    >();
  });

  it('accepts a stdio or an HTTP config, not both and not neither', () => {
    expectTypeOf({
      name: 's',
      command: 'node',
      args: ['x'],
      env: { A: 'b' },
      cwd: '/',
    }).toMatchTypeOf<McpServerConfig>();
    expectTypeOf({
      name: 's',
      url: 'http://127.0.0.1/mcp',
      headers: { a: 'b' },
    }).toMatchTypeOf<McpServerConfig>();
    // @ts-expect-error: both transports at once
    connectMcpServer(registry, { name: 's', command: 'node', url: 'http://127.0.0.1/mcp' });
    // @ts-expect-error: no transport
    connectMcpServer(registry, { name: 's' });
    // @ts-expect-error: args are strings
    connectMcpServer(registry, { name: 's', command: 'node', args: [1] });
    // @ts-expect-error: reconnect is a policy or false
    connectMcpServer(registry, { name: 's', command: 'node', reconnect: true });
  });
});

describe('McpServerHandle', () => {
  it('types its events by name', () => {
    const handle = {} as McpServerHandle;
    handle.on('status', (event) => expectTypeOf(event).toEqualTypeOf<McpStatusEvent>());
    handle.on('tools', (event) => expectTypeOf(event).toEqualTypeOf<McpToolsChangeEvent>());
    // @ts-expect-error: no such event
    handle.on('nope', () => {});
    expectTypeOf(handle.status).toEqualTypeOf<McpServerStatus>();
    expectTypeOf(handle.tools[0]!.name).toEqualTypeOf<string>();
    expectTypeOf(handle.close()).toEqualTypeOf<Promise<void>>();
  });
});

describe('naming', () => {
  it('maps a pair to a name and a plain name back', () => {
    expectTypeOf(mcpToolName('s', 't')).toEqualTypeOf<string>();
    expectTypeOf(parseMcpToolName('x')).toEqualTypeOf<
      { server: string; tool: string } | undefined
    >();
  });
});
