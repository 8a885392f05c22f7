/** A registered listener with its display name and priority. */
export interface ListenerEntry<F> {
  readonly listener: F;
  readonly name: string;
  readonly priority: number;
}

/** A copy-on-write listener list: a run or emission holds the array it started with. */
export interface List<F> {
  readonly items: readonly ListenerEntry<F>[];
  add(listener: F, name: string | undefined, priority: number | undefined): () => void;
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
    add(listener, name, priority = 0) {
      if (typeof listener !== 'function' || priority !== +priority) {
        throw new TypeError(`${method} takes a function and numeric priority`);
      }
      const entry: ListenerEntry<F> = {
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
