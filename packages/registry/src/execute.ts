import {
  ToolErrorCode as Codes,
  errorResult,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { Span } from '@opentelemetry/api';
import { boundCall } from './bound-call';
import { Call, callOf } from './call';
import { quote } from './describe';
import type { InFlight } from './in-flight';
import { promiseThen } from './intrinsics';
import { readCall } from './read-call';
import { resolveTool } from './resolve-tool';
import { freezeResult, internalErrorResult, seenOfRequest, UNREADABLE } from './results';
import type { BodyLimits } from './run-body';
import type { InterceptorChain } from './run-interceptors';
import { isAborted } from './signal';
import type { CallRequest, Failed, Prepared, RegisteredTool } from './types';
import { validateArguments } from './validate-arguments';

/** What one registry gives each of its calls: its tools, its calls in flight, its chain, its limits. */
export interface Calls {
  readonly tools: ReadonlyMap<string, RegisteredTool>;
  /** Calls between dispatch and result, by callId: a callId is in flight at most once. */
  readonly inflight: InFlight;
  readonly chain: InterceptorChain;
  readonly limits: BodyLimits;
  /** The stage *tell the observers*: the final result frozen, the `result` observers told. */
  readonly tell: (result: ToolExecutionResult, exec: ToolExecution) => ToolExecutionResult;
  /** The call's span, when one records it (`trace.ts`). */
  readonly span?: Span;
}

/**
 * One call, every stage in order: *read the call*, *resolve the tool*, *validate the arguments*
 * (a {@link Call} is made), then {@link dispatch}: *bound the call*, *run the interceptors*, *run
 * the body*, *assemble the result*, *tell the observers*. Never throws, never rejects: every
 * outcome, from a malformed call to a hung body, is a result.
 */
export function execute(calls: Calls, raw: unknown): Promise<ToolExecutionResult> {
  let request: CallRequest | undefined;
  try {
    const read = readCall(raw);
    if ('failed' in read) return Promise.resolve(calls.tell(read.failed, read.exec));
    request = read;
    const ready = prepare(calls, read);
    if (ready instanceof Promise) {
      const known = read;
      return ready
        .then((call) => settle(calls, call))
        .catch((error: unknown) => internalError(calls, seenOfRequest(known), 'execute()', error));
    }
    return Promise.resolve(settle(calls, ready));
  } catch (error) {
    // Every stage contains what it knows can fail; this keeps "never rejects" true regardless.
    return Promise.resolve(
      internalError(calls, request && seenOfRequest(request), 'execute()', error),
    );
  }
}

/**
 * *Resolve the tool* and *validate the arguments* of a call that was read: the {@link Call}, or
 * why it failed. Synchronous unless a Standard Schema validator answers with a promise (or a big
 * schema is still compiling).
 */
export function prepare(
  calls: Calls,
  request: CallRequest,
): Call | Failed | Promise<Call | Failed> {
  const entry = resolveTool(calls.tools, request);
  if ('failed' in entry) return entry;
  const { limits } = calls;
  const checked = validateArguments(entry, request.callId, request.args, limits.report);
  return checked instanceof Promise
    ? checked.then((outcome) => made(request, callOf(request, entry, outcome, limits)))
    : made(request, callOf(request, entry, checked, limits));
}

const made = (request: CallRequest, call: Call | ToolExecutionResult): Call | Failed =>
  call instanceof Call ? call : { failed: call, exec: seenOfRequest(request) };

/**
 * A prepared call dispatched: its callId in flight at most once, then run (within its whole-call
 * deadline, if any), then the observers told. Never rejects. Not an async function: the call's
 * one reaction here takes it off the in-flight map, assembles what its interceptors produced
 * (stage 7, without a promise of its own) and tells the observers.
 */
export function dispatch(calls: Calls, call: Call): Promise<ToolExecutionResult> {
  const { exec } = call;
  const { inflight } = calls;
  try {
    if (inflight.has(exec.callId)) {
      return Promise.resolve(calls.tell(duplicateCall(exec), exec));
    }
    if (isAborted(call.deadline ? call.deadline.caller : call.signal)) {
      return Promise.resolve(
        calls.tell(
          errorResult(
            exec.callId,
            Codes.ABORTED,
            `The call to tool "${exec.name}" was aborted before it started; nothing ran.`,
          ),
          exec,
        ),
      );
    }
    inflight.set(exec.callId, call);
    if (calls.span !== undefined) call.span = calls.span;
    const { chain } = calls;
    let running: Promise<ToolExecutionResult>;
    // Whether `running` is the chain's own promise, which stage 7 has still to assemble.
    let raw = false;
    try {
      if (call.deadline) {
        running = boundCall(call, call.deadline, () => call.run(chain), calls.limits.report);
      } else if (chain.size === 0) {
        running = call.runBody(call);
      } else {
        running = call.runChain(chain);
        raw = true;
      }
    } catch (error) {
      inflight.delete(exec.callId);
      throw error;
    }
    return promiseThen.call(
      running,
      (produced: ToolExecutionResult) => {
        inflight.delete(exec.callId);
        try {
          return calls.tell(raw ? call.assemble(produced) : produced, exec);
        } catch (error) {
          return internalError(calls, exec, 'execute()', error);
        }
      },
      (error: unknown) => {
        inflight.delete(exec.callId);
        // Only the chain's own promise rejects by design (a misuse of `next()`); anything else
        // that rejects here is the registry's own failure.
        if (!raw) return internalError(calls, exec, 'execute()', error);
        try {
          return calls.tell(call.chainFailed(error), exec);
        } catch (again) {
          return internalError(calls, exec, 'execute()', again);
        }
      },
    ) as Promise<ToolExecutionResult>;
  } catch (error) {
    // Every stage contains what it knows can fail; this keeps "never rejects" true regardless.
    return Promise.resolve(internalError(calls, exec, 'execute()', error));
  }
}

/** A prepared call dispatched, or a failed one told to the observers. */
const settle = (
  calls: Calls,
  ready: Call | Failed,
): ToolExecutionResult | Promise<ToolExecutionResult> =>
  'failed' in ready ? calls.tell(ready.failed, ready.exec) : dispatch(calls, ready);

/** An internal failure as the call's result, observers told (if even that fails, just frozen). */
function internalError(
  calls: Calls,
  exec: ToolExecution | undefined,
  where: string,
  error: unknown,
): ToolExecutionResult {
  const seen = exec ?? UNREADABLE;
  const result = internalErrorResult(seen, where, error);
  try {
    return calls.tell(result, seen);
  } catch {
    return freezeResult(result);
  }
}

/**
 * *Read the call*, *resolve the tool* and *validate the arguments* for one call of a turn
 * (`executeAll`); an internal failure becomes that call's own result. Never rejects.
 */
export async function prepareInTurn(calls: Calls, raw: unknown): Promise<Prepared | Failed> {
  let request: CallRequest | undefined;
  try {
    const read = readCall(raw);
    if ('failed' in read) return read;
    request = read;
    return await prepare(calls, read);
  } catch (error) {
    const exec = request ? seenOfRequest(request) : UNREADABLE;
    return { failed: internalErrorResult(exec, 'executeAll()', error), exec };
  }
}

/**
 * Dispatches one prepared call of a turn, from the start again if its tool changed (or its caller
 * aborted) while earlier calls of the turn ran. Never rejects.
 */
export function dispatchInTurn(calls: Calls, prepared: Prepared): Promise<ToolExecutionResult> {
  if (
    prepared instanceof Call &&
    calls.tools.get(prepared.entry.name) === prepared.entry &&
    !isAborted(prepared.signal)
  ) {
    return dispatch(calls, prepared);
  }
  return execute(calls, prepared.raw);
}

/** A call whose callId is already in flight in this registry: refused, nothing ran. */
const duplicateCall = (exec: ToolExecution): ToolExecutionResult =>
  errorResult(
    exec.callId,
    Codes.INVALID_ARGS,
    `execute(): a call with callId ${quote(exec.callId)} is already in flight in this registry; nothing ran. Give every call its own callId (the model's tool-call id).`,
  );
