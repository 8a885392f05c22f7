export { connectMcpServer } from './bridge';
export { mapCallResult, mapContentBlock } from './content';
export { mcpToolName, parseMcpToolName, TOOL_NAME_PATTERN } from './naming';
export {
  type ProcessExit,
  ProcessTransport,
  type ProcessTransportOptions,
} from './process-transport';
export { type McpToolMetadata, mcpToolMetadata } from './tool-metadata';
export type {
  McpBridgedTool,
  McpHttpServerConfig,
  McpProgressEvent,
  McpReconnectPolicy,
  McpServerConfig,
  McpServerConfigBase,
  McpServerHandle,
  McpServerStatus,
  McpStatusEvent,
  McpStdioServerConfig,
  McpToolFilter,
  McpToolsChangeEvent,
} from './types';
