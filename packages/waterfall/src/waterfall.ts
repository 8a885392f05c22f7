import { createList } from './list';

/** Options of {@link Waterfall.use}. */
export interface UseOptions<A extends unknown[] = unknown[], R = unknown, X = unknown> {
  /** Named in misuse errors; defaults to the function's name, else `listener #<n>`. */
  readonly name?: string;
  /** Higher runs outer (earlier); equal priorities keep registration order. Default 0. */
  readonly priority?: number;
  /**
   * Reads what the listener's *promise* fulfilled with, in the one reaction the engine attaches to
   * it, and returns the link's result: for a wrapper that checks every answer (a registry copying
   * an interceptor's result) without a promise hop of its own. Not called for a veto (a value
   * returned without calling `next()`: {@link vetoed} reads that), nor when the listener returned
   * `next()`'s own promise (that answer is the inner one). A plain value returned after calling
   * `next()` is read like a promise's, once the rest of the chain has been checked. `context` is
   * the run's (the last argument of {@link runChain}).
   */
  readonly resolved?: ((value: R, args: A, context: X) => R) | undefined;
  /**
   * Reads what the listener threw, or what its promise rejected with, when that is the listener's
   * own error (not a misuse, not an error from further in): its return is the link's result, and
   * what it throws is the listener's error.
   */
  readonly rejected?: ((error: unknown, args: A, context: X) => R) | undefined;
  /**
   * Reads a veto: what the listener returned, not a promise, without calling `next()`. Its return
   * is the link's result; what it throws is the listener's error (read by {@link rejected}).
   */
  readonly vetoed?: ((value: R, args: A, context: X) => R | Promise<R>) | undefined;
  /**
   * Reads the listener's `next(...changed)` before anything further in runs: it answers what that
   * `next()` resolves with, and calls `go` with the arguments to go on with (checked, say).
   * `go` runs the rest of the chain, or answers `false` when the listener has settled since
   * (nothing may start after a link settled). Without it, `changed` goes on as it is.
   */
  readonly sent?:
    | ((changed: A, args: A, context: X, go: (args: A) => Promise<R> | false) => Promise<R>)
    | undefined;
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

/** One link of a chain, outermost first; `resolved` and `rejected` as in {@link UseOptions}. */
export interface ChainEntry<A extends unknown[], R, X = unknown>
  extends Pick<UseOptions<A, R, X>, 'resolved' | 'rejected' | 'vetoed' | 'sent'> {
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
 * Whether a link's promise has settled (`s`), and what it rejected with (`f`), boxed so that a
 * thrown `undefined` is told apart. One-letter names keep the package inside its 1 KB budget.
 */
interface Watch {
  s: boolean;
  f?: [unknown];
}

/**
 * One run: the chain (`c`), the terminal (`t`), the first misuse (`m`), which fails the run even if
 * a listener swallowed its rejection, and the watch of the promise the last `step` returned (`k`;
 * none for the terminal's, which is watched only when a listener needs to know). One object, so
 * that each link's `next` captures little.
 */
interface Run<A extends unknown[], R> {
  readonly c: readonly ChainEntry<A, R>[];
  readonly t: Terminal<A, R>;
  /** The run's context, passed to the readers of answers. */
  readonly x: unknown;
  m?: WaterfallError | undefined;
  k?: Watch | undefined;
}

/**
 * Watches the terminal's promise for the listener above it, and keeps a rejection that listener
 * dropped from going unhandled. Attached before the terminal settles, its reaction runs before any
 * reaction to the listener's own promise. (A link's own promise needs no watcher: the reaction
 * that settles it marks its watch.)
 */
const watchTerminal = (rest: Promise<unknown>): Watch => {
  const watch: Watch = { s: false };
  rest.then(
    () => {
      watch.s = true;
    },
    (error: unknown) => {
      watch.s = true;
      watch.f = [error];
    },
  );
  return watch;
};

/** Fails a link whose listener answered with a promise: recorded, never reported as unhandled. */
const fail = (watch: Watch, settled: Promise<unknown>, failure: unknown): never => {
  watch.f = [failure];
  settled.catch(ignore);
  throw failure;
};

function step<A extends unknown[], R>(run: Run<A, R>, index: number, args: A): Promise<R> {
  const entry = run.c[index];
  run.k = undefined;
  if (!entry) {
    try {
      return Promise.resolve(run.t(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  // Per-link allocations are the engine's main cost: one closure, and when the listener answers
  // with a promise of its own, one reaction and a watch. `inner` watches `rest`; `watch`, this
  // link's, is what the link above reads instead of attaching a reaction to this link's promise.
  let rest: Promise<R> | undefined;
  let inner: Watch | undefined;
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
      // A rejection that is the run's to report, never an unhandled one.
      const refused = Promise.reject(run.m);
      refused.catch(ignore);
      return refused;
    }
    // biome-ignore lint/complexity/noArguments: see above
    const changed = arguments.length ? ([...arguments] as A) : 0;
    if (changed && entry.sent) {
      // What goes on is decided by the reader, maybe later: `run.k` is the watch of the rest of
      // the chain only when the reader went on at once (and answers with what `go` did).
      run.k = undefined;
      rest = entry.sent(
        changed,
        args,
        run.x,
        (checked) => !watch?.s && step(run, index + 1, checked),
      );
    } else rest = step(run, index + 1, changed || args);
    inner = run.k;
    if (watch && !inner) inner = watchTerminal(rest);
    return rest;
  } as Next<A, R>;
  let result: R | Promise<R>;
  try {
    // A spread call allocates an array per link; one argument is the common shape.
    const listener = entry.listener as (...a: unknown[]) => R | Promise<R>;
    result = args.length === 1 ? listener(args[0], next) : listener(...args, next);
    // Fast paths: `return next()` hands back the rest of the chain as it is; a plain value is a veto.
    if (rest && result === rest && !run.m) {
      run.k = inner;
      return rest;
    }
    if (!rest && !(result instanceof Promise)) {
      // (`run.k` stays unset: the link above watches this answer itself, vetoes being rare.)
      rest = closed;
      return Promise.resolve(entry.vetoed ? entry.vetoed(result as R, args, run.x) : result);
    }
  } catch (error) {
    // Read like a rejection of the listener's promise, in the same reaction: a later `next()`
    // is refused, and `rejected` may turn the error into the link's result.
    rest ??= closed;
    result = Promise.reject(error);
  }
  // This link's watch, which the link above reads (and `go` asks whether it has settled).
  watch = { s: false };
  run.k = watch;
  if (rest && !inner) inner = watchTerminal(rest);
  const settled: Promise<R> = Promise.resolve(result).then(
    (value) => {
      watch!.s = true;
      // Kept as the run's misuse (unless one came first): an outer listener that swallows it
      // cannot turn it into a result.
      if (rest && !inner!.s) {
        run.m ??= new WaterfallError(
          entry.name,
          'returned-early',
          'returned before next() settled',
        );
      }
      if (run.m) fail(watch!, settled, run.m);
      rest ??= closed;
      try {
        return entry.resolved ? entry.resolved(value, args, run.x) : value;
      } catch (error) {
        return fail(watch!, settled, own(entry.name, error));
      }
    },
    (error: unknown) => {
      watch!.s = true;
      rest ??= closed;
      // The listener's own error, read by `rejected` when it has one; an error from further in,
      // or the run's misuse, as it is.
      let failure = run.m ?? own(entry.name, error, inner?.f);
      if (failure !== error && failure !== run.m && entry.rejected) {
        try {
          return entry.rejected(error, args, run.x);
        } catch (again) {
          failure = own(entry.name, again);
        }
      }
      return fail(watch!, settled, failure);
    },
  );
  return settled;
}

/**
 * Runs an ad-hoc chain (outermost first) with the same semantics and misuse checks as a
 * {@link Waterfall}: for hosts that keep their listeners elsewhere (a cordis event, say). A misuse
 * fails the run even when the listener swallows the rejection of its second `next()`.
 */
export function runChain<A extends unknown[], R, X = undefined>(
  chain: readonly ChainEntry<A, R, X>[],
  args: A,
  terminal: Terminal<A, R>,
  context?: X,
): Promise<R> {
  return step({ c: chain as readonly ChainEntry<A, R>[], t: terminal, x: context }, 0, args);
}

/** An onion of listeners around a terminal step. */
export interface Waterfall<A extends unknown[], R> {
  /** Adds a listener; returns its disposer (idempotent). */
  use(listener: WaterfallListener<A, R>, options?: UseOptions<A, R>): () => void;
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
    use: list.add as Waterfall<A, R>['use'],
    run(...argsAndTerminal) {
      // The arguments are evaluated in order: pop() leaves only the run's arguments in the array.
      return runChain<A, R>(
        list.items as readonly ChainEntry<A, R>[],
        argsAndTerminal as unknown as A,
        argsAndTerminal.pop() as Terminal<A, R>,
      );
    },
    get size() {
      return list.items.length;
    },
  };
}
