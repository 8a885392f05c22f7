import {
  ToolErrorCode as Codes,
  errorResult,
  type Interceptor,
  type InterceptorNext,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { createWaterfall, type Next, WaterfallError } from '@dsh-tools/waterfall';
import { boundOutput } from './bound-output';
import { kindOf, messageOf, quote } from './describe';
import { asToolError, copyResult } from './output';
import { readRewrite } from './read-rewrite';
import { interceptorError, keep, misuse, settledIn } from './results';
import { type TraceEvent, traceHop } from './trace';
import type { CallState, Hop, InterceptorOptions } from './types';

/**
 * An interceptor's `next(changed)` on its way down the chain. The link (or the body) that receives
 * it checks it (`readRewrite`) before anything runs with it: the waterfall learns at once that
 * `next()` was called, so its rules (once, not after returning, settle before returning) hold for
 * a rewrite exactly as for a plain `next()`, even while an asynchronous validator is still working.
 */
class Rewrite {
  /** Set once the interceptor that sent it has returned or thrown: nothing may start after that. */
  abandoned = false;
  /** The execution it became once checked, which the receiving link's results are checked against. */
  hop: Hop | undefined;
  constructor(
    readonly changed: unknown,
    readonly from: Hop,
    readonly by: string,
  ) {}
}

/** What travels down the chain: a checked execution, or a rewrite still to be checked. */
type Link = Hop | Rewrite;

const isHop = (value: Hop | ToolExecutionResult): value is Hop =>
  (value as Hop).state !== undefined;

const promiseThen = Promise.prototype.then;

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

/** The interceptors of a registry, around the body. */
export interface InterceptorChain {
  /** How many interceptors are registered. */
  readonly size: number;
  /** Adds an interceptor; returns its (idempotent) disposer. Throws on a malformed one. */
  use(interceptor: Interceptor, options?: InterceptorOptions): () => void;
  /**
   * Runs the interceptors around the body. Resolves with the innermost result as the interceptors
   * passed it out; rejects when the chain itself failed (a misuse of `next()`, which the waterfall
   * detects): {@link chainFailure} turns that into the call's result.
   */
  run(hop: Hop): Promise<ToolExecutionResult>;
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

/** The innermost step: the call runs its body with the execution that reached it. */
const body = (hop: Hop): Promise<ToolExecutionResult> => hop.state.runBody(hop);

/**
 * The stage *run the interceptors*: the `tools/execute` waterfall, outermost first, around the
 * body (which the call itself runs: `state.runBody`).
 * The waterfall owns the rules of `next()`; each interceptor is wrapped only for what is about
 * tools: a rewrite's arguments are validated again (`readRewrite`), a thrown `ToolError` keeps its
 * code, any other throw fails closed, and a result the registry did not produce is copied and
 * checked. A result that is exactly what `next()` resolved with passes untouched, and an
 * interceptor that returns `next()`'s own promise costs the chain one link and nothing more.
 */
export function createInterceptorChain(): InterceptorChain {
  const chain = createWaterfall<[Link], ToolExecutionResult>();
  let count = 0;
  // Registered and not disposed: read on every call, so kept here rather than asked of the chain.
  let active = 0;

  /** Checks a rewrite, then goes on with it; never starts anything for an abandoned one. */
  const arrive = (
    link: Rewrite,
    go: (hop: Hop) => ToolExecutionResult | Promise<ToolExecutionResult>,
  ): ToolExecutionResult | Promise<ToolExecutionResult> => {
    const checked = readRewrite(link.changed, link.from, link.by);
    if (!(checked instanceof Promise)) {
      if (!isHop(checked)) return checked;
      link.hop = checked;
      return go(checked);
    }
    return checked.then((outcome) => {
      if (!isHop(outcome)) return outcome;
      link.hop = outcome;
      // The interceptor gave up waiting while its rewrite was validated: the waterfall fails the
      // call for it, and nothing (no inner interceptor, no body) may start after the call ended.
      if (link.abandoned) {
        return keep(
          outcome.state,
          interceptorError(outcome.exec, link.by, 'did not wait for its rewritten call'),
        );
      }
      return go(outcome);
    });
  };

  const terminal = (link: Link): Promise<ToolExecutionResult> | ToolExecutionResult =>
    link instanceof Rewrite ? arrive(link, body) : body(link);

  const run = (hop: Hop): Promise<ToolExecutionResult> => chain.run(hop, terminal);

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
    const accept = (value: unknown, hop: Hop): ToolExecutionResult => {
      const { exec, state } = hop;
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
    const thrown = (error: unknown, hop: Hop): ToolExecutionResult => {
      // A misuse further in, passing through: the waterfall has recorded it, and it decides.
      if (error instanceof WaterfallError) throw error;
      const coded = asToolError(error);
      if (coded) {
        return keep(
          hop.state,
          errorResult(hop.exec.callId, coded.code, coded.message, coded.details),
        );
      }
      return misuse(hop.state, hop.exec, name, `threw (${messageOf(error)})`);
    };

    /**
     * Bookkeeping once the interceptor settled: off the pending list of a whole-call deadline, its
     * rewrite abandoned (nothing may start after that), and the outcome traced.
     */
    const book = (
      state: CallState,
      rewrite: Rewrite | undefined,
      outcome: TraceEvent | undefined,
    ): void => {
      if (state.pending) settledIn(state.pending, name);
      if (rewrite) rewrite.abandoned = true;
      if (state.span && outcome) traceHop(state.span, name, outcome);
    };

    /** `checked`: the hop came from a rewrite checked here, which must travel on in its place. */
    const intercept = (
      hop: Hop,
      next: Next<[Link], ToolExecutionResult>,
      checked: boolean,
    ): ToolExecutionResult | Promise<ToolExecutionResult> => {
      const { exec, state } = hop;
      // Set at dispatch when a tracer records the call; the chain only adds events to it.
      const { span } = state;
      let sent: Promise<ToolExecutionResult> | undefined;
      let rewrite: Rewrite | undefined;
      let late: Promise<unknown> | undefined;
      const guarded: InterceptorNext = (changed) => {
        if (changed === undefined || changed === exec) {
          if (span) traceHop(span, name, 'passed');
          sent = checked ? next(hop) : next();
        } else {
          if (span) traceHop(span, name, 'rewrote');
          rewrite = new Rewrite(changed, hop, name);
          if (late) {
            const abandon = () => {
              rewrite!.abandoned = true;
            };
            promiseThen.call(late, abandon, abandon);
          }
          sent = next(rewrite);
        }
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
      let inner: ToolExecutionResult | undefined;
      let returned: unknown;
      // Under a whole-call deadline, what is pending is tracked so that a TIMEOUT can name it.
      const { pending } = state;
      if (pending) pending.push(name);
      try {
        returned = interceptor(exec, guarded);
      } catch (error) {
        book(state, rewrite, 'threw');
        return thrown(error, hop);
      }
      // `return next()`: the result is the inner one, already the registry's. The common case.
      if (returned === sent && sent !== undefined) {
        if (pending) {
          const done = () => settledIn(pending, name);
          promiseThen.call(sent, done, done);
        }
        return sent;
      }
      let answer: Promise<unknown> | undefined;
      if (returned instanceof Promise) {
        answer = returned;
      } else if (
        (typeof returned === 'object' && returned !== null) ||
        typeof returned === 'function'
      ) {
        // A thenable is awaited as `await` would, its `then` read exactly once.
        let then: unknown;
        try {
          then = (returned as { then?: unknown }).then;
        } catch (error) {
          book(state, rewrite, 'threw');
          return thrown(error, hop);
        }
        if (typeof then === 'function') {
          answer = new Promise<unknown>((resolve, reject) => {
            then.call(returned, resolve, reject);
          });
        }
      }
      if (answer === undefined) {
        book(state, rewrite, answeredFor(returned, inner, sent));
        return accept(returned, hop);
      }
      // The waterfall's one reaction to the answer checks it (`resolved` and `rejected` below);
      // the bookkeeping, when there is any, reacts first. A rewrite sent after this return is
      // abandoned when the answer settles (`late`).
      if (pending || span || rewrite) {
        // `rewrite` read when it settles: one sent after this return is abandoned too.
        promiseThen.call(
          answer,
          (value: unknown) => book(state, rewrite, answeredFor(value, inner, sent)),
          () => book(state, rewrite, 'threw'),
        );
      } else late = answer;
      return answer as Promise<ToolExecutionResult>;
    };

    const listener = (
      link: Link,
      next: Next<[Link], ToolExecutionResult>,
    ): ToolExecutionResult | Promise<ToolExecutionResult> =>
      link instanceof Rewrite
        ? arrive(link, (hop) => intercept(hop, next, true))
        : intercept(link, next, false);
    /** The execution a link's answer is checked against: its own, or the rewrite it received. */
    const hopOf = (link: Link): Hop | undefined => (link instanceof Rewrite ? link.hop : link);
    const dispose = chain.use(listener, {
      name,
      priority,
      // In the waterfall's own reaction to an interceptor's promise: no promise hop of ours.
      resolved: (value, [link]) => {
        const hop = hopOf(link);
        return hop ? accept(value, hop) : value;
      },
      rejected: (error, [link]) => {
        const hop = hopOf(link);
        if (!hop) throw error;
        return thrown(error, hop);
      },
    });
    active++;
    let disposed = false;
    return () => {
      if (disposed) return;
      disposed = true;
      active--;
      dispose();
    };
  };

  return {
    get size() {
      return active;
    },
    use,
    run,
  };
}
