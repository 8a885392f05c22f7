import { errorResult, type Interceptor, type ToolExecutionResult } from '@dsh-tools/protocol';
import { matchesTool } from './http-identities';

/**
 * What both limiters share (the one in this process and the one counted in the state store): the
 * rules, which of them apply to a call, and the words of a refusal, so that a client reads the
 * same message and `retryAfterMs` whichever limiter answered.
 */

/** One limit: how many calls a minute, how many at once. */
export interface LimitRule {
  readonly callsPerMinute?: number | undefined;
  readonly concurrent?: number | undefined;
}

/** The config's `limits` (or a client's own): the client's limit, and per tool pattern. */
export interface LimitsConfig extends LimitRule {
  /** Tool name or `*` glob → its limit, for each client's calls of matching tools. */
  readonly tools?: Readonly<Record<string, LimitRule>> | undefined;
}

/** Why a call may not start now, and when it may. */
export interface LimitRefusal {
  readonly retryAfterMs: number;
  readonly message: string;
  /**
   * Set when the refusal is not a limit reached but the state store not answering: the call was
   * refused rather than run uncounted (an HTTP front may answer 503 instead of 429).
   */
  readonly storeUnavailable?: true;
}

/** A held slot of a call; released when the call ends. */
export interface LimitSlot {
  release(): void;
}

/** One limit that applies to a call: where it is counted, the rule, and how to name it. */
export interface AppliedRule {
  /** Which client (and pattern) it counts: distinct for each budget. */
  readonly client: string;
  readonly pattern?: string;
  readonly rule: LimitRule;
  readonly what: string;
}

/** The client name limits count a call under: its identity, or `local` (stdio, `call`). */
export const clientOf = (identity: string | undefined): string => identity ?? 'local';

/** The limits that apply to `identity` calling `tool`. */
export function appliedRules(
  defaults: LimitsConfig | undefined,
  perClient: ReadonlyMap<string, LimitsConfig>,
  identity: string | undefined,
  tool: string,
): AppliedRule[] {
  const client = clientOf(identity);
  // A client's own limits replace the defaults, whole (as the README says).
  const config = perClient.get(client) ?? defaults;
  const rules: AppliedRule[] = [];
  if (!config) return rules;
  if (config.callsPerMinute !== undefined || config.concurrent !== undefined) {
    rules.push({ client, rule: config, what: `client "${client}"` });
  }
  for (const [pattern, rule] of Object.entries(config.tools ?? {})) {
    if (!matchesTool(pattern, tool)) continue;
    rules.push({
      client,
      pattern,
      rule,
      what: `client "${client}" on tools ${JSON.stringify(pattern)}`,
    });
  }
  return rules;
}

/** How long a refused concurrent call is told to wait: a slot frees when a running call ends. */
export const CONCURRENT_RETRY_MS = 1000;

/** The refusal of a call over `rule.concurrent` calls at once. */
export const concurrentRefusal = (concurrent: number, what: string): LimitRefusal => ({
  retryAfterMs: CONCURRENT_RETRY_MS,
  message: `The gateway's limit of ${concurrent} calls at once for ${what} is reached; retry when one of them has finished.`,
});

/** The refusal of a call over `perMinute` calls a minute, `retryAfterMs` before a token is back. */
export const perMinuteRefusal = (
  perMinute: number,
  what: string,
  retryAfterMs: number,
): LimitRefusal => ({
  retryAfterMs,
  message: `The gateway's limit of ${perMinute} calls a minute for ${what} is reached; retry in ${Math.ceil(retryAfterMs / 1000)} s.`,
});

/**
 * The limits of a gateway as its callers use them: the in-process `MemoryLimiter` in one process,
 * `StoreLimiter` when replicas share a state store. `check` says whether a call could start
 * now without starting it (for an HTTP 429 before anything runs); `acquire` starts it, counting
 * it; `refund` never rejects.
 */
export interface CallLimiter {
  check(
    identity: string | undefined,
    tool: string,
  ): LimitRefusal | undefined | Promise<LimitRefusal | undefined>;
  acquire(
    identity: string | undefined,
    tool: string,
  ): LimitSlot | LimitRefusal | Promise<LimitSlot | LimitRefusal>;
  refund(identity: string | undefined, tool: string): void;
  interceptor(
    identityOf: (exec: { readonly identity?: unknown }) => string | undefined,
  ): Interceptor;
}

/**
 * A limiter as an interceptor, to install outside every policy: a call over a limit is refused
 * (`UNAVAILABLE`, with `retryAfterMs` in its details) before anything runs; its slot is held
 * until the call ends.
 */
export function limitsInterceptor(
  limiter: Pick<CallLimiter, 'acquire'>,
  identityOf: (exec: { readonly identity?: unknown }) => string | undefined,
): Interceptor {
  return async (exec, next): Promise<ToolExecutionResult> => {
    const slot = await limiter.acquire(identityOf(exec as { identity?: unknown }), exec.name);
    if ('message' in slot) {
      return errorResult(exec.callId, 'UNAVAILABLE', slot.message, {
        retryAfterMs: slot.retryAfterMs,
      });
    }
    try {
      return await next();
    } finally {
      slot.release();
    }
  };
}
