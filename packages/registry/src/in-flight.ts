import type { Call } from './call';

/**
 * How many entries of its own the in-flight map keeps: symbols, which no callId (a string) can
 * equal. Measured (one call in flight at a time, its has + set + delete): 77 ns with none, 59 ns
 * with one, 41 ns with 4, 32 ns with 16.
 */
const KEPT = 16;

/**
 * A registry's calls between dispatch and result, by callId: a callId is in flight at most once.
 *
 * A Map that always holds entries of its own. V8 makes a Map a new table whenever a delete leaves
 * it less than half full, and whenever a set finds it full of deleted entries: a registry running
 * one call at a time would make one on every call (152 bytes, the largest single allocation of a
 * bare call's bookkeeping). With entries of its own a delete never leaves the table that empty,
 * and the table is big enough that a set remakes it only once every few dozen calls.
 */
export class InFlight {
  readonly #map = new Map<string | symbol, Call | undefined>(
    Array.from({ length: KEPT }, () => [Symbol('kept'), undefined]),
  );

  has(callId: string): boolean {
    return this.#map.has(callId);
  }

  set(callId: string, call: Call): void {
    this.#map.set(callId, call);
  }

  delete(callId: string): void {
    this.#map.delete(callId);
  }

  /** The calls in flight, in dispatch order. */
  *calls(): IterableIterator<Call> {
    for (const call of this.#map.values()) if (call !== undefined) yield call;
  }
}
