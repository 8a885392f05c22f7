import { ToolErrorCode as Codes } from '@dsh-tools/protocol';
import { isRecord, kindOf, messageOf, quote } from './describe';
import { readExtensions } from './extensions';
import { EMPTY_ARGS, failure, internalErrorResult, seenOf, UNREADABLE } from './results';
import { abortedOf } from './signal';
import type { CallRequest, Extensions, Failed } from './types';

/**
 * The stage *read the call*: each field of `execute()`'s input read exactly once, inside a `try`
 * (a getter may answer differently the second time, a Proxy may throw), then checked: `callId` and
 * `name` strings, `agent` any value (opaque: passed on by identity, never read), `signal` a real
 * AbortSignal that is not aborted, `arguments` a plain object (`undefined` means `{}`), extension
 * fields plain values. Never throws for any input: once the callId is read, even a failure inside
 * the registry answers with that callId. The success path allocates only the request itself.
 */
export function readCall(raw: unknown): CallRequest | Failed {
  let callId: unknown;
  try {
    if (!isRecord(raw)) {
      return failure(
        UNREADABLE,
        Codes.INVALID_ARGS,
        `execute(): a call must be an object { callId, name, arguments } (got ${kindOf(raw)}).`,
      );
    }
    callId = raw.callId;
  } catch (error) {
    return failure(
      UNREADABLE,
      Codes.INVALID_ARGS,
      `execute(): the call could not be read (${messageOf(error)}).`,
    );
  }
  if (typeof callId !== 'string') {
    return failure(
      UNREADABLE,
      Codes.INVALID_ARGS,
      `execute(): the call's "callId" must be a string (got ${kindOf(callId)}).`,
    );
  }
  try {
    return readFields(raw, callId);
  } catch (error) {
    const exec = seenOf(callId, undefined, EMPTY_ARGS);
    return { failed: internalErrorResult(exec, 'execute()', error), exec };
  }
}

/** The rest of *read the call*, once the callId is known: may throw only on a registry bug. */
function readFields(raw: Record<string, unknown>, callId: string): CallRequest | Failed {
  let name: unknown;
  let args: unknown;
  let agent: unknown;
  let signal: unknown;
  let extensions: Extensions | string | undefined;
  try {
    name = raw.name;
    args = raw.arguments;
    agent = raw.agent;
    signal = raw.signal;
    // The host's own extension fields pass through: a host is trusted (the model only produces
    // arguments), and `ToolExecution` types them on the input.
    extensions = readExtensions(raw);
  } catch (error) {
    return failure(
      seenOf(callId, undefined, EMPTY_ARGS),
      Codes.INVALID_ARGS,
      `execute(): the call ${quote(callId)} could not be read (${messageOf(error)}).`,
    );
  }
  if (typeof name !== 'string') {
    return failure(
      seenOf(callId, name, args),
      Codes.INVALID_ARGS,
      `execute(): the call's tool "name" must be a string (got ${kindOf(name)}).`,
    );
  }
  if (typeof extensions === 'string') {
    return failure(
      seenOf(callId, name, args),
      Codes.INVALID_ARGS,
      `execute(): the call ${quote(callId)}: ${extensions}. Pass the value itself.`,
    );
  }
  if (signal !== undefined) {
    // Only a real AbortSignal (its brand checked by reading `aborted` once, here, through the
    // intrinsic getter): a look-alike's getters and methods could throw or lie at any later step.
    let problem: string | undefined;
    let aborted = false;
    try {
      if (signal instanceof AbortSignal) aborted = abortedOf.call(signal);
      else problem = `got ${kindOf(signal)}`;
    } catch (error) {
      problem = `this one could not be read: ${messageOf(error)}`;
    }
    if (problem !== undefined) {
      return failure(
        seenOf(callId, name, args),
        Codes.INVALID_ARGS,
        `execute(): the call's "signal" must be an AbortSignal (${problem}); pass an AbortController's signal, or leave "signal" out.`,
      );
    }
    if (aborted) {
      return failure(
        seenOf(callId, name, args),
        Codes.ABORTED,
        `The call to tool ${quote(name)} was aborted before it started; nothing ran.`,
      );
    }
  }
  if (args === undefined) args = EMPTY_ARGS;
  if (!isRecord(args)) {
    return failure(
      seenOf(callId, name, args),
      Codes.INVALID_ARGS,
      `Tool ${quote(name)}: the arguments must be a JSON object (got ${kindOf(args)})${
        typeof args === 'string' ? '; parse the JSON text before calling' : ''
      }. Fix the call and retry.`,
    );
  }
  return {
    raw,
    callId,
    name,
    args,
    agent,
    signal: signal as AbortSignal | undefined,
    extensions,
  };
}
