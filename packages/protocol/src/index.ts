export type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalRequest,
  Approver,
} from './approval';
export type {
  AudioContent,
  BlobResourceContents,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResourceContent,
  ImageContent,
  ResourceLinkContent,
  TextContent,
  TextResourceContents,
} from './content';
export { ToolError, ToolErrorCode, type ToolErrorOptions } from './errors';
export {
  errorResult,
  isContentBlock,
  textContent,
} from './helpers';
export type { NarrowableSandbox, SandboxNarrowing } from './sandbox-narrowing';
export type {
  BodyExecution,
  InterceptedExecution,
  Interceptor,
  InterceptorNext,
  JsonSchema,
  ObjectJsonSchema,
  PathExclusion,
  ToolArgs,
  ToolChangeEvent,
  ToolDefinition,
  ToolErrorInfo,
  ToolExecution,
  ToolExecutionExtensions,
  ToolExecutionResult,
  ToolHints,
  ToolInputValidator,
  ToolOutput,
  ToolPathHint,
  ToolRegistryLike,
  ToolSchema,
  ToolSource,
  ToolView,
} from './tool';
