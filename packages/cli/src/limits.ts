import { errorResult, type Interceptor } from '@dsh-tools/protocol';
import { StoreLimiter, type StoreLimiterOptions } from './state-limits';
import {
  type AppliedRule,
  appliedRules,
  type CallLimiter,
  concurrentRefusal,
  type LimitRefusal,
  type LimitSlot,
  type LimitsConfig,
  perMinuteRefusal,
} from './state-limits-rules';
import type { SharedState } from './state-redis';

export {
  type CallLimiter,
  type LimitRefusal,
  type LimitRule,
  type LimitSlot,
  type LimitsConfig,
  limitsInterceptor,
} from './state-limits-rules';

/**
 * Limits per client: calls per minute (a token bucket: a burst of up to the limit, refilled
 * evenly over the minute) and calls at once, for each client as a whole and, by tool pattern, for
 * each client's calls of those tools. Kept in this process, or (with a state store) counted in
 * the store so that replicas share one budget.
 */

interface Bucket {
  tokens: number;
  updated: number;
}

/**
 * The limiter for a gateway's limits: in this process, or (with `state`) counted in the shared
 * store so that every replica enforces one budget.
 */
export function createLimiter(
  defaults: LimitsConfig | undefined,
  perClient: ReadonlyMap<string, LimitsConfig>,
  state?: SharedState,
  options?: StoreLimiterOptions,
): CallLimiter {
  return state
    ? new StoreLimiter(defaults, perClient, state, options)
    : new MemoryLimiter(defaults, perClient);
}

/** Past this many buckets (clients × patterns seen), refilled ones are forgotten. */
const MAX_BUCKETS = 10_000;

/**
 * The limits of a gateway, counted in this process. `check` says whether a call could start now
 * without starting it (for an HTTP 429 before anything runs); `acquire` starts it, counting it.
 */
export class MemoryLimiter implements CallLimiter {
  readonly #defaults: LimitsConfig | undefined;
  readonly #perClient: ReadonlyMap<string, LimitsConfig>;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  readonly #running = new Map<string, number>();

  constructor(
    defaults: LimitsConfig | undefined,
    perClient: ReadonlyMap<string, LimitsConfig> = new Map(),
    now: () => number = () => performance.now(),
  ) {
    this.#defaults = defaults;
    this.#perClient = perClient;
    this.#now = now;
  }

  /** The limits that apply to `identity` calling `tool`, each with its bucket's key. */
  #rules(identity: string | undefined, tool: string): (AppliedRule & { key: string })[] {
    return appliedRules(this.#defaults, this.#perClient, identity, tool).map((applied) => ({
      ...applied,
      key:
        applied.pattern === undefined
          ? `c\0${applied.client}`
          : `t\0${applied.client}\0${applied.pattern}`,
    }));
  }

  /** The bucket of `key` refilled to now (a bucket starts full). */
  #bucket(key: string, perMinute: number, now: number): Bucket {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = { tokens: perMinute, updated: now };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(
      perMinute,
      bucket.tokens + ((now - bucket.updated) * perMinute) / 60_000,
    );
    bucket.updated = now;
    return bucket;
  }

  /**
   * Why `identity`'s call of `tool` could not start now, or `undefined` when it could. Of several
   * limits reached, the one to wait longest for: a retry after that is not refused by another.
   */
  check(identity: string | undefined, tool: string): LimitRefusal | undefined {
    const now = this.#now();
    let worst: LimitRefusal | undefined;
    for (const { key, rule, what } of this.#rules(identity, tool)) {
      let refusal: LimitRefusal | undefined;
      if (rule.concurrent !== undefined && (this.#running.get(key) ?? 0) >= rule.concurrent) {
        refusal = concurrentRefusal(rule.concurrent, what);
      }
      if (rule.callsPerMinute !== undefined) {
        const bucket = this.#bucket(key, rule.callsPerMinute, now);
        if (bucket.tokens < 1) {
          const retryAfterMs = Math.ceil(((1 - bucket.tokens) * 60_000) / rule.callsPerMinute);
          if (!refusal || retryAfterMs > refusal.retryAfterMs) {
            refusal = perMinuteRefusal(rule.callsPerMinute, what, retryAfterMs);
          }
        }
      }
      if (refusal && (!worst || refusal.retryAfterMs > worst.retryAfterMs)) worst = refusal;
    }
    return worst;
  }

  /**
   * Gives back what one started call of `identity`'s `tool` took from the calls-a-minute buckets:
   * for a call that did not run to its end but asks to be sent again (a 2026-07-28 round that
   * ends in a question), so that the call and its retry count once.
   */
  refund(identity: string | undefined, tool: string): void {
    const now = this.#now();
    for (const { key, rule } of this.#rules(identity, tool)) {
      if (rule.callsPerMinute === undefined) continue;
      const bucket = this.#bucket(key, rule.callsPerMinute, now);
      bucket.tokens = Math.min(rule.callsPerMinute, bucket.tokens + 1);
    }
  }

  /** Starts a call: its slot, or why it may not start (nothing is counted then). */
  acquire(identity: string | undefined, tool: string): LimitSlot | LimitRefusal {
    if (this.#buckets.size > MAX_BUCKETS) this.#sweep();
    const refused = this.check(identity, tool);
    if (refused) return refused;
    const rules = this.#rules(identity, tool);
    for (const { key, rule } of rules) {
      if (rule.callsPerMinute !== undefined) {
        (this.#buckets.get(key) as Bucket).tokens -= 1;
      }
      if (rule.concurrent !== undefined) this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        for (const { key, rule } of rules) {
          if (rule.concurrent === undefined) continue;
          const left = (this.#running.get(key) ?? 1) - 1;
          if (left <= 0) this.#running.delete(key);
          else this.#running.set(key, left);
        }
      },
    };
  }

  /** Forgets the buckets that have refilled (a full bucket is what a new one starts as). */
  #sweep(): void {
    const now = this.#now();
    for (const [key, bucket] of this.#buckets) {
      // Any bucket untouched for a minute is full again, whatever its limit.
      if (now - bucket.updated >= 60_000) this.#buckets.delete(key);
    }
  }

  /**
   * The limits as an interceptor, to install outside every policy: a call over a limit is refused
   * (`UNAVAILABLE`, with `retryAfterMs` in its details) before anything runs; a concurrency slot is
   * held until the call ends. `identityOf` reads who is calling.
   */
  interceptor(
    identityOf: (exec: { readonly identity?: unknown }) => string | undefined,
  ): Interceptor {
    return (exec, next) => {
      const slot = this.acquire(identityOf(exec as { identity?: unknown }), exec.name);
      if ('message' in slot) {
        return errorResult(exec.callId, 'UNAVAILABLE', slot.message, {
          retryAfterMs: slot.retryAfterMs,
        });
      }
      let result: ReturnType<typeof next>;
      try {
        result = next();
      } catch (error) {
        slot.release();
        throw error;
      }
      result.then(slot.release, slot.release);
      return result;
    };
  }
}

/**
 * The in-process limiter under its first name (`new Limiter(…)`); as a type, any
 * {@link CallLimiter}, so that code typed against a gateway's limiter accepts either kind.
 */
export const Limiter: typeof MemoryLimiter = MemoryLimiter;
/** Any limiter of a gateway (see {@link CallLimiter}). */
export type Limiter = CallLimiter;
