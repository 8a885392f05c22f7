import { randomBytes } from 'node:crypto';
import { isRecord } from '@dsh-tools/policy-kit';
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import type { LeanCallSink, LeanTransport } from './serve-lean-calls';
import { inStore, type RedisState, redisState, type SharedState } from './state-redis';

/**
 * The key that seals a 2026-07-28 call's `requestState` between its rounds, the same on every
 * replica: the first replica to start makes it (at random) and the others read it, so a round
 * answered through another replica verifies there. It never leaves the store.
 */
export async function sharedSealKey(shared: SharedState): Promise<Buffer> {
  const state = redisState(shared);
  const key = `${state.prefix}seal-key`;
  const made = randomBytes(32).toString('base64');
  return inStore('read the shared seal key', state.deadlineMs, async () => {
    await state.redis.set(key, made, 'NX');
    const stored = await state.redis.get(key);
    const bytes = stored === null ? undefined : Buffer.from(stored, 'base64');
    if (!bytes || bytes.length < 32) {
      throw new Error(`${key} holds no 32-byte key; delete it and restart the replicas`);
    }
    return bytes;
  });
}

/**
 * What a replica needs to take over a 2025-era session another replica opened: who opened it,
 * and the `initialize` it opened with (replayed into a fresh server, so the client's protocol
 * version and capabilities hold as they were negotiated).
 */
export interface SessionRecord {
  /** The principal that opened it (client, and an OAuth token's subject). */
  readonly identity: string;
  /** The `params` of the session's `initialize`. */
  readonly initialize: Record<string, unknown>;
}

/** The session ids `serve` makes (`randomUUID`). */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** How many sessions a replica remembers pushing the expiry of. */
const MAX_TOUCHED = 10_000;

/** How many questions of one session may wait for their answers at once. */
const MAX_ASKED = 256;

/**
 * The 2025-era sessions of every replica, in the store: each lives as long as it is used
 * (`idleMs` after its last request on any replica). A session closed (HTTP DELETE) on one replica
 * is announced, so the others drop their copies too.
 */
export class SessionStore {
  readonly #state: RedisState;
  readonly #idleMs: number;
  /** When each session's expiry was last pushed back from here (pushed at most every tenth). */
  readonly #touched = new Map<string, number>();

  constructor(state: SharedState, idleMs: number) {
    this.#state = redisState(state);
    this.#idleMs = idleMs;
  }

  #key(id: string): string {
    return `${this.#state.prefix}session:${id}`;
  }

  #remember(id: string, at: number): void {
    this.#touched.delete(id);
    this.#touched.set(id, at);
    // Bounded: the oldest entries go first (an entry only throttles how often expiry is pushed).
    for (const oldest of this.#touched.keys()) {
      if (this.#touched.size <= MAX_TOUCHED) break;
      this.#touched.delete(oldest);
    }
  }

  /** Records a session just opened here. */
  async put(id: string, record: SessionRecord): Promise<void> {
    await inStore('record the session', this.#state.deadlineMs, () =>
      this.#state.redis.set(this.#key(id), JSON.stringify(record), 'PX', this.#idleMs),
    );
    this.#remember(id, Date.now());
  }

  /** The session `id`, or `undefined` when it ended, expired or never was. */
  async get(id: string): Promise<SessionRecord | undefined> {
    // Only ids this gateway makes reach a key: a header cannot aim at another gateway's keys.
    if (!SESSION_ID.test(id)) return undefined;
    const text = await inStore('read the session', this.#state.deadlineMs, () =>
      this.#state.redis.get(this.#key(id)),
    );
    if (text === null) return undefined;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isRecord(data) || typeof data.identity !== 'string' || !isRecord(data.initialize)) {
      return undefined;
    }
    return { identity: data.identity, initialize: data.initialize };
  }

  /**
   * Pushes back the expiry of a session in use on any replica (at most every tenth of the idle
   * time from here). `gone` is told when the store no longer has it (closed elsewhere while this
   * replica did not hear, or expired): this replica's copy must go too.
   */
  touch(id: string, gone: () => void): void {
    const now = Date.now();
    const last = this.#touched.get(id) ?? 0;
    if (now - last < this.#idleMs / 10) return;
    this.#remember(id, now);
    void this.#state.redis.pexpire(this.#key(id), this.#idleMs).then(
      (kept) => {
        if (kept === 0) {
          this.#touched.delete(id);
          gone();
        }
      },
      () => {},
    );
  }

  /** Of `ids`, those the store no longer has (closed or expired). */
  async missing(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const pipeline = this.#state.redis.pipeline();
    for (const id of ids) pipeline.exists(this.#key(id));
    const results = await inStore('check the sessions', this.#state.deadlineMs, () =>
      pipeline.exec(),
    );
    return ids.filter((_, i) => results?.[i]?.[0] === null && results[i]?.[1] === 0);
  }

  /** Forgets this replica's note of a session closed elsewhere. */
  forget(id: string): void {
    this.#touched.delete(id);
  }

  /** Forgets a session that was closed, and tells every replica. */
  async delete(id: string): Promise<void> {
    this.#touched.delete(id);
    await inStore('close the session', this.#state.deadlineMs, async () => {
      await this.#state.redis.del(this.#key(id));
      await this.#state.redis.publish(`${this.#state.prefix}session-closed`, id);
    });
  }

  /** Calls `listener` with the id of every session closed on any replica. */
  onClosed(listener: (id: string) => void): Promise<() => void> {
    return this.#state.subscribe(`${this.#state.prefix}session-closed`, listener);
  }
}

/** The replica and call a stream's `Last-Event-ID` names (see {@link AnswerRelay.eventIds}). */
export function resumedCall(eventId: string): { tag: string; id: RequestId } | undefined {
  const match = /^([0-9a-f]{12})_([A-Za-z0-9_-]{1,200})_\d{1,9}$/.exec(eventId);
  if (!match) return undefined;
  try {
    const id: unknown = JSON.parse(Buffer.from(match[2] as string, 'base64url').toString('utf8'));
    if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
    return { tag: match[1] as string, id: id as RequestId };
  } catch {
    return undefined;
  }
}

/** What separates a replica's tag from a request id it sent. */
const TAG_SEPARATOR = '~';

/** A JSON-RPC response (to a request the server sent), or `undefined`. */
function responseOf(message: unknown): (Record<string, unknown> & { id: RequestId }) | undefined {
  if (!isRecord(message) || 'method' in message) return undefined;
  const { id } = message;
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  if (!('result' in message) && !('error' in message)) return undefined;
  return message as Record<string, unknown> & { id: RequestId };
}

/** The replica tag a response's id carries (`<tag>~<n>`), if it carries one. */
export function answerTag(message: unknown): string | undefined {
  const response = responseOf(message);
  if (!response || typeof response.id !== 'string') return undefined;
  const at = response.id.indexOf(TAG_SEPARATOR);
  return at > 0 ? response.id.slice(0, at) : undefined;
}

/** An answer routed to the replica that asked: which session it belongs to, and the message. */
interface RoutedAnswer {
  readonly session: string;
  readonly message: JSONRPCMessage;
}

/**
 * Routes the answers to a session's questions (elicitation, any request the server sends the
 * client) to the replica that asked, wherever the client's POST with the answer lands.
 *
 * Each replica tags the id of every request it sends (`<tag>~<id>`): the ids the SDK numbers
 * from 0 per server would otherwise clash between two replicas serving one session. An answer
 * that lands on another replica is published on the asker's channel; the asker takes it back to
 * its own id and hands it to its server, once (a second copy of the same answer is dropped).
 */
export class AnswerRelay {
  /** This replica's tag: random per process, so a restarted replica never takes another's answers. */
  readonly tag = randomBytes(6).toString('hex');
  readonly #state: RedisState;
  readonly #sessions: (id: string) => ((message: JSONRPCMessage) => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(
    state: SharedState,
    sessions: (id: string) => ((message: JSONRPCMessage) => void) | undefined,
  ) {
    this.#state = redisState(state);
    this.#sessions = sessions;
  }

  #channel(tag: string): string {
    return `${this.#state.prefix}answers:${tag}`;
  }

  #aliveKey(tag: string): string {
    return `${this.#state.prefix}replica:${tag}`;
  }

  /**
   * Whether the replica of `tag` is running: each replica says so in the store every second (a
   * key that lapses after three), so one killed is known gone within three seconds.
   */
  async isAlive(tag: string): Promise<boolean> {
    const found = await inStore('check whether a replica is running', this.#state.deadlineMs, () =>
      this.#state.redis.exists(this.#aliveKey(tag)),
    );
    return found > 0;
  }

  /** Starts taking the answers other replicas route here, and saying this replica runs. */
  async listen(onError: (error: Error) => void): Promise<void> {
    const beat = () =>
      void this.#state.redis.set(this.#aliveKey(this.tag), '1', 'PX', 3000).catch(() => {});
    beat();
    this.#heartbeat = setInterval(beat, 1000);
    this.#heartbeat.unref();
    this.#unsubscribe = await this.#state.subscribe(this.#channel(this.tag), (text) => {
      let routed: RoutedAnswer;
      try {
        routed = JSON.parse(text) as RoutedAnswer;
      } catch {
        return;
      }
      const deliver =
        typeof routed.session === 'string' ? this.#sessions(routed.session) : undefined;
      if (!deliver) {
        onError(
          new Error(
            `An answer for session ${routed.session} reached this replica, which no longer holds it; its call has ended.`,
          ),
        );
        return;
      }
      deliver(routed.message);
    });
  }

  /**
   * Sends `message` (an answer that landed here, tagged by another replica) to the replica that
   * asked. `false` when no replica holds that tag any more (it stopped or died: the call that
   * asked ended with it).
   */
  async forward(session: string, message: JSONRPCMessage, tag: string): Promise<boolean> {
    const receivers = await inStore(
      'route the answer to the replica that asked',
      this.#state.deadlineMs,
      () => this.#state.redis.publish(this.#channel(tag), JSON.stringify({ session, message })),
    );
    return receivers > 0;
  }

  /** Stops taking answers, and says this replica is gone. */
  close(): void {
    this.#unsubscribe?.();
    clearInterval(this.#heartbeat);
    void this.#state.redis.del(this.#aliveKey(this.tag)).catch(() => {});
  }

  /** The SSE event ids of the stream of call `id` run here: `<tag>_<id>_<n>`. */
  eventIds(id: RequestId): (seq: number) => string {
    const encoded = Buffer.from(JSON.stringify(id)).toString('base64url');
    return (seq) => `${this.tag}_${encoded}_${seq}`;
  }

  /**
   * Wraps one session's transport (between it and its SDK server) so that the requests the server
   * sends carry this replica's tag, and the answers come back with the ids the server gave them.
   * `deliver` on the result hands an answer routed from another replica to the server.
   */
  tagged(lean: LeanTransport): LeanTransport & { deliver(message: JSONRPCMessage): void } {
    const tag = this.tag;
    // Tagged id → the id the server sent: an answer is taken once, then forgotten.
    const asked = new Map<string, RequestId>();
    const untag = (message: JSONRPCMessage): JSONRPCMessage | undefined => {
      const response = responseOf(message);
      if (
        !response ||
        typeof response.id !== 'string' ||
        !response.id.startsWith(`${tag}${TAG_SEPARATOR}`)
      ) {
        return message;
      }
      const original = asked.get(response.id);
      if (original === undefined) return undefined;
      asked.delete(response.id);
      return { ...response, id: original } as JSONRPCMessage;
    };
    const wrapped: LeanTransport & { deliver(message: JSONRPCMessage): void } = {
      start: () => lean.start(),
      close: () => lean.close(),
      send(message: JSONRPCMessage, options?: TransportSendOptions) {
        const m = message as { id?: RequestId; method?: unknown; params?: unknown };
        if (typeof m.method === 'string' && m.id !== undefined) {
          const id = `${tag}${TAG_SEPARATOR}${String(m.id)}`;
          asked.set(id, m.id);
          // Bounded: a session whose client never answers cannot grow it (the oldest go first).
          for (const oldest of asked.keys()) {
            if (asked.size <= MAX_ASKED) break;
            asked.delete(oldest);
          }
          return lean.send({ ...message, id } as JSONRPCMessage, options);
        }
        if (m.method === 'notifications/cancelled' && isRecord(m.params)) {
          // The server gave up a question (its call ended): its answer is no longer awaited, and
          // the client is told the id it was asked under.
          const requestId = m.params.requestId;
          if (typeof requestId === 'string' || typeof requestId === 'number') {
            const id = `${tag}${TAG_SEPARATOR}${String(requestId)}`;
            if (asked.delete(id)) {
              return lean.send(
                { ...message, params: { ...m.params, requestId: id } } as JSONRPCMessage,
                options,
              );
            }
          }
        }
        return lean.send(message, options);
      },
      setProtocolVersion: (version: string) => lean.setProtocolVersion?.(version),
      get protocolVersion() {
        return lean.protocolVersion;
      },
      takeCall: (message: unknown, sink: LeanCallSink) => lean.takeCall(message, sink),
      abandon: (id: RequestId, reason: string) => lean.abandon(id, reason),
      cancel: (id: RequestId, reason: string) => lean.cancel(id, reason),
      deliver(message: JSONRPCMessage) {
        const own = untag(message);
        if (own) wrapped.onmessage?.(own);
      },
    };
    lean.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      const own = untag(message);
      if (!own) return;
      if (extra === undefined) wrapped.onmessage?.(own);
      else wrapped.onmessage?.(own, extra);
    };
    lean.onerror = (error) => wrapped.onerror?.(error);
    lean.onclose = () => wrapped.onclose?.();
    return wrapped;
  }
}
