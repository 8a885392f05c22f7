export { CLAUDE_CODE_TOOL_HINTS, exampleExecution } from './decide/examples';
export { PermissionRuleError } from './decide/rules';
export { createPermissionGrant } from './grants/book';
export {
  createJsonFileGrantStore,
  createMemoryGrantStore,
  createMemorySharedGrantStore,
  GrantStoreError,
} from './grants/store';
export { permissionInterceptor } from './interceptor';
export {
  type ClaudeSettings,
  type ClaudeSettingsFile,
  type ClaudeSettingsOptions,
  loadClaudeSettings,
} from './settings';
export {
  analyzeShellCommand,
  type ShellCommandAnalysis,
} from './shell/api';
export { loadShellParser } from './shell/parser';
export {
  type DecidedBy,
  type GrantOrigin,
  type GrantSpend,
  type GrantStore,
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionExample,
  type PermissionExamples,
  type PermissionGrant,
  type PermissionInterceptor,
  type PermissionMode,
  type PermissionOptions,
  type PermissionRuleSet,
  type PermissionRules,
  type RuleBehavior,
  type RuleOrigin,
  type SharedGrantStore,
  type TrailEntry,
} from './types';
