/**
 * What one call carries besides our execution, for the DeepSeek Harness's side of the contract:
 * the identity it mints (`token`, `rootCallId`), what a tool body defers (`deferContext`,
 * `concludeTurn`), the value and presentation a harness-shaped tool produced, and the signals a
 * `tools/execute` wrapper added. It travels on the execution as one extension field (the registry
 * passes extension fields through by identity), so every interceptor and the body see the same one.
 */
import type { ToolErrorCode, ToolExecutionResult } from '@dsh-tools/protocol';
import { isRecord } from './values';

/** The extension field the call's harness state travels under. */
export const HARNESS_CALL: unique symbol = Symbol('dsh-tools.harness-call');

/** Where a harness wrapper's failure keeps its structured code in our `error.details`. */
export const HARNESS_INFO = 'harnessInfo';

/** The harness code a wrapper's failure kept in `error.details`, if any. */
const detailsInfo = (result: ToolExecutionResult): HarnessErrorInfo | undefined => {
  const details: unknown = result.error?.details;
  const info: unknown = isRecord(details) ? details[HARNESS_INFO] : undefined;
  return isRecord(info) && typeof info.name === 'string' && typeof info.code === 'string'
    ? { name: info.name, code: info.code }
    : undefined;
};

/** The structured code of a failure, as the harness reads it at `result.error.info`. */
export interface HarnessErrorInfo {
  readonly name: string;
  readonly code: string;
}

/** The harness's state of one call. */
export interface HarnessCall {
  /** The opaque identity the harness hands nested calls as their `parent`. */
  readonly token: symbol;
  readonly rootCallId: string;
  readonly parent?: symbol;
  /** The calling agent, as the call named it. */
  readonly agent?: unknown;
  /** The signal the caller passed: an abort before the body started is `ABORTED_BEFORE_DISPATCH`. */
  readonly callerSignal?: AbortSignal;
  /** Contexts the body deferred, in order. */
  readonly contexts: unknown[];
  /** Signals `tools/execute` wrappers put in place of `exec.signal`: each can only add an abort. */
  readonly signals: AbortSignal[];
  concludes: boolean;
  /** Whether a tool body started. */
  dispatched: boolean;
  /** The JSON value and presentation of a harness-shaped tool's success. */
  value?: unknown;
  hasValue: boolean;
  meta?: unknown;
  /** The failure's structured code; `null` when the harness would give none (a plain throw). */
  info?: HarnessErrorInfo | null;
  /** Contexts a `tools/post-execute` decision attached, and whether it blocked (only its own stay). */
  decisionContexts?: readonly unknown[];
  blocked: boolean;
  /** Set by a harness policy point (pre-execute, guard, ask, post-execute): the harness gives no info. */
  policyFailure: boolean;
  /** Scheduled by the harness's agent loop: its results carry every code the harness gives. */
  full: boolean;
}

/** A fresh harness state for one call. */
export function createHarnessCall(input: {
  readonly callId: string;
  readonly rootCallId?: unknown;
  readonly parent?: unknown;
  readonly agent?: unknown;
  readonly signal?: AbortSignal | undefined;
}): HarnessCall {
  return {
    token: Symbol('dsh.tool.execution'),
    rootCallId: typeof input.rootCallId === 'string' ? input.rootCallId : input.callId,
    ...(typeof input.parent === 'symbol' && { parent: input.parent }),
    ...(input.agent !== undefined && { agent: input.agent }),
    ...(input.signal !== undefined && { callerSignal: input.signal }),
    contexts: [],
    signals: [],
    concludes: false,
    dispatched: false,
    hasValue: false,
    blocked: false,
    policyFailure: false,
    full: false,
  };
}

/** The harness state a call carries, if it has one. */
export const harnessCallOf = (exec: unknown): HarnessCall | undefined => {
  if (!isRecord(exec)) return undefined;
  const call: unknown = (exec as { [HARNESS_CALL]?: unknown })[HARNESS_CALL];
  return isRecord(call) && typeof (call as { token?: unknown }).token === 'symbol'
    ? (call as unknown as HarnessCall)
    : undefined;
};

/** A result as the harness's agent loop reads it, on top of ours (our fields all stay). */
export interface HarnessShapedResult extends ToolExecutionResult {
  readonly error?: {
    readonly code: ToolErrorCode;
    readonly message: string;
    readonly details?: unknown;
    /** The harness's structured code (`FS_NOT_FOUND`, `ABORTED_BEFORE_DISPATCH`, …). */
    readonly info?: HarnessErrorInfo;
  };
  /** A harness-shaped tool's JSON value (successes only). */
  readonly value?: unknown;
  /** `output.presentationMeta(args, value)`, for UI cards (top-level calls only). */
  readonly meta?: unknown;
  /** Contexts for the next request: deferred by the body, then attached by post-execute. */
  readonly additionalContexts?: readonly unknown[];
  /** The body called `exec.concludeTurn()` and the call succeeded. */
  readonly concludesTurn?: true;
}

/** The harness's info for one of our codes when nothing more specific is known. */
const infoOf = (result: ToolExecutionResult, call: HarnessCall | undefined): HarnessErrorInfo => {
  const code = result.error?.code ?? 'TOOL_ERROR';
  if (code === 'ABORTED') {
    const before = call !== undefined && !call.dispatched;
    return { name: 'AbortError', code: before ? 'ABORTED_BEFORE_DISPATCH' : 'ABORTED' };
  }
  if (code === 'UNKNOWN_TOOL') return { name: 'ToolNotFoundError', code };
  return { name: 'ToolError', code };
};

const freezeShaped = (result: HarnessShapedResult): HarnessShapedResult => {
  if (result.error) Object.freeze(result.error);
  if (result.additionalContexts) Object.freeze(result.additionalContexts);
  return Object.freeze(result);
};

/**
 * One of our results with the harness's fields added: `value`, `meta`, `additionalContexts` and
 * `concludesTurn` when the call produced them, and `error.info`, the harness's code. `full` is for
 * the harness's agent loop, which records `error.info` in its transcript: every failure then has
 * one where the harness gives one (a `HarnessError`'s own, `ABORTED_BEFORE_DISPATCH` when no body
 * started, `UNKNOWN_TOOL`, else ours under `ToolError`), and none where it gives none (a policy's
 * denial, a plain throw). Otherwise only a code the call itself carried (a `HarnessError` thrown
 * by a harness tool, a harness wrapper's failure) is added, so a result stays exactly the
 * standalone registry's. Frozen, like the result it copies.
 */
export function shapeResult(
  result: ToolExecutionResult,
  call: HarnessCall | undefined,
  full = false,
): HarnessShapedResult {
  if (call === undefined) {
    const info = result.isError ? detailsInfo(result) : undefined;
    return info === undefined || result.error === undefined
      ? result
      : freezeShaped({ ...result, error: { ...result.error, info } });
  }
  const contexts = call.blocked ? [] : call.contexts;
  const additional = [...contexts, ...(call.decisionContexts ?? [])];
  if (result.isError) {
    const error = result.error;
    let info: HarnessErrorInfo | undefined;
    if (full) {
      info =
        call.policyFailure || call.info === null
          ? undefined
          : error?.code === 'ABORTED' || call.info === undefined
            ? infoOf(result, call)
            : call.info;
    } else info = isRecord(call.info) ? call.info : detailsInfo(result);
    if (info === undefined && additional.length === 0) return result;
    return freezeShaped({
      ...result,
      ...(error !== undefined && info !== undefined && { error: { ...error, info } }),
      ...(additional.length > 0 && { additionalContexts: additional }),
    });
  }
  if (!call.hasValue && call.meta === undefined && additional.length === 0 && !call.concludes) {
    return result;
  }
  return freezeShaped({
    ...result,
    ...(call.hasValue && { value: call.value }),
    ...(call.meta !== undefined && { meta: call.meta }),
    ...(additional.length > 0 && { additionalContexts: additional }),
    ...(call.concludes && { concludesTurn: true as const }),
  });
}
