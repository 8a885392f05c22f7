export { DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS } from './config';
export { HOOKS_META_KEY, hooksInterceptor } from './interceptor';
export { compileMatcher, type ToolMatcher } from './matcher';
export { mergeDecisions } from './merge';
export { DEFAULT_APPROVE_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES } from './options';
export { type ClaudeCodeSettingsPaths, loadClaudeCodeHooks } from './settings';
export type {
  HookCommandConfig,
  HookDecision,
  HookDenialDetails,
  HookErrorPolicy,
  HookEvent,
  HookFeedbackMeta,
  HookIdentity,
  HookMatcherConfig,
  HookRunRecord,
  HookRunStatus,
  HooksConfig,
  HooksConfigSource,
  HooksInterceptorOptions,
} from './types';
