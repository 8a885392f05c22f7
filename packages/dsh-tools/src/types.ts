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
}

/** The part of `ctx.systemPrompt` the service uses; typed here so cordis apps without it compile. */
export interface SystemPromptLike {
  tools(provider: () => { readonly schemas: readonly ToolSchema[] }): () => void;
}
