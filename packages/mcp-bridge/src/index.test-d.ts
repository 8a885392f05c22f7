import type { ToolRegistryLike } from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  connectMcpServer,
  type McpBridgedTool,
  type McpProgressEvent,
  type McpReconnectPolicy,
  type McpServerConfig,
  type McpServerConfigBase,
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
    }).toExtend<McpServerConfig>();
    expectTypeOf({
      name: 's',
      url: 'http://127.0.0.1/mcp',
      headers: { a: 'b' },
    }).toExtend<McpServerConfig>();
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

describe('McpServerConfigBase', () => {
  it('types trust as a boolean and the callbacks by what they receive', () => {
    expectTypeOf<McpServerConfigBase['trust']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<McpServerConfigBase['name']>().toEqualTypeOf<string>();
    expectTypeOf<NonNullable<McpServerConfigBase['onProgress']>>().toEqualTypeOf<
      (event: McpProgressEvent) => void
    >();
    expectTypeOf<NonNullable<McpServerConfigBase['onError']>>().toEqualTypeOf<
      (error: Error) => void
    >();
    expectTypeOf<McpServerConfigBase['reconnect']>().toEqualTypeOf<
      McpReconnectPolicy | false | undefined
    >();
    expectTypeOf<McpServerConfigBase['startupTimeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<McpServerConfigBase['maxMessageBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<McpProgressEvent>().toEqualTypeOf<{
      readonly server: string;
      readonly tool: string;
      readonly callId: string;
      readonly progress: number;
      readonly total?: number;
      readonly message?: string;
    }>();
    // @ts-expect-error: trust is a boolean, not the string a JSON file might hold
    connectMcpServer(registry, { name: 's', command: 'node', trust: 'false' });
    // @ts-expect-error: onError receives an Error, not a string
    connectMcpServer(registry, { name: 's', command: 'node', onError: (e: number) => e });
  });
});

describe('McpBridgedTool', () => {
  it('carries the public name, the server name and the description, read-only', () => {
    expectTypeOf<McpBridgedTool>().toEqualTypeOf<{
      readonly name: string;
      readonly tool: string;
      readonly description: string;
    }>();
    expectTypeOf<McpServerHandle['tools']>().toEqualTypeOf<readonly McpBridgedTool[]>();
    const tool = {} as McpBridgedTool;
    // @ts-expect-error: read-only
    tool.name = 'x';
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
    expectTypeOf(handle.refresh()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(handle.reconnect()).toEqualTypeOf<Promise<void>>();
    expectTypeOf(handle.pid).toEqualTypeOf<number | undefined>();
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
