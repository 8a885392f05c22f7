import {
  type BodyExecution,
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type InterceptorNext,
  type ToolArgs,
  type ToolChangeEvent,
  type ToolErrorCode,
  type ToolExecution,
  type ToolExecutionResult,
  type ToolSchema,
} from '@dsh-tools/protocol';
import { createEmitter, createWaterfall, WaterfallError } from '@dsh-tools/waterfall';
import { type Entry, readDefinition, timeLimitProblem } from './definition';
import { isRecord, kindOf, messageOf, quote } from './describe';
import { type Extensions, readExtensions } from './extensions';
import { copyJson, freezePlain, type Violation } from './json-check';
import { asToolError, copyResult, resultFromOutput } from './output';
import { closestNames } from './suggest';
import type {
  ExecuteAllOptions,
  InterceptorOptions,
  RegistryErrorInfo,
  ToolRegistry,
  ToolRegistryOptions,
} from './types';
import { type ArgsCheck, compileParameters, runStandardSchema } from './validation';

/** A call that passed steps 1–4: resolved, validated, frozen. */
interface Prepared {
  readonly raw: unknown;
  readonly entry: Entry;
  readonly exec: InterceptedExecution;
  readonly signal: AbortSignal | undefined;
}

/** A call that failed in steps 1–3, with what observers are shown of it. */
interface Failed {
  readonly failed: ToolExecutionResult;
  readonly exec: ToolExecution;
}

/** What `prepare` learned of a call before it failed: the call, once its callId was read. */
interface Known {
  exec?: ToolExecution;
}

/** Per-call state the interceptors' `next` needs, keyed by the frozen executions of the call. */
interface CallState {
  readonly entry: Entry;
  readonly original: unknown;
  effective: unknown;
  /** The first interceptor misuse of the call; it decides the result (fail closed). */
  misuse: ToolExecutionResult | undefined;
  readonly signal: AbortSignal | undefined;
}

const DEFAULT_GRACE_MS = 100;
const DEFAULT_CONCURRENCY = 10;
const EMPTY_ARGS: ToolArgs = Object.freeze({});
/** What observers are shown of a call whose callId could not be read. */
const UNREADABLE: ToolExecution = Object.freeze({ callId: '', name: '', arguments: EMPTY_ARGS });

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

/**
 * A caller's signal is read through AbortSignal's own accessors and EventTarget's own methods:
 * once `prepare` has checked that it is a real AbortSignal, nothing patched onto the instance
 * (a throwing `aborted` getter, a `removeEventListener` that throws) can make a read throw or lie,
 * so a signal can neither hang a call nor crash the process from a timer.
 */
const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')!.get as (
  this: AbortSignal,
) => boolean;
const reasonOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'reason')!.get as (
  this: AbortSignal,
) => unknown;
const listen = EventTarget.prototype.addEventListener;
const unlisten = EventTarget.prototype.removeEventListener;

/** Whether a signal that `prepare` accepted is aborted; never throws. */
const isAborted = (signal: AbortSignal | undefined): boolean =>
  signal !== undefined && abortedOf.call(signal);

const formatViolations = (violations: readonly Violation[], more: number): string => {
  const parts = violations.map((v) =>
    v.path === ''
      ? `the arguments ${v.message}`
      : `argument ${quote(v.path.slice(1))} ${v.message}`,
  );
  if (more > 0) parts.push(`and ${more} more`);
  return parts.join('; ');
};

const invalidArgs = (
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

const ignore = (): void => {};

/** A rejected promise that is already handled, so dropping it is not an unhandled rejection. */
const quietReject = (result: ToolExecutionResult): Promise<never> => {
  const rejected = Promise.reject(new Error(result.error!.message));
  rejected.catch(ignore);
  return rejected;
};

/** Results are the registry's own objects (interceptors' results are copied), so freezing is safe. */
const freezeResult = (result: ToolExecutionResult): ToolExecutionResult => {
  if (Object.isFrozen(result)) return result;
  Object.freeze(result.content);
  if (result.error) Object.freeze(result.error);
  return Object.freeze(result);
};

/**
 * The execution a body receives: the intercepted one, with a signal made on first read (an
 * AbortController costs more than the rest of a call). The getter is an own property, so a body
 * that spreads `exec` keeps its signal. Not frozen: the object is the body's alone (its arguments
 * and tool view are frozen), and freezing an object with an accessor costs a third of its making.
 */
const bodyExecution = (
  exec: InterceptedExecution,
  extensions: Extensions | undefined,
  signal: () => AbortSignal,
): BodyExecution =>
  extensions !== undefined
    ? {
        ...extensions,
        callId: exec.callId,
        name: exec.name,
        arguments: exec.arguments,
        ...(exec.agent !== undefined && { agent: exec.agent }),
        tool: exec.tool,
        get signal() {
          return signal();
        },
      }
    : exec.agent === undefined
      ? {
          callId: exec.callId,
          name: exec.name,
          arguments: exec.arguments,
          tool: exec.tool,
          get signal() {
            return signal();
          },
        }
      : {
          callId: exec.callId,
          name: exec.name,
          arguments: exec.arguments,
          agent: exec.agent,
          tool: exec.tool,
          get signal() {
            return signal();
          },
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
  entry: Entry,
  exec: InterceptedExecution,
  bodyExec: BodyExecution,
): Promise<unknown> => {
  try {
    return Promise.resolve(entry.execute(exec.arguments, bodyExec));
  } catch (error) {
    return Promise.reject(error);
  }
};

/** Runs a body that nothing can stop, and turns its outcome into a result. */
const settleBody = (
  entry: Entry,
  exec: InterceptedExecution,
  bodyExec: BodyExecution,
): Promise<ToolExecutionResult> =>
  startBody(entry, exec, bodyExec).then(
    (output) => resultFromOutput(entry.name, exec.callId, output),
    (error: unknown) => resultFromThrow(entry.name, exec.callId, error),
  );

/**
 * Creates a tool registry: tools are registered with their schema and executor, and every call
 * goes through one pipeline (check the call, resolve the tool, validate its arguments, run the
 * interceptors, run the body under a timeout and the caller's signal, tell the observers). The
 * pipeline never throws: every outcome, from a malformed call to a hung body, is a result.
 */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const defaultTimeout = checkTime(options.timeoutMs, 0, 'timeoutMs', '0 for no limit');
  const grace = checkTime(
    options.timeoutGraceMs,
    DEFAULT_GRACE_MS,
    'timeoutGraceMs',
    '0 to resolve at once',
  );
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

  const tools = new Map<string, Entry>();
  let schemaCache: readonly ToolSchema[] | undefined;
  const chain = createWaterfall<[InterceptedExecution], ToolExecutionResult>();
  const calls = new WeakMap<InterceptedExecution, CallState>();
  // The extension fields of each execution that has any, as read once (never from the frozen
  // execution again: it is the registry's own, but this keeps one reader).
  const extensionsOf = new WeakMap<InterceptedExecution, Extensions>();
  let interceptorCount = 0;

  // Emitting is synchronous, so the call being reported is known while observers run.
  let emitting: { tool?: string; callId?: string } = {};
  const observerError = (error: unknown): void => report(error, { kind: 'observer', ...emitting });
  const changes = createEmitter<[ToolChangeEvent]>({ onError: observerError });
  const results = createEmitter<[ToolExecutionResult, ToolExecution]>({ onError: observerError });

  const emitChange = (added: string[], removed: string[]): void => {
    schemaCache = undefined;
    emitting = {};
    changes.emit(Object.freeze({ added: Object.freeze(added), removed: Object.freeze(removed) }));
  };

  // ---------------------------------------------------------------- registration

  const register = (definition: unknown): (() => void) => {
    const entry = readDefinition(definition);
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
      entry.disposed = true;
      if (entry.compiled) entry.compiled.release();
      emitChange([], [entry.name]);
    };
  };

  // ---------------------------------------------------------------- validation (step 3)

  const compiledFor = (entry: Entry) => {
    if (entry.compiled === undefined) {
      const warn = (message: string) =>
        report(new Error(`Tool "${entry.name}": ${message}`), { kind: 'schema', tool: entry.name });
      const outcome = compileParameters(entry.schema.parameters, warn);
      if ('error' in outcome) {
        entry.compiled = null;
        report(
          new Error(
            `Tool "${entry.name}": its parameters schema could not be compiled (${outcome.error}); calls to it run without argument validation. Fix the schema to validate them.`,
          ),
          { kind: 'schema', tool: entry.name },
        );
      } else {
        entry.compiled = outcome;
        // Compiled for a call that outlived its tool: usable for that call, owned by no one.
        if (entry.disposed) outcome.release();
      }
    }
    return entry.compiled;
  };

  /**
   * The JSON check, which makes the frozen copy that everything after it sees (the validator, the
   * interceptors, the body), then the tool's own validator or its compiled parameters.
   */
  const validate = (
    entry: Entry,
    callId: string,
    args: unknown,
    preface?: string,
  ):
    | ToolExecutionResult
    | { value: unknown }
    | Promise<ToolExecutionResult | { value: unknown }> => {
    const standard = entry.inputValidator;
    let json: ReturnType<typeof copyJson>;
    try {
      // A Standard Schema validator gets its own unfrozen copy (some apply defaults in place);
      // its output is frozen instead.
      json = copyJson(args, standard === undefined);
    } catch (error) {
      // A Proxy whose traps throw: nothing a model can send, so nothing to run.
      return errorResult(
        callId,
        Codes.INVALID_ARGS,
        `Tool "${entry.name}": the arguments could not be read (${messageOf(error)}); send plain JSON.`,
      );
    }
    if (!json.ok) return invalidArgs(callId, entry.name, json, preface);
    const copy = json.value;
    if (standard) {
      return runStandardSchema(standard, copy).then(
        (check: ArgsCheck) =>
          check.ok
            ? { value: freezePlain(check.value) }
            : invalidArgs(callId, entry.name, check, preface),
        (error) =>
          errorResult(
            callId,
            Codes.TOOL_ERROR,
            `Tool "${entry.name}": its input validator threw (${messageOf(error)}). This is a bug in the tool, not in the call.`,
          ),
      );
    }
    const compiled = compiledFor(entry);
    if (!compiled) return { value: copy };
    try {
      const failure = compiled.validate(copy);
      return failure ? invalidArgs(callId, entry.name, failure, preface) : { value: copy };
    } catch (error) {
      return errorResult(
        callId,
        Codes.INVALID_ARGS,
        `Tool "${entry.name}": the arguments could not be validated (${messageOf(error)}). Send simpler arguments.`,
      );
    }
  };

  // ---------------------------------------------------------------- steps 1–4

  const fail = (
    exec: ToolExecution,
    code: ToolErrorCode,
    message: string,
    details?: unknown,
  ): Failed => ({
    failed: errorResult(exec.callId, code, message, details),
    exec,
  });

  /**
   * Steps 1–4; synchronous unless a Standard Schema validator answers with a promise. `known`
   * receives the call as soon as its callId is read, so that even an internal failure after that
   * point answers with the right callId.
   */
  const prepare = (raw: unknown, known: Known): Prepared | Failed | Promise<Prepared | Failed> => {
    let callId: unknown;
    let name: unknown;
    let args: unknown;
    let agent: unknown;
    let signal: unknown;
    let extensions: Extensions | string | undefined;
    try {
      if (!isRecord(raw)) {
        return fail(
          UNREADABLE,
          Codes.INVALID_ARGS,
          `execute(): a call must be an object { callId, name, arguments } (got ${kindOf(raw)}).`,
        );
      }
      callId = raw.callId;
    } catch (error) {
      return fail(
        UNREADABLE,
        Codes.INVALID_ARGS,
        `execute(): the call could not be read (${messageOf(error)}).`,
      );
    }
    if (typeof callId !== 'string') {
      return fail(
        UNREADABLE,
        Codes.INVALID_ARGS,
        `execute(): the call's "callId" must be a string (got ${kindOf(callId)}).`,
      );
    }
    known.exec = { callId, name: '', arguments: EMPTY_ARGS };
    try {
      // Each field is read once: a getter may answer differently the second time.
      name = raw.name;
      args = raw.arguments;
      agent = raw.agent;
      signal = raw.signal;
      // The host's own extension fields pass through: a host is trusted (the model only produces
      // arguments), and `ToolExecution` types them on the input.
      extensions = readExtensions(raw);
    } catch (error) {
      return fail(
        known.exec,
        Codes.INVALID_ARGS,
        `execute(): the call ${quote(callId)} could not be read (${messageOf(error)}).`,
      );
    }
    const seen: ToolExecution = {
      callId,
      name: typeof name === 'string' ? name : '',
      arguments: args as ToolArgs,
    };
    known.exec = seen;
    if (typeof name !== 'string') {
      return fail(
        seen,
        Codes.INVALID_ARGS,
        `execute(): the call's tool "name" must be a string (got ${kindOf(name)}).`,
      );
    }
    if (agent !== undefined && typeof agent !== 'string') {
      return fail(
        seen,
        Codes.INVALID_ARGS,
        `execute(): the call's "agent" must be a string (got ${kindOf(agent)}).`,
      );
    }
    if (typeof extensions === 'string') {
      return fail(
        seen,
        Codes.INVALID_ARGS,
        `execute(): the call ${quote(callId)}: ${extensions}. Pass the value itself.`,
      );
    }
    const fields = extensions;
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
        return fail(
          seen,
          Codes.INVALID_ARGS,
          `execute(): the call's "signal" must be an AbortSignal (${problem}); pass an AbortController's signal, or leave "signal" out.`,
        );
      }
      if (aborted) {
        return fail(
          seen,
          Codes.ABORTED,
          `The call to tool ${quote(name)} was aborted before it started; nothing ran.`,
        );
      }
    }
    if (args === undefined) args = EMPTY_ARGS;
    if (!isRecord(args)) {
      return fail(
        seen,
        Codes.INVALID_ARGS,
        `Tool ${quote(name)}: the arguments must be a JSON object (got ${kindOf(args)})${
          typeof args === 'string' ? '; parse the JSON text before calling' : ''
        }. Fix the call and retry.`,
      );
    }

    const entry = tools.get(name);
    if (!entry) {
      const suggestions = closestNames(name, tools.keys());
      return fail(
        seen,
        Codes.UNKNOWN_TOOL,
        suggestions.length > 0
          ? `Unknown tool ${quote(name)}. Did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}? Call a tool by its exact name.`
          : `Unknown tool ${quote(name)}: no tool of that name is registered (${tools.size === 1 ? '1 tool is' : `${tools.size} tools are`}). Call one of the tools you were given.`,
        { suggestions },
      );
    }

    const toolName = name;
    const checkedCallId = callId;
    const settle = (checked: ToolExecutionResult | { value: unknown }): Prepared | Failed => {
      if (!('value' in checked)) return { failed: checked, exec: seen };
      const exec: InterceptedExecution = Object.freeze({
        ...fields,
        callId: checkedCallId,
        name: toolName,
        arguments: checked.value as ToolArgs,
        ...(agent !== undefined && { agent: agent as string }),
        ...(signal !== undefined && { signal: signal as AbortSignal }),
        tool: entry.view,
      });
      if (fields !== undefined) extensionsOf.set(exec, fields);
      return { raw, entry, exec, signal: signal as AbortSignal | undefined };
    };
    const checked = validate(entry, callId, args);
    return checked instanceof Promise ? checked.then(settle) : settle(checked);
  };

  // ---------------------------------------------------------------- step 5: the body

  const runBody = (state: CallState, exec: InterceptedExecution): Promise<ToolExecutionResult> => {
    const { entry, signal: caller } = state;
    const { callId } = exec;
    if (isAborted(caller)) {
      return Promise.resolve(
        errorResult(
          callId,
          Codes.ABORTED,
          `The call to tool "${entry.name}" was aborted before the tool ran; nothing ran.`,
        ),
      );
    }
    const limit = entry.timeoutMs ?? defaultTimeout;
    const timed = limit > 0;
    if (!timed && !caller) {
      // Nothing can stop this call: no timers, no listeners, a signal that never aborts.
      let idle: AbortController | undefined;
      return settleBody(
        entry,
        exec,
        bodyExecution(exec, extensionsOf.get(exec), () => {
          idle ??= new AbortController();
          return idle.signal;
        }),
      );
    }
    return new Promise((resolve) => {
      // The body's signal is made when the body first reads it: an AbortSignal costs more than
      // the rest of a call together, and most bodies never look at theirs.
      let controller: AbortController | undefined;
      let abortReason: unknown;
      let finished = false;
      let stopped: ToolErrorCode | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const stopResult = (): ToolExecutionResult =>
        stopped === Codes.TIMEOUT
          ? errorResult(
              callId,
              Codes.TIMEOUT,
              `Tool "${entry.name}" did not finish within ${limit} ms and was stopped. Retry with a smaller request, or raise the tool's timeoutMs.`,
            )
          : errorResult(
              callId,
              Codes.ABORTED,
              `The call to tool "${entry.name}" was aborted by the caller.`,
            );
      const finish = (result: ToolExecutionResult): void => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        // Resolve first: nothing that happens while cleaning up may keep the call open.
        resolve(result);
        if (caller) {
          try {
            unlisten.call(caller, 'abort', onAbort);
          } catch {
            // Cannot happen for a real AbortSignal; the listener is `once` and harmless anyway.
          }
        }
      };
      const stop = (code: ToolErrorCode, reason: unknown): void => {
        if (stopped || finished) return;
        stopped = code;
        clearTimeout(timer);
        // Not unref'd: a call in flight keeps the process alive until it settles (both timers are
        // cleared the moment it does), or a body waiting only on its signal would let Node exit
        // mid-call with status 0.
        graceTimer = setTimeout(() => finish(stopResult()), grace);
        abortReason = reason;
        controller?.abort(reason);
      };
      const onAbort = (): void => stop(Codes.ABORTED, caller && reasonOf.call(caller));
      if (caller) {
        try {
          listen.call(caller, 'abort', onAbort, { once: true });
        } catch (error) {
          // Cannot happen for a real AbortSignal; if it did, the call could not be cancelled.
          finished = true;
          resolve(
            errorResult(
              callId,
              Codes.INVALID_ARGS,
              `The call to tool "${entry.name}" could not listen to its signal (${messageOf(error)}); nothing ran. Pass an AbortController's signal.`,
            ),
          );
          return;
        }
      }
      if (timed) {
        timer = setTimeout(
          () =>
            stop(
              Codes.TIMEOUT,
              new DOMException(`Tool "${entry.name}" timed out after ${limit} ms`, 'TimeoutError'),
            ),
          limit,
        );
      }

      const bodyExec = bodyExecution(exec, extensionsOf.get(exec), () => {
        if (!controller) {
          controller = new AbortController();
          if (stopped) controller.abort(abortReason);
        }
        return controller.signal;
      });
      const pending = startBody(entry, exec, bodyExec);
      const late = (error: unknown) =>
        report(error, { kind: 'late-settlement', tool: entry.name, callId });
      pending.then(
        (output) => {
          if (finished) {
            late(
              new Error(
                `Tool "${entry.name}" returned after its call had already resolved ${stopped ?? 'as finished'}; the output was discarded.`,
              ),
            );
            return;
          }
          // A success that arrives within the grace after an abort or timeout is kept: the work
          // happened, and the transcript must not claim otherwise.
          finish(resultFromOutput(entry.name, callId, output));
        },
        (error) => {
          if (finished) {
            late(error);
            return;
          }
          if (stopped) {
            finish(stopResult());
            return;
          }
          finish(resultFromThrow(entry.name, callId, error));
        },
      );
    });
  };

  // ---------------------------------------------------------------- step 5–6: interceptors

  /** Validates an interceptor's rewrite; a changed callId or name is misuse (fail closed). */
  const rewrite = async (
    state: CallState,
    exec: InterceptedExecution,
    changed: unknown,
    interceptor: string,
  ): Promise<InterceptedExecution | ToolExecutionResult> => {
    let callId: unknown;
    let name: unknown;
    let args: unknown;
    let agent: unknown;
    let extensions: Extensions | string | undefined;
    try {
      if (!isRecord(changed))
        throw new TypeError(`next() was given ${kindOf(changed)}, not an execution`);
      callId = changed.callId;
      name = changed.name;
      args = changed.arguments;
      agent = changed.agent;
      extensions = readExtensions(changed);
    } catch (error) {
      return misuse(
        state,
        exec,
        interceptor,
        `passed an unreadable execution to next() (${messageOf(error)})`,
      );
    }
    if (callId !== exec.callId || name !== exec.name) {
      return misuse(
        state,
        exec,
        interceptor,
        'changed the callId or the tool name in next(); only arguments and agent may change',
      );
    }
    if (agent !== undefined && typeof agent !== 'string') {
      return misuse(
        state,
        exec,
        interceptor,
        `set "agent" to ${kindOf(agent)} in next(); it must be a string`,
      );
    }
    if (typeof extensions === 'string') {
      return misuse(state, exec, interceptor, `passed next() an execution whose ${extensions}`);
    }
    const fields = extensions;
    if (!isRecord(args)) {
      return invalidArgs(
        exec.callId,
        state.entry.name,
        {
          violations: [{ path: '', message: `must be a JSON object (got ${kindOf(args)})` }],
          more: 0,
        },
        `interceptor "${interceptor}" rewrote the arguments, and they are invalid`,
      );
    }
    let checked = validate(
      state.entry,
      exec.callId,
      args,
      `interceptor "${interceptor}" rewrote the arguments, and they are invalid`,
    );
    if (checked instanceof Promise) checked = await checked;
    if (!('value' in checked)) return checked;
    const next: InterceptedExecution = Object.freeze({
      ...fields,
      callId: exec.callId,
      name: exec.name,
      arguments: checked.value as ToolArgs,
      ...(agent !== undefined && { agent: agent as string }),
      ...(exec.signal !== undefined && { signal: exec.signal }),
      tool: exec.tool,
    });
    state.effective = checked.value;
    calls.set(next, state);
    if (fields !== undefined) extensionsOf.set(next, fields);
    return next;
  };

  const misuse = (
    state: CallState,
    exec: InterceptedExecution,
    interceptor: string,
    what: string,
  ): ToolExecutionResult => {
    const result = errorResult(
      exec.callId,
      Codes.INTERCEPTOR_ERROR,
      `Interceptor "${interceptor}" ${what}; the call to tool "${exec.name}" fails closed.`,
    );
    state.misuse ??= result;
    return result;
  };

  const use = (interceptor: Interceptor, options: InterceptorOptions = {}): (() => void) => {
    if (typeof interceptor !== 'function') {
      throw new TypeError(
        `use(): an interceptor must be a function (exec, next) => result (got ${kindOf(interceptor)}).`,
      );
    }
    const priority = options.priority ?? 0;
    if (typeof priority !== 'number' || Number.isNaN(priority)) {
      throw new TypeError(`use(): "priority" must be a number (got ${String(priority)}).`);
    }
    interceptorCount++;
    const name = options.name ?? (interceptor.name || `interceptor #${interceptorCount}`);
    const listener = async (
      exec: InterceptedExecution,
      next: (...args: [InterceptedExecution] | []) => Promise<ToolExecutionResult>,
    ): Promise<ToolExecutionResult> => {
      const state = calls.get(exec);
      if (!state)
        throw new Error('registry: an execution reached an interceptor without its call state');
      let nexts = 0;
      let pending = false;
      let returnedAlready = false;
      // What next() resolved with: a result the registry made, frozen before the interceptor sees
      // it, so that handing it back unchanged needs no copy.
      let fromNext: ToolExecutionResult | undefined;
      const settled = (result: ToolExecutionResult): ToolExecutionResult => {
        pending = false;
        fromNext = freezeResult(result);
        return fromNext;
      };
      const failed = (error: unknown): never => {
        pending = false;
        throw error;
      };
      const guarded: InterceptorNext = (changed) => {
        nexts++;
        // A misused next() rejects (the misuse itself is recorded and decides the call), quietly:
        // an interceptor that drops the promise must not crash the host with an unhandled
        // rejection, and one that awaits it still sees the error.
        if (nexts > 1) return quietReject(misuse(state, exec, name, 'called next() twice'));
        if (returnedAlready) {
          return quietReject(misuse(state, exec, name, 'called next() after it had returned'));
        }
        pending = true;
        const proceed =
          changed === undefined || changed === exec
            ? next()
            : rewrite(state, exec, changed, name).then((outcome) => {
                if (!calls.has(outcome as InterceptedExecution))
                  return outcome as ToolExecutionResult;
                // The interceptor may have given up waiting while the rewrite was validated: the
                // body must never start after its call has resolved.
                if (returnedAlready)
                  return misuse(state, exec, name, 'returned before next() settled');
                return next(outcome as InterceptedExecution);
              });
        const outcome = proceed.then(settled, failed);
        outcome.catch(ignore);
        return outcome;
      };
      let returned: unknown;
      try {
        returned = await interceptor(exec, guarded);
      } catch (error) {
        returnedAlready = true;
        const coded = asToolError(error);
        if (coded) return errorResult(exec.callId, coded.code, coded.message, coded.details);
        return misuse(state, exec, name, `threw (${messageOf(error)})`);
      }
      returnedAlready = true;
      if (pending) return misuse(state, exec, name, 'returned before next() settled');
      if (returned !== undefined && returned === fromNext) return fromNext;
      const copied = copyResult(returned);
      if ('problem' in copied) return misuse(state, exec, name, `returned ${copied.problem}`);
      const copy = copied.result;
      if (copy.callId !== exec.callId) {
        return misuse(
          state,
          exec,
          name,
          `returned the result of another call (${quote(copy.callId)})`,
        );
      }
      return copy;
    };
    return chain.use(listener, { name, priority });
  };

  // ---------------------------------------------------------------- steps 5–7

  const finalize = (result: ToolExecutionResult, exec: ToolExecution): ToolExecutionResult => {
    const final = freezeResult(result);
    emitting = { tool: exec.name, callId: exec.callId };
    try {
      results.emit(final, exec);
    } finally {
      emitting = {};
    }
    return final;
  };

  const dispatch = async (prepared: Prepared): Promise<ToolExecutionResult> => {
    const { entry, exec, signal } = prepared;
    if (isAborted(signal)) {
      return finalize(
        errorResult(
          exec.callId,
          Codes.ABORTED,
          `The call to tool "${exec.name}" was aborted before it started; nothing ran.`,
        ),
        exec,
      );
    }
    const state: CallState = {
      entry,
      original: exec.arguments,
      effective: exec.arguments,
      misuse: undefined,
      signal,
    };
    if (chain.size === 0) return finalize(await runBody(state, exec), exec);
    calls.set(exec, state);
    let result: ToolExecutionResult;
    try {
      result = await chain.run(exec, (e) => runBody(state, calls.get(e) === state ? e : exec));
    } catch (error) {
      result =
        state.misuse ??
        (error instanceof WaterfallError
          ? errorResult(
              exec.callId,
              Codes.INTERCEPTOR_ERROR,
              `Interceptor "${error.listener}" ${
                error.kind === 'next-twice'
                  ? 'called next() twice'
                  : error.kind === 'returned-early'
                    ? 'returned before next() settled'
                    : `threw (${messageOf(error.cause ?? error)})`
              }; the call to tool "${exec.name}" fails closed.`,
            )
          : errorResult(
              exec.callId,
              Codes.INTERCEPTOR_ERROR,
              `The interceptors of tool "${exec.name}" failed (${messageOf(error)}); the call fails closed.`,
            ));
    }
    if (state.misuse) result = state.misuse;
    if (state.effective !== state.original && result.arguments === undefined) {
      result = {
        ...result,
        arguments: Object.freeze({ original: state.original, effective: state.effective }),
      };
    }
    return finalize(result, exec);
  };

  /**
   * The result of a failure inside the registry itself (a bug, or a hostile object that slipped
   * past every check): the call keeps its callId when it was read, and observers are told.
   */
  const internalErrorResult = (
    exec: ToolExecution,
    where: string,
    error: unknown,
  ): ToolExecutionResult =>
    errorResult(
      exec.callId,
      Codes.TOOL_ERROR,
      `${where}: internal error in the registry${exec.name ? ` (tool ${quote(exec.name)})` : ''}: ${messageOf(error)}. Whether the tool ran is unknown; please report this bug to @dsh-tools/registry.`,
    );

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

  const execute = async (raw: ToolExecution): Promise<ToolExecutionResult> => {
    const known: Known = {};
    try {
      let prepared = prepare(raw, known);
      if (prepared instanceof Promise) prepared = await prepared;
      if ('failed' in prepared) return finalize(prepared.failed, prepared.exec);
      return await dispatch(prepared);
    } catch (error) {
      // Every step contains what it knows can fail; this keeps "never rejects" true regardless.
      return internalError(known.exec, 'execute()', error);
    }
  };

  // ---------------------------------------------------------------- executeAll

  const isConcurrencySafe = (prepared: Prepared): boolean => {
    const hint = prepared.entry.view.hints.concurrencySafe;
    if (hint === true) return true;
    if (typeof hint !== 'function') return false;
    try {
      return hint(prepared.exec.arguments) === true;
    } catch {
      return false;
    }
  };

  /** Dispatches a call prepared earlier, re-preparing it if its tool changed in between. */
  const dispatchFresh = async (prepared: Prepared): Promise<ToolExecutionResult> => {
    if (tools.get(prepared.entry.name) === prepared.entry && !isAborted(prepared.signal)) {
      return dispatch(prepared);
    }
    return execute(prepared.raw as ToolExecution);
  };

  /** Dispatches one call of a turn; an internal failure becomes that call's own result. */
  const settleCall = async (prepared: Prepared): Promise<ToolExecutionResult> => {
    try {
      return await dispatchFresh(prepared);
    } catch (error) {
      return internalError(prepared.exec, 'executeAll()', error);
    }
  };

  /** Prepares one call of a turn; an internal failure becomes that call's own result. */
  const prepareCall = async (raw: unknown): Promise<Prepared | Failed> => {
    const known: Known = {};
    try {
      return await prepare(raw, known);
    } catch (error) {
      const exec = known.exec ?? UNREADABLE;
      return { failed: internalErrorResult(exec, 'executeAll()', error), exec };
    }
  };

  const executeAll = async (
    execs: readonly ToolExecution[],
    options: ExecuteAllOptions = {},
  ): Promise<ToolExecutionResult[]> => {
    let list: unknown[];
    let limit = defaultConcurrency;
    try {
      // Only a real array: Array.from would turn a string into one call per character.
      if (!Array.isArray(execs)) return [];
      list = Array.from(execs as unknown[]);
    } catch {
      // An array Proxy whose traps throw: no calls can be read.
      return [];
    }
    try {
      const wanted = options?.maxConcurrency;
      if (typeof wanted === 'number' && wanted >= 1) limit = Math.floor(wanted);
    } catch {
      // Unreadable options: the registry's default bound.
    }
    // Every step below contains its own failures (prepareCall, settleCall), so one call can never
    // take another's result, and no call is ever dispatched twice.
    const out: ToolExecutionResult[] = new Array(list.length);
    let i = 0;
    let carried: Prepared | Failed | undefined;
    while (i < list.length) {
      // A call carried over from the end of a run was already classified as not safe.
      const wasCarried = carried !== undefined;
      const first = carried ?? (await prepareCall(list[i]));
      carried = undefined;
      if ('failed' in first) {
        out[i] = finalize(first.failed, first.exec);
        i++;
        continue;
      }
      if (wasCarried || !isConcurrencySafe(first)) {
        out[i] = await settleCall(first);
        i++;
        continue;
      }
      // A run of consecutive concurrency-safe calls; the first call that is not ends it and
      // waits (prepared) until the run is done.
      const start = i;
      const group: Prepared[] = [first];
      while (start + group.length < list.length) {
        const candidate = await prepareCall(list[start + group.length]);
        if ('failed' in candidate || !isConcurrencySafe(candidate)) {
          carried = candidate;
          break;
        }
        group.push(candidate);
      }
      let cursor = 0;
      const worker = async (): Promise<void> => {
        while (cursor < group.length) {
          const k = cursor++;
          out[start + k] = await settleCall(group[k]!);
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, group.length) }, worker));
      i += group.length;
    }
    return out;
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
        const context = emitting;
        returned.catch((error: unknown) => report(error, { kind: 'observer', ...context }));
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
    executeAll,
    use,
    on,
  };
}
