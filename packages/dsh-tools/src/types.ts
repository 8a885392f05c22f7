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
   * How the model is shown the tools, as the DeepSeek Harness's `mode`: `native` (the default)
   * function definitions; `code` only `run_code` and a generated TypeScript SDK in the prompt
   * (Code Mode; no other tool may be called directly); `both`. Code Mode needs a code runtime
   * (`ctx.codeRuntime`, e.g. `@deepseek-ai/dsh-code-runtime-worker-thread`) and fails loudly at
   * the first prompt assembly without one.
   */
  readonly mode?: 'native' | 'code' | 'both';
  /**
   * How many concurrency-safe tool calls of one `run_code` program may overlap (a positive
   * integer, 10 by default; 1 runs them one at a time). Other calls always run alone.
   */
  readonly maxParallelSubCalls?: number;
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
