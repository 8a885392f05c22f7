import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { PERMISSION_MODES, type PermissionMode, type PermissionOptions } from '../types';
import { type Policy, workDirectories } from './policy';
import { PermissionRuleError, parseRuleSets } from './rules';

const DEFAULT_APPROVE_TIMEOUT_MS = 300_000;

/** The mode, or a {@link PermissionRuleError} naming the modes there are. */
export const checkMode = (mode: unknown): PermissionMode => {
  if (!PERMISSION_MODES.includes(mode as PermissionMode)) {
    throw new PermissionRuleError(
      `Permission mode ${JSON.stringify(mode)} is not one of ${PERMISSION_MODES.join(', ')}.`,
    );
  }
  return mode as PermissionMode;
};

/** The interceptor's options, read and checked once. */
export interface ReadOptions {
  readonly policy: Policy;
  readonly mode: PermissionMode;
  readonly approveTimeoutMs: number;
  readonly now: () => number;
}

/** Reads the options of a permission interceptor; throws a {@link PermissionRuleError} on a bad one. */
export function readOptions(options: PermissionOptions): ReadOptions {
  if (options === null || typeof options !== 'object') {
    throw new PermissionRuleError('permissionInterceptor: options must be an object.');
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = options.home ?? homedir();
  const rules = parseRuleSets(options.rules, cwd);
  const mode = checkMode(options.mode ?? 'default');
  const additional = (options.additionalDirectories ?? []).map((dir) => {
    if (typeof dir !== 'string' || dir === '')
      throw new PermissionRuleError('additionalDirectories must hold non-empty paths.');
    return resolve(cwd, dir);
  });
  const approveTimeoutMs = options.approveTimeoutMs ?? DEFAULT_APPROVE_TIMEOUT_MS;
  if (!(Number.isFinite(approveTimeoutMs) && approveTimeoutMs >= 0)) {
    throw new PermissionRuleError(
      `approveTimeoutMs must be a number >= 0 (got ${approveTimeoutMs}).`,
    );
  }
  const cacheSize = options.parseCacheSize ?? 256;
  if (!(Number.isInteger(cacheSize) && cacheSize >= 0)) {
    throw new PermissionRuleError(`parseCacheSize must be a whole number >= 0 (got ${cacheSize}).`);
  }
  return {
    policy: {
      rules,
      cwd,
      home,
      workDirs: workDirectories(cwd, additional, home),
      parseCache: { size: cacheSize, entries: new Map() },
    },
    mode,
    approveTimeoutMs,
    now: options.now ?? Date.now,
  };
}
