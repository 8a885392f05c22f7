import { createHash, timingSafeEqual } from 'node:crypto';

/** A permission mode a client's calls run in, overriding the config's `defaultMode`. */
export type ClientMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions';

/** One client of an HTTP gateway: who it is, the hash of its token, and what it may use. */
export interface GatewayClient {
  /** Names the client in messages, sessions and records. */
  readonly name: string;
  /**
   * The SHA-256 of its bearer token, as 64 hex digits (the token itself is never held). Absent
   * only with OAuth: then the client is the identity an access token names, and this entry holds
   * its tools and mode.
   */
  readonly tokenSha256?: string;
  /** The only tools it sees and may call: names, or `*` globs (`mcp__notes__*`). Default: all. */
  readonly tools?: readonly string[];
  /** The permission mode its calls run in (default: the config's). */
  readonly mode?: ClientMode;
}

/** The SHA-256 of a token, as a gateway client's `tokenSha256` holds it. */
export const tokenSha256 = (token: string): string =>
  createHash('sha256').update(token).digest('hex');

const HEX_DIGEST = /^[0-9a-f]{64}$/i;
const CLIENT_NAME = /^[A-Za-z0-9_.@-]{1,64}$/;

/** Whether `name` passes one `tools` entry: an exact name or a `*` glob. */
export function matchesTool(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const parts = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`).test(name);
}

interface Known {
  readonly client: GatewayClient;
  readonly digest: Buffer;
}

/** Options of {@link GatewayIdentities}. */
export interface GatewayIdentitiesOptions {
  /**
   * Whether OAuth access tokens name clients too: then a client may have no token (it is reached
   * through OAuth only), and the list may be empty.
   */
  readonly oauth?: boolean;
}

/**
 * The clients of an HTTP gateway, each known by the hash of its token. A presented token is
 * hashed and compared with every client's hash in constant time (all of them, whatever matched),
 * so neither a token nor which client holds it leaks through timing.
 */
export class GatewayIdentities {
  readonly #known: readonly Known[];
  readonly #byName: ReadonlyMap<string, GatewayClient>;

  /** @throws {TypeError} for a malformed name or hash, or two clients with one name or token. */
  constructor(clients: readonly GatewayClient[], options: GatewayIdentitiesOptions = {}) {
    if (clients.length === 0 && !options.oauth) {
      throw new TypeError('serveGatewayHttp: "clients" is empty; give at least one client.');
    }
    const names = new Map<string, GatewayClient>();
    const digests = new Set<string>();
    const known: Known[] = [];
    for (const client of clients) {
      if (typeof client.name !== 'string' || !CLIENT_NAME.test(client.name)) {
        throw new TypeError(
          `serveGatewayHttp: client name ${JSON.stringify(client.name)} is not 1-64 letters, digits, "_", ".", "@" or "-".`,
        );
      }
      if (names.has(client.name)) {
        throw new TypeError(`serveGatewayHttp: two clients are named "${client.name}".`);
      }
      names.set(client.name, client);
      if (client.tokenSha256 === undefined && options.oauth) continue;
      if (typeof client.tokenSha256 !== 'string' || !HEX_DIGEST.test(client.tokenSha256)) {
        throw new TypeError(
          `serveGatewayHttp: client "${client.name}" has no tokenSha256 of 64 hex digits (printf %s "$TOKEN" | sha256sum).`,
        );
      }
      const hex = client.tokenSha256.toLowerCase();
      if (digests.has(hex)) {
        throw new TypeError(
          `serveGatewayHttp: client "${client.name}" has the same token as another client; give each client its own.`,
        );
      }
      digests.add(hex);
      known.push({ client, digest: Buffer.from(hex, 'hex') });
    }
    this.#known = known;
    this.#byName = names;
  }

  /** The client whose bearer token the `Authorization` header carries, or `undefined`. */
  identify(authorization: string | null): GatewayClient | undefined {
    const match = /^Bearer (.{1,4096})$/.exec(authorization ?? '');
    // A header that is no bearer token is compared too, against a digest no token has: the work
    // is the same whatever was sent.
    const presented = createHash('sha256')
      .update(match?.[1] ?? '\0no token')
      .digest();
    let found: GatewayClient | undefined;
    for (const { client, digest } of this.#known) {
      if (timingSafeEqual(presented, digest) && match) found = client;
    }
    return found;
  }

  /** The client named `name`. */
  get(name: string | undefined): GatewayClient | undefined {
    return name === undefined ? undefined : this.#byName.get(name);
  }

  /** Whether client `name` may see and call `tool` (its `tools` allowlist; all when it has none). */
  allows(name: string | undefined, tool: string): boolean {
    const tools = this.get(name)?.tools;
    return tools === undefined || tools.some((pattern) => matchesTool(pattern, tool));
  }
}

/** The clients an HTTP gateway knows, from its options (checked: a bad one throws). */
export function identitiesOf(options: {
  readonly token?: string | undefined;
  readonly clients?: readonly GatewayClient[] | undefined;
  readonly oauth?: unknown;
}): GatewayIdentities {
  if (options.clients !== undefined || options.oauth !== undefined) {
    if (options.token !== undefined) {
      throw new TypeError('serveGatewayHttp: give "token", or "clients" and "oauth", not both.');
    }
    return new GatewayIdentities(options.clients ?? [], { oauth: options.oauth !== undefined });
  }
  if (typeof options.token !== 'string' || options.token.length < 16) {
    throw new TypeError('serveGatewayHttp: a bearer token of at least 16 characters is required.');
  }
  return new GatewayIdentities([{ name: 'default', tokenSha256: tokenSha256(options.token) }]);
}
