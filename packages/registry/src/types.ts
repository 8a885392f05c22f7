import type {
  Interceptor,
  ToolChangeEvent,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolRegistryLike,
  ToolSchema,
} from '@dsh-tools/protocol';

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
  /** How many calls {@link ToolRegistry.executeAll} overlaps at most (default 10). */
  readonly maxConcurrency?: number;
  /**
   * Receives problems the registry contains instead of throwing: a body settling after its call
   * already resolved, an observer that threw, a schema that could not be compiled. Default:
   * `console.warn`. An `onError` that throws is ignored.
   */
  readonly onError?: (error: unknown, info: RegistryErrorInfo) => void;
}

/** What {@link ToolRegistryOptions.onError} is told beside the error. */
export interface RegistryErrorInfo {
  /**
   * - `late-settlement`: a tool body settled after its call had resolved `TIMEOUT` or `ABORTED`;
   *   its outcome was discarded.
   * - `observer`: a `change` or `result` listener threw (or rejected); the others still ran.
   * - `schema`: a tool's `parameters` could not be compiled (its calls run unvalidated), or the
   *   engine warned while compiling it (say, an unknown format that it will ignore).
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
