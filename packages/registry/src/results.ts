import {
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { CallState } from './types';

/** Results are the registry's own objects (interceptors' results are copied), so freezing is safe. */
export const freezeResult = (result: ToolExecutionResult): ToolExecutionResult => {
  if (Object.isFrozen(result)) return result;
  Object.freeze(result.content);
  if (result.error) Object.freeze(result.error);
  return Object.freeze(result);
};

/**
 * Freezes a result the registry made or checked, and records it as the call's latest: an
 * interceptor that hands back exactly this object returns what `next()` resolved with, which is
 * not checked again.
 */
export const keep = (state: CallState, result: ToolExecutionResult): ToolExecutionResult => {
  const kept = freezeResult(result);
  state.last = kept;
  return kept;
};

/** `INTERCEPTOR_ERROR` naming the interceptor at fault and the tool whose call fails closed. */
export const interceptorError = (
  exec: ToolExecution,
  interceptor: string,
  what: string,
): ToolExecutionResult =>
  errorResult(
    exec.callId,
    Codes.INTERCEPTOR_ERROR,
    `Interceptor "${interceptor}" ${what}; the call to tool "${exec.name}" fails closed.`,
  );

/**
 * An interceptor broke a rule the registry enforces (a rule of tools, not of `next()`: those are
 * the waterfall's). The first misuse of a call decides its result, whatever an outer interceptor
 * makes of it.
 */
export const misuse = (
  state: CallState,
  exec: InterceptedExecution,
  interceptor: string,
  what: string,
): ToolExecutionResult => {
  const result = keep(state, interceptorError(exec, interceptor, what));
  state.misuse ??= result;
  return result;
};

/**
 * Under a whole-call deadline: an interceptor (or the body) is no longer pending, so its latest
 * entry leaves the list that a `TIMEOUT` names the pending one from.
 */
export const settledIn = (pending: string[], name: string): void => {
  const at = pending.lastIndexOf(name);
  if (at !== -1) pending.splice(at, 1);
};
