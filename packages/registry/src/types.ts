import type {
  InterceptedExecution,
  Interceptor,
  ToolArgs,
  ToolChangeEvent,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolInputValidator,
  ToolRegistryLike,
  ToolSchema,
  ToolView,
} from '@dsh-tools/protocol';
import type { Compiled } from '@dsh-tools/schema';
import type { Span, TracerProvider } from '@opentelemetry/api';

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryOptions {
  /**
   * Default time limit of a tool body, in ms; 0 means none (the default), at most 2147483647
   * (what a Node timer holds; a longer limit would fire after 1 ms, so it throws at creation).
   * A definition's `timeoutMs` overrides it. Only the body is timed: an interceptor waiting for a person's
   * approval does not eat into the tool's time.
   */
  readonly timeoutMs?: number;
  /**
   * After a timeout or an abort fires the body's signal, how long to wait for the body to settle
   * before resolving `TIMEOUT` / `ABORTED` anyway (default 100 ms, at most 2147483647). A body that ignores its
   * signal therefore never holds a call open for longer than its limit plus this grace.
   */
  readonly timeoutGraceMs?: number;
  /**
   * Whole-call deadline in ms, from the end of validation to the result: the interceptors (an
   * approval waiting for a person, a hook) and the body together. 0 means none (the default: a
   * person may take their time to approve). On expiry the signal the interceptors and the body
   * see aborts, and the call resolves `TIMEOUT` naming what was still pending (an interceptor or
   * the body). A definition's `callTimeoutMs` overrides it. At most 2147483647.
   */
  readonly callTimeoutMs?: number;
  /**
   * The most a result may carry to the model, in bytes (default 1048576, 1 MiB): text counted as
   * UTF-8, a binary block (image, audio, blob) as its base64 length, `structuredContent` as JSON.
   * Text over the budget is cut, with a marker saying how much was cut; a binary block that does
   * not fit is replaced by a text note; `structuredContent` that does not fit is left out with a
   * note. A definition's `maxOutputBytes` overrides it.
   */
  readonly maxOutputBytes?: number;
  /** How many calls {@link ToolRegistry.executeAll} overlaps at most (default 10). */
  readonly maxConcurrency?: number;
  /**
   * The schema budget of every tool, in UTF-8 bytes: its `description` plus its `parameters` as
   * JSON (default 65536, 64 KiB; a whole number >= 1). A tool over budget is refused by
   * `register`, with its size and this limit: a schema the model reads on every turn, and the
   * registry compiles synchronously, must stay small.
   */
  readonly maxSchemaBytes?: number;
  /**
   * Receives problems the registry contains instead of throwing: a body settling after its call
   * already resolved, an observer that threw, a schema that could not be compiled. Default:
   * `console.warn`. An `onError` that throws is ignored.
   */
  readonly onError?: (error: unknown, info: RegistryErrorInfo) => void;
  /**
   * Where the `execute_tool` spans of OpenTelemetry go: default the global provider (the one an
   * application's SDK registers; with none, nothing is recorded and a call pays one `startSpan`);
   * a provider of your own; or `false` for no tracing at all.
   */
  readonly tracerProvider?: TracerProvider | false;
}

/** What {@link ToolRegistryOptions.onError} is told beside the error. */
export interface RegistryErrorInfo {
  /**
   * - `late-settlement`: a tool body settled after its call had resolved `TIMEOUT` or `ABORTED`;
   *   its outcome was discarded.
   * - `observer`: a `change` or `result` listener threw (or rejected); the others still ran.
   * - `schema`: the engine warned while compiling a tool's `parameters` (say, an unknown format
   *   that it ignores, as JSON Schema does). A schema that cannot be enforced is never reported
   *   here: `register` refuses the tool.
   */
  readonly kind: 'late-settlement' | 'observer' | 'schema';
  readonly tool?: string;
  readonly callId?: string;
}

/** Options of {@link ToolRegistry.executeAll}. */
export interface ExecuteAllOptions {
  /** How many concurrency-safe calls overlap at most; default the registry's `maxConcurrency`. */
  readonly maxConcurrency?: number;
}

/** Options of {@link ToolRegistry.use}. */
export interface InterceptorOptions {
  /** Named in `INTERCEPTOR_ERROR` messages; default the function's name. */
  readonly name?: string;
  /** Higher runs outer (earlier); equal priorities keep registration order. Default 0. */
  readonly priority?: number;
}

/** A registry of tools that runs every call through one validated, intercepted pipeline. */
export interface ToolRegistry extends ToolRegistryLike {
  /**
   * Adds a tool and returns its disposer. Throws (naming what to fix) on a malformed definition
   * or a name that is already registered. The disposer is idempotent; calls already running
   * finish, the next call of that name is `UNKNOWN_TOOL`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void;
  /** The definition registered under `name`, as it was given. */
  get(name: string): ToolDefinition | undefined;
  /** Whether a tool of that name is registered. */
  has(name: string): boolean;
  /**
   * What the model sees, in registration order: `{ name, description, parameters }` only. The
   * array and everything in it are frozen, and the same array is returned until the registry
   * changes, so calling this on every model turn costs nothing.
   */
  schemas(): readonly ToolSchema[];
  /**
   * Runs one call. Never throws or rejects: every outcome is a result. The arguments are copied
   * once into a deep-frozen plain copy, which is what is validated, intercepted and run; `signal`
   * must be a real `AbortSignal`.
   */
  execute(exec: ToolExecution): Promise<ToolExecutionResult>;
  /**
   * Runs one model turn's calls: consecutive concurrency-safe calls overlap (at most
   * `maxConcurrency`), every other call runs alone; results come back in call order, each with
   * its own callId, one failure never cancels the others, and no body runs twice. Resolves `[]`
   * for anything but an array (a string is not a list of calls). Never rejects.
   */
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]>;
  /** Adds an interceptor to the `tools/execute` waterfall; returns its (idempotent) disposer. */
  use(interceptor: Interceptor, options?: InterceptorOptions): () => void;
  /** Observes registrations and disposals. Returns the unsubscribe function. */
  on(event: 'change', listener: (event: ToolChangeEvent) => void): () => void;
  /** Observes every finished call, with its final result. Returns the unsubscribe function. */
  on(
    event: 'result',
    listener: (result: ToolExecutionResult, exec: ToolExecution) => void,
  ): () => void;
}

// ---------------------------------------------------------------- shared by the stages of a call
// Not exported from the package: the records the stages hand each other. Every stage imports
// these from here, never from registry.ts, so that the arrows between files point one way.

/** A registered tool: the definition as given, and what the registry derived from it once. */
export interface RegisteredTool {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly execute: ToolDefinition['execute'];
  /** Frozen deep copy of what the model sees; the registry never reads the caller's objects again. */
  readonly schema: ToolSchema;
  readonly view: ToolView;
  readonly timeoutMs: number | undefined;
  /** The whole-call deadline in ms (0: none): the definition's, else the registry's. */
  readonly callTimeoutMs: number;
  /** The output budget in bytes: the definition's, else the registry's. */
  readonly maxOutputBytes: number;
  readonly inputValidator: ToolInputValidator<unknown> | undefined;
  /** Who holds the name, for the duplicate message. */
  readonly holder: string;
  /**
   * The compiled `parameters`, made at registration (fail closed: a schema that cannot be
   * enforced refuses the tool); `undefined` for a tool validated by its Standard Schema.
   */
  readonly compiled: Compiled | undefined;
  /**
   * Disposed, and no tool of its name registered again in the same turn: its calls in flight are
   * stopped, and a call an interceptor still holds never starts its body.
   */
  retired?: boolean;
}

/**
 * Extension fields of one execution (`exec.sandbox`, say), by key: what an interceptor attached
 * with `next({ ...exec, sandbox })`, or what the host put on the call it gave `execute()`.
 * A null-prototype record, so that a field named `__proto__` stays a field.
 */
export type Extensions = Readonly<Record<PropertyKey, unknown>>;

/** Where a problem the registry contained is reported: `onError`, made total. */
export type Report = (error: unknown, info: RegistryErrorInfo) => void;

/** A call whose own fields were read and checked (stage: read the call). */
export interface CallRequest {
  /** The call as the caller gave it, to prepare it again if its tool changes (executeAll). */
  readonly raw: unknown;
  readonly callId: string;
  readonly name: string;
  /** A plain object, not yet copied or validated. */
  readonly args: object;
  readonly agent: unknown;
  /** A real AbortSignal, not aborted when it was read. */
  readonly signal: AbortSignal | undefined;
  readonly extensions: Extensions | undefined;
}

/** A call that failed before dispatch, with what observers are shown of it. */
export interface Failed {
  readonly failed: ToolExecutionResult;
  readonly exec: ToolExecution;
}

/** Arguments that passed validation: a deep-frozen copy (or a Standard Schema's frozen output). */
export interface Checked {
  readonly value: ToolArgs;
}

/**
 * One dispatched call as the stages see it: its state, which they may update, and the two stages
 * the interceptor chain asks of it (validate a rewrite, run the body). The `Call` of `call.ts`
 * implements it; the stages know only this interface, so no stage imports another.
 */
export interface CallState {
  /**
   * The stage *validate the arguments* for this call's tool: arguments an interceptor passed to
   * `next(changed)`, with `preface` naming it in an `INVALID_ARGS`.
   */
  validate(
    args: unknown,
    preface: string,
  ): ToolExecutionResult | Checked | Promise<ToolExecutionResult | Checked>;
  /** The stage *run the body* with this execution (the call's own, or one an interceptor passed on). */
  runBody(hop: Hop): Promise<ToolExecutionResult>;
  readonly entry: RegisteredTool;
  /** The caller's signal (a real AbortSignal) or none. */
  readonly signal: AbortSignal | undefined;
  /** The arguments the model sent (validated), and those that ran after any rewrite. */
  readonly original: ToolArgs;
  effective: ToolArgs;
  /** The first interceptor misuse the registry saw; it decides the result (fail closed). */
  misuse: ToolExecutionResult | undefined;
  /**
   * Stops the running body as an abort does (its signal aborts; after the grace the call resolves
   * `ABORTED`): set by *run the body* while the body runs, used when the tool is unregistered.
   */
  stop: ((this: CallState, reason: unknown) => void) | undefined;
  /** The controller of a bare body's signal, made when the body reads it or when it is stopped. */
  controller: AbortController | undefined;
  /** The call's `execute_tool` span when an OpenTelemetry SDK records it: the chain adds events. */
  span: Span | undefined;
  /**
   * Under a whole-call deadline only: the interceptors entered and not yet settled, innermost
   * last, and `BODY` while the body runs, so that a `TIMEOUT` names what was still pending.
   */
  pending: string[] | undefined;
  /**
   * The latest result the registry made or checked for this call, frozen: an interceptor that
   * hands back exactly what `next()` resolved with returns this object, which needs no check.
   */
  last: ToolExecutionResult | undefined;
}

/**
 * A call that is ready to dispatch (resolved, validated, frozen), and from then on its state: one
 * object for the whole call, since every allocation on this path is paid by every call. It is also
 * the call's first {@link Hop} (`state` is the call itself).
 */
export interface Prepared extends CallState, Hop {
  /** The call as the caller gave it, to prepare it again if its tool changes (executeAll). */
  readonly raw: unknown;
  readonly exec: InterceptedExecution;
  readonly extensions: Extensions | undefined;
  /** The whole-call deadline (`callTimeoutMs`), if the call has one. */
  readonly deadline: CallDeadline | undefined;
}

/**
 * A call's whole-call deadline: its own controller, whose signal the interceptors and the body
 * see (it aborts with the caller's signal, or when the time is up), the caller's signal, the limit.
 */
export interface CallDeadline {
  readonly ms: number;
  readonly caller: AbortSignal | undefined;
  readonly controller: AbortController;
}

/** One execution on its way through the interceptors to the body, with its call's state. */
export interface Hop {
  readonly exec: InterceptedExecution;
  readonly extensions: Extensions | undefined;
  readonly state: CallState;
}
