import { access } from 'node:fs/promises';
import { type LockChange, type Lockfile, PinsFileError, parseLockfile } from './pins-file';
import { inStore, type RedisState, redisState, type SharedState } from './state-redis';

/**
 * Tool pins in the state store shared by a gateway's replicas. The store holds the lockfile's
 * entries one per hash field (`<prefix>pins`, field `["server","tool"]`, value the entry's JSON,
 * exactly as in `dsh-tools.lock.json`), so a change is one field set in a Lua script: two
 * replicas pinning different tools and an operator approving a third never undo each other, and
 * a first-sight pin (`ifAbsent`) never overwrites what another replica pinned first. Every change
 * bumps `<prefix>pins:version` and is published on `<prefix>pins:changed`, so every replica
 * re-reads at once (and, for a message missed while reconnecting, at its next look at the version).
 */

type Entries = Lockfile['servers'];

// KEYS[1] the hash, KEYS[2] the version, KEYS[3] the channel; ARGV triples: field, entry JSON,
// '1' to set only when absent. Returns the version, then the hash as HGETALL gives it.
const APPLY = `
for i = 1, #ARGV, 3 do
  if ARGV[i + 2] == '1' then redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', KEYS[3], version)
return {version, redis.call('HGETALL', KEYS[1])}
`;

// Seeds an empty store (KEYS as above; ARGV pairs: field, entry JSON). 1 when it seeded.
const SEED = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 1, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', KEYS[3], version)
return 1
`;

// The version and the hash, read together.
const READ = `return {redis.call('GET', KEYS[2]) or '0', redis.call('HGETALL', KEYS[1])}`;

type Script = (...args: (string | number)[]) => Promise<unknown>;
interface PinScripts {
  dshPinsApply: Script;
  dshPinsSeed: Script;
  dshPinsRead: Script;
}

/** A tool's hash field: JSON, so that no server or tool name can run into the other. */
const fieldOf = (server: string, tool: string) => JSON.stringify([server, tool]);

/** The pins of a store, where they live, and how to follow them. */
export class StorePins {
  readonly #state: RedisState;
  readonly #scripts: PinScripts;
  readonly #keys: readonly [string, string, string];
  /** The store as messages name it. */
  /** The key prefix of this gateway's state. */
  readonly prefix: string;
  readonly where: string;
  /** The last version read or written. */
  version = -1;
  /** The last command failed (a store that is slow, or gone without the connection knowing). */
  #failing = false;

  constructor(shared: SharedState) {
    const state = redisState(shared);
    this.#state = state;
    const redis = state.redis as unknown as Partial<PinScripts>;
    if (!redis.dshPinsApply) {
      state.redis.defineCommand('dshPinsApply', { lua: APPLY, numberOfKeys: 3 });
      state.redis.defineCommand('dshPinsSeed', { lua: SEED, numberOfKeys: 3 });
      state.redis.defineCommand('dshPinsRead', { lua: READ, numberOfKeys: 3 });
    }
    this.#scripts = state.redis as unknown as PinScripts;
    const p = state.prefix;
    this.#keys = [`${p}pins`, `${p}pins:version`, `${p}pins:changed`];
    this.prefix = p;
    this.where = `the state store ${state.where} (prefix ${JSON.stringify(p)})`;
  }

  /** Whether the store answers now: its connection is up and its last command did not fail. */
  get reachable(): boolean {
    return this.#state.redis.status === 'ready' && !this.#failing;
  }

  /** `work` in the store within the deadline, remembering whether the store answered. */
  async #run<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      const result = await inStore(what, this.#state.deadlineMs, work);
      this.#failing = false;
      return result;
    } catch (error) {
      this.#failing = true;
      throw error;
    }
  }

  /** The hash's flat field/value list as the lockfile's entries, checked as a lockfile is. */
  #entriesOf(flat: readonly string[]): Entries {
    const servers: Record<string, Record<string, unknown>> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) {
      let server: unknown;
      let tool: unknown;
      let entry: unknown;
      try {
        [server, tool] = JSON.parse(flat[i] as string) as unknown[];
        entry = JSON.parse(flat[i + 1] as string);
      } catch {
        throw new PinsFileError(
          `${this.where}: the pin ${flat[i]} is not JSON. Fix or delete that field of ${this.#keys[0]}.`,
        );
      }
      if (typeof server !== 'string' || typeof tool !== 'string') {
        throw new PinsFileError(
          `${this.where}: ${flat[i]} is not a ["server","tool"] field. Delete it from ${this.#keys[0]}.`,
        );
      }
      servers[server] ??= {};
      (servers[server] as Record<string, unknown>)[tool] = entry;
    }
    // The same checks as the lockfile's (a fingerprint that is not its definition's is refused).
    return parseLockfile(JSON.stringify({ lockfileVersion: 1, servers }), this.where).servers;
  }

  /** The pins in the store now. @throws {StateUnavailableError} when it does not answer. */
  async read(): Promise<Entries> {
    const [version, flat] = (await this.#run('read the tool pins', () =>
      this.#scripts.dshPinsRead(...this.#keys),
    )) as [string, string[]];
    this.version = Number(version);
    return this.#entriesOf(flat);
  }

  /** The store's version now (cheap: to find a change whose message was missed). */
  async storedVersion(): Promise<number> {
    const version = await this.#run('read the pins version', () =>
      this.#state.redis.get(this.#keys[1]),
    );
    return Number(version ?? 0);
  }

  /** Applies `changes` in one step; the pins as they are after it. */
  async apply(changes: readonly LockChange[]): Promise<Entries> {
    const args = changes.flatMap(({ server, tool, entry, ifAbsent }) => [
      fieldOf(server, tool),
      JSON.stringify(entry),
      ifAbsent ? '1' : '0',
    ]);
    const [version, flat] = (await this.#run('record a tool pin', () =>
      this.#scripts.dshPinsApply(...this.#keys, ...args),
    )) as [number, string[]];
    this.version = Number(version);
    return this.#entriesOf(flat);
  }

  /**
   * Fills an empty store from `lockfile`'s entries, once: of several replicas starting together,
   * one seeds. Whether this call seeded.
   */
  async seed(servers: Entries): Promise<boolean> {
    const args = Object.entries(servers).flatMap(([server, tools]) =>
      Object.entries(tools).flatMap(([tool, entry]) => [
        fieldOf(server, tool),
        JSON.stringify(entry),
      ]),
    );
    if (args.length === 0) return false;
    const seeded = await this.#run('seed the tool pins', () =>
      this.#scripts.dshPinsSeed(...this.#keys, ...args),
    );
    return seeded === 1;
  }

  /**
   * Calls `onChange` when another process may have changed the pins: a message on the channel,
   * the connection back after a loss, or (every `pollMs`) a version that moved without a message
   * reaching this replica. The returned function stops following.
   */
  async follow(onChange: () => void, pollMs: number): Promise<() => void> {
    const unsubscribe = await this.#state.subscribe(this.#keys[2], (message) => {
      if (Number(message) !== this.version) onChange();
    });
    const redis = this.#state.redis;
    redis.on('ready', onChange);
    const poll = setInterval(() => {
      // A store that failed and answers again is read again too (what it held back may be due).
      const wasFailing = this.#failing;
      this.storedVersion().then(
        (version) => {
          if (version !== this.version || wasFailing) onChange();
        },
        () => {},
      );
    }, pollMs);
    poll.unref();
    return () => {
      clearInterval(poll);
      redis.off('ready', onChange);
      unsubscribe();
    };
  }
}

/** Whether `file` exists (a lockfile to seed an empty store from). */
export const fileExists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  );
