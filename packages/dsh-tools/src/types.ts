import type { ToolSchema } from '@dsh-tools/protocol';
import type { RegistryErrorInfo, ToolRegistryOptions } from '@dsh-tools/registry';

/**
 * What the service reports to `onError`: the registry's info, plus the plugin whose
 * `tools/result` or `tools/change` listener failed.
 */
export interface CordisRegistryErrorInfo extends RegistryErrorInfo {
  /** The name of the plugin that registered the failing listener. */
  readonly listener?: string;
}

/**
 * Options of the `ToolRegistry` service plugin: those of the standalone registry. Without
 * `onError`, contained failures go to the cordis logger `tools`.
 */
export interface ToolRegistryConfig extends Omit<ToolRegistryOptions, 'onError'> {
  readonly onError?: (error: unknown, info: CordisRegistryErrorInfo) => void;
  /**
   * How the model is shown the tools, as the DeepSeek Harness's `mode`: only `native` (the
   * default) is implemented; `code` and `both` fail loudly at the first prompt assembly.
   */
  readonly mode?: 'native' | 'code' | 'both';
  /**
   * Another key to expose the harness scheduler under: `TOOL_RUNTIME_SCHEDULER` of
   * `@deepseek-ai/dsh-tools` when that package stays installed beside this one (its agent loop
   * reads its own symbol). Not needed when this package stands in for it.
   */
  readonly schedulerKey?: symbol;
}

/** The part of `ctx.systemPrompt` the service uses; typed here so cordis apps without it compile. */
export interface SystemPromptLike {
  tools(
    provider: (context?: unknown) => {
      readonly schemas: readonly ToolSchema[];
      readonly knownNames?: readonly string[];
    },
  ): () => void;
}
