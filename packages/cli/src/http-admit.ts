import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AuthInfo,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import { isWellFormedHost, isWellFormedOrigin, refuse } from './http-guards';
import type { GatewayIdentities } from './http-identities';
import { looksLikeJwt, type OAuthResourceServer } from './http-oauth';

/** A request refused before it reaches MCP: its status, message and extra headers. */
export interface Refusal {
  readonly status: number;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

/** What a request is let in as: a client, the OAuth metadata it asked for, or a refusal. */
export type Admission =
  | { readonly kind: 'client'; readonly authInfo: AuthInfo }
  | { readonly kind: 'metadata'; readonly body: Record<string, unknown> }
  | ({ readonly kind: 'refused' } & Refusal);

/** What {@link admission} checks a request against. */
export interface AdmissionRules {
  /** The MCP endpoint's path. */
  readonly path: string;
  readonly allowedHostnames: readonly string[];
  readonly allowedOriginHostnames: readonly string[];
  /** The clients known by token (and the settings of OAuth-named ones). */
  readonly identities: GatewayIdentities;
  /** The OAuth resource server, when the gateway accepts access tokens. */
  readonly oauth?: OAuthResourceServer | undefined;
  /** Whether an OAuth identity needs an entry in `clients` (else any identity the issuer names). */
  readonly oauthClientsOnly?: boolean;
}

const refused = (status: number, message: string, headers?: Record<string, string>): Admission =>
  headers ? { kind: 'refused', status, message, headers } : { kind: 'refused', status, message };

/**
 * The checks every request passes before MCP reads it, in order: the path (and, with OAuth, its
 * Protected Resource Metadata, which needs no token), the `Host` and `Origin` allowlists (the MCP
 * spec's DNS-rebinding rule), then who is calling: an OAuth access token issued for this gateway,
 * or a client's own bearer token. Who is calling comes only from here, never from a header a
 * client could set.
 */
export async function admission(req: IncomingMessage, rules: AdmissionRules): Promise<Admission> {
  let pathname: string;
  try {
    pathname = new URL(req.url ?? '/', 'http://gateway').pathname;
  } catch {
    pathname = '';
  }
  const { oauth } = rules;
  const metadata = oauth?.metadataPaths().includes(pathname) === true;
  if (pathname !== rules.path && !metadata) {
    return refused(404, `Not found: the MCP endpoint is ${rules.path}.`);
  }
  const host = validateHostHeader(req.headers.host, [...rules.allowedHostnames]);
  if (!host.ok) return refused(403, host.message);
  const origin = validateOriginHeader(req.headers.origin, [...rules.allowedOriginHostnames]);
  if (!origin.ok) return refused(403, origin.message);
  if (oauth && metadata) {
    return req.method === 'GET'
      ? { kind: 'metadata', body: oauth.metadata() }
      : refused(405, 'The protected resource metadata is read with GET.', { allow: 'GET' });
  }

  const auth = req.headers.authorization ?? '';
  const client = rules.identities.identify(auth);
  if (client) {
    return {
      kind: 'client',
      authInfo: { token: '', clientId: client.name, scopes: [], extra: { principal: client.name } },
    };
  }
  const bearer = /^Bearer (.{1,16384})$/.exec(auth)?.[1];
  if (oauth && bearer !== undefined && looksLikeJwt(bearer)) {
    const verdict = await oauth.verify(bearer);
    if (!verdict.ok) {
      return refused(verdict.status, verdict.description, {
        'www-authenticate': oauth.challenge(verdict),
      });
    }
    // An access token may not stand in for a client the config gives a token of its own: their
    // sessions and settings would become the token holder's.
    const entry = rules.identities.get(verdict.identity);
    if (entry?.tokenSha256 !== undefined) {
      return refused(
        403,
        `The access token names client "${verdict.identity}", a client of this gateway's config with a bearer token of its own; an OAuth identity cannot take its place. Rename one of them.`,
      );
    }
    if (!entry && rules.oauthClientsOnly) {
      return refused(
        403,
        `The access token's client "${verdict.identity}" is not one of this gateway's clients: add it to the config's "clients" (without a token) to let it in.`,
      );
    }
    return {
      kind: 'client',
      authInfo: {
        token: '',
        clientId: verdict.identity,
        scopes: [...verdict.scopes],
        extra: { principal: `${verdict.identity}\u0000${verdict.subject}` },
      },
    };
  }
  const challenge = oauth
    ? bearer === undefined
      ? oauth.challenge()
      : oauth.challenge({
          ok: false,
          status: 401,
          error: 'invalid_token',
          description: 'The bearer token is neither a client token nor an access token.',
        })
    : 'Bearer realm="dsh-tools"';
  return refused(
    401,
    auth === ''
      ? oauth
        ? `Missing bearer token: send "Authorization: Bearer <access token>" with a token from ${oauth.issuer} (its metadata: ${oauth.metadataUrl()}).`
        : 'Missing bearer token: send "Authorization: Bearer <token>" (the token dsh-tools serve was started with, or your client\'s own).'
      : oauth
        ? `Wrong bearer token: send an access token from ${oauth.issuer} issued for ${oauth.resource}, or your client's own token from the gateway's config.`
        : "Wrong bearer token: send the token dsh-tools serve was started with, or your client's own from the gateway's config.",
    { 'www-authenticate': challenge },
  );
}

/**
 * Every check a request passes before anything reads its body, answering the ones that fail:
 * well-formed `Host` and `Origin` headers (the request URL is built from `Host`, and one like
 * "127.0.0.1@attacker.com" must never reach a URL parser), a declared length within
 * `maxBodyBytes` (refused before a byte is read), then {@link admission} (whose Protected Resource
 * Metadata it answers too). Who is calling, or `undefined` when the request was answered here.
 */
export async function admitRequest(
  req: IncomingMessage,
  res: ServerResponse,
  rulesOf: () => AdmissionRules | Promise<AdmissionRules>,
  maxBodyBytes: number,
): Promise<AuthInfo | undefined> {
  const answer = (status: number, message: string, headers?: Record<string, string>) => {
    req.resume();
    refuse(res, status, message, headers);
    return undefined;
  };
  if (!isWellFormedHost(req.headers.host)) {
    return answer(
      400,
      'Malformed Host header: send host[:port], an IPv6 address in brackets ([::1]:8765).',
    );
  }
  if (!isWellFormedOrigin(req.headers.origin)) {
    return answer(
      403,
      'Forbidden: the Origin header is not an allowed origin (http(s)://host[:port]).',
    );
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) {
    return answer(413, `Request body too large: at most ${maxBodyBytes} bytes.`);
  }
  const admit = await admission(req, await rulesOf());
  if (admit.kind === 'refused') return answer(admit.status, admit.message, admit.headers ?? {});
  if (admit.kind === 'metadata') {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(JSON.stringify(admit.body));
    return undefined;
  }
  return admit.authInfo;
}
