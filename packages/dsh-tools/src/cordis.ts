/**
 * The `dsh-tools/cordis` entry: the `tools` service and the MCP server plugin. Re-exports only,
 * so that the service and the plugin each live in a file of their own and import each other
 * downward (the plugin needs the service's type, never the other way round).
 */
export { McpServer, type McpServerPlugin } from './mcp-server';
export { ToolRegistry, ToolRegistry as default } from './tools-service';
export type { CordisRegistryErrorInfo, ToolRegistryConfig } from './types';
