import { randomUUID } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { quoteValue } from '@dsh-tools/policy-kit';
import type { Approver } from '@dsh-tools/protocol';
import { type ResolvedHooks, resolveHooksOption } from './config';
import type { HookRunRecord, HooksInterceptorOptions } from './types';

/** Default cap on each of a hook's stdout and stderr. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;

/** How long an `ask` waits for the approver by default, as the permission interceptor does. */
export const DEFAULT_APPROVE_TIMEOUT_MS = 300_000;

const MAX_OUTPUT_BYTES_LIMIT = 256 * 1_048_576;

/** The options, validated and read once, with their defaults applied. */
export interface Settings {
  readonly hooks: ResolvedHooks;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly sessionId: string;
  readonly permissionMode: string;
  readonly transcriptPath: string;
  readonly approve: Approver | undefined;
  readonly approveTimeoutMs: number;
  readonly maxOutputBytes: number;
  readonly onHookRun: ((record: HookRunRecord) => void) | undefined;
}

const optionError = (name: string, value: unknown, expected: string): TypeError =>
  new TypeError(
    `hooksInterceptor: option "${name}" is ${quoteValue(value)}; expected ${expected}.`,
  );

/**
 * Validates the options of `hooksInterceptor` once, at creation, reading each field exactly once
 * (a getter or Proxy trap that throws becomes a `TypeError`), so that a bad option fails at
 * start-up with a message that quotes it instead of at the first tool call.
 */
export const readOptions = (options: HooksInterceptorOptions): Settings => {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new TypeError(
      `hooksInterceptor: options are ${quoteValue(options)}; expected { hooks, cwd?, sessionId?, permissionMode?, transcriptPath?, approve?, … }.`,
    );
  }
  let raw: Record<string, unknown>;
  try {
    const o = options as unknown as Record<string, unknown>;
    raw = {
      hooks: o.hooks,
      cwd: o.cwd,
      projectDir: o.projectDir,
      sessionId: o.sessionId,
      permissionMode: o.permissionMode,
      transcriptPath: o.transcriptPath,
      approve: o.approve,
      approveTimeoutMs: o.approveTimeoutMs,
      env: o.env,
      maxOutputBytes: o.maxOutputBytes,
      onHookRun: o.onHookRun,
    };
  } catch (error) {
    throw new TypeError(
      `hooksInterceptor: options could not be read (${error instanceof Error ? error.message : String(error)}); pass a plain object.`,
    );
  }
  if (raw.hooks === undefined) {
    throw optionError(
      'hooks',
      raw.hooks,
      'the "hooks" block of Claude Code settings ({ "PreToolUse": [ … ], "PostToolUse": [ … ] }) or what loadClaudeCodeHooks() returns',
    );
  }
  const hooks = resolveHooksOption(raw.hooks);
  const text = (name: string, fallback: string, allowEmpty = true): string => {
    const value = raw[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || (!allowEmpty && value === '') || value.includes('\0')) {
      throw optionError(name, value, allowEmpty ? 'a string' : 'a non-empty string');
    }
    return value;
  };
  const cwd = resolvePath(text('cwd', process.cwd(), false));
  const projectDir = resolvePath(cwd, text('projectDir', cwd, false));
  const fn = <F>(name: string): F | undefined => {
    const value = raw[name];
    if (value !== undefined && typeof value !== 'function') {
      throw optionError(name, value, 'a function');
    }
    return value as F | undefined;
  };
  const extraEnv: Record<string, string> = {};
  if (raw.env !== undefined) {
    if (typeof raw.env !== 'object' || raw.env === null || Array.isArray(raw.env)) {
      throw optionError('env', raw.env, 'an object of string values');
    }
    for (const [key, value] of Object.entries(raw.env)) {
      if (typeof value !== 'string' || key === '' || key.includes('=') || key.includes('\0')) {
        throw optionError(`env.${key}`, value, 'a string value under a valid variable name');
      }
      extraEnv[key] = value;
    }
  }
  const max = raw.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (
    typeof max !== 'number' ||
    !Number.isInteger(max) ||
    max < 1 ||
    max > MAX_OUTPUT_BYTES_LIMIT
  ) {
    throw optionError('maxOutputBytes', max, `an integer from 1 to ${MAX_OUTPUT_BYTES_LIMIT}`);
  }
  const approveTimeoutMs = raw.approveTimeoutMs ?? DEFAULT_APPROVE_TIMEOUT_MS;
  if (
    typeof approveTimeoutMs !== 'number' ||
    !Number.isInteger(approveTimeoutMs) ||
    approveTimeoutMs < 0 ||
    approveTimeoutMs > 2_147_483_647
  ) {
    throw optionError(
      'approveTimeoutMs',
      approveTimeoutMs,
      'an integer number of milliseconds from 0 (no limit) to 2147483647',
    );
  }
  return {
    hooks,
    cwd,
    env: { ...process.env, CLAUDE_PROJECT_DIR: projectDir, ...extraEnv },
    sessionId: text('sessionId', randomUUID()),
    permissionMode: text('permissionMode', 'default'),
    transcriptPath: text('transcriptPath', ''),
    approve: fn<Approver>('approve'),
    approveTimeoutMs,
    maxOutputBytes: max,
    onHookRun: fn<(record: HookRunRecord) => void>('onHookRun'),
  };
};
