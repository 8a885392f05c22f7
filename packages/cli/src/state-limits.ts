import { randomUUID } from 'node:crypto';
import type { Interceptor } from '@dsh-tools/protocol';
import type { Redis } from 'ioredis';
import {
  type AppliedRule,
  appliedRules,
  type CallLimiter,
  concurrentRefusal,
  type LimitRefusal,
  type LimitSlot,
  type LimitsConfig,
  limitsInterceptor,
  perMinuteRefusal,
} from './state-limits-rules';
import {
  inStore,
  type RedisState,
  redisState,
  type SharedState,
  StateUnavailableError,
} from './state-redis';

/**
 * Limits counted in the state store, so that every replica of a gateway spends one budget. Each
 * decision is one Lua script (atomic in Redis) on Redis's own clock (`TIME`), so replicas whose
 * clocks disagree still agree on the bucket. Calls a minute: a hash (`tokens`, `updated`) that
 * expires once it would be full again. Calls at once: a sorted set of call ids scored by when
 * their lease ends, renewed while the call runs, so a replica killed mid-call frees its slots
 * when the lease lapses instead of holding them forever.
 */

/** Options of {@link StoreLimiter}. */
export interface StoreLimiterOptions {
  /**
   * How long a running call's slot is held without being renewed (default 15 s; renewed every
   * third of it): how long a slot of a replica that died mid-call stays taken.
   */
  readonly leaseMs?: number;
}

const DEFAULT_LEASE_MS = 15_000;

// Shared prologue: Redis's clock in ms; ARGV[2 + 2i] / ARGV[3 + 2i] are rule i's calls a minute
// and calls at once ('' when absent); KEYS[2i - 1] / KEYS[2i] its bucket and its running set.
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS / 2
`;

const refill = `
local function tokensOf(key, perMinute)
  local b = redis.call('HMGET', key, 'tokens', 'updated')
  local tokens, updated = tonumber(b[1]), tonumber(b[2])
  if not tokens then return perMinute end
  return math.min(perMinute, tokens + math.max(0, now - updated) * perMinute / 60000)
end
`;

/**
 * ARGV[1] 'check' or 'acquire', ARGV[2] the call id, ARGV[3] the lease (ms). Returns
 * {0, 0, 0} when the call may start (and, for 'acquire', has taken its token and slot), else
 * {rule index, 1 for at once or 2 for a minute, retry after ms}: of several limits reached, the
 * one to wait longest for, as the in-process limiter chooses.
 */
const ACQUIRE = `${NOW}${refill}
local mode, id, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local tokens = {}
local worst, worstKind, worstRetry = 0, 0, -1
for i = 1, n do
  local perMinute, concurrent = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local kind, retry = 0, -1
  if concurrent then
    redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
    if redis.call('ZCARD', KEYS[2 * i]) >= concurrent then kind, retry = 1, 1000 end
  end
  if perMinute then
    tokens[i] = tokensOf(KEYS[2 * i - 1], perMinute)
    if tokens[i] < 1 then
      local r = math.ceil((1 - tokens[i]) * 60000 / perMinute)
      if kind == 0 or r > retry then kind, retry = 2, r end
    end
  end
  if kind ~= 0 and retry > worstRetry then worst, worstKind, worstRetry = i, kind, retry end
end
if worst > 0 then return {worst, worstKind, worstRetry} end
if mode == 'acquire' then
  for i = 1, n do
    if tokens[i] then
      redis.call('HSET', KEYS[2 * i - 1], 'tokens', string.format('%.6f', tokens[i] - 1), 'updated', now)
      redis.call('PEXPIRE', KEYS[2 * i - 1], 60000)
    end
    if tonumber(ARGV[3 + 2 * i]) then
      redis.call('ZADD', KEYS[2 * i], now + lease, id)
      redis.call('PEXPIRE', KEYS[2 * i], lease + 1000)
    end
  end
end
return {0, 0, 0}
`;

/** ARGV[1] the call id, ARGV[2] the lease: pushes the call's lease on every running set it is in. */
const RENEW = `${NOW}
local renewed = 0
for i = 1, #KEYS do
  renewed = renewed + redis.call('ZADD', KEYS[i], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[2]) + 1000)
end
return renewed
`;

/** Gives one token back to each bucket (ARGV[2 + 2i] as in ACQUIRE), never past full. */
const REFUND = `${NOW}${refill}
for i = 1, n do
  local perMinute = tonumber(ARGV[2 + 2 * i])
  if perMinute and redis.call('EXISTS', KEYS[2 * i - 1]) == 1 then
    local tokens = math.min(perMinute, tokensOf(KEYS[2 * i - 1], perMinute) + 1)
    redis.call('HSET', KEYS[2 * i - 1], 'tokens', string.format('%.6f', tokens), 'updated', now)
    redis.call('PEXPIRE', KEYS[2 * i - 1], 60000)
  end
end
return 0
`;

type Script = (...args: (string | number)[]) => Promise<unknown>;

interface LimitScripts {
  dshLimitAcquire: Script;
  dshLimitRenew: Script;
  dshLimitRefund: Script;
}

/** The scripts on `redis` (ioredis sends each by its SHA, and its text once when Redis lacks it). */
function scriptsOf(redis: Redis): LimitScripts {
  const scripted = redis as unknown as Partial<LimitScripts>;
  if (!scripted.dshLimitAcquire) {
    redis.defineCommand('dshLimitAcquire', { lua: ACQUIRE });
    redis.defineCommand('dshLimitRenew', { lua: RENEW });
    redis.defineCommand('dshLimitRefund', { lua: REFUND });
  }
  return redis as unknown as LimitScripts;
}

/** What a limiter that cannot reach its store answers: refused, retryable, naming the store. */
function storeRefusal(state: SharedState, error: unknown): LimitRefusal {
  const retryAfterMs = Math.max(1000, state.deadlineMs);
  const why = error instanceof StateUnavailableError ? error.message : String(error);
  return {
    retryAfterMs,
    storeUnavailable: true,
    // Said to the MCP client: the store is not named by its (internal) address.
    message: `The gateway's limits could not be counted in its state store, so the call is refused rather than run uncounted. Retry in ${Math.ceil(retryAfterMs / 1000)} s; if it persists, ask the gateway's operator to check its state store (${why.includes('no answer within') ? 'it did not answer in time' : 'it could not be reached'}).`,
  };
}

/** A call's limits, their keys (bucket, running set) and the script's arguments, rule by rule. */
interface Plan {
  readonly rules: AppliedRule[];
  readonly keys: string[];
  readonly args: string[];
}

/** A part of a Redis key that cannot run into the next part. */
const keyPart = (s: string) => encodeURIComponent(s);

/**
 * The limits of a gateway, counted in the state store shared by its replicas. Answers like the
 * in-process limiter (the same messages and `retryAfterMs`); when the store is slow or gone, a
 * call is refused (`storeUnavailable`), never let through uncounted.
 */
export class StoreLimiter implements CallLimiter {
  readonly #defaults: LimitsConfig | undefined;
  readonly #perClient: ReadonlyMap<string, LimitsConfig>;
  readonly #state: RedisState;
  readonly #scripts: LimitScripts;
  readonly #leaseMs: number;

  constructor(
    defaults: LimitsConfig | undefined,
    perClient: ReadonlyMap<string, LimitsConfig>,
    state: SharedState,
    options: StoreLimiterOptions = {},
  ) {
    this.#defaults = defaults;
    this.#perClient = perClient;
    this.#state = redisState(state);
    this.#scripts = scriptsOf(this.#state.redis);
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** The rules of a call, with their keys and script arguments, in the order the script sees. */
  #plan(identity: string | undefined, tool: string): Plan {
    const rules = appliedRules(this.#defaults, this.#perClient, identity, tool);
    const keys: string[] = [];
    const args: string[] = [];
    for (const { client, pattern, rule } of rules) {
      const base = `${this.#state.prefix}limit:${keyPart(client)}${pattern === undefined ? '' : `:tool:${keyPart(pattern)}`}`;
      keys.push(`${base}:tokens`, `${base}:running`);
      args.push(String(rule.callsPerMinute ?? ''), String(rule.concurrent ?? ''));
    }
    return { rules, keys, args };
  }

  /** Runs the acquire script; the refusal it found, or `undefined`. */
  async #decide(
    mode: 'check' | 'acquire',
    identity: string | undefined,
    tool: string,
    id: string,
  ): Promise<{ plan: Plan; refusal?: LimitRefusal }> {
    const plan = this.#plan(identity, tool);
    if (plan.rules.length === 0) return { plan };
    try {
      const [index, kind, retry] = (await inStore(
        `count the limits of ${tool}`,
        this.#state.deadlineMs,
        () =>
          this.#scripts.dshLimitAcquire(
            plan.keys.length,
            ...plan.keys,
            mode,
            id,
            this.#leaseMs,
            ...plan.args,
          ),
      )) as [number, number, number];
      if (index === 0) return { plan };
      const { rule, what } = plan.rules[index - 1] as AppliedRule;
      const refusal =
        kind === 1
          ? concurrentRefusal(rule.concurrent as number, what)
          : perMinuteRefusal(rule.callsPerMinute as number, what, retry);
      return { plan, refusal };
    } catch (error) {
      // The script may have run with its answer lost: give back a slot it may hold (a token it
      // may have taken stays spent: counting a refused call is the safe side).
      if (mode === 'acquire') this.#release(plan, id);
      return { plan, refusal: storeRefusal(this.#state, error) };
    }
  }

  /** Why `identity`'s call of `tool` could not start now, or `undefined` (counts nothing). */
  async check(identity: string | undefined, tool: string): Promise<LimitRefusal | undefined> {
    return (await this.#decide('check', identity, tool, '')).refusal;
  }

  /**
   * Starts a call: its slot (renewed in the store until released), or why it may not start
   * (nothing is counted then; a store that does not answer refuses it).
   */
  async acquire(identity: string | undefined, tool: string): Promise<LimitSlot | LimitRefusal> {
    const id = randomUUID();
    const { plan, refusal } = await this.#decide('acquire', identity, tool, id);
    if (refusal) return refusal;
    const running = plan.keys.filter(
      (_key, i) => i % 2 === 1 && plan.rules[(i - 1) / 2]?.rule.concurrent !== undefined,
    );
    if (running.length === 0) return { release: () => {} };
    // Renewed while the call runs; a failed renewal is left to the next (the lease covers three).
    const renewal = setInterval(
      () =>
        void this.#scripts
          .dshLimitRenew(running.length, ...running, id, this.#leaseMs)
          .catch(() => {}),
      Math.max(10, Math.floor(this.#leaseMs / 3)),
    );
    renewal.unref();
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renewal);
        this.#release(plan, id);
      },
    };
  }

  /** Frees call `id`'s slots; a store that is gone now frees them when the lease lapses. */
  #release(plan: Plan, id: string): void {
    const pipeline = this.#state.redis.pipeline();
    for (const [i, rule] of plan.rules.entries()) {
      if (rule.rule.concurrent !== undefined) pipeline.zrem(plan.keys[2 * i + 1] as string, id);
    }
    void pipeline.exec().catch(() => {});
  }

  /**
   * Gives back the token one started call took from each calls-a-minute bucket (see the
   * in-process limiter). Never rejects: a refund the store misses is a token the client waits for.
   */
  refund(identity: string | undefined, tool: string): void {
    const plan = this.#plan(identity, tool);
    if (plan.rules.length === 0) return;
    void inStore(`refund a call of ${tool}`, this.#state.deadlineMs, () =>
      this.#scripts.dshLimitRefund(plan.keys.length, ...plan.keys, 'refund', '', 0, ...plan.args),
    ).catch(() => {});
  }

  /** The limits as an interceptor (see {@link limitsInterceptor}). */
  interceptor(
    identityOf: (exec: { readonly identity?: unknown }) => string | undefined,
  ): Interceptor {
    return limitsInterceptor(this, identityOf);
  }
}
