/**
 * The `dsh-tools/cordis` entry: the `tools` service, the MCP server plugin and one plugin per
 * interceptor. Re-exports only, so that the service and each plugin live in a file of their own and
 * import each other downward (the plugins need the service's type, never the other way round).
 */

export type { HarnessErrorInfo, HarnessShapedResult } from './harness-call';
export type {
  ApprovalOutcome,
  ApprovalServiceLike,
  HarnessToolDefinition,
  HarnessToolOutput,
  PostToolDecision,
  PreToolDecision,
  ToolGuard,
} from './harness-contract';
export {
  type ScheduledExecution,
  TOOL_ABORTED,
  TOOL_ABORTED_BEFORE_DISPATCH,
  TOOL_RUNTIME_SCHEDULER,
  type ToolExecutionMode,
  type ToolRuntimeScheduler,
} from './harness-scheduler';
export type { ToolPresentationMode } from './harness-service';
export { Hooks, type HooksPlugin } from './hooks-plugin';
export { INTERCEPTOR_PRIORITY } from './interceptor-plugin';
export { McpServer, type McpServerPlugin } from './mcp-server';
export { Permission } from './permission-plugin';
export { Sandbox, type SandboxPlugin } from './sandbox-plugin';
export type { ToolRestriction } from './scope-layers';
export { ToolRegistry, ToolRegistry as default } from './tools-service';
export type { CordisRegistryErrorInfo, ToolRegistryConfig } from './types';
