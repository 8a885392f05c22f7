import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { isIP } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type {
  AuthInfo,
  JSONRPCMessage,
  McpHandlerRequestOptions,
} from '@modelcontextprotocol/server';
import {
  createMcpHandler,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Gateway } from './gateway';
import { type AdmissionRules, admission } from './http-admit';
import { HTTP_DEFAULTS, isLoopbackHost } from './http-defaults';
import { isWellFormedHost, isWellFormedOrigin, refuse } from './http-guards';
import { identitiesOf } from './http-identities';
import {
  batchRefusal,
  batchVersion,
  leanEligible,
  parseBody,
  readBody,
  replayRequest,
  sseSink,
  toolCallOf,
} from './http-lean';
import { OAuthResourceServer } from './http-oauth';
import type { HttpGateway, HttpServeClientsOptions, HttpServeOptions } from './http-options';
import { principalOf } from './principal';
import { createGatewayServerFactory, newSessionId } from './serve';
import { type LeanTransport, leanToolCalls } from './serve-lean-calls';
import { StateUnavailableError } from './state-redis';
import {
  AnswerRelay,
  answerTag,
  resumedCall,
  type SessionRecord,
  SessionStore,
} from './state-sessions';

export { isWellFormedHost, isWellFormedOrigin } from './http-guards';
export {
  type ClientMode,
  type GatewayClient,
  GatewayIdentities,
  tokenSha256,
} from './http-identities';
export { type OAuthOptions, OAuthSetupError } from './http-oauth';
export type { HttpGateway, HttpServeClientsOptions, HttpServeOptions } from './http-options';
export { HTTP_DEFAULTS, isLoopbackHost };

function jsonRpcError(
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
 * Sends the answers in `body` that belong to another replica's questions to that replica:
 * `'all'` when the body was only such answers (all sent on), `'none'` when it holds none (passed on
 * as it is), `{ rest }` for a batch that mixed them with messages for this replica (those others
 * went on; `rest` is for here), `'unavailable'` when the store did not take them.
 */
async function routeAnswers(
  relay: AnswerRelay,
  sessionId: string,
  body: unknown,
): Promise<'all' | 'none' | { rest: unknown[] } | 'unavailable'> {
  const messages = Array.isArray(body) ? body : [body];
  const tags = messages.map(answerTag);
  const foreign = (tag: string | undefined): tag is string =>
    tag !== undefined && tag !== relay.tag;
  if (!tags.some(foreign)) return 'none';
  try {
    for (const [i, message] of messages.entries()) {
      const tag = tags[i];
      if (!foreign(tag)) continue;
      const reached = await relay.forward(sessionId, message as JSONRPCMessage, tag);
      // No one heard it: a replica that is gone took the call with it (the answer is moot), but
      // one that runs is reconnecting to the store and would wait for nothing: send it again.
      // (A repeat of an answer that did arrive is dropped there.)
      if (!reached && (await relay.isAlive(tag))) return 'unavailable';
    }
  } catch {
    return 'unavailable';
  }
  const rest = messages.filter((_, i) => !foreign(tags[i]));
  return rest.length === 0 ? 'all' : { rest };
}

/**
 * Answers a client resuming the broken stream of call `resumed.id` (a GET with the
 * `Last-Event-ID` of a lean call's stream): the call did not survive its stream (a stream that
 * breaks cancels its call, and a replica that dies takes its calls with it), so its answer is a
 * JSON-RPC error the client can act on at once, instead of waiting out its request timeout.
 */
async function endResumedCall(
  res: ServerResponse,
  sessionId: string,
  resumed: { tag: string; id: string | number },
  relay: AnswerRelay,
): Promise<void> {
  let why: string;
  if (resumed.tag === relay.tag) {
    why = 'its HTTP stream broke, and a call whose stream breaks is cancelled';
  } else {
    const alive = await relay.isAlive(resumed.tag).catch(() => undefined);
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
}

/**
 * Serves the gateway over Streamable HTTP, with the guards a network endpoint needs:
 *
 * - **Bearer token** on every request (`Authorization: Bearer …`), compared in constant time;
 *   401 otherwise.
 * - **Origin** (the MCP spec's DNS-rebinding rule): a request with an `Origin` header is refused
 *   (403) unless it is a loopback origin or listed in `allowedOrigins`; the `Host` header must
 *   name a loopback host (or one of `allowedHosts`).
 * - **Request size**: bodies over `maxBodyBytes` get 413 before anything is parsed.
 * - **Sessions**: at most `maxSessions` open at once (503 beyond, saying so); idle ones close.
 *
 * Both protocol eras are served: 2025 clients get a sessionful endpoint (so `list_changed`
 * reaches them on their event stream), 2026-07-28 clients the SDK's per-request handler.
 */
export function serveGatewayHttp(
  gateway: Gateway,
  options: HttpServeOptions,
): Promise<HttpGateway> {
  return serve(gateway, options);
}

/**
 * {@link serveGatewayHttp} for a gateway several clients share, each with its own token, tool
 * allowlist and permission mode (see {@link HttpServeClientsOptions}).
 */
export function serveSharedGatewayHttp(
  gateway: Gateway,
  options: HttpServeClientsOptions,
): Promise<HttpGateway> {
  return serve(gateway, options);
}

async function serve(
  gateway: Gateway,
  options: HttpServeOptions | HttpServeClientsOptions,
): Promise<HttpGateway> {
  const host = options.host ?? HTTP_DEFAULTS.host;
  const path = options.path ?? HTTP_DEFAULTS.path;
  const maxBodyBytes = options.maxBodyBytes ?? HTTP_DEFAULTS.maxBodyBytes;
  const maxSessions = options.maxSessions ?? HTTP_DEFAULTS.maxSessions;
  const sessionIdleMs = options.sessionIdleMs ?? HTTP_DEFAULTS.sessionIdleMs;
  const onError = options.onError ?? (() => {});
  const identities = identitiesOf(options);

  const allowedHostnames = [
    ...localhostAllowedHostnames(),
    ...(options.allowedHosts ?? []),
    ...(isLoopbackHost(host) ? [] : [isIP(host) === 6 ? `[${host}]` : host]),
  ];
  const allowedOriginHostnames = [
    ...localhostAllowedOrigins(),
    ...(options.allowedOrigins ?? []).map((origin) => {
      try {
        return new URL(origin).hostname;
      } catch {
        throw new TypeError(
          `serveGatewayHttp: allowed origin "${origin}" is not a URL (write https://host[:port]).`,
        );
      }
    }),
  ];

  const made = createGatewayServerFactory(gateway, options.approvals, {
    allows: (identity, tool) => identities.allows(identity, tool),
  });
  const modern = createMcpHandler(made.factory, {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    maxSubscriptions: maxSessions,
    onerror: onError,
  });
  const unsubscribeModern = gateway.registry.on('change', () => modern.notify.toolsChanged());

  interface Session {
    readonly transport: WebStandardStreamableHTTPServerTransport;
    /** The server's side of `transport`, which takes plain `tools/call`s on the lean path. */
    readonly lean: LeanTransport;
    readonly server: Server;
    /** Who opened it (the client, and an OAuth token's subject): only they reach it. */
    readonly identity: string;
    /** Hands the server an answer to one of its questions routed here from another replica. */
    readonly deliver: (message: JSONRPCMessage) => void;
    timer: NodeJS.Timeout | undefined;
    /** When it was last used here (a copy of a shared session idle longest gives way first). */
    lastUsed: number;
  }
  const sessions = new Map<string, Session>();
  let leanCalls = 0;
  let opening = 0;

  // With a shared state store, a session opened on one replica is served by any: its record is in
  // the store, and the answers to its questions reach the replica that asked.
  const { state } = gateway;
  const sessionStore = state ? new SessionStore(state, sessionIdleMs) : undefined;
  const relay = state ? new AnswerRelay(state, (id) => sessions.get(id)?.deliver) : undefined;
  const unsubscribers: (() => void)[] = [];
  // Sessions closed lately (here or on another replica), so that a take-over that raced the close
  // does not bring one back. Bounded: a minute of closes, at most 10,000.
  const closedLately = new Map<string, number>();
  const noteClosed = (id: string) => {
    closedLately.set(id, Date.now());
    for (const [old, at] of closedLately) {
      if (closedLately.size <= 10_000 && Date.now() - at < 60_000) break;
      closedLately.delete(old);
    }
  };
  if (state && sessionStore && relay) {
    try {
      await relay.listen(onError);
      unsubscribers.push(() => relay.close());
      unsubscribers.push(
        await sessionStore.onClosed((id) => {
          noteClosed(id);
          sessionStore.forget(id);
          dropSession(id);
        }),
      );
      // Closes published while the subscriber was away were missed: ask the store which of the
      // sessions held here still exist.
      unsubscribers.push(
        state.onResubscribed(() => {
          sessionStore.missing([...sessions.keys()]).then(
            (gone) => {
              for (const id of gone) dropSession(id);
            },
            () => {},
          );
        }),
      );
    } catch (error) {
      // A replica that cannot start says nothing is running here and leaves nothing behind.
      for (const unsubscribe of unsubscribers) unsubscribe();
      relay.close();
      unsubscribeModern();
      made.dispose();
      throw error;
    }
  }

  const dropSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    clearTimeout(session.timer);
    void session.server.close().catch(() => {});
  };
  const touch = (id: string, session: Session, inStore = true) => {
    clearTimeout(session.timer);
    session.timer = setTimeout(() => dropSession(id), sessionIdleMs);
    session.timer.unref();
    session.lastUsed = Date.now();
    // In use here is in use: its record lives on; a record gone means it was closed elsewhere.
    if (inStore) sessionStore?.touch(id, () => dropSession(id));
  };

  const legacy = async (
    request: Request,
    authInfo: AuthInfo,
    parsedBody: unknown,
  ): Promise<Response> => {
    const options = parsedBody === undefined ? { authInfo } : { authInfo, parsedBody };
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = sessions.get(id);
      // Another client's session answers as one that does not exist: its id tells nothing.
      if (!session || session.identity !== principalOf(authInfo))
        return jsonRpcError(
          404,
          'Session not found: it ended or expired, or another client opened it. Initialize a new session.',
        );
      touch(id, session);
      return session.transport.handleRequest(request, options);
    }
    if (request.method !== 'POST') {
      return jsonRpcError(
        400,
        'Missing Mcp-Session-Id header: initialize a session with a POST first.',
      );
    }
    if (sessions.size + opening >= maxSessions) {
      return jsonRpcError(
        503,
        `Too many sessions: this gateway holds at most ${maxSessions}. Close an unused session (HTTP DELETE) or retry later.`,
        { 'retry-after': '5' },
      );
    }
    opening++;
    try {
      const { server, transport } = await openSession(authInfo);
      const response = await transport.handleRequest(request, options);
      // Not an initialize request: no session was made, so nothing must stay behind.
      if (transport.sessionId === undefined) await server.close().catch(() => {});
      else if (sessionStore) {
        // Recorded before the client learns the id: any replica can then serve its next request.
        try {
          await sessionStore.put(transport.sessionId, {
            identity: principalOf(authInfo) as string,
            initialize: initializeParams(parsedBody),
          });
        } catch (error) {
          dropSession(transport.sessionId);
          void response.body?.cancel().catch(() => {});
          return jsonRpcError(
            503,
            error instanceof StateUnavailableError
              ? error.forClient
              : 'The gateway could not record the session; retry shortly.',
            { 'retry-after': '1' },
          );
        }
      }
      return response;
    } finally {
      opening--;
    }
  };

  /**
   * A server and transport for one 2025-era session: a new one (its id made at `initialize`), or
   * (`id`) one another replica opened, taken over here.
   */
  const openSession = async (authInfo: AuthInfo, id?: string) => {
    const server = (await made.factory({ era: 'legacy' })) as Server;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: id === undefined ? newSessionId : () => id,
      maxRequestBodySize: maxBodyBytes,
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
        sessions.set(sessionId, session);
        // Not in the store yet: a new session's record is written once its initialize is
        // answered (a push of its expiry now would find nothing, and drop it).
        touch(sessionId, session, false);
      },
      // With a store, the record was deleted (and the close announced) before the SDK saw the
      // DELETE: see `handle`.
      onsessionclosed: (sessionId) => dropSession(sessionId),
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
    lean.onerror = onError;
    const wire: LeanTransport & { deliver?: (message: JSONRPCMessage) => void } = relay
      ? relay.tagged(lean)
      : lean;
    await server.connect(wire);
    return { server, transport };
  };

  // Sessions being taken over (by principal and id), so that two requests of one session arriving
  // at once make one, and a request with another principal's id never joins or spoils it.
  const restoring = new Map<string, Promise<Session | undefined | 'full'>>();
  /**
   * The session `id` opened on another replica, taken over here: its `initialize` replayed into a
   * fresh server (the client's protocol version and capabilities as negotiated). `undefined` when
   * the store has no such session, or another principal opened it; `'full'` when this replica
   * holds `maxSessions` and none of its copies has been idle long enough to give way.
   * @throws {StateUnavailableError} when the store cannot be read.
   */
  const takeOver = (
    id: string,
    authInfo: AuthInfo,
    url: string,
  ): Promise<Session | undefined | 'full'> => {
    const key = `${principalOf(authInfo)}\0${id}`;
    let pending = restoring.get(key);
    if (!pending) {
      pending = (async () => {
        const record = await sessionStore?.get(id);
        if (!record || record.identity !== principalOf(authInfo) || closedLately.has(id)) {
          return undefined;
        }
        if (sessions.size + opening >= maxSessions && !giveWay()) return 'full';
        const session = await replay(id, record, authInfo, url);
        // Closed while it was being replayed (the close may have been announced before this
        // replica held it): it must not come back.
        if (session && (closedLately.has(id) || !(await sessionStore?.get(id)))) {
          dropSession(id);
          return undefined;
        }
        return session;
      })().finally(() => restoring.delete(key));
      restoring.set(key, pending);
    }
    return pending;
  };
  /** Drops this replica's copy of the shared session idle longest (a minute at least): any replica
   * can take it over again. Whether one gave way. */
  const giveWay = (): boolean => {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
    }
    if (!oldest || Date.now() - oldest[1].lastUsed < 60_000) return false;
    dropSession(oldest[0]);
    return true;
  };
  const replay = async (
    id: string,
    record: SessionRecord,
    authInfo: AuthInfo,
    url: string,
  ): Promise<Session | undefined> => {
    const { server, transport } = await openSession(authInfo, id);
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
    const session = sessions.get(id);
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
  };

  // Reached only by requests the Node handler below has checked; who is calling comes from there
  // (never from a header a client could set).
  const fetchHandler = {
    fetch: async (request: Request, options?: McpHandlerRequestOptions): Promise<Response> => {
      const authInfo = options?.authInfo;
      if (authInfo === undefined) throw new Error('serveGatewayHttp: a request without identity');
      const parsedBody = options?.parsedBody;
      const legacyEra = await isLegacyRequest(request, parsedBody, {
        maxRequestBodySize: maxBodyBytes,
      });
      return legacyEra ? legacy(request, authInfo, parsedBody) : modern.fetch(request, options);
    },
  };
  const nodeHandler = toNodeHandler(fetchHandler, {
    maxRequestBodySize: maxBodyBytes,
    onerror: onError,
  });

  // Set once the gateway listens (its URL is the default OAuth resource); requests wait for it.
  let rules: AdmissionRules | undefined;
  let rulesReady: () => void = () => {};
  const rulesSet = new Promise<void>((resolve) => {
    rulesReady = resolve;
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Malformed Host and Origin headers are refused here, as the client's error: the request URL
    // is built from Host, and one like "127.0.0.1@attacker.com" must never reach a URL parser.
    if (!isWellFormedHost(req.headers.host)) {
      req.resume();
      return refuse(
        res,
        400,
        'Malformed Host header: send host[:port], an IPv6 address in brackets ([::1]:8765).',
      );
    }
    if (!isWellFormedOrigin(req.headers.origin)) {
      req.resume();
      return refuse(
        res,
        403,
        'Forbidden: the Origin header is not an allowed origin (http(s)://host[:port]).',
      );
    }
    // A declared length over the bound is refused before a byte of the body is read.
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      req.resume();
      return refuse(res, 413, `Request body too large: at most ${maxBodyBytes} bytes.`);
    }
    if (!rules) await rulesSet;
    const admit = await admission(req, rules as AdmissionRules);
    if (admit.kind === 'refused') {
      req.resume();
      return refuse(res, admit.status, admit.message, admit.headers ?? {});
    }
    if (admit.kind === 'metadata') {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      return void res.end(JSON.stringify(admit.body));
    }
    const admitted = admit.authInfo;
    const sessionId = req.headers['mcp-session-id'];
    const replaying =
      typeof sessionId === 'string'
        ? restoring.get(`${principalOf(admitted)}\0${sessionId}`)
        : undefined;
    if (
      sessionStore &&
      typeof sessionId === 'string' &&
      (replaying !== undefined || !sessions.has(sessionId))
    ) {
      // A session another replica opened: taken over here (or, unknown, answered 404 below); a
      // request that arrives while it is being taken over waits for the take-over to finish.
      let taken: Session | undefined | 'full';
      try {
        taken = await takeOver(sessionId, admitted, `http://${req.headers.host}${path}`);
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        req.resume();
        return refuse(res, 503, error.forClient, { 'retry-after': '1' });
      }
      if (taken === 'full') {
        req.resume();
        return refuse(
          res,
          503,
          `Too many sessions: this gateway replica holds at most ${maxSessions} and none has been idle for a minute; retry (another replica may take the request), or close an unused session.`,
          { 'retry-after': '5' },
        );
      }
    }
    if (
      sessionStore &&
      req.method === 'DELETE' &&
      typeof sessionId === 'string' &&
      sessions.get(sessionId)?.identity === principalOf(admitted)
    ) {
      // Closed in the store (and announced) before the SDK answers: a 200 means closed on every
      // replica, and a store that cannot take the close answers 503, never a 200 it cannot keep.
      try {
        await sessionStore.delete(sessionId);
        noteClosed(sessionId);
      } catch (error) {
        if (!(error instanceof StateUnavailableError)) throw error;
        req.resume();
        return refuse(res, 503, error.forClient, { 'retry-after': '1' });
      }
    }
    const lastEventId = req.headers['last-event-id'];
    if (
      relay &&
      req.method === 'GET' &&
      typeof sessionId === 'string' &&
      typeof lastEventId === 'string'
    ) {
      const resumed = resumedCall(lastEventId);
      const owner = sessions.get(sessionId);
      if (resumed && owner?.identity === principalOf(admitted)) {
        req.resume();
        return endResumedCall(res, sessionId, resumed, relay);
      }
    }
    if (req.method !== 'POST') {
      req.resume();
      return nodeHandler(replayRequest(req, undefined, admitted), res);
    }
    const body = await readBody(req, maxBodyBytes);
    if (body === undefined) {
      return refuse(res, 413, `Request body too large: at most ${maxBodyBytes} bytes.`);
    }
    let parsed = parseBody(body);
    let forwarded = body;
    const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    const session = found?.identity === principalOf(admitted) ? found : undefined;
    if (Array.isArray(parsed)) {
      const refused = batchRefusal(batchVersion(req, session?.lean));
      if (refused) return refuse(res, 400, refused, {}, -32600);
    }
    if (relay && session && typeof sessionId === 'string') {
      const routed = await routeAnswers(relay, sessionId, parsed);
      if (routed === 'unavailable') {
        return refuse(
          res,
          503,
          "The gateway's state store did not take the answer to the replica that asked (the store is slow or down, or that replica is reconnecting to it); send the answer again.",
          { 'retry-after': '1' },
        );
      }
      if (routed === 'all') {
        res.writeHead(202).end();
        return;
      }
      if (routed !== 'none') {
        // A batch (2025-03-26) of answers to other replicas and messages for this one: the
        // others went on; this replica handles the rest.
        parsed = routed.rest;
        forwarded = Buffer.from(JSON.stringify(routed.rest));
      }
    }
    // A call over its client's limit is answered 429 with Retry-After before anything runs (the
    // limits interceptor still counts every call, over any transport).
    const call = toolCallOf(parsed);
    const limited = call && (await gateway.limits?.check(admitted.clientId, call.name));
    if (call && limited) {
      const seconds = String(Math.max(1, Math.ceil(limited.retryAfterMs / 1000)));
      // A store that did not answer is the gateway's trouble, not the client's budget: 503.
      const status = limited.storeUnavailable ? 503 : 429;
      return refuse(res, status, limited.message, { 'retry-after': seconds }, -32000, call.id);
    }
    if (session && typeof sessionId === 'string' && leanEligible(req, parsed)) {
      const sink = sseSink(res, sessionId, relay && call ? relay.eventIds(call.id) : undefined);
      if (session.lean.takeCall(parsed, sink)) {
        sink.arm();
        leanCalls++;
        touch(sessionId, session);
        const { id } = parsed as { id: string | number };
        res.once('close', () => {
          if (!res.writableEnded) {
            session.lean.abandon(id, "The client closed the call's HTTP response stream.");
          }
        });
        return;
      }
    }
    if (session && call) {
      // On the SDK path too, a client that closes a call's stream cancels the call.
      res.once('close', () => {
        if (!res.writableFinished) {
          session.lean.cancel(call.id, "The client closed the call's HTTP response stream.");
        }
      });
    }
    return nodeHandler(replayRequest(req, forwarded, admitted), res, parsed);
  };

  // OAuth's checks and discovery (which may fail, or wait on the issuer) before the port opens.
  const oauthOptions = 'oauth' in options ? options.oauth : undefined;
  let makeOAuth: ((url: string) => OAuthResourceServer) | undefined;
  try {
    makeOAuth = oauthOptions ? await OAuthResourceServer.prepare(oauthOptions) : undefined;
  } catch (error) {
    unsubscribeModern();
    made.dispose();
    throw error;
  }

  const httpServer: HttpServer = createServer((req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      onError(error instanceof Error ? error : new Error(String(error)));
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // Slow clients cannot hold a socket forever before sending their headers.
  httpServer.headersTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? HTTP_DEFAULTS.port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}${path}`;
  const oauth = makeOAuth?.(url);
  rules = {
    path,
    allowedHostnames,
    allowedOriginHostnames,
    identities,
    oauth,
    // With entries for OAuth identities, only those are let in, unless told otherwise.
    oauthClientsOnly:
      oauthOptions?.clientsOnly ??
      ('clients' in options &&
        (options.clients ?? []).some((client) => client.tokenSha256 === undefined)),
  };
  rulesReady();

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get sessions() {
      return sessions.size;
    },
    get leanCalls() {
      return leanCalls;
    },
    close() {
      closing ??= (async () => {
        for (const unsubscribe of unsubscribers) unsubscribe();
        unsubscribeModern();
        made.dispose();
        for (const id of [...sessions.keys()]) dropSession(id);
        await modern.close().catch(() => {});
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
