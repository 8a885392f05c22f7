/**
 * The staged view of the pipeline the DeepSeek Harness's agent loop drives: it prepares a
 * turn's calls one by one in model order (the `tools/pre-execute` listeners, the guards and any
 * approval), overlaps only their bodies, and finalizes them in model order again
 * (`tools/post-execute`, `finalizeContent`, `tools/result`). Each call is still one run of our
 * registry's pipeline (validation, interceptors, timeouts): the policy stage pauses it at the
 * points where the loop takes over, and the loop's calls release it.
 */
import type { ToolDefinition, ToolExecution, ToolExecutionResult } from '@dsh-tools/protocol';
import {
  createHarnessCall,
  HARNESS_CALL,
  type HarnessCall,
  type HarnessShapedResult,
  shapeResult,
} from './harness-call';
import { isRecord } from './values';

/**
 * The key the harness's agent loop reads the scheduler under (`ctx.tools[TOOL_RUNTIME_SCHEDULER]`).
 * Where `@deepseek-ai/dsh-tools` itself stays installed beside this package, pass its symbol as
 * the service's `schedulerKey` instead.
 */
export const TOOL_RUNTIME_SCHEDULER: unique symbol = Symbol('@deepseek-ai/dsh-tools.scheduler');

/** The harness's code for a call cancelled after its body started. */
export const TOOL_ABORTED = 'ABORTED';

/** The harness's code for a call cancelled before its body started. */
export const TOOL_ABORTED_BEFORE_DISPATCH = 'ABORTED_BEFORE_DISPATCH';

/** Whether a call may overlap its neighbours, as the harness's loop asks. */
export type ToolExecutionMode = { readonly kind: 'parallel' } | { readonly kind: 'exclusive' };

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

const deferred = <T>(): Deferred<T> => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

/** What the policy stage hands the loop before the body: go on, or a refusal held for finalize. */
export type StagePrepared =
  | { readonly kind: 'dispatch' }
  | { readonly kind: 'held'; readonly result: ToolExecutionResult };

/** Where one scheduled call waits for the loop. */
export interface CallStage {
  readonly prepared: Deferred<StagePrepared>;
  readonly dispatchGate: Deferred<void>;
  readonly dispatched: Deferred<ToolExecutionResult>;
  readonly finalizeGate: Deferred<void>;
  /** The final result, once the pipeline has returned it. */
  final?: HarnessShapedResult;
  /** Whether the loop committed the call (finalize or finish): `tools/result` waits for it. */
  committed: boolean;
  /** A `tools/result` notification that came before the commit. */
  pending?: (() => void) | undefined;
}

/**
 * Sends a call's `tools/result` now, or, for a call the loop has not committed yet (one that
 * failed before its policy ran), when it does: observers see results in model order.
 */
export const notifyInOrder = (call: HarnessCall | undefined, notify: () => void): void => {
  const stage = stageOf(call);
  if (stage === undefined || stage.committed) notify();
  else stage.pending = notify;
};

const commit = (stage: CallStage): void => {
  stage.committed = true;
  const pending = stage.pending;
  stage.pending = undefined;
  pending?.();
};

/** The stage of a scheduled call (absent for a plain `execute`). */
export const stageOf = (call: HarnessCall | undefined): CallStage | undefined =>
  (call as { stage?: CallStage } | undefined)?.stage;

/** Releases every gate, so that a call whose loop went away still finishes. */
const release = (stage: CallStage): void => {
  stage.dispatchGate.resolve();
  stage.finalizeGate.resolve();
};

/** The execution the loop holds between the stages: the harness's `ToolRunContext`. */
export interface ScheduledExecution {
  readonly token: symbol;
  readonly callId: string;
  readonly rootCallId: string;
  readonly name: string;
  readonly arguments: unknown;
  readonly agent?: unknown;
  readonly parent?: symbol;
  readonly signal: AbortSignal;
  deferContext(context: unknown): void;
  concludeTurn(): void;
}

type Prepared =
  | { readonly kind: 'dispatch'; readonly exec: ScheduledExecution }
  | {
      readonly kind: 'post-result' | 'final-result';
      readonly exec: ScheduledExecution;
      readonly result: HarnessShapedResult;
    };

type Dispatched = {
  readonly kind: 'post-result' | 'final-result';
  readonly result: HarnessShapedResult;
};

/** The harness's `ToolRuntimeScheduler`. */
export interface ToolRuntimeScheduler {
  prepare(exec: unknown): Promise<Prepared>;
  dispatch(exec: ScheduledExecution): Promise<Dispatched>;
  finalize(exec: ScheduledExecution, result: unknown): Promise<HarnessShapedResult>;
  finish(exec: ScheduledExecution, result: unknown): HarnessShapedResult;
}

/** What the scheduler needs of the service. */
export interface SchedulerHost {
  /** Runs one call through the whole pipeline (never rejects); the result shaped. */
  run(exec: ToolExecution): Promise<HarnessShapedResult>;
}

const invalidExecution = (what: string): never => {
  throw new TypeError(
    `tools scheduler: ${what} was not prepared by this tools service's scheduler; pass the exec that prepare() returned.`,
  );
};

/** The scheduler over `host`: each call one pipeline run, paused where the loop takes over. */
export function createScheduler(host: SchedulerHost): ToolRuntimeScheduler {
  const calls = new WeakMap<
    object,
    { call: HarnessCall; stage: CallStage; settled: Promise<HarnessShapedResult> }
  >();
  const entry = (exec: unknown, what: string) => {
    const found = isRecord(exec) ? calls.get(exec) : undefined;
    return found ?? invalidExecution(what);
  };
  return {
    async prepare(input) {
      const raw = (isRecord(input) ? input : {}) as Partial<ToolExecution> & {
        rootCallId?: unknown;
        parent?: unknown;
      };
      const callId = typeof raw.callId === 'string' ? raw.callId : '';
      const call = createHarnessCall({ ...raw, callId });
      call.full = true;
      const stage: CallStage = {
        prepared: deferred(),
        dispatchGate: deferred(),
        dispatched: deferred(),
        finalizeGate: deferred(),
        committed: false,
      };
      (call as { stage?: CallStage }).stage = stage;
      const signal = raw.signal ?? new AbortController().signal;
      // A loop that is aborted drains and finalizes what it started; a gate left shut by one
      // that went away must not hold its call forever.
      const caller = raw.signal;
      const onAbort = () => release(stage);
      if (caller !== undefined) {
        if (caller.aborted) release(stage);
        else caller.addEventListener('abort', onAbort, { once: true });
      }
      const exec: ScheduledExecution = {
        token: call.token,
        callId,
        rootCallId: call.rootCallId,
        name: typeof raw.name === 'string' ? raw.name : '',
        arguments: raw.arguments,
        ...(raw.agent !== undefined && { agent: raw.agent }),
        ...(call.parent !== undefined && { parent: call.parent }),
        signal,
        deferContext(context) {
          call.contexts.push(context);
        },
        concludeTurn() {
          call.concludes = true;
        },
      };
      const settled = host.run({ ...raw, [HARNESS_CALL]: call } as ToolExecution).then((final) => {
        stage.final = final;
        // One step's signal serves all its calls: each call's listener goes when it is done.
        caller?.removeEventListener('abort', onAbort);
        return final;
      });
      calls.set(exec, { call, stage, settled });
      const first = await Promise.race([stage.prepared.promise, settled]);
      if ('isError' in first) return { kind: 'final-result', exec, result: first };
      if (first.kind === 'held') {
        return { kind: 'post-result', exec, result: shapeResult(first.result, call, true) };
      }
      return { kind: 'dispatch', exec };
    },
    async dispatch(exec) {
      const { call, stage, settled } = entry(exec, 'dispatch(exec)');
      stage.dispatchGate.resolve();
      const first = await Promise.race([stage.dispatched.promise, settled]);
      return first === stage.final
        ? { kind: 'final-result', result: first as HarnessShapedResult }
        : { kind: 'post-result', result: shapeResult(first, call, true) };
    },
    finalize(exec) {
      const { stage, settled } = entry(exec, 'finalize(exec)');
      commit(stage);
      release(stage);
      return settled;
    },
    finish(exec, result) {
      const { stage } = entry(exec, 'finish(exec)');
      commit(stage);
      release(stage);
      return stage.final ?? (result as HarnessShapedResult);
    },
  };
}

/**
 * Whether a call may overlap its neighbours: only a tool the caller can see whose hint says so
 * (`concurrencySafe: true`, or its classifier answering exactly `true` for these arguments);
 * anything else, unknown tools and throwing classifiers included, is exclusive.
 */
export function executionModeOf(
  definition: ToolDefinition | undefined,
  args: unknown,
): ToolExecutionMode {
  const hint = definition?.hints?.concurrencySafe;
  if (hint === true) return PARALLEL;
  if (typeof hint !== 'function' || !isRecord(args) || Array.isArray(args)) return EXCLUSIVE;
  try {
    return hint(args) === true ? PARALLEL : EXCLUSIVE;
  } catch {
    return EXCLUSIVE;
  }
}

const PARALLEL: ToolExecutionMode = Object.freeze({ kind: 'parallel' });
const EXCLUSIVE: ToolExecutionMode = Object.freeze({ kind: 'exclusive' });
