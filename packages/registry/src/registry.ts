import {
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type ToolChangeEvent,
  type ToolExecution,
  type ToolExecutionResult,
  type ToolSchema,
} from '@dsh-tools/protocol';
import { readBudget } from '@dsh-tools/schema';
import { createEmitter } from '@dsh-tools/waterfall';
import { assembleResult, internalErrorResult } from './assemble-result';
import { boundCall, callDeadline } from './bound-call';
import { DEFAULT_MAX_OUTPUT_BYTES } from './bound-output';
import { readDefinition, timeLimitProblem } from './definition';
import { kindOf, quote } from './describe';
import { executeAll } from './execute-all';
import { readCall, seenOf, UNREADABLE } from './read-call';
import { resolveTool } from './resolve-tool';
import { freezeResult } from './results';
import { type BodyLimits, runBody } from './run-body';
import { chainFailure, createInterceptorChain } from './run-interceptors';
import { isAborted } from './signal';
import type {
  CallRequest,
  Checked,
  ExecuteAllOptions,
  Failed,
  Hop,
  InterceptorOptions,
  Prepared,
  RegisteredTool,
  RegistryErrorInfo,
  ToolRegistry,
  ToolRegistryOptions,
} from './types';
import { validateArguments } from './validate-arguments';

const DEFAULT_GRACE_MS = 100;
const DEFAULT_CONCURRENCY = 10;

const defaultOnError = (error: unknown, info: RegistryErrorInfo): void => {
  const where = [info.tool && `tool "${info.tool}"`, info.callId && `call ${quote(info.callId)}`]
    .filter(Boolean)
    .join(', ');
  console.warn(`[@dsh-tools/registry] ${info.kind}${where ? ` (${where})` : ''}:`, error);
};

const checkLimit = (value: unknown, fallback: number, what: string, min: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < min) {
    throw new TypeError(
      `createToolRegistry(): "${what}" must be a number >= ${min} (got ${String(value)}).`,
    );
  }
  return value;
};

/** A time limit option: at most what a Node timer holds (a longer one would fire after 1 ms). */
const checkTime = (value: unknown, fallback: number, what: string, zero: string): number => {
  if (value === undefined) return fallback;
  const problem = timeLimitProblem(value, zero);
  if (problem) throw new TypeError(`createToolRegistry(): "${what}" ${problem}.`);
  return value as number;
};

/** What `onError` is told of an observer that failed while a call's result was being told. */
const observed = (exec: ToolExecution | undefined): RegistryErrorInfo =>
  exec === undefined
    ? { kind: 'observer' }
    : { kind: 'observer', tool: exec.name, callId: exec.callId };

/** Why a tool's running calls stop when it is unregistered: their signals' reason. */
const unregistered = (tool: string): DOMException =>
  new DOMException(`Tool "${tool}" was unregistered while the call ran`, 'AbortError');

/** A call whose callId is already in flight in this registry: refused, nothing ran. */
const duplicateCall = (exec: ToolExecution): ToolExecutionResult =>
  errorResult(
    exec.callId,
    Codes.INVALID_ARGS,
    `execute(): a call with callId ${quote(exec.callId)} is already in flight in this registry; nothing ran. Give every call its own callId (the model's tool-call id).`,
  );

/** What observers are shown of a call that failed inside the registry after it was read. */
const seenOfRequest = (request: CallRequest): ToolExecution =>
  seenOf(request.callId, request.name, request.args);

/**
 * The call, ready: its execution frozen with the tool view attached (extension fields under the
 * registry's own), and the state its dispatch shares, in one object.
 */
const preparedCall = (
  request: CallRequest,
  entry: RegisteredTool,
  checked: ToolExecutionResult | Checked,
): Prepared | Failed => {
  if (!('value' in checked)) {
    return { failed: checked, exec: seenOfRequest(request) };
  }
  const { callId, name, agent, extensions } = request;
  const deadline = callDeadline(entry.callTimeoutMs, request.signal);
  const signal = deadline ? deadline.controller.signal : request.signal;
  const fields = {
    callId,
    name,
    arguments: checked.value,
    ...(agent !== undefined && { agent }),
    ...(signal !== undefined && { signal }),
    tool: entry.view,
  };
  // Extension fields are rare: a literal that starts with a spread is built field by field.
  const exec: InterceptedExecution = Object.freeze(
    extensions === undefined ? fields : { ...extensions, ...fields },
  );
  return {
    raw: request.raw,
    exec,
    extensions,
    entry,
    signal,
    original: checked.value,
    effective: checked.value,
    misuse: undefined,
    last: undefined,
    stop: undefined,
    controller: undefined,
    pending: deadline ? [] : undefined,
    deadline,
  };
};

/**
 * Creates a tool registry: tools are registered with their schema and executor, and every call
 * goes through one pipeline of stages, each in its own file: read the call, resolve the tool,
 * validate the arguments, run the interceptors, run the body, assemble the result, tell the
 * observers (and, for a turn, schedule the calls). The pipeline never throws: every outcome, from
 * a malformed call to a hung body, is a result.
 */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const defaultTimeout = checkTime(options.timeoutMs, 0, 'timeoutMs', '0 for no limit');
  const grace = checkTime(
    options.timeoutGraceMs,
    DEFAULT_GRACE_MS,
    'timeoutGraceMs',
    '0 to resolve at once',
  );
  const callTimeoutMs = checkTime(options.callTimeoutMs, 0, 'callTimeoutMs', '0 for none');
  const maxOutputBytes = Math.floor(
    checkLimit(options.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES, 'maxOutputBytes', 1),
  );
  const maxSchemaBytes = readBudget(options.maxSchemaBytes, 'createToolRegistry()');
  const defaultConcurrency = Math.floor(
    checkLimit(options.maxConcurrency, DEFAULT_CONCURRENCY, 'maxConcurrency', 1),
  );
  const onError = options.onError ?? defaultOnError;
  const report = (error: unknown, info: RegistryErrorInfo): void => {
    try {
      onError(error, info);
    } catch {
      // onError is the last resort; if it throws there is nowhere left to report to.
    }
  };

  const tools = new Map<string, RegisteredTool>();
  /** Calls between dispatch and result, by callId: a callId is in flight at most once. */
  const inflight = new Map<string, Prepared>();
  let schemaCache: readonly ToolSchema[] | undefined;

  // Emitting is synchronous, so the call being reported is known while observers run.
  let emitting: ToolExecution | undefined;
  const observerError = (error: unknown): void => report(error, observed(emitting));
  const changes = createEmitter<[ToolChangeEvent]>({ onError: observerError });
  const results = createEmitter<[ToolExecutionResult, ToolExecution]>({ onError: observerError });

  const emitChange = (added: string[], removed: string[]): void => {
    schemaCache = undefined;
    emitting = undefined;
    changes.emit(Object.freeze({ added: Object.freeze(added), removed: Object.freeze(removed) }));
  };

  // ---------------------------------------------------------------- registration

  const register = (definition: unknown): (() => void) => {
    const entry = readDefinition(definition, { maxSchemaBytes, maxOutputBytes, callTimeoutMs });
    const holder = tools.get(entry.name);
    if (holder) {
      throw new Error(
        `register(): tool "${entry.name}" is already registered by ${holder.holder}. Dispose that registration first, or register this tool under another name.`,
      );
    }
    tools.set(entry.name, entry);
    emitChange([entry.name], []);
    return () => {
      if (tools.get(entry.name) !== entry) return;
      tools.delete(entry.name);
      emitChange([], [entry.name]);
      // Its running calls stop as an abort stops them, and those not yet at the body never start
      // it: unless a tool of that name is registered again in this same turn (a client that
      // re-registers its whole list on every list change): the tool did not go away.
      queueMicrotask(() => {
        if (tools.has(entry.name)) return;
        entry.retired = true;
        for (const call of inflight.values()) {
          if (call.entry === entry) call.stop?.(unregistered(entry.name));
        }
      });
    };
  };

  // ---------------------------------------------------------------- the stages, bound to options

  const checkArguments = (entry: RegisteredTool, callId: string, args: unknown, preface?: string) =>
    validateArguments(entry, callId, args, report, preface);
  const limits: BodyLimits = { timeoutMs: defaultTimeout, graceMs: grace, report };
  const body = (hop: Hop): Promise<ToolExecutionResult> =>
    runBody(hop.state, hop.exec, hop.extensions, limits);
  const interceptors = createInterceptorChain(checkArguments, body);

  /** The stage *tell the observers*: they see the final, frozen result; one that throws is contained. */
  const finalize = (result: ToolExecutionResult, exec: ToolExecution): ToolExecutionResult => {
    const final = freezeResult(result);
    emitting = exec;
    try {
      results.emit(final, exec);
    } finally {
      emitting = undefined;
    }
    return final;
  };

  /**
   * Resolve the tool and validate the arguments of a call that was read, then freeze the execution
   * with the read-only tool view attached. Synchronous unless a Standard Schema validator answers
   * with a promise.
   */
  const prepare = (request: CallRequest): Prepared | Failed | Promise<Prepared | Failed> => {
    const entry = resolveTool(tools, request);
    if ('failed' in entry) return entry;
    const checked = checkArguments(entry, request.callId, request.args);
    return checked instanceof Promise
      ? checked.then((outcome) => preparedCall(request, entry, outcome))
      : preparedCall(request, entry, checked);
  };

  /**
   * Run the interceptors around the body, and assemble the result. Never rejects. Not an async
   * function: returning the body's promise from one would cost every call two more ticks.
   */
  const run = (call: Prepared): Promise<ToolExecutionResult> =>
    interceptors.size === 0
      ? runBody(call, call.exec, call.extensions, limits)
      : runIntercepted(call);

  const runIntercepted = async (call: Prepared): Promise<ToolExecutionResult> => {
    const hop: Hop = { exec: call.exec, extensions: call.extensions, state: call };
    let produced: ToolExecutionResult;
    try {
      produced = await interceptors.run(hop);
    } catch (error) {
      produced = chainFailure(error, hop);
    }
    return assembleResult(call, produced);
  };

  /**
   * Dispatch a prepared call: its callId in flight at most once, then run (within the whole-call
   * deadline, if any), then tell the observers. Never rejects.
   */
  const dispatch = async (call: Prepared): Promise<ToolExecutionResult> => {
    const { exec } = call;
    try {
      if (inflight.has(exec.callId)) return finalize(duplicateCall(exec), exec);
      if (isAborted(call.deadline ? call.deadline.caller : call.signal)) {
        return finalize(
          errorResult(
            exec.callId,
            Codes.ABORTED,
            `The call to tool "${exec.name}" was aborted before it started; nothing ran.`,
          ),
          exec,
        );
      }
      inflight.set(exec.callId, call);
      let result: ToolExecutionResult;
      try {
        result = await (call.deadline
          ? boundCall(call, call.deadline, () => run(call), report)
          : run(call));
      } finally {
        inflight.delete(exec.callId);
      }
      return finalize(result, exec);
    } catch (error) {
      // Every stage contains what it knows can fail; this keeps "never rejects" true regardless.
      return internalError(exec, 'execute()', error);
    }
  };

  /** An internal failure as the call's result, observers told (if even that fails, just frozen). */
  const internalError = (
    exec: ToolExecution | undefined,
    where: string,
    error: unknown,
  ): ToolExecutionResult => {
    const seen = exec ?? UNREADABLE;
    const result = internalErrorResult(seen, where, error);
    try {
      return finalize(result, seen);
    } catch {
      return freezeResult(result);
    }
  };

  /** A prepared call dispatched, or a failed one told to the observers. */
  const settle = (ready: Prepared | Failed): ToolExecutionResult | Promise<ToolExecutionResult> =>
    'failed' in ready ? finalize(ready.failed, ready.exec) : dispatch(ready);

  const execute = (raw: ToolExecution): Promise<ToolExecutionResult> => {
    let request: CallRequest | undefined;
    try {
      const read = readCall(raw);
      if ('failed' in read) return Promise.resolve(finalize(read.failed, read.exec));
      request = read;
      const ready = prepare(read);
      if (ready instanceof Promise) {
        const known = read;
        return ready
          .then(settle)
          .catch((error: unknown) => internalError(seenOfRequest(known), 'execute()', error));
      }
      return Promise.resolve(settle(ready));
    } catch (error) {
      // Every stage contains what it knows can fail; this keeps "never rejects" true regardless.
      return Promise.resolve(internalError(request && seenOfRequest(request), 'execute()', error));
    }
  };

  // ---------------------------------------------------------------- executeAll

  const turn = {
    maxConcurrency: defaultConcurrency,
    /** Prepares one call of a turn; an internal failure becomes that call's own result. */
    prepare: async (raw: unknown): Promise<Prepared | Failed> => {
      let request: CallRequest | undefined;
      try {
        const read = readCall(raw);
        if ('failed' in read) return read;
        request = read;
        return await prepare(read);
      } catch (error) {
        const exec = request ? seenOfRequest(request) : UNREADABLE;
        return { failed: internalErrorResult(exec, 'executeAll()', error), exec };
      }
    },
    /** Dispatches one call, prepared again if its tool changed since; failures stay its own. */
    dispatch: (prepared: Prepared): Promise<ToolExecutionResult> => {
      if (tools.get(prepared.entry.name) === prepared.entry && !isAborted(prepared.signal)) {
        return dispatch(prepared);
      }
      return execute(prepared.raw as ToolExecution);
    },
    fail: (failed: Failed): ToolExecutionResult => finalize(failed.failed, failed.exec),
  };

  // ---------------------------------------------------------------- the registry

  function on(event: 'change', listener: (event: ToolChangeEvent) => void): () => void;
  function on(
    event: 'result',
    listener: (result: ToolExecutionResult, exec: ToolExecution) => void,
  ): () => void;
  function on(event: string, listener: (...args: never[]) => unknown): () => void {
    if (typeof listener !== 'function') {
      throw new TypeError(
        `on(${quote(String(event))}): the listener must be a function (got ${kindOf(listener)}).`,
      );
    }
    const contained = (...args: unknown[]): void => {
      const returned = (listener as (...a: unknown[]) => unknown)(...args);
      if (returned instanceof Promise) {
        const info = observed(emitting);
        returned.catch((error: unknown) => report(error, info));
      }
    };
    if (event === 'change') return changes.on(contained as (e: ToolChangeEvent) => void);
    if (event === 'result')
      return results.on(contained as (r: ToolExecutionResult, e: ToolExecution) => void);
    throw new TypeError(`on(${quote(String(event))}): unknown event; use "change" or "result".`);
  }

  return {
    register,
    get: (name) => (typeof name === 'string' ? tools.get(name)?.definition : undefined),
    has: (name) => typeof name === 'string' && tools.has(name),
    schemas: () => {
      schemaCache ??= Object.freeze(Array.from(tools.values(), (entry) => entry.schema));
      return schemaCache;
    },
    execute,
    executeAll: (execs: readonly ToolExecution[], options: ExecuteAllOptions = {}) =>
      executeAll(execs, options, turn),
    use: (interceptor: Interceptor, options?: InterceptorOptions) =>
      interceptors.use(interceptor, options),
    on,
  };
}
