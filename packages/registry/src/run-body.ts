import {
  type BodyExecution,
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { messageOf } from './describe';
import { asToolError, resultFromOutput } from './output';
import { BODY, keep, settledIn } from './results';
import { type DeadlineOutcome, runWithDeadline, type Timers } from './run-with-deadline';
import { isAborted } from './signal';
import type { CallState, Extensions, RegisteredTool, Report } from './types';

/** What the body stage needs of the registry's options. */
export interface BodyLimits {
  /** The registry's default time limit (ms, 0 for none); a definition's `timeoutMs` wins. */
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly report: Report;
  readonly timers?: Timers;
}

/**
 * Where a body execution's signal comes from, on the first read of `exec.signal`: a function (under
 * a deadline), or the bare call's state, whose controller is made then (no closure per call).
 */
type SignalSource = (() => AbortSignal) | CallState;

/**
 * Stamps a private slot onto a plain object (a base constructor that returns the object it is
 * given makes `new` add the subclass's private field to that object): the body execution keeps
 * its plain prototype and shows no extra field, yet its signal getter finds its source.
 */
class Base {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the point of the class, see above
    return target;
  }
}
class WithSignal extends Base {
  #source: SignalSource;
  constructor(target: object, source: SignalSource) {
    super(target);
    this.#source = source;
  }
  static read(target: object): AbortSignal {
    if (!(#source in target)) throw new TypeError('signal: not a tool body execution');
    const source = (target as WithSignal).#source;
    if (typeof source === 'function') return source();
    source.controller ??= new AbortController();
    return source.controller.signal;
  }
}

/**
 * The `signal` of every body execution: one accessor shared by all, defined on each as an own
 * property. An accessor written in an object literal makes two closures per call, and V8 keeps
 * such objects long enough to promote them (with all they hold) to the old generation: measured,
 * that cost more than the rest of a bare call. A shared accessor costs neither.
 */
const SIGNAL: PropertyDescriptor = {
  get(this: object): AbortSignal {
    return WithSignal.read(this);
  },
  enumerable: true,
  configurable: true,
};

/**
 * The execution a body receives: the intercepted one (extension fields included), with a signal
 * made on first read. The getter is an own property, so a body that spreads `exec` keeps its
 * signal. Not frozen: the object is the body's alone (its arguments and tool view are frozen), and
 * freezing an object with an accessor costs a third of its making.
 */
const bodyExecution = (
  exec: InterceptedExecution,
  extensions: Extensions | undefined,
  signal: SignalSource,
): BodyExecution => {
  const made =
    extensions !== undefined
      ? {
          ...extensions,
          callId: exec.callId,
          name: exec.name,
          arguments: exec.arguments,
          ...(exec.agent !== undefined && { agent: exec.agent }),
          tool: exec.tool,
        }
      : exec.agent === undefined
        ? { callId: exec.callId, name: exec.name, arguments: exec.arguments, tool: exec.tool }
        : {
            callId: exec.callId,
            name: exec.name,
            arguments: exec.arguments,
            agent: exec.agent,
            tool: exec.tool,
          };
  new WithSignal(made, signal);
  Object.defineProperty(made, 'signal', SIGNAL);
  return made as unknown as BodyExecution;
};

/** A thrown value as a result: a `ToolError` keeps its code, anything else is `TOOL_ERROR`. */
const resultFromThrow = (tool: string, callId: string, error: unknown): ToolExecutionResult => {
  const coded = asToolError(error);
  return coded
    ? errorResult(callId, coded.code, coded.message, coded.details)
    : errorResult(callId, Codes.TOOL_ERROR, `Tool "${tool}" failed: ${messageOf(error)}`);
};

/** Starts a body: a synchronous throw becomes a rejection, a plain return a resolved promise. */
const startBody = (
  entry: RegisteredTool,
  exec: InterceptedExecution,
  bodyExec: BodyExecution,
): Promise<unknown> => {
  try {
    return Promise.resolve(entry.execute(exec.arguments, bodyExec));
  } catch (error) {
    return Promise.reject(error);
  }
};

/**
 * The stage *run the body*: the tool's `execute` with the intercepted execution, its outcome turned
 * into a result (content blocks or `{ content, structuredContent }`; anything else is
 * `INVALID_OUTPUT`, a throw `TOOL_ERROR` or the `ToolError`'s code), frozen and kept as the call's
 * latest result (what the innermost `next()` resolves with), its output bounded by
 * `maxOutputBytes`. A caller signal aborted by now, or a tool unregistered by now, means nothing
 * runs (`ABORTED`). A body with no time limit and no caller signal runs bare ({@link runBare});
 * otherwise under {@link runWithDeadline}: on a timeout, an abort or the tool's unregistering its
 * signal aborts, and after the grace the call resolves `TIMEOUT` / `ABORTED` even if the body
 * ignores it. Never rejects.
 */
export function runBody(
  state: CallState,
  exec: InterceptedExecution,
  extensions: Extensions | undefined,
  limits: BodyLimits,
): Promise<ToolExecutionResult> {
  const { entry, signal: caller } = state;
  const { callId } = exec;
  if (isAborted(caller) || entry.retired) {
    // Nothing runs: the caller gave up while an interceptor held the call, or the tool is gone.
    const why = entry.retired
      ? `Tool "${entry.name}" was unregistered before it ran; nothing ran. It is no longer available.`
      : `The call to tool "${entry.name}" was aborted before the tool ran; nothing ran.`;
    return Promise.resolve(keep(state, errorResult(callId, Codes.ABORTED, why)));
  }
  const limit = entry.timeoutMs ?? limits.timeoutMs;
  const { pending } = state;
  if (pending) pending.push(BODY);
  if (limit <= 0 && !caller) {
    // Only unregistering can stop this call: no timers, no listeners until it does.
    return runBare(state, entry, exec, extensions, limits);
  }
  const ran = runWithDeadline(
    (signal) => startBody(entry, exec, bodyExecution(exec, extensions, signal)),
    {
      milliseconds: limit,
      graceMs: limits.graceMs,
      signal: caller,
      timeoutReason: () =>
        new DOMException(`Tool "${entry.name}" timed out after ${limit} ms`, 'TimeoutError'),
      onLate: (settled, stoppedBy) => {
        const late =
          settled.status === 'rejected'
            ? settled.reason
            : new Error(
                `Tool "${entry.name}" returned after its call had already resolved ${
                  stoppedBy === 'timeout'
                    ? Codes.TIMEOUT
                    : stoppedBy === undefined
                      ? 'as finished'
                      : Codes.ABORTED
                }; the output was discarded.`,
              );
        limits.report(late, { kind: 'late-settlement', tool: entry.name, callId });
      },
      ...(limits.timers !== undefined && { timers: limits.timers }),
      // Unregistering the tool stops its running calls (the registry's disposer calls it).
      control: state,
    },
  );
  return ran.then((outcome) => {
    if (pending) settledIn(pending, BODY);
    return keep(state, resultOf(outcome, entry, callId, limit));
  });
}

/**
 * A body with no time limit and no caller signal, the common case, run bare: an async function,
 * without {@link runWithDeadline}'s timers, listeners and closures (measured: that machinery costs
 * more than the rest of such a call). Its signal is made on first read. Unregistering the tool
 * stops it ({@link stopBare}): the signal aborts, and the call resolves `ABORTED` when the body
 * settles, whatever it returns (its output is discarded and reported). Unlike under a deadline
 * there is no grace timer: a body that ignores its signal holds its call until it returns; give
 * the tool a `timeoutMs` to bound that too.
 */
async function runBare(
  state: CallState,
  entry: RegisteredTool,
  exec: InterceptedExecution,
  extensions: Extensions | undefined,
  limits: BodyLimits,
): Promise<ToolExecutionResult> {
  const { callId } = exec;
  state.stop = stopBare;
  const bodyExec = bodyExecution(exec, extensions, state);
  let result: ToolExecutionResult;
  let outcome: unknown;
  try {
    outcome = await entry.execute(exec.arguments, bodyExec);
    result = resultFromOutput(entry.name, callId, outcome, entry.maxOutputBytes);
  } catch (error) {
    outcome = error;
    result = resultFromThrow(entry.name, callId, error);
  }
  state.stop = undefined;
  if (state.controller?.signal.aborted) {
    if (!result.isError) {
      limits.report(
        new Error(
          `Tool "${entry.name}" returned after it was unregistered; the output was discarded.`,
        ),
        { kind: 'late-settlement', tool: entry.name, callId },
      );
    }
    result = unregisteredResult(entry, callId);
  }
  if (state.pending) settledIn(state.pending, BODY);
  return keep(state, result);
}

/** How unregistering stops a bare body: called as `state.stop(reason)`, so it needs no closure. */
function stopBare(this: CallState, reason: unknown): void {
  this.controller ??= new AbortController();
  if (!this.controller.signal.aborted) this.controller.abort(reason);
}

/** The result of a call stopped because its tool was unregistered. */
const unregisteredResult = (entry: RegisteredTool, callId: string): ToolExecutionResult =>
  errorResult(
    callId,
    Codes.ABORTED,
    `Tool "${entry.name}" was unregistered while this call ran; its signal was aborted. The tool is no longer available.`,
  );

/**
 * A deadline outcome as the call's result. Outside `runBody`: a function declared inside it would
 * be made on every call, including the common ones that never need it.
 */
function resultOf(
  outcome: DeadlineOutcome<unknown>,
  entry: RegisteredTool,
  callId: string,
  limit: number,
): ToolExecutionResult {
  switch (outcome.status) {
    case 'fulfilled':
      return resultFromOutput(entry.name, callId, outcome.value, entry.maxOutputBytes);
    case 'rejected':
      return resultFromThrow(entry.name, callId, outcome.reason);
    case 'stopped':
      return outcome.by === 'timeout'
        ? errorResult(
            callId,
            Codes.TIMEOUT,
            `Tool "${entry.name}" did not finish within ${limit} ms and was stopped. Retry with a smaller request, or raise the tool's timeoutMs.`,
          )
        : outcome.by === 'stop'
          ? unregisteredResult(entry, callId)
          : errorResult(
              callId,
              Codes.ABORTED,
              `The call to tool "${entry.name}" was aborted by the caller.`,
            );
    default:
      return errorResult(
        callId,
        Codes.INVALID_ARGS,
        `The call to tool "${entry.name}" could not listen to its signal (${messageOf(outcome.reason)}); nothing ran. Pass an AbortController's signal.`,
      );
  }
}
