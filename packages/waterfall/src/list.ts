/** A registered listener with its display name, priority and the readers of its answer. */
export interface ListenerEntry<F> {
  readonly listener: F;
  readonly name: string;
  readonly priority: number;
  // biome-ignore lint/suspicious/noExplicitAny: typed by the waterfall that reads them
  readonly resolved?: ((value: any, args: any) => unknown) | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: typed by the waterfall that reads them
  readonly rejected?: ((error: unknown, args: any) => unknown) | undefined;
}

/** What `add` reads of a listener's options. */
export interface AddOptions {
  readonly name?: string | undefined;
  readonly priority?: number | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: typed by the waterfall that reads them
  readonly resolved?: ((value: any, args: any) => unknown) | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: typed by the waterfall that reads them
  readonly rejected?: ((error: unknown, args: any) => unknown) | undefined;
}

/** A copy-on-write listener list: a run or emission holds the array it started with. */
export interface List<F> {
  readonly items: readonly ListenerEntry<F>[];
  add(listener: F, options: AddOptions | undefined): () => void;
}

/**
 * The listener bookkeeping shared by waterfalls and emitters: validation, default names,
 * priority order (higher first, equal ones in registration order) and idempotent disposers.
 */
export function createList<F>(method: string): List<F> {
  let items: readonly ListenerEntry<F>[] = [];
  let counter = 0;
  return {
    get items() {
      return items;
    },
    add(listener, options = {}) {
      const { name, priority = 0 } = options;
      if (typeof listener !== 'function' || priority !== +priority) {
        throw new TypeError(`${method} takes a function and numeric priority`);
      }
      // The options ride along: a waterfall reads its listener's `resolved` and `rejected` there.
      const entry: ListenerEntry<F> = {
        ...options,
        listener,
        name: name ?? (listener.name || `listener #${++counter}`),
        priority,
      };
      const at = items.findIndex((other) => other.priority < priority);
      // A new array (a run in progress keeps the one it took), then the entry in its place.
      items = [...items];
      (items as ListenerEntry<F>[]).splice(at < 0 ? items.length : at, 0, entry);
      return () => {
        items = items.filter((other) => other !== entry);
      };
    },
  };
}
