/** A registered listener with its display name, priority and the readers of its answer. */
export interface ListenerEntry<F> {
  readonly listener: F;
  readonly name: string;
  readonly priority: number;
}

/**
 * What `add` reads of a listener's options; the others (a waterfall's readers of answers) ride
 * along on the entry, typed by the waterfall that reads them.
 */
export interface AddOptions {
  readonly name?: string | undefined;
  readonly priority?: number | undefined;
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
      // The options ride along: a waterfall reads its listener's readers of answers there.
      const entry: ListenerEntry<F> = {
        ...options,
        listener,
        name: name ?? (listener.name || `listener #${++counter}`),
        priority,
      };
      // A new array (a run in progress keeps the one it took); the sort is stable, so equal
      // priorities keep registration order.
      items = [...items, entry].sort((a, b) => b.priority - a.priority);
      return () => {
        items = items.filter((other) => other !== entry);
      };
    },
  };
}
