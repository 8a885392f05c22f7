import type { ServerResponse } from 'node:http';
import type {
  AuthInfo,
  JSONRPCMessage,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Refusal } from './http-admit';
import { refuse } from './http-guards';
import { principalOf } from './principal';
import type { LeanTransport } from './serve-lean-calls';
import { type SharedState, StateUnavailableError } from './state-redis';
import {
  AnswerRelay,
  answerTag,
  resumedCall,
  type SessionRecord,
  SessionStore,
} from './state-sessions';

/** A 2025-era session this replica holds, as the replica layer sees it. */
export interface HeldSession {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly lean: LeanTransport;
  readonly server: Server;
  /** Who opened it (the client, and an OAuth token's subject): only they reach it. */
  readonly identity: string;
  /** Hands the server an answer to one of its questions routed here from another replica. */
  readonly deliver: (message: JSONRPCMessage) => void;
  /** When it was last used here (a copy of a shared session idle longest gives way first). */
  lastUsed: number;
}

/** What the replica layer needs of the HTTP layer that holds the sessions. */
export interface ReplicaHost<S extends HeldSession> {
  readonly sessions: ReadonlyMap<string, S>;
  readonly maxSessions: number;
  /** How many sessions are being opened now. */
  opening(): number;
  /** Drops this replica's copy of a session (the store keeps its record). */
  drop(id: string): void;
  /**
   * A server and transport for session `id`, connected; the transport's `initialize` adds the
   * session to `sessions`.
   */
  open(
    authInfo: AuthInfo,
    id: string,
  ): Promise<{ server: Server; transport: WebStandardStreamableHTTPServerTransport }>;
}

/** The `params` of the `initialize` in a parsed body (a message or a batch), else `{}`. */
function initializeParams(body: unknown): Record<string, unknown> {
  for (const message of Array.isArray(body) ? body : [body]) {
    const m = message as { method?: unknown; params?: unknown } | null;
    if (m?.method === 'initialize' && typeof m.params === 'object' && m.params !== null) {
      return m.params as Record<string, unknown>;
    }
  }
  return {};
}

/**
 * The replicas' side of `serve --http` with a shared state store: 2025-era sessions any replica
 * takes over from their record, closes that reach every replica, answers routed to the replica
 * that asked, and the streams of calls a dead replica took with it. `http.ts` asks it at each
 * step of a request; without a store it is not made at all.
 */
export class ReplicaSessions<S extends HeldSession> {
  readonly #store: SessionStore;
  readonly #relay: AnswerRelay;
  readonly #host: ReplicaHost<S>;
  readonly #unsubscribers: (() => void)[] = [];
  /**
   * Sessions closed lately (here or on another replica), so that a take-over that raced the close
   * does not bring one back. Bounded: a minute of closes, at most 10,000.
   */
  readonly #closedLately = new Map<string, number>();
  /**
   * Sessions being taken over (by principal and id), so that two requests of one session arriving
   * at once make one, and a request with another principal's id never joins or spoils it.
   */
  readonly #restoring = new Map<string, Promise<S | undefined | 'full'>>();

  private constructor(state: SharedState, idleMs: number, host: ReplicaHost<S>) {
    this.#host = host;
    this.#store = new SessionStore(state, idleMs);
    this.#relay = new AnswerRelay(state, (id) => host.sessions.get(id)?.deliver);
  }

  /**
   * Starts listening (answers routed here, closes elsewhere, reconnects) and saying this replica
   * runs. A replica that cannot start leaves nothing behind (no heartbeat) and rejects.
   */
  static async start<S extends HeldSession>(
    state: SharedState,
    idleMs: number,
    host: ReplicaHost<S>,
    onError: (error: Error) => void,
  ): Promise<ReplicaSessions<S>> {
    const replicas = new ReplicaSessions(state, idleMs, host);
    const store = replicas.#store;
    try {
      await replicas.#relay.listen(onError);
      replicas.#unsubscribers.push(
        await store.onClosed((id) => {
          replicas.#noteClosed(id);
          store.forget(id);
          host.drop(id);
        }),
      );
      // Closes published while the subscriber was away were missed: ask the store which of the
      // sessions held here still exist.
      replicas.#unsubscribers.push(
        state.onResubscribed(() => {
          store.missing([...host.sessions.keys()]).then(
            (gone) => {
              for (const id of gone) host.drop(id);
            },
            () => {},
          );
        }),
      );
    } catch (error) {
      replicas.close();
      throw error;
    }
    return replicas;
  }

  #noteClosed(id: string): void {
    const closed = this.#closedLately;
    closed.set(id, Date.now());
    for (const [old, at] of closed) {
      if (closed.size <= 10_000 && Date.now() - at < 60_000) break;
      closed.delete(old);
    }
  }

  /**
   * Wraps a session's wire so that its questions' answers find their way back here; its
   * `deliver` hands the server an answer routed from another replica.
   */
  wire(lean: LeanTransport): LeanTransport & { deliver(message: JSONRPCMessage): void } {
    return this.#relay.tagged(lean);
  }

  /** A session in use here: its record lives on; a record gone means it was closed elsewhere. */
  touch(id: string): void {
    this.#store.touch(id, () => this.#host.drop(id));
  }

  /**
   * Records a session just opened here by `authInfo` with `body` (its initialize), before the
   * client learns its id. A refusal (503) when the store cannot take it: the session is dropped.
   */
  async record(id: string, authInfo: AuthInfo, body: unknown): Promise<Refusal | undefined> {
    try {
      await this.#store.put(id, {
        identity: principalOf(authInfo) as string,
        initialize: initializeParams(body),
      });
      return undefined;
    } catch (error) {
      this.#host.drop(id);
      return {
        status: 503,
        message:
          error instanceof StateUnavailableError
            ? error.forClient
            : 'The gateway could not record the session; retry shortly.',
        headers: { 'retry-after': '1' },
      };
    }
  }

  /**
   * What must happen before a request of session `id` is served here: a session another replica
   * opened is taken over (a request arriving during a take-over waits for it); a `DELETE` is
   * written to the store first (a 200 then means closed on every replica). A refusal when the
   * store does not answer, or this replica holds all the sessions it may.
   */
  async prepare(method: string | undefined, id: string, authInfo: AuthInfo, url: string) {
    const host = this.#host;
    const replaying = this.#restoring.get(`${principalOf(authInfo)}\0${id}`);
    if (replaying !== undefined || !host.sessions.has(id)) {
      let taken: S | undefined | 'full';
      try {
        taken = await this.#takeOver(id, authInfo, url);
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        return unavailable(error);
      }
      if (taken === 'full') {
        return {
          status: 503,
          message: `Too many sessions: this gateway replica holds at most ${host.maxSessions} and none has been idle for a minute; retry (another replica may take the request), or close an unused session.`,
          headers: { 'retry-after': '5' },
        };
      }
    }
    if (method === 'DELETE' && host.sessions.get(id)?.identity === principalOf(authInfo)) {
      try {
        await this.#store.delete(id);
        this.#noteClosed(id);
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        return unavailable(error);
      }
    }
    return undefined;
  }

  /**
   * The session `id` opened on another replica, taken over here: its `initialize` replayed into a
   * fresh server (the client's protocol version and capabilities as negotiated). `undefined` when
   * the store has no such session, or another principal opened it; `'full'` when this replica
   * holds `maxSessions` and none of its copies has been idle long enough to give way.
   * @throws {StateUnavailableError} when the store cannot be read.
   */
  #takeOver(id: string, authInfo: AuthInfo, url: string): Promise<S | undefined | 'full'> {
    const key = `${principalOf(authInfo)}\0${id}`;
    let pending = this.#restoring.get(key);
    if (!pending) {
      const host = this.#host;
      pending = (async () => {
        const record = await this.#store.get(id);
        if (!record || record.identity !== principalOf(authInfo) || this.#closedLately.has(id)) {
          return undefined;
        }
        if (host.sessions.size + host.opening() >= host.maxSessions && !this.#giveWay()) {
          return 'full' as const;
        }
        const session = await this.#replay(id, record, authInfo, url);
        // Closed while it was being replayed (the close may have been announced before this
        // replica held it): it must not come back.
        if (session && (this.#closedLately.has(id) || !(await this.#store.get(id)))) {
          host.drop(id);
          return undefined;
        }
        return session;
      })().finally(() => this.#restoring.delete(key));
      this.#restoring.set(key, pending);
    }
    return pending;
  }

  /**
   * Drops this replica's copy of the shared session idle longest (a minute at least): any replica
   * can take it over again. Whether one gave way.
   */
  #giveWay(): boolean {
    let oldest: [string, S] | undefined;
    for (const entry of this.#host.sessions) {
      if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    }
    if (!oldest || Date.now() - oldest[1].lastUsed < 60_000) return false;
    this.#host.drop(oldest[0]);
    return true;
  }

  async #replay(
    id: string,
    record: SessionRecord,
    authInfo: AuthInfo,
    url: string,
  ): Promise<S | undefined> {
    const { server, transport } = await this.#host.open(authInfo, id);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      transport.handleRequest(
        new Request(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify(body),
        }),
        { authInfo },
      );
    // The answers go nowhere: the client had them when the session was opened.
    await (
      await post({
        jsonrpc: '2.0',
        id: 'dsh-tools-take-over',
        method: 'initialize',
        params: record.initialize,
      })
    ).text();
    const session = this.#host.sessions.get(id);
    if (!session) {
      await server.close().catch(() => {});
      return undefined;
    }
    const version = session.lean.protocolVersion;
    await (
      await post(
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': id, ...(version ? { 'mcp-protocol-version': version } : {}) },
      )
    ).text();
    return session;
  }

  /**
   * Answers a client resuming the broken stream of one of its calls (a GET with the
   * `Last-Event-ID` of a lean call's stream), when `lastEventId` is one: the call did not survive
   * its stream (a stream that breaks cancels its call, and a replica that dies takes its calls
   * with it), so its answer is a JSON-RPC error the client can act on at once, instead of waiting
   * out its request timeout. `false` (nothing written) for any other id.
   */
  async resume(res: ServerResponse, sessionId: string, lastEventId: string): Promise<boolean> {
    const resumed = resumedCall(lastEventId);
    if (!resumed) return false;
    let why: string;
    if (resumed.tag === this.#relay.tag) {
      why = 'its HTTP stream broke, and a call whose stream breaks is cancelled';
    } else {
      const alive = await this.#relay.isAlive(resumed.tag).catch(() => undefined);
      why =
        alive === false
          ? 'the gateway replica that was running it stopped before it finished'
          : 'its HTTP stream to the gateway replica running it broke, and a call whose stream breaks is cancelled';
    }
    const error = {
      jsonrpc: '2.0',
      id: resumed.id,
      error: {
        code: -32000,
        message: `The tool call did not finish: ${why}. Nothing more will come for it. Call the tool again (if it changes things, check first whether it had done its work).`,
        data: { retryable: true },
      },
    };
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      'mcp-session-id': sessionId,
    });
    res.end(`event: message\ndata: ${JSON.stringify(error)}\n\n`);
    return true;
  }

  /**
   * Sends the answers in `body` that belong to another replica's questions to that replica:
   * `'all'` when the body was only such answers (all sent on; 202), `'none'` when it holds none
   * (passed on as it is), `{ rest }` for a batch that mixed them with messages for this replica
   * (those others went on; `rest` is for here), or a refusal when the store did not take them.
   */
  async route(
    sessionId: string,
    body: unknown,
  ): Promise<'all' | 'none' | { rest: unknown[] } | Refusal> {
    const relay = this.#relay;
    const messages = Array.isArray(body) ? body : [body];
    const tags = messages.map(answerTag);
    const foreign = (tag: string | undefined): tag is string =>
      tag !== undefined && tag !== relay.tag;
    if (!tags.some(foreign)) return 'none';
    const notTaken: Refusal = {
      status: 503,
      message:
        "The gateway's state store did not take the answer to the replica that asked (the store is slow or down, or that replica is reconnecting to it); send the answer again.",
      headers: { 'retry-after': '1' },
    };
    try {
      for (const [i, message] of messages.entries()) {
        const tag = tags[i];
        if (!foreign(tag)) continue;
        const reached = await relay.forward(sessionId, message as JSONRPCMessage, tag);
        // No one heard it: a replica that is gone took the call with it (the answer is moot), but
        // one that runs is reconnecting to the store and would wait for nothing: send it again.
        // (A repeat of an answer that did arrive is dropped there.)
        if (!reached && (await relay.isAlive(tag))) return notTaken;
      }
    } catch {
      return notTaken;
    }
    const rest = messages.filter((_, i) => !foreign(tags[i]));
    return rest.length === 0 ? 'all' : { rest };
  }

  /** The SSE event ids of the stream of call `id` run here. */
  eventIds(id: string | number): (seq: number) => string {
    return this.#relay.eventIds(id);
  }

  /** Stops listening, and says this replica is gone. */
  close(): void {
    for (const unsubscribe of this.#unsubscribers.splice(0)) unsubscribe();
    this.#relay.close();
  }
}

/** The refusal of a request the store did not answer for: retryable, saying nothing internal. */
const unavailable = (error: StateUnavailableError): Refusal => ({
  status: 503,
  message: error.forClient,
  headers: { 'retry-after': '1' },
});

/** Writes `refusal` as the JSON-RPC error answer of a request. */
export function refuseWith(res: ServerResponse, refusal: Refusal): void {
  refuse(res, refusal.status, refusal.message, refusal.headers ?? {});
}
