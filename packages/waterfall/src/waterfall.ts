/** Options of {@link Waterfall.use}. */
export interface UseOptions {
  /** Named in misuse errors; defaults to the function's name, else `listener #<n>`. */
  readonly name?: string;
  /** Higher runs outer (earlier); equal priorities keep registration order. Default 0. */
  readonly priority?: number;
}

/**
 * Continues the chain. With no arguments the current ones pass on; with arguments, the rest of the
 * chain and the terminal receive those instead. Call it at most once per run.
 */
export type Next<A extends unknown[], R> = (...args: A | []) => Promise<R>;

/** A listener: the run's arguments, then `next`. Not calling `next` short-circuits the chain. */
export type WaterfallListener<A extends unknown[], R> = (
  ...args: [...A, next: Next<A, R>]
) => R | Promise<R>;

/** The innermost step of a run. */
export type Terminal<A extends unknown[], R> = (...args: A) => R | Promise<R>;

/** One link of a chain, outermost first. */
export interface ChainEntry<A extends unknown[], R> {
  readonly listener: WaterfallListener<A, R>;
  readonly name: string;
}

/** How a listener misused the chain. */
export type WaterfallMisuse = 'next-twice' | 'threw' | 'returned-early';

/**
 * A listener broke the chain's contract. Raised in every build, not only in development, so that a
 * policy bug fails the run loudly instead of running the terminal twice or losing its result.
 */
export class WaterfallError extends Error {
  /** The name of the listener at fault. */
  declare readonly listener: string;
  declare readonly kind: WaterfallMisuse;

  /** The message is `listener "<listener>" <what>`. */
  constructor(listener: string, kind: WaterfallMisuse, what: string, cause?: unknown) {
    super(`listener "${listener}" ${what}`, { cause });
    this.name = 'WaterfallError';
    this.listener = listener;
    this.kind = kind;
  }
}

/** A run's progress past one link. */
interface Frame {
  /** 0: next() not called; 1: the rest of the chain is running; 2: it has settled. */
  state: 0 | 1 | 2;
  misuse: WaterfallError | undefined;
  downstream: Promise<unknown> | undefined;
  /** What the rest of the chain rejected with, boxed so that `undefined` can be told apart. */
  failure: [unknown] | undefined;
}

const ignore = () => {};

async function step<A extends unknown[], R>(
  chain: readonly ChainEntry<A, R>[],
  index: number,
  args: A,
  terminal: Terminal<A, R>,
  parent: Frame | undefined,
): Promise<R> {
  try {
    const entry = chain[index];
    if (entry === undefined) return await terminal(...args);
    const { name } = entry;
    const frame: Frame = { state: 0, misuse: undefined, downstream: undefined, failure: undefined };
    const next: Next<A, R> = (...given) => {
      if (frame.state !== 0) {
        // The run fails even if the listener swallows this rejection: the terminal must never
        // run twice, and a second result must never silently replace the first.
        frame.misuse ??= new WaterfallError(
          name,
          'next-twice',
          'called next() twice; call it once per run',
        );
        const rejected = Promise.reject(frame.misuse);
        rejected.catch(ignore);
        return rejected;
      }
      frame.state = 1;
      frame.downstream = step(
        chain,
        index + 1,
        given.length ? (given as A) : args,
        terminal,
        frame,
      );
      return frame.downstream as Promise<R>;
    };
    let result: R | undefined;
    let thrown: [unknown] | undefined;
    try {
      result = await entry.listener(...args, next);
    } catch (error) {
      thrown = [error];
    }
    if (frame.misuse) throw frame.misuse;
    if (frame.state === 1) {
      // The rest of the chain is still running and nobody waits for it any more; its outcome
      // must not surface as an unhandled rejection.
      frame.downstream?.catch(ignore);
      if (!thrown) {
        throw new WaterfallError(
          name,
          'returned-early',
          'returned before next() settled; await next()',
        );
      }
    }
    if (thrown) {
      const [error] = thrown;
      // An error that came up from further down passes through untouched; only the listener's
      // own failures are attributed to it.
      throw error instanceof WaterfallError || (frame.failure && frame.failure[0] === error)
        ? error
        : new WaterfallError(name, 'threw', `threw: ${(error as Error)?.message ?? error}`, error);
    }
    return result as R;
  } catch (error) {
    if (parent) parent.failure = [error];
    throw error;
  } finally {
    if (parent) parent.state = 2;
  }
}

/**
 * Runs an ad-hoc chain (outermost first) with the same semantics and misuse checks as a
 * {@link Waterfall}: for hosts that keep their listeners elsewhere (a cordis event, say).
 */
export function runChain<A extends unknown[], R>(
  chain: readonly ChainEntry<A, R>[],
  args: A,
  terminal: Terminal<A, R>,
): Promise<R> {
  return step(chain, 0, args, terminal, undefined);
}

/** An onion of listeners around a terminal step. */
export interface Waterfall<A extends unknown[], R> {
  /** Adds a listener; returns its disposer (idempotent). */
  use(listener: WaterfallListener<A, R>, options?: UseOptions): () => void;
  /**
   * Runs the listeners, outermost first, around `terminal`. The listener list is taken when the
   * run starts: adding or disposing a listener during a run changes only later runs.
   */
  run(...argsAndTerminal: [...A, Terminal<A, R>]): Promise<R>;
  /** How many listeners are registered. */
  readonly size: number;
}

interface Registered<A extends unknown[], R> extends ChainEntry<A, R> {
  readonly priority: number;
}

/**
 * Creates a waterfall: a generic onion engine that knows nothing about what flows through it.
 * With no listeners a run costs about one extra call around the terminal.
 */
export function createWaterfall<A extends unknown[], R>(): Waterfall<A, R> {
  // Copy-on-write: a run holds the array it started with, so snapshots are free.
  let chain: readonly Registered<A, R>[] = [];
  let counter = 0;
  return {
    use(listener, options = {}) {
      const priority = options.priority ?? 0;
      if (typeof listener !== 'function' || priority !== +priority) {
        throw new TypeError('waterfall.use(listener, { priority }) takes a function and a number');
      }
      const entry: Registered<A, R> = {
        listener,
        name: options.name ?? (listener.name || `listener #${++counter}`),
        priority,
      };
      const at = chain.findIndex((other) => other.priority < priority);
      chain = at === -1 ? [...chain, entry] : [...chain.slice(0, at), entry, ...chain.slice(at)];
      return () => {
        chain = chain.filter((other) => other !== entry);
      };
    },
    run(...argsAndTerminal) {
      const terminal = argsAndTerminal.pop() as Terminal<A, R>;
      const args = argsAndTerminal as unknown as A;
      if (chain.length === 0) {
        try {
          return Promise.resolve(terminal(...args));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return step(chain, 0, args, terminal, undefined);
    },
    get size() {
      return chain.length;
    },
  };
}
