/**
 * The `dsh-tools/harness` entry: what published DeepSeek Harness plugins import from
 * `@deepseek-ai/dsh-tools` at runtime, served by this package, so that a package standing in
 * under that name (see the README's "Swapping it in") needs only re-export this entry. The
 * service is `ToolRuntime` here (and the default export), under the harness's name.
 */

export { CodeRunFailedError, RUN_CODE_NAME } from './code-mode';
export { jsonSchemaToTs, renderToolsSdk } from './code-mode-sdk';
export { jsonSchemaToPy, renderToolsSdkPy } from './code-mode-sdk-py';
export {
  assertObjectJsonSchema,
  assertSupportedJsonSchema,
  defineTool,
  JsonSchemaError,
  parameterSchemaSpecToJsonSchema,
  ToolArgsError,
  ToolNotFoundError,
  ToolOutputError,
  validateArgs,
  valueSchemaSpecToJsonSchema,
} from './harness-define-tool';
export {
  TOOL_ABORTED,
  TOOL_ABORTED_BEFORE_DISPATCH,
  TOOL_RUNTIME_SCHEDULER,
} from './harness-scheduler';
export { ToolRegistry as default, ToolRegistry as ToolRuntime } from './tools-service';
