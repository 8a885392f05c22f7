import type * as defineTool from '@dsh-tools/define-tool';
import type * as mcpBridge from '@dsh-tools/mcp-bridge';
import type * as protocol from '@dsh-tools/protocol';
import type * as registry from '@dsh-tools/registry';
import type * as waterfall from '@dsh-tools/waterfall';
import { describe, expectTypeOf, it } from 'vitest';
import * as meta from './index';

describe('dsh-tools re-exports the types unchanged', () => {
  it('re-exports the contract types', () => {
    expectTypeOf<meta.ToolDefinition>().toEqualTypeOf<protocol.ToolDefinition>();
    expectTypeOf<meta.ToolExecutionResult>().toEqualTypeOf<protocol.ToolExecutionResult>();
    expectTypeOf<meta.Interceptor>().toEqualTypeOf<protocol.Interceptor>();
    expectTypeOf<meta.ToolErrorCode>().toEqualTypeOf<protocol.ToolErrorCode>();
  });

  it('re-exports the registry, the waterfall and defineTool types', () => {
    expectTypeOf<meta.ToolRegistry>().toEqualTypeOf<registry.ToolRegistry>();
    expectTypeOf<meta.ToolRegistryOptions>().toEqualTypeOf<registry.ToolRegistryOptions>();
    expectTypeOf<meta.Waterfall<[number], string>>().toEqualTypeOf<
      waterfall.Waterfall<[number], string>
    >();
    expectTypeOf<meta.SchemaSpec>().toEqualTypeOf<defineTool.SchemaSpec>();
    expectTypeOf<typeof meta.defineTool>().toEqualTypeOf<typeof defineTool.defineTool>();
  });

  it('re-exports the MCP bridge and its types', () => {
    expectTypeOf<typeof meta.connectMcpServer>().toEqualTypeOf<typeof mcpBridge.connectMcpServer>();
    expectTypeOf(meta.connectMcpServer).returns.toEqualTypeOf<Promise<meta.McpServerHandle>>();
    expectTypeOf<typeof meta.mcpToolName>().toEqualTypeOf<typeof mcpBridge.mcpToolName>();
    expectTypeOf<typeof meta.parseMcpToolName>().toEqualTypeOf<typeof mcpBridge.parseMcpToolName>();
    expectTypeOf<typeof meta.mapCallResult>().toEqualTypeOf<typeof mcpBridge.mapCallResult>();
    expectTypeOf<typeof meta.mapContentBlock>().toEqualTypeOf<typeof mcpBridge.mapContentBlock>();
    expectTypeOf<meta.ProcessTransport>().toEqualTypeOf<mcpBridge.ProcessTransport>();
    expectTypeOf<meta.McpServerConfig>().toEqualTypeOf<mcpBridge.McpServerConfig>();
    expectTypeOf<meta.McpStdioServerConfig>().toEqualTypeOf<mcpBridge.McpStdioServerConfig>();
    expectTypeOf<meta.McpHttpServerConfig>().toEqualTypeOf<mcpBridge.McpHttpServerConfig>();
    expectTypeOf<meta.McpServerConfigBase>().toEqualTypeOf<mcpBridge.McpServerConfigBase>();
    expectTypeOf<meta.McpServerHandle>().toEqualTypeOf<mcpBridge.McpServerHandle>();
    expectTypeOf<meta.McpServerStatus>().toEqualTypeOf<mcpBridge.McpServerStatus>();
    expectTypeOf<meta.McpStatusEvent>().toEqualTypeOf<mcpBridge.McpStatusEvent>();
    expectTypeOf<meta.McpToolsChangeEvent>().toEqualTypeOf<mcpBridge.McpToolsChangeEvent>();
    expectTypeOf<meta.McpBridgedTool>().toEqualTypeOf<mcpBridge.McpBridgedTool>();
    expectTypeOf<meta.McpReconnectPolicy>().toEqualTypeOf<mcpBridge.McpReconnectPolicy>();
    expectTypeOf<meta.McpProgressEvent>().toEqualTypeOf<mcpBridge.McpProgressEvent>();
    expectTypeOf<meta.McpToolFilter>().toEqualTypeOf<mcpBridge.McpToolFilter>();
    expectTypeOf<meta.ProcessExit>().toEqualTypeOf<mcpBridge.ProcessExit>();
    expectTypeOf<meta.ProcessTransportOptions>().toEqualTypeOf<mcpBridge.ProcessTransportOptions>();
  });

  it('infers typed arguments through the meta-package', () => {
    const tool = meta.defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { path: { type: 'string', required: true } },
      execute(args) {
        expectTypeOf(args.path).toEqualTypeOf<string>();
        return [meta.textContent(args.path)];
      },
    });
    expectTypeOf(tool).toExtend<meta.ToolDefinition<{ path: string }>>();
  });
});
