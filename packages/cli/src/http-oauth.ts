import { createHash } from 'node:crypto';
import { isLoopbackHost } from './http-defaults';

/**
 * `serve --http` as an OAuth 2.1 resource server, as the MCP authorization spec describes one:
 * it accepts bearer access tokens that an authorization server issued *for this gateway* (JWTs
 * signed with a key of the issuer's JWKS, `aud` naming the gateway), publishes its Protected
 * Resource Metadata (RFC 9728) so that a client can find the authorization server, and answers a
 * missing or bad token with a `WWW-Authenticate` challenge that points there. It never issues
 * tokens and never passes a client's token on to an upstream server.
 */

/** Options of the OAuth resource-server mode (the config's `oauth` section). */
export interface OAuthOptions {
  /** The authorization server's issuer identifier: every token's `iss` must be exactly this. */
  readonly issuer: string;
  /**
   * This gateway's canonical URL (the MCP endpoint as clients reach it, for example behind a
   * proxy): every token's `aud` must name it (RFC 8707), and it is the `resource` of the metadata.
   * Default: the URL the gateway listens on.
   */
  readonly resource?: string | undefined;
  /** The issuer's JWKS URL. Default: `jwks_uri` of its metadata (RFC 8414, then OpenID discovery). */
  readonly jwksUri?: string | undefined;
  /** Scopes every token must carry (space-separated `scope` claim, or `scp`). Default: none. */
  readonly scopes?: readonly string[] | undefined;
  /** The claim that names the client (default `client_id`, RFC 9068's; no other is tried). */
  readonly identityClaim?: string | undefined;
  /** Signature algorithms accepted (default: asymmetric ones only; never `none` or HMAC). */
  readonly algorithms?: readonly string[] | undefined;
  /**
   * Whether only identities with an entry in `clients` are let in (403 otherwise). Default: yes
   * when `clients` has an entry without a token (an OAuth identity's), else any client the issuer
   * names.
   */
  readonly clientsOnly?: boolean | undefined;
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, seconds (default 30). */
  readonly clockToleranceSec?: number | undefined;
}

/** The asymmetric JWS algorithms accepted unless configured otherwise. */
export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

/** What a presented token comes to. */
export type OAuthVerdict =
  | {
      readonly ok: true;
      /** The client (the configured claim, `client_id` by default). */
      readonly identity: string;
      /** The token's `sub` (the user, for a user's token), `''` when it has none. */
      readonly subject: string;
      readonly scopes: readonly string[];
    }
  | {
      readonly ok: false;
      readonly status: 401 | 403;
      readonly error: 'invalid_token' | 'insufficient_scope';
      readonly description: string;
    };

/** A configuration mistake or an issuer that cannot be reached: `serve` does not start. */
export class OAuthSetupError extends Error {
  override readonly name = 'OAuthSetupError';
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a bearer token has a JWT's compact shape (three base64url parts). */
export const looksLikeJwt = (token: string): boolean => JWT_SHAPE.test(token);

/** `https:`, or `http:` on a loopback host only: keys must not travel where they can be changed. */
function checkedUrl(value: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OAuthSetupError(`oauth.${what} is not a URL: ${JSON.stringify(value)}.`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new OAuthSetupError(
    `oauth.${what} must be an https: URL (http: only on a loopback host), not ${JSON.stringify(value)}.`,
  );
}

/** The metadata URLs to try for `issuer`: RFC 8414's (path inserted), then OpenID Connect's. */
export function discoveryUrls(issuer: URL): URL[] {
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer),
    new URL(`${path}/.well-known/openid-configuration`, issuer),
  ];
}

/** The issuer's `jwks_uri`, from the first metadata document that names the same issuer. */
async function discoverJwks(issuer: string, fetchImpl: typeof fetch): Promise<string> {
  const tried: string[] = [];
  for (const url of discoveryUrls(checkedUrl(issuer, 'issuer'))) {
    try {
      const response = await fetchImpl(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) {
        tried.push(`${url.href}: HTTP ${response.status}`);
        await response.body?.cancel();
        continue;
      }
      const metadata = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (metadata.issuer !== issuer) {
        // RFC 8414 §3.3: metadata naming another issuer must not be used.
        tried.push(`${url.href}: names issuer ${JSON.stringify(metadata.issuer)}`);
        continue;
      }
      if (typeof metadata.jwks_uri !== 'string') {
        tried.push(`${url.href}: has no jwks_uri`);
        continue;
      }
      return metadata.jwks_uri;
    } catch (error) {
      tried.push(`${url.href}: ${(error as Error).message}`);
    }
  }
  throw new OAuthSetupError(
    `Cannot find the signing keys of the OAuth issuer ${issuer}: ${tried.join('; ')}. Check oauth.issuer, or give oauth.jwksUri.`,
  );
}

const scopesOf = (payload: Record<string, unknown>): string[] => {
  const { scope, scp } = payload;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
};

/** A client identity from a claim: printable, 1-256 characters. */
const IDENTITY = /^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/;

const CACHE_MAX = 1024;

/** A verdict, and for an accepted token its `exp` (seconds). */
interface Checked {
  readonly verdict: OAuthVerdict;
  readonly exp?: number;
}

/**
 * The resource server's state: the issuer's key set (fetched on demand, refetched for an unknown
 * key id, at most every 30 s), the metadata it publishes, and a short cache of verified tokens
 * (by digest, never past their `exp`), so a client's every request does not pay a signature check.
 */
export class OAuthResourceServer {
  readonly resource: string;
  readonly issuer: string;
  readonly #options: OAuthOptions;
  readonly #verify: (token: string) => Promise<Checked>;
  readonly #cache = new Map<string, { verdict: OAuthVerdict; until: number }>();

  private constructor(
    options: OAuthOptions,
    resource: string,
    verify: (token: string) => Promise<Checked>,
  ) {
    this.#options = options;
    this.resource = resource;
    this.issuer = options.issuer;
    this.#verify = verify;
  }

  /**
   * Sets the mode up: checks the options and finds the issuer's keys (discovery, unless
   * `jwksUri` is given). `listeningUrl` is the default `resource`.
   * @throws {OAuthSetupError} naming what is wrong and what to do.
   */
  static async create(
    options: OAuthOptions,
    listeningUrl: string,
    fetchImpl: typeof fetch = fetch,
  ): Promise<OAuthResourceServer> {
    return (await OAuthResourceServer.prepare(options, fetchImpl))(listeningUrl);
  }

  /**
   * Everything {@link create} does that can fail or wait (the checks, discovery), done before the
   * gateway listens; the function it resolves with makes the resource server once the listening
   * URL (the default `resource`) is known, and cannot fail.
   * @throws {OAuthSetupError} naming what is wrong and what to do.
   */
  static async prepare(
    options: OAuthOptions,
    fetchImpl: typeof fetch = fetch,
  ): Promise<(listeningUrl: string) => OAuthResourceServer> {
    const { issuer } = options;
    if (typeof issuer !== 'string' || issuer === '') {
      throw new OAuthSetupError('oauth.issuer is required: the URL of your authorization server.');
    }
    checkedUrl(issuer, 'issuer');
    if (options.resource !== undefined) {
      try {
        new URL(options.resource);
      } catch {
        throw new OAuthSetupError(
          `oauth.resource is not a URL: ${JSON.stringify(options.resource)}.`,
        );
      }
    }
    const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
    const symmetric = algorithms.filter((a) => a === 'none' || a.startsWith('HS'));
    if (symmetric.length > 0 || algorithms.length === 0) {
      throw new OAuthSetupError(
        `oauth.algorithms may hold only asymmetric signature algorithms (${DEFAULT_ALGORITHMS.join(', ')}); ${symmetric.length > 0 ? `not ${symmetric.join(', ')}` : 'it is empty'}.`,
      );
    }
    const jwksUri = checkedUrl(
      options.jwksUri ?? (await discoverJwks(issuer, fetchImpl)),
      options.jwksUri ? 'jwksUri' : `issuer's jwks_uri`,
    );
    const { createRemoteJWKSet, jwtVerify, errors } = await import('jose');
    const keys = createRemoteJWKSet(jwksUri, { timeoutDuration: 5_000 });
    const required = options.scopes ?? [];
    const claim = options.identityClaim ?? 'client_id';
    return (listeningUrl) => {
      const resource = options.resource ?? listeningUrl;
      const verify = async (token: string): Promise<Checked> => {
        let payload: Record<string, unknown>;
        try {
          ({ payload } = await jwtVerify(token, keys, {
            issuer,
            audience: resource,
            algorithms,
            clockTolerance: options.clockToleranceSec ?? 30,
            requiredClaims: ['exp'],
          }));
        } catch (error) {
          const why =
            error instanceof errors.JWTExpired
              ? 'the token has expired'
              : error instanceof errors.JWTClaimValidationFailed
                ? `its "${error.claim}" claim is not accepted (${error.reason === 'check_failed' ? `expected ${error.claim === 'aud' ? `the audience ${resource}` : error.claim === 'iss' ? `the issuer ${issuer}` : 'a valid value'}` : error.reason})`
                : error instanceof errors.JWKSNoMatchingKey
                  ? "no key of the issuer's key set matches it"
                  : error instanceof errors.JOSEAlgNotAllowed
                    ? 'its signature algorithm is not accepted'
                    : error instanceof errors.JWSSignatureVerificationFailed
                      ? 'its signature does not verify'
                      : `it could not be verified (${String((error as { code?: unknown }).code ?? 'not a token').replace(/[^A-Za-z0-9_ ]/g, '')})`;
          return {
            verdict: {
              ok: false,
              status: 401,
              error: 'invalid_token',
              description: `The access token is refused: ${why}. Get a new one from ${issuer}.`,
            },
          };
        }
        const named = payload[claim];
        if (typeof named !== 'string' || !IDENTITY.test(named)) {
          return {
            verdict: {
              ok: false,
              status: 401,
              error: 'invalid_token',
              description: `The access token names no client: its "${claim}" claim is missing or not 1-256 printable characters (set oauth.identityClaim if your issuer names the client in another claim).`,
            },
          };
        }
        const sub = typeof payload.sub === 'string' ? payload.sub : '';
        const scopes = scopesOf(payload);
        const missing = required.filter((s) => !scopes.includes(s));
        if (missing.length > 0) {
          return {
            verdict: {
              ok: false,
              status: 403,
              error: 'insufficient_scope',
              description: `The access token lacks the scope ${missing.join(' ')} this gateway requires. Ask ${issuer} for a token with it.`,
            },
          };
        }
        return {
          verdict: { ok: true, identity: named, subject: sub, scopes },
          exp: Number(payload.exp),
        };
      };
      return new OAuthResourceServer(options, resource, verify);
    };
  }

  /** What `token` comes to (a verified one is remembered until its `exp`, at most 5 minutes). */
  async verify(token: string): Promise<OAuthVerdict> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const cached = this.#cache.get(key);
    if (cached && cached.until > now) return cached.verdict;
    if (cached) this.#cache.delete(key);
    const { verdict, exp } = await this.#verify(token);
    if (verdict.ok && exp !== undefined) {
      const until = Math.min(exp * 1000, now + 5 * 60_000);
      if (this.#cache.size >= CACHE_MAX) {
        const oldest = this.#cache.keys().next().value;
        if (oldest !== undefined) this.#cache.delete(oldest);
      }
      this.#cache.set(key, { verdict, until });
    }
    return verdict;
  }

  /** The Protected Resource Metadata document (RFC 9728). */
  metadata(): Record<string, unknown> {
    return {
      resource: this.resource,
      authorization_servers: [this.issuer],
      bearer_methods_supported: ['header'],
      ...(this.#options.scopes?.length ? { scopes_supported: [...this.#options.scopes] } : {}),
      resource_name: 'dsh-tools gateway',
    };
  }

  /** The paths the metadata is served at: RFC 9728's, with the resource's path inserted, and bare. */
  metadataPaths(): string[] {
    const path = new URL(this.resource).pathname.replace(/\/$/, '');
    const base = '/.well-known/oauth-protected-resource';
    return path === '' ? [base] : [`${base}${path}`, base];
  }

  /** The metadata's URL, as the `resource_metadata` of a challenge names it. */
  metadataUrl(): string {
    const resource = new URL(this.resource);
    return new URL(this.metadataPaths()[0] as string, resource).href;
  }

  /** A `WWW-Authenticate` value: where the metadata is, and why a presented token failed. */
  challenge(verdict?: Extract<OAuthVerdict, { ok: false }>): string {
    const parts = [`resource_metadata="${this.metadataUrl()}"`];
    if (verdict) {
      parts.push(`error="${verdict.error}"`);
      // RFC 6750's error_description characters only: a header never carries what a token said.
      parts.push(
        `error_description="${verdict.description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, '?')}"`,
      );
      if (verdict.error === 'insufficient_scope' && this.#options.scopes?.length) {
        parts.push(`scope="${this.#options.scopes.join(' ')}"`);
      }
    }
    return `Bearer ${parts.join(', ')}`;
  }
}
