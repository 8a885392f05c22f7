import { createList } from './list';

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

const ignore = () => {};

/** A settled link's `rest`: a later `next()` is refused as a misuse and never runs the terminal. */
const closed = Promise.resolve() as Promise<never>;

/** The error a listener's own failure becomes; errors from further down pass through. */
const own = (name: string, error: unknown, failure?: [unknown]) =>
  error instanceof WaterfallError || (failure && failure[0] === error)
    ? error
    : new WaterfallError(name, 'threw', `threw: ${(error as Error)?.message ?? error}`, error);

/**
 * One run: the chain (`c`), the terminal (`t`) and the first misuse (`m`), which fails the run even
 * if a listener swallowed its rejection. One object, so that each link's `next` captures little.
 */
interface Run<A extends unknown[], R> {
  readonly c: readonly ChainEntry<A, R>[];
  readonly t: Terminal<A, R>;
  m: WaterfallError | undefined;
}

/**
 * A link on the slow path (its listener did not simply `return next()`): whether the rest of the
 * chain has settled (`s`), and what it rejected with (`f`), boxed so that a thrown `undefined` is
 * told apart. One-letter names keep the package inside its 1 KB budget.
 */
interface Watch {
  s: boolean;
  f?: [unknown];
}

/**
 * Attached before the rest of the chain settles, this runs before any reaction to the listener's
 * own promise; it also keeps a rejection the listener dropped from going unhandled.
 */
const observe = (promise: Promise<unknown>, watch: Watch) => {
  promise.then(
    () => {
      watch.s = true;
    },
    (error: unknown) => {
      watch.s = true;
      watch.f = [error];
    },
  );
};

function step<A extends unknown[], R>(run: Run<A, R>, index: number, args: A): Promise<R> {
  const entry = run.c[index];
  if (!entry) {
    try {
      return Promise.resolve(run.t(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  // Per-link allocations are the engine's main cost: one closure, and a watch only when needed.
  let rest: Promise<R> | undefined;
  let watch: Watch | undefined;
  // A plain function reading `arguments`: a rest parameter allocates on every call.
  const next = function (): Promise<R> {
    if (rest) {
      // The terminal must never run twice, and a second result never replace the first. `closed`:
      // the link settled without calling next(); else this is its second call.
      run.m ??= new WaterfallError(
        entry.name,
        'next-twice',
        `called next() ${rest === closed ? 'after it had returned' : 'twice'}`,
      );
      const rejected = Promise.reject(run.m);
      rejected.catch(ignore);
      return rejected;
    }
    // biome-ignore lint/complexity/noArguments: see above
    rest = step(run, index + 1, arguments.length ? ([...arguments] as A) : args);
    if (watch) observe(rest, watch);
    return rest;
  } as Next<A, R>;
  let result: R | Promise<R>;
  try {
    // A spread call allocates an array per link; one argument is the common shape.
    const listener = entry.listener as (...a: unknown[]) => R | Promise<R>;
    result = args.length === 1 ? listener(args[0], next) : listener(...args, next);
  } catch (error) {
    rest ??= closed;
    rest.catch(ignore);
    return Promise.reject(run.m ?? own(entry.name, error));
  }
  // Fast paths: `return next()` hands back the rest of the chain as it is; a plain value is a veto.
  if (rest && result === rest && !run.m) return rest;
  if (!rest && !(result instanceof Promise)) {
    rest = closed;
    return Promise.resolve(result);
  }
  watch = { s: false };
  if (rest) observe(rest, watch);
  return Promise.resolve(result).then(
    (value) => {
      if (run.m) throw run.m;
      // Kept as the run's misuse: an outer listener that swallows it cannot turn it into a result.
      if (rest && !watch!.s) {
        run.m = new WaterfallError(entry.name, 'returned-early', 'returned before next() settled');
        throw run.m;
      }
      rest ??= closed;
      return value;
    },
    (error: unknown) => {
      rest ??= closed;
      throw run.m ?? own(entry.name, error, watch!.f);
    },
  );
}

/**
 * Runs an ad-hoc chain (outermost first) with the same semantics and misuse checks as a
 * {@link Waterfall}: for hosts that keep their listeners elsewhere (a cordis event, say). A misuse
 * fails the run even when the listener swallows the rejection of its second `next()`.
 */
export function runChain<A extends unknown[], R>(
  chain: readonly ChainEntry<A, R>[],
  args: A,
  terminal: Terminal<A, R>,
): Promise<R> {
  return step({ c: chain, t: terminal, m: undefined }, 0, args);
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

/**
 * Creates a waterfall: a generic onion engine that knows nothing about what flows through it.
 * With no listeners a run costs about one extra call around the terminal.
 */
export function createWaterfall<A extends unknown[], R>(): Waterfall<A, R> {
  const list = createList<WaterfallListener<A, R>>('waterfall.use()');
  return {
    use: (listener, options) => list.add(listener, options?.name, options?.priority),
    run(...argsAndTerminal) {
      // The arguments are evaluated in order: pop() leaves only the run's arguments in the array.
      return runChain(
        list.items,
        argsAndTerminal as unknown as A,
        argsAndTerminal.pop() as Terminal<A, R>,
      );
    },
    get size() {
      return list.items.length;
    },
  };
}
