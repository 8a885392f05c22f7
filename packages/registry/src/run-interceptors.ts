import {
  ToolErrorCode as Codes,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type InterceptorNext,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { type ChainEntry, type Next, runChain, WaterfallError } from '@dsh-tools/waterfall';
import { boundOutput } from './bound-output';
import { kindOf, messageOf, quote } from './describe';
import { promiseThen } from './intrinsics';
import { asToolError, copyResult } from './output';
import { readRewrite } from './read-rewrite';
import { interceptorError, keep, misuse, settledIn } from './results';
import { type TraceEvent, traceHop } from './trace';
import type { CallState, Hop, InterceptorOptions } from './types';

/** A link of the chain: an interceptor as the waterfall runs it, with its place and its name. */
interface Registered extends ChainEntry<[InterceptedExecution], ToolExecutionResult, Hop> {
  readonly priority: number;
  /** The same link for a call that is traced or under a whole-call deadline (see `traced`). */
  readonly traced: (first: Hop) => ChainEntry<[InterceptedExecution], ToolExecutionResult, Hop>;
}

/**
 * The executions an interceptor's rewrite made, with what the body needs of them (their extension
 * fields): the terminal receives the execution that reached it, and finds its hop here.
 */
const rewritten = new WeakMap<InterceptedExecution, Hop>();

/**
 * The hop an execution travelling down a call's chain belongs to: the call's own, a rewrite's, or
 * (never met: every execution that travels is one of those) the execution alone, as it reached.
 */
const hopOf = (exec: InterceptedExecution, first: Hop): Hop =>
  exec === first.exec
    ? first
    : (rewritten.get(exec) ?? { exec, extensions: undefined, state: first.state });

/**
 * How an interceptor that settled with `value` is traced: nothing when it passed on what `next()`
 * gave it (`inner`), else a veto (it never called `next()`) or an answer of its own.
 */
const answeredFor = (
  value: unknown,
  inner: ToolExecutionResult | undefined,
  sent: Promise<ToolExecutionResult> | undefined,
): TraceEvent | undefined =>
  value === inner ? undefined : sent === undefined ? 'vetoed' : 'answered';

/**
 * An interceptor's answer as the waterfall reads it: a promise or a plain value as it is, a
 * thenable as a promise (its `then` read exactly once, as `await` would), so that an answer that
 * arrives later is never taken for a veto. Reading `then` may throw: that is the interceptor's
 * own error.
 */
const answerOf = (returned: unknown): ToolExecutionResult | Promise<ToolExecutionResult> => {
  if ((typeof returned === 'object' && returned !== null) || typeof returned === 'function') {
    const then = (returned as { then?: unknown }).then;
    if (typeof then === 'function') {
      return new Promise<ToolExecutionResult>((resolve, reject) => {
        then.call(returned, resolve, reject);
      });
    }
  }
  return returned as ToolExecutionResult;
};

/** The interceptors of a registry, around the body. */
export interface InterceptorChain {
  /** How many interceptors are registered. */
  readonly size: number;
  /** Adds an interceptor; returns its (idempotent) disposer. Throws on a malformed one. */
  use(interceptor: Interceptor, options?: InterceptorOptions): () => void;
  /**
   * Runs the interceptors around the body, for the call whose first hop is `first`. Resolves with
   * the innermost result as the interceptors passed it out; rejects when the chain itself failed
   * (a misuse of `next()`, which the waterfall detects): {@link chainFailure} turns that into the
   * call's result.
   */
  run(first: Hop): Promise<ToolExecutionResult>;
}

/**
 * The result of a chain that rejected: the first misuse the registry saw, else the waterfall's
 * (its message says which rule of `next()` was broken, and by whom), else a generic failure.
 */
export function chainFailure(error: unknown, hop: Hop): ToolExecutionResult {
  const { exec, state } = hop;
  if (state.misuse) return state.misuse;
  if (error instanceof WaterfallError) return chainMisuse(error, hop);
  return errorResult(
    exec.callId,
    Codes.INTERCEPTOR_ERROR,
    `The interceptors of tool "${exec.name}" failed (${messageOf(error)}); the call fails closed.`,
  );
}

/** A waterfall misuse as the call's result, in the waterfall's words (`listener "x" <what>`). */
const chainMisuse = (error: WaterfallError, hop: Hop): ToolExecutionResult => {
  const prefix = `listener "${error.listener}" `;
  const what =
    error.kind === 'threw'
      ? `threw (${messageOf(error.cause ?? error)})`
      : error.message.startsWith(prefix)
        ? error.message.slice(prefix.length)
        : error.message;
  return interceptorError(hop.exec, error.listener, what);
};

const isHop = (value: Hop | ToolExecutionResult): value is Hop =>
  (value as Hop).state !== undefined;

/**
 * The stage *run the interceptors*: the `tools/execute` waterfall, outermost first, around the
 * body (which the call itself runs: `state.runBody`), with the call's first hop as the run's
 * context. The waterfall owns the rules of `next()`; the registry reads, in the waterfall's own
 * steps and with no wrapper around the interceptor, only what is about tools:
 *
 * - `sent`: a rewrite (`next(changed)`) is checked (`readRewrite`: arguments validated again)
 *   before anything further in runs; one whose check ends after the interceptor settled starts
 *   nothing;
 * - `resolved` and `vetoed`: an answer the registry did not produce is copied and checked; one that
 *   is exactly what `next()` resolved with passes untouched;
 * - `rejected`: a thrown `ToolError` keeps its code, any other throw fails closed.
 *
 * An interceptor that returns `next()`'s own promise costs the chain one link and nothing more.
 * A call that is traced, or under a whole-call deadline, runs each interceptor inside a wrapper
 * made for that call, which records what it did (`traced`).
 */
export function createInterceptorChain(): InterceptorChain {
  let entries: readonly Registered[] = [];
  let count = 0;

  /**
   * One call's run: its first hop is the run's context, and the innermost step runs the body with
   * the execution that reached it.
   */
  const run = (first: Hop): Promise<ToolExecutionResult> => {
    const { state } = first;
    const chain =
      state.span || state.pending ? entries.map((entry) => entry.traced(first)) : entries;
    return runChain(
      chain,
      [first.exec],
      (exec: InterceptedExecution) => state.runBody(hopOf(exec, first)),
      first,
    );
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
    count++;
    const name = options.name ?? (interceptor.name || `interceptor #${count}`);

    /** The interceptor's settled value: what `next()` resolved with passes, anything else is checked. */
    const accept = (value: unknown, exec: InterceptedExecution, state: CallState) => {
      if (value !== undefined && value === state.last) return state.last;
      const copied = copyResult(value);
      if ('problem' in copied) return misuse(state, exec, name, `returned ${copied.problem}`);
      if (copied.result.callId !== exec.callId) {
        return misuse(
          state,
          exec,
          name,
          `returned the result of another call (${quote(copied.result.callId)})`,
        );
      }
      return keep(state, boundOutput(exec.name, copied.result, state.entry.maxOutputBytes));
    };

    /** What the interceptor threw (or rejected with), as its result. */
    const thrown = (error: unknown, exec: InterceptedExecution, state: CallState) => {
      // A misuse further in, passing through: the waterfall has recorded it, and it decides.
      if (error instanceof WaterfallError) throw error;
      const coded = asToolError(error);
      if (coded) {
        return keep(state, errorResult(exec.callId, coded.code, coded.message, coded.details));
      }
      return misuse(state, exec, name, `threw (${messageOf(error)})`);
    };

    /**
     * `next(changed)`: plain `next()` when `changed` is absent or the execution received, else
     * checked (`readRewrite`) before the rest of the chain starts with it. Its check may end after
     * the interceptor settled (an asynchronous validator): then nothing starts (`go` refuses).
     */
    const sent = (
      changed: [InterceptedExecution],
      args: [InterceptedExecution],
      first: Hop,
      go: (args: [InterceptedExecution]) => Promise<ToolExecutionResult> | false,
    ): Promise<ToolExecutionResult> => {
      const exec = args[0];
      const value: unknown = changed[0];
      if (value === undefined || value === exec) return go(args) as Promise<ToolExecutionResult>;
      const goOn = (hop: Hop): Promise<ToolExecutionResult> => {
        rewritten.set(hop.exec, hop);
        return (
          go([hop.exec]) ||
          // The interceptor gave up waiting while its rewrite was validated: the waterfall fails
          // the call for it, and nothing (no inner interceptor, no body) may start after that.
          Promise.resolve(
            keep(
              hop.state,
              interceptorError(hop.exec, name, 'did not wait for its rewritten call'),
            ),
          )
        );
      };
      const checked = readRewrite(value, hopOf(exec, first), name);
      if (!(checked instanceof Promise)) {
        return isHop(checked) ? goOn(checked) : Promise.resolve(checked);
      }
      return checked.then((outcome) => (isHop(outcome) ? goOn(outcome) : outcome));
    };

    /** The interceptor as the waterfall calls it: its answer, a thenable read as a promise. */
    const listener = (
      exec: InterceptedExecution,
      next: Next<[InterceptedExecution], ToolExecutionResult>,
    ): ToolExecutionResult | Promise<ToolExecutionResult> => {
      const returned = interceptor(exec, next as InterceptorNext);
      return returned instanceof Promise ? returned : answerOf(returned);
    };

    /** An answer, resolved or a veto, checked for the execution the interceptor received. */
    // `args[0]`, not a destructuring: that would read the array through its iterator.
    const answered = (value: ToolExecutionResult, args: [InterceptedExecution], first: Hop) =>
      accept(value, args[0], first.state);
    const readers = {
      name,
      resolved: answered,
      vetoed: answered,
      rejected: (error: unknown, args: [InterceptedExecution], first: Hop) =>
        thrown(error, args[0], first.state),
      sent,
    };

    /**
     * The link for one traced call, or one under a whole-call deadline: the interceptor inside a
     * wrapper that records what it did (passed, rewrote, vetoed, answered, threw) on the call's
     * span, and keeps it on the pending list (which a `TIMEOUT` names) until it settles.
     */
    const traced = (first: Hop): ChainEntry<[InterceptedExecution], ToolExecutionResult, Hop> => {
      const { span, pending } = first.state;
      /** Once the interceptor settled: off the pending list, and the outcome traced. */
      const book = (outcome: TraceEvent | undefined): void => {
        if (pending) settledIn(pending, name);
        if (span && outcome) traceHop(span, name, outcome);
      };
      return {
        ...readers,
        listener: (exec, next) => {
          let sent: Promise<ToolExecutionResult> | undefined;
          let inner: ToolExecutionResult | undefined;
          const guarded: InterceptorNext = (changed) => {
            if (span) {
              traceHop(
                span,
                name,
                changed === undefined || changed === exec ? 'passed' : 'rewrote',
              );
            }
            sent = changed === undefined ? next() : next(changed);
            // Traced only: what the inside answered, to tell passing it on from replacing it.
            if (span) {
              promiseThen.call(
                sent,
                (value: ToolExecutionResult) => {
                  inner = value;
                },
                () => {},
              );
            }
            return sent;
          };
          if (pending) pending.push(name);
          let answer: ToolExecutionResult | Promise<ToolExecutionResult>;
          try {
            answer = listener(exec, guarded);
          } catch (error) {
            book('threw');
            throw error;
          }
          // The bookkeeping reacts before the waterfall's own reaction, which checks the answer.
          if (answer instanceof Promise) {
            promiseThen.call(
              answer,
              (value: unknown) =>
                book(answer === sent ? undefined : answeredFor(value, inner, sent)),
              () => book('threw'),
            );
          } else book(answeredFor(answer, inner, sent));
          return answer;
        },
      };
    };

    const entry: Registered = { ...readers, listener, priority, traced };
    // A new array (a run in progress keeps the one it took); the sort is stable, so equal
    // priorities keep registration order.
    entries = [...entries, entry].sort((a, b) => b.priority - a.priority);
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      entries = entries.filter((other) => other !== entry);
    };
  };

  return {
    get size() {
      return entries.length;
    },
    use,
    run,
  };
}
