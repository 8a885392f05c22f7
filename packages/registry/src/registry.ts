import type {
  Interceptor,
  ToolChangeEvent,
  ToolExecution,
  ToolExecutionResult,
  ToolSchema,
} from '@dsh-tools/protocol';
import { readBudget } from '@dsh-tools/schema';
import { createEmitter } from '@dsh-tools/waterfall/emitter';
import type { TracerProvider } from '@opentelemetry/api';
import { DEFAULT_MAX_OUTPUT_BYTES } from './bound-output';
import { readDefinition, timeLimitProblem } from './definition';
import { kindOf, quote } from './describe';
import { type Calls, dispatchInTurn, execute, prepareInTurn } from './execute';
import { executeAll, type TurnStages } from './execute-all';
import { InFlight } from './in-flight';
import { freezeResult } from './results';
import type { BodyLimits } from './run-body';
import { createInterceptorChain } from './run-interceptors';
import { createTracing } from './trace';
import type {
  ExecuteAllOptions,
  Failed,
  InterceptorOptions,
  Prepared,
  RegisteredTool,
  RegistryErrorInfo,
  ToolRegistry,
  ToolRegistryOptions,
} from './types';

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

/** `tracerProvider`: absent (the global one), `false`, or an object with `getTracer()`. */
const checkTracerProvider = (value: unknown): TracerProvider | false | undefined => {
  if (value === undefined || value === false) return value;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as TracerProvider).getTracer !== 'function'
  ) {
    throw new TypeError(
      `createToolRegistry(): "tracerProvider" must be an OpenTelemetry TracerProvider (an object with getTracer()) or false for no tracing (got ${kindOf(value)}).`,
    );
  }
  return value as TracerProvider;
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

/**
 * Creates a tool registry: tools are registered with their schema and executor, and every call
 * goes through one pipeline of stages, each in its own file: read the call, resolve the tool,
 * validate the arguments, bound the call, run the interceptors, run the body, assemble the result,
 * tell the observers (and, for a turn, schedule the calls). `execute` (`execute.ts`) runs them in
 * order on one {@link Call}; this factory keeps the options, the tool table and the emitters. The
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
  const callTimeoutMs = checkTime(options.callTimeoutMs, 0, 'callTimeoutMs', '0 for none');
  const maxOutputBytes = Math.floor(
    checkLimit(options.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES, 'maxOutputBytes', 1),
  );
  const maxSchemaBytes = readBudget(options.maxSchemaBytes, 'createToolRegistry()');
  const defaultConcurrency = Math.floor(
    checkLimit(options.maxConcurrency, DEFAULT_CONCURRENCY, 'maxConcurrency', 1),
  );
  const onError = options.onError ?? defaultOnError;
  const tracing = createTracing(checkTracerProvider(options.tracerProvider));
  const report = (error: unknown, info: RegistryErrorInfo): void => {
    try {
      onError(error, info);
    } catch {
      // onError is the last resort; if it throws there is nowhere left to report to.
    }
  };

  const tools = new Map<string, RegisteredTool>();
  const inflight = new InFlight();
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
        for (const call of inflight.calls()) {
          if (call.entry === entry) call.stop?.(unregistered(entry.name));
        }
      });
    };
  };

  // ---------------------------------------------------------------- one call

  const limits: BodyLimits = { timeoutMs: defaultTimeout, graceMs: grace, report };
  /** The stage *tell the observers*: they see the final, frozen result; one that throws is contained. */
  const tell = (result: ToolExecutionResult, exec: ToolExecution): ToolExecutionResult => {
    const final = freezeResult(result);
    emitting = exec;
    try {
      results.emit(final, exec);
    } finally {
      emitting = undefined;
    }
    return final;
  };
  const calls: Calls = { tools, inflight, chain: createInterceptorChain(), limits, tell };

  // ---------------------------------------------------------------- executeAll

  const turn: TurnStages = {
    maxConcurrency: defaultConcurrency,
    prepare: (raw: unknown) => prepareInTurn(calls, raw),
    dispatch: (prepared: Prepared) => tracing.traced(calls, (c) => dispatchInTurn(c, prepared)),
    fail: (failed: Failed): ToolExecutionResult => tracing.failed(failed.failed, failed.exec, tell),
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
    execute: (exec: ToolExecution) => tracing.traced(calls, (c) => execute(c, exec)),
    executeAll: (execs: readonly ToolExecution[], options: ExecuteAllOptions = {}) =>
      executeAll(execs, options, turn),
    use: (interceptor: Interceptor, options?: InterceptorOptions) =>
      calls.chain.use(interceptor, options),
    on,
  };
}
