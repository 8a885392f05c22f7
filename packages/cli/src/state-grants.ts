import type {
  GrantSpend,
  PermissionGrant,
  SharedGrantStore,
} from '@dsh-tools/interceptors-permission';
import { inStore, redisState, type SharedState } from './state-redis';

// Keys, under the state's prefix: `grants` (a set of ids) and `grant:<id>` (a hash: `grant`, the
// grant's JSON without its counters; `uses`, the uses left, when counted; `exp`, when it expires,
// epoch ms by Redis's clock, also the key's own expiry). Changes are announced on
// `grants:changed`. Every operation is one Lua script, so it is atomic on the server, and reads
// the time from Redis itself: replicas whose clocks disagree still agree on when a grant ends.
// The scripts build grant keys from the prefix, so they need one Redis server (not a Cluster).

/** Redis's clock in epoch ms, and whether the hash `h` (grant, uses, exp) is a grant in force. */
const LUA_PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function inForce(h)
  return h[1] and not (h[3] and tonumber(h[3]) <= now) and not (h[2] and tonumber(h[2]) <= 0)
end
`;

/** KEYS: index, grant key. ARGV: channel, id, json, ttl ms or '', uses or ''. Returns exp or -1. */
const ADD = `${LUA_PRELUDE}
if redis.call('EXISTS', KEYS[2]) == 1 then return redis.error_reply('a grant with this id exists') end
redis.call('HSET', KEYS[2], 'grant', ARGV[3])
local exp = -1
if ARGV[4] ~= '' then
  exp = now + tonumber(ARGV[4])
  redis.call('HSET', KEYS[2], 'exp', string.format('%d', exp))
  redis.call('PEXPIREAT', KEYS[2], string.format('%d', exp))
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'uses', ARGV[5]) end
redis.call('SADD', KEYS[1], ARGV[2])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return exp`;

/** KEYS: index. ARGV: grant key prefix. Returns [id, json, uses, exp] of each grant in force. */
const LIST = `${LUA_PRELUDE}
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local h = redis.call('HMGET', ARGV[1] .. id, 'grant', 'uses', 'exp')
  if inForce(h) then
    table.insert(out, { id, h[1], h[2] or '', h[3] or '' })
  else
    redis.call('DEL', ARGV[1] .. id)
    redis.call('SREM', KEYS[1], id)
  end
end
return out`;

/**
 * KEYS: index, then each grant's key. ARGV: channel, then each grant's id (in KEYS' order).
 * All or nothing: returns the ids not in force (and takes nothing), or an empty list once one use
 * of each counted grant is taken (a grant whose last use it was is removed).
 */
const SPEND = `${LUA_PRELUDE}
local refused = {}
for i = 2, #KEYS do
  if not inForce(redis.call('HMGET', KEYS[i], 'grant', 'uses', 'exp')) then
    table.insert(refused, ARGV[i])
    redis.call('DEL', KEYS[i])
    redis.call('SREM', KEYS[1], ARGV[i])
  end
end
if #refused > 0 then return refused end
local removed = false
for i = 2, #KEYS do
  if redis.call('HEXISTS', KEYS[i], 'uses') == 1 then
    if redis.call('HINCRBY', KEYS[i], 'uses', -1) <= 0 then
      redis.call('DEL', KEYS[i])
      redis.call('SREM', KEYS[1], ARGV[i])
      removed = true
    end
  end
end
if removed then redis.call('PUBLISH', ARGV[1], 'spent') end
return refused`;

/** KEYS: index, grant key. ARGV: channel, id. Returns 1 when the grant was there. */
const REVOKE = `
local n = redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[1], ARGV[2])
if n == 1 then redis.call('PUBLISH', ARGV[1], ARGV[2]) end
return n`;

/** Options of {@link createRedisGrantStore}. */
export interface RedisGrantStoreOptions {
  /**
   * Keep the list between calls, dropped when a change is announced (default true). A command
   * that lists once (`dsh-tools grant`) passes false: it never subscribes.
   */
  readonly listen?: boolean;
  /**
   * The longest a kept list is used without asking Redis again (default 1000 ms). It bounds how
   * long a new grant may go unseen when an announcement is lost (Redis restarted); it never lets
   * a grant apply that no longer does: spending asks Redis.
   */
  readonly maxAgeMs?: number;
  /** Receives grants in the store that cannot be read (skipped) and a subscription that failed. */
  readonly onError?: (error: unknown) => void;
}

/** The grant store on Redis, with `close()` to stop listening. */
export interface RedisGrantStore extends SharedGrantStore {
  /**
   * Settles when the store hears of changes (true; from then on it keeps its list), or will not
   * (false: `listen` off, or the subscription failed and was reported; every list asks Redis).
   */
  readonly listening: Promise<boolean>;
  close(): void;
}

/** A grant as Redis returns it: its id, JSON, uses left and expiry (`''` when absent). */
function readGrant(id: string, json: string, uses: string, exp: string): PermissionGrant {
  const parsed: unknown = JSON.parse(json);
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    (parsed as { id?: unknown }).id !== id ||
    typeof (parsed as { rule?: unknown }).rule !== 'string'
  ) {
    throw new Error('it has no string "rule", or not its own "id"');
  }
  return {
    ...(parsed as PermissionGrant),
    ...(exp !== '' && { expiresAt: Number(exp) }),
    ...(uses !== '' && { usesLeft: Number(uses) }),
  };
}

/**
 * The permission policy's grants in the state store several replicas share (see the key layout
 * above): added grants are acknowledged once Redis has them (with `appendfsync always`, once they
 * are on disk), a use is spent by one script that checks expiry by Redis's clock and decrements
 * atomically, and every failure or wait past the state's deadline rejects with a
 * `StateUnavailableError` (the policy then leaves the grants out: fail closed).
 */
export function createRedisGrantStore(
  state: SharedState,
  options: RedisGrantStoreOptions = {},
): RedisGrantStore {
  const { redis, prefix, deadlineMs } = redisState(state);
  const index = `${prefix}grants`;
  const keyPrefix = `${prefix}grant:`;
  const channel = `${prefix}grants:changed`;
  const maxAgeMs = options.maxAgeMs ?? 1000;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // A reporter that throws must not break a call.
    }
  };
  let listening = false;
  let closed = false;
  let unsubscribe: (() => void) | undefined;
  let generation = 0;
  let kept: { grants: readonly PermissionGrant[]; at: number } | undefined;
  let fetching: { generation: number; grants: Promise<readonly PermissionGrant[]> } | undefined;
  const forget = () => {
    generation++;
    kept = undefined;
  };
  let subscribed: Promise<boolean> = Promise.resolve(false);
  if (options.listen ?? true) {
    redis.on('close', forget);
    redis.on('ready', forget);
    subscribed = state.subscribe(channel, forget).then(
      (stop) => {
        if (closed) {
          stop();
          return false;
        }
        unsubscribe = stop;
        listening = true;
        return true;
      },
      (error: unknown) => {
        report(error);
        return false;
      },
    );
  }
  // A store that failed may have changed unseen (announcements are lost while it is away).
  const run = <T>(what: string, work: () => Promise<T>) =>
    inStore(what, deadlineMs, work).catch((error: unknown) => {
      forget();
      throw error;
    });

  const readAll = async (): Promise<readonly PermissionGrant[]> => {
    const rows = (await run('list the grants', () =>
      redis.eval(LIST, 1, index, keyPrefix),
    )) as string[][];
    return rows.flatMap(([id = '', json = '', uses = '', exp = '']) => {
      try {
        return [readGrant(id, json, uses, exp)];
      } catch (error) {
        report(
          new Error(
            `The grant ${keyPrefix}${id} in the state store ${state.where} cannot be read (${(error as Error).message}); it is skipped. Remove it with: dsh-tools grant revoke ${id}`,
          ),
        );
        return [];
      }
    });
  };

  return {
    listening: subscribed,
    async list() {
      if (listening && kept && performance.now() - kept.at < maxAgeMs) return kept.grants;
      // Lists asked for at once share one read, unless a change was heard since it started.
      let entry = fetching;
      if (entry?.generation !== generation) {
        const started = generation;
        const mine = { generation: started, grants: readAll() };
        entry = fetching = mine;
        void mine.grants
          .then(
            (list) => {
              if (started === generation) kept = { grants: list, at: performance.now() };
            },
            () => {},
          )
          .finally(() => {
            if (fetching === mine) fetching = undefined;
          });
      }
      return entry.grants;
    },
    async add(grant) {
      const { usesLeft, expiresAt, ...rest } = grant;
      const ttl = expiresAt === undefined ? '' : String(expiresAt - grant.origin.at);
      const exp = (await run(`store the grant ${grant.id}`, () =>
        redis.eval(
          ADD,
          2,
          index,
          keyPrefix + grant.id,
          channel,
          grant.id,
          JSON.stringify(rest),
          ttl,
          usesLeft === undefined ? '' : String(usesLeft),
        ),
      )) as number;
      forget();
      return { ...grant, ...(exp >= 0 && { expiresAt: exp }) };
    },
    async spend(ids): Promise<GrantSpend> {
      const refused = (await run(`spend a use of grant ${ids.join(', ')}`, () =>
        redis.eval(
          SPEND,
          1 + ids.length,
          index,
          ...ids.map((id) => keyPrefix + id),
          channel,
          ...ids,
        ),
      )) as string[];
      // The kept list has the old counts: read it again rather than offer a used-up grant.
      if (refused.length > 0 || kept?.grants.some((g) => ids.includes(g.id) && g.usesLeft)) {
        forget();
      }
      return refused.length === 0 ? { spent: true } : { spent: false, refused };
    },
    async revoke(id) {
      const n = await run(`revoke the grant ${id}`, () =>
        redis.eval(REVOKE, 2, index, keyPrefix + id, channel, id),
      );
      forget();
      return n === 1;
    },
    close() {
      closed = true;
      listening = false;
      unsubscribe?.();
      redis.off('close', forget);
      redis.off('ready', forget);
      forget();
    },
  };
}

const perState = new WeakMap<SharedState, RedisGrantStore>();

/**
 * The grant store of `state`, one per connection: the gateway builds a permission policy per
 * client scope, and they all share one list and one subscription (closed with the state).
 */
export function grantStoreOf(
  state: SharedState,
  onError?: (error: unknown) => void,
): RedisGrantStore {
  let store = perState.get(state);
  if (!store) {
    store = createRedisGrantStore(state, onError ? { onError } : {});
    perState.set(state, store);
  }
  return store;
}
