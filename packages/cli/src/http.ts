import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { isIP } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { McpHandlerRequestOptions } from '@modelcontextprotocol/server';
import { createMcpHandler, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Gateway } from './gateway';
import { type AdmissionRules, admitRequest } from './http-admit';
import { HTTP_DEFAULTS, isLoopbackHost } from './http-defaults';
import { allowedHostnamesOf, allowedOriginHostnamesOf, refuse } from './http-guards';
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
import { ReplicaSessions, refuseWith } from './http-replicas';
import { LegacySessions, type Session } from './http-sessions';
import { principalOf } from './principal';
import { createGatewayServerFactory } from './serve';

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

  const allowedHostnames = allowedHostnamesOf(host, options.allowedHosts);
  const allowedOriginHostnames = allowedOriginHostnamesOf(options.allowedOrigins);

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

  const held = new LegacySessions(made, { maxBodyBytes, maxSessions, sessionIdleMs, onError });
  const { sessions } = held;
  let leanCalls = 0;

  // With a shared state store, a session opened on one replica is served by any: its record is in
  // the store, and the answers to its questions reach the replica that asked.
  let replicas: ReplicaSessions<Session> | undefined;
  if (gateway.state) {
    try {
      replicas = await ReplicaSessions.start(gateway.state, sessionIdleMs, held, onError);
      held.replicas = replicas;
    } catch (error) {
      // A replica that cannot start leaves nothing behind.
      unsubscribeModern();
      made.dispose();
      throw error;
    }
  }

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
      return legacyEra
        ? held.handle(request, authInfo, parsedBody)
        : modern.fetch(request, options);
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
    const admitted = await admitRequest(
      req,
      res,
      () => rules ?? rulesSet.then(() => rules as AdmissionRules),
      maxBodyBytes,
    );
    if (!admitted) return;
    const sessionId = req.headers['mcp-session-id'];
    if (replicas && typeof sessionId === 'string') {
      const refused = await replicas.prepare(
        req.method,
        sessionId,
        admitted,
        `http://${req.headers.host}${path}`,
      );
      if (refused) {
        req.resume();
        return refuseWith(res, refused);
      }
      const lastEventId = req.headers['last-event-id'];
      if (
        req.method === 'GET' &&
        typeof lastEventId === 'string' &&
        sessions.get(sessionId)?.identity === principalOf(admitted)
      ) {
        if (await replicas.resume(res, sessionId, lastEventId)) return void req.resume();
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
    if (replicas && session && typeof sessionId === 'string') {
      const routed = await replicas.route(sessionId, parsed);
      if (routed === 'all') {
        res.writeHead(202).end();
        return;
      }
      if (routed !== 'none' && 'status' in routed) return refuseWith(res, routed);
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
      const sink = sseSink(
        res,
        sessionId,
        replicas && call ? replicas.eventIds(call.id) : undefined,
      );
      if (session.lean.takeCall(parsed, sink)) {
        sink.arm();
        leanCalls++;
        held.touch(sessionId, session);
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
        replicas?.close();
        unsubscribeModern();
        made.dispose();
        held.dropAll();
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
