export { findBwrap } from './find-bwrap';
export { DEFAULT_LIMITS } from './limits';
export {
  DEFAULT_DENY_READ,
  DEFAULT_DENY_WRITE,
  DEFAULT_ENV_ALLOWLIST,
} from './options';
export type { DenyRule, PathViolation } from './policy';
export { requireSandbox } from './require-sandbox';
export { MAX_SYMLINKS, NAME_MAX, PATH_MAX, resolveLikeKernel } from './resolve-path';
export { createSandboxRunner } from './runner';
export { type SandboxViolationDetails, sandboxInterceptor } from './sandbox-interceptor';
export { describeSeccomp, SECCOMP_REFUSED } from './seccomp';
export { escapeControls } from './terminal-output';
export type {
  SandboxDescription,
  SandboxLimitHit,
  SandboxLimits,
  SandboxMaskScanOptions,
  SandboxMode,
  SandboxNarrowing,
  SandboxOptions,
  SandboxRunner,
  SandboxRunOptions,
  SandboxRunResult,
} from './types';
