import {
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type ToolArgs,
  type ToolErrorCode,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { Violation } from '@dsh-tools/schema';
import { messageOf, quote } from './describe';
import type { CallRequest, CallState, Failed } from './types';

// The results and records more than one stage makes: here, so that no stage imports another.

/** The arguments of a call that sent none. */
export const EMPTY_ARGS: ToolArgs = Object.freeze({});

/** What observers are shown of a call whose callId could not be read. */
export const UNREADABLE: ToolExecution = Object.freeze({
  callId: '',
  name: '',
  arguments: EMPTY_ARGS,
});

/** What a whole-call deadline's `TIMEOUT` names while the body runs. */
export const BODY = 'the tool body';

/** A call that failed before dispatch, as a result and what observers are shown of the call. */
export const failure = (
  exec: ToolExecution,
  code: ToolErrorCode,
  message: string,
  details?: unknown,
): Failed => ({ failed: errorResult(exec.callId, code, message, details), exec });

/** What observers are shown of a call that fails after its callId (and perhaps name) was read. */
export const seenOf = (callId: string, name: unknown, args: unknown): ToolExecution => ({
  callId,
  name: typeof name === 'string' ? name : '',
  arguments: args as ToolArgs,
});

/**
 * What observers are shown of a call refused or failed after it was read: the call as the caller
 * gave it, its agent and the host's extension fields included (an audit trail's observer names
 * who made a refused call, as it does for one that ran).
 */
export const seenOfRequest = (request: CallRequest): ToolExecution => ({
  ...request.extensions,
  ...seenOf(request.callId, request.name, request.args),
  ...(request.agent !== undefined && { agent: request.agent as ToolExecution['agent'] }),
});

/**
 * The result of a failure inside the registry itself (a bug, or a hostile object that slipped
 * past every check): the call keeps its callId when it was read, and says so.
 */
export const internalErrorResult = (
  exec: ToolExecution,
  where: string,
  error: unknown,
): ToolExecutionResult =>
  errorResult(
    exec.callId,
    Codes.TOOL_ERROR,
    `${where}: internal error in the registry${exec.name ? ` (tool ${quote(exec.name)})` : ''}: ${messageOf(error)}. Whether the tool ran is unknown; please report this bug to @dsh-tools/registry.`,
  );

const formatViolations = (violations: readonly Violation[], more: number): string => {
  const parts = violations.map((v) =>
    v.path === ''
      ? `the arguments ${v.message}`
      : `argument ${quote(v.path.slice(1))} ${v.message}`,
  );
  if (more > 0) parts.push(`and ${more} more`);
  return parts.join('; ');
};

/** `INVALID_ARGS` listing every violation with its path, so a model fixes its call in one retry. */
export const invalidArgs = (
  callId: string,
  tool: string,
  check: { readonly violations: readonly Violation[]; readonly more: number },
  preface = 'invalid arguments',
): ToolExecutionResult =>
  errorResult(
    callId,
    Codes.INVALID_ARGS,
    `Tool "${tool}": ${preface}: ${formatViolations(check.violations, check.more)}. Fix the call and retry.`,
    { violations: check.violations, more: check.more },
  );

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
