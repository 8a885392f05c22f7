import type { AuthInfo, JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { HeldSession, ReplicaHost, ReplicaSessions } from './http-replicas';
import { principalOf } from './principal';
import { newSessionId } from './serve';
import type { GatewayServerFactory } from './serve-factory';
import { type LeanTransport, leanToolCalls } from './serve-lean-calls';

/** A 2025-era session held here: the replica layer's view, and its idle timer. */
export interface Session extends HeldSession {
  timer: NodeJS.Timeout | undefined;
}

/** The limits of {@link LegacySessions}, as `serveGatewayHttp` resolved them. */
export interface LegacySessionLimits {
  readonly maxBodyBytes: number;
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly onError: (error: Error) => void;
}

/** A JSON-RPC error response with no id, as the 2025-era transport answers a refused request. */
export function jsonRpcError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }),
    {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    },
  );
}

/**
 * The 2025-era sessions of `serve --http`: opened at `initialize`, reached only by the principal
 * that opened them, closed when idle, at most `maxSessions` at once. With a shared state store
 * (`replicas`), it is the host the replica layer takes sessions over into.
 */
export class LegacySessions implements ReplicaHost<Session> {
  readonly sessions = new Map<string, Session>();
  readonly maxSessions: number;
  /** Set once, when the gateway has a shared state store. */
  replicas: ReplicaSessions<Session> | undefined;
  #opening = 0;
  readonly #made: GatewayServerFactory;
  readonly #limits: LegacySessionLimits;

  constructor(made: GatewayServerFactory, limits: LegacySessionLimits) {
    this.#made = made;
    this.#limits = limits;
    this.maxSessions = limits.maxSessions;
  }

  opening(): number {
    return this.#opening;
  }

  drop(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    clearTimeout(session.timer);
    void session.server.close().catch(() => {});
  }

  /** Restarts a session's idle timer. */
  touch(id: string, session: Session, inStore = true): void {
    clearTimeout(session.timer);
    session.timer = setTimeout(() => this.drop(id), this.#limits.sessionIdleMs);
    session.timer.unref();
    session.lastUsed = Date.now();
    // In use here is in use: its record lives on; a record gone means it was closed elsewhere.
    if (inStore) this.replicas?.touch(id);
  }

  /** Serves one 2025-era request: to its session, or (a POST without one) opening a session. */
  async handle(request: Request, authInfo: AuthInfo, parsedBody: unknown): Promise<Response> {
    const options = parsedBody === undefined ? { authInfo } : { authInfo, parsedBody };
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      // Another client's session answers as one that does not exist: its id tells nothing.
      if (!session || session.identity !== principalOf(authInfo))
        return jsonRpcError(
          404,
          'Session not found: it ended or expired, or another client opened it. Initialize a new session.',
        );
      this.touch(id, session);
      return session.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST') {
      return jsonRpcError(
        400,
        'Missing Mcp-Session-Id header: initialize a session with a POST first.',
      );
    }
    if (this.sessions.size + this.#opening >= this.maxSessions) {
      return jsonRpcError(
        503,
        `Too many sessions: this gateway holds at most ${this.maxSessions}. Close an unused session (HTTP DELETE) or retry later.`,
        { 'retry-after': '5' },
      );
    }
    this.#opening++;
    try {
      const { server, transport } = await this.open(authInfo);
      const response = await transport.handleRequest(request, options);
      // Not an initialize request: no session was made, so nothing must stay behind.
      if (transport.sessionId === undefined) await server.close().catch(() => {});
      else if (this.replicas) {
        // Recorded before the client learns the id: any replica can then serve its next request.
        const refused = await this.replicas.record(transport.sessionId, authInfo, parsedBody);
        if (refused) {
          void response.body?.cancel().catch(() => {});
          return jsonRpcError(refused.status, refused.message, refused.headers ?? {});
        }
      }
      return response;
    } finally {
      this.#opening--;
    }
  }

  /**
   * A server and transport for one 2025-era session: a new one (its id made at `initialize`), or
   * (`id`) one another replica opened, taken over here.
   */
  async open(authInfo: AuthInfo, id?: string) {
    const made = this.#made;
    const server = (await made.factory({ era: 'legacy' })) as Server;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: id === undefined ? newSessionId : () => id,
      maxRequestBodySize: this.#limits.maxBodyBytes,
      onsessioninitialized: (sessionId) => {
        const session: Session = {
          transport,
          lean,
          server,
          identity: principalOf(authInfo) as string,
          deliver: (message) => wire.deliver?.(message),
          timer: undefined,
          lastUsed: Date.now(),
        };
        this.sessions.set(sessionId, session);
        // Not in the store yet: a new session's record is written once its initialize is
        // answered (a push of its expiry now would find nothing, and drop it).
        this.touch(sessionId, session, false);
      },
      // With a store, the record was deleted (and the close announced) before the SDK saw the
      // DELETE: see `handle` in http.ts.
      onsessionclosed: (sessionId) => this.drop(sessionId),
    });
    const identity = authInfo.clientId;
    const lean = leanToolCalls(transport, {
      server: () =>
        server.transport !== undefined && server.getClientCapabilities() !== undefined
          ? server
          : undefined,
      callTool: (s, callId, name, args, signal) =>
        made.callTool(s, callId, name, args, signal, identity),
      handOver: made.handOver,
    });
    lean.onerror = this.#limits.onError;
    const wire: LeanTransport & { deliver?: (message: JSONRPCMessage) => void } = this.replicas
      ? this.replicas.wire(lean)
      : lean;
    await server.connect(wire);
    return { server, transport };
  }

  /** Closes every session held here. */
  dropAll(): void {
    for (const id of [...this.sessions.keys()]) this.drop(id);
  }
}
