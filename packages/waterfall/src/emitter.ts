import { createList } from './list';

/** Options of {@link createEmitter}. */
export interface EmitterOptions {
  /** Receives what a listener threw; the other listeners still run. Default: `console.error`. */
  readonly onError?: (error: unknown, listenerName: string) => void;
}

/** An emit-mode event: every listener sees every emission, none can stop the others. */
export interface Emitter<A extends unknown[]> {
  /** Adds a listener; returns its disposer (idempotent). */
  on(listener: (...args: A) => void, options?: { readonly name?: string }): () => void;
  /** Calls every listener registered when the emission starts, in registration order. */
  emit(...args: A): void;
  readonly size: number;
}

const report = (error: unknown, name: string) => {
  console.error(`listener "${name}" threw:`, error);
};

/**
 * Creates a contained emitter. A listener that throws (or returns a rejecting promise) is reported
 * through `onError` and never stops the listeners after it.
 */
export function createEmitter<A extends unknown[]>(options: EmitterOptions = {}): Emitter<A> {
  const onError = options.onError ?? report;
  const list = createList<(...args: A) => void>('emitter.on()');
  const fail = (error: unknown, name: string) => {
    try {
      onError(error, name);
    } catch {
      // The error reporter itself failed; there is nobody left to tell.
    }
  };
  return {
    on: (listener, options) => list.add(listener, { name: options?.name }),
    emit(...args) {
      for (const entry of list.items) {
        try {
          const returned: unknown = entry.listener(...args);
          if (returned instanceof Promise) returned.catch((error) => fail(error, entry.name));
        } catch (error) {
          fail(error, entry.name);
        }
      }
    },
    get size() {
      return list.items.length;
    },
  };
}
