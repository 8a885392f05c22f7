import type { Redis } from 'ioredis';

/** Where a gateway's shared state lives: `dsh-tools.json`'s `state` section. */
export interface StateOptions {
  /** A Redis URL (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS). */
  readonly redis: string;
  /**
   * Put before every key and channel (default `dsh:`), so that several gateways can share one
   * Redis without seeing each other's state.
   */
  readonly prefix?: string | undefined;
  /**
   * How long a call waits for the store before it fails closed (default 2000 ms). A store that is
   * slow or gone never holds a call longer than this.
   */
  readonly deadlineMs?: number | undefined;
}

/** The defaults of {@link StateOptions}. */
export const STATE_DEFAULTS = { prefix: 'dsh:', deadlineMs: 2000 } as const;

/**
 * The shared state store did not answer in time, or refused. Whatever needed it fails closed: a
 * call is refused as retryable (`UNAVAILABLE`), never run on a guess.
 */
export class StateUnavailableError extends Error {
  /** What could not be done (`read the session`), when known. */
  declare readonly what?: string;
  constructor(message: string, options?: { cause?: unknown; what?: string }) {
    super(message, options);
    this.name = 'StateUnavailableError';
    if (options?.what !== undefined) this.what = options.what;
  }

  /**
   * The message for an MCP client: what failed, without the store's address or the driver's
   * words (which name internal hosts).
   */
  get forClient(): string {
    return `The gateway's state store could not ${this.what ?? 'answer'} in time, so the request fails closed. Retry shortly; if it persists, ask the gateway's operator to check its state store.`;
  }
}

/**
 * `url` without its password, for operators' messages and logs: the userinfo password and every
 * query parameter (ioredis reads `?password=` and `?sentinelPassword=` too) are hidden. Never put
 * it in an answer to an MCP client: it names an internal host.
 */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.search) parsed.search = '?***';
    return parsed.toString();
  } catch {
    return '(a Redis URL that does not parse)';
  }
}

/** The connection settings a gateway uses: bounded everywhere, reconnecting forever. */
export function redisOptions(deadlineMs: number) {
  return {
    // A command never waits in a queue for a connection that may not come back: it fails at once,
    // and the call that needed it fails closed (the deadline below bounds a command on a live one).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: deadlineMs,
    connectTimeout: deadlineMs,
    // Reconnect forever, at most a second apart: a Redis restarted mid-run is found again.
    retryStrategy: (times: number) => Math.min(times * 100, 1000),
    lazyConnect: true,
  };
}

/**
 * ioredis, an optional peer of the CLI (only a gateway with a `state` section needs it): loaded on
 * first use, and when it is not installed, a message that says how to install it.
 */
export async function loadIoredis(): Promise<typeof import('ioredis')> {
  try {
    return await import('ioredis');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') throw error;
    throw new StateUnavailableError(
      'The config\'s "state" section needs the ioredis package, which is not installed: npm install -g ioredis@6 (next to a global @dsh-tools/cli), or npm install ioredis@6 in the project that runs it.',
      { cause: error },
    );
  }
}

/**
 * Connects to the store (ioredis is loaded only then: a gateway without `state` never loads it).
 * Rejects with a {@link StateUnavailableError} naming the URL (password hidden) when Redis cannot
 * be reached within the deadline, so a replica never starts on a store it cannot use.
 */
export async function connectRedis(options: StateOptions): Promise<Redis> {
  const deadlineMs = options.deadlineMs ?? STATE_DEFAULTS.deadlineMs;
  const { Redis } = await loadIoredis();
  const client = new Redis(options.redis, redisOptions(deadlineMs));
  // Errors surface through the commands that fail; the client's own event would crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new StateUnavailableError(
      `Cannot reach the state store ${redactedUrl(options.redis)} (${(error as Error).message}). Start Redis, or fix "state.redis" in dsh-tools.json.`,
      { cause: error },
    );
  }
  return client;
}

/**
 * Runs `work` against the store, turning any failure or a wait past `deadlineMs` into a
 * {@link StateUnavailableError} that says what was being done.
 */
export async function inStore<T>(
  what: string,
  deadlineMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${deadlineMs} ms`)),
          deadlineMs,
        );
        timer.unref();
      }),
    ]);
  } catch (error) {
    if (error instanceof StateUnavailableError) throw error;
    throw new StateUnavailableError(
      `The gateway's state store could not ${what} (${(error as Error).message}); the call fails closed. Retry shortly; if it persists, check that Redis is up.`,
      { cause: error, what },
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A connected state store, as a host hands it to `buildGateway({ state })`: its key prefix,
 * deadline and channels. Its Redis connection is the CLI's own business ({@link RedisState}):
 * ioredis is an optional peer, so no public type names it.
 */
export interface SharedState {
  readonly prefix: string;
  readonly deadlineMs: number;
  /** The URL, password hidden, for operators' messages (never for a client: see `redactedUrl`). */
  readonly where: string;
  /**
   * Calls `listener` with every message published on `channel` (prefix included by the caller)
   * until the returned function is called. Subscribes again after Redis comes back.
   */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => void>;
  /**
   * Calls `listener` each time the subscriber connection is back after it was lost: messages
   * published meanwhile were missed, so what they would have said must be read again.
   */
  onResubscribed(listener: () => void): () => void;
  /** Closes both connections. */
  close(): Promise<void>;
}

/** A state store with its command connection, as the gateway's parts use it. */
export interface RedisState extends SharedState {
  readonly redis: Redis;
}

/**
 * `state` with its Redis connection.
 * @throws {TypeError} for a state that {@link openSharedState} did not make.
 */
export function redisState(state: SharedState): RedisState {
  if (!('redis' in state)) {
    throw new TypeError(
      'A state store must come from openSharedState (it holds the Redis connection the gateway uses).',
    );
  }
  return state as RedisState;
}

/**
 * Connects to the store of `options` (see {@link connectRedis}) and shares it: the command
 * connection, and one subscriber connection shared by everything that listens (made on first use).
 */
export function openSharedState(options: StateOptions): Promise<SharedState> {
  return openRedisState(options);
}

/** {@link openSharedState}, typed with its connection (for the CLI's parts and tests). */
export async function openRedisState(options: StateOptions): Promise<RedisState> {
  const redis = await connectRedis(options);
  const deadlineMs = options.deadlineMs ?? STATE_DEFAULTS.deadlineMs;
  const listeners = new Map<string, Set<(message: string) => void>>();
  const resubscribed = new Set<() => void>();
  let subscriber: Redis | undefined;
  let subscribing: Promise<Redis> | undefined;
  const subscriberConnection = () => {
    subscribing ??= (async () => {
      const sub = redis.duplicate();
      sub.on('error', () => {});
      sub.on('message', (channel: string, message: string) => {
        for (const listener of listeners.get(channel) ?? []) listener(message);
      });
      let first = true;
      sub.on('ready', () => {
        if (first) {
          first = false;
          return;
        }
        for (const listener of resubscribed) listener();
      });
      try {
        await inStore('open its subscriber connection', deadlineMs, () => sub.connect());
      } catch (error) {
        // Not kept: the next subscribe tries again (a store down at the first one comes back).
        sub.disconnect();
        subscribing = undefined;
        throw error;
      }
      subscriber = sub;
      return sub;
    })();
    return subscribing;
  };
  return {
    redis,
    prefix: options.prefix ?? STATE_DEFAULTS.prefix,
    deadlineMs,
    where: redactedUrl(options.redis),
    async subscribe(channel, listener) {
      const sub = await subscriberConnection();
      let set = listeners.get(channel);
      if (!set) {
        // Known only once subscribed: a failed SUBSCRIBE leaves nothing that looks subscribed.
        // ioredis subscribes again on reconnect (autoResubscribe, its default).
        await inStore(`subscribe to ${channel}`, deadlineMs, () => sub.subscribe(channel));
        set = listeners.get(channel) ?? new Set();
        listeners.set(channel, set);
      }
      set.add(listener);
      return () => {
        const current = listeners.get(channel);
        current?.delete(listener);
        if (current?.size === 0) {
          listeners.delete(channel);
          void sub.unsubscribe(channel).catch(() => {});
        }
      };
    },
    onResubscribed(listener) {
      resubscribed.add(listener);
      return () => resubscribed.delete(listener);
    },
    async close() {
      listeners.clear();
      resubscribed.clear();
      subscriber?.disconnect();
      redis.disconnect();
    },
  };
}
