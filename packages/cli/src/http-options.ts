import type { GatewayClient } from './http-identities';
import type { OAuthOptions } from './http-oauth';
import type { ElicitationApprovals } from './serve';

/** Options of {@link serveGatewayHttp}. */
export interface HttpServeOptions {
  /** Address to bind (default 127.0.0.1). Anything but loopback requires `token`. */
  readonly host?: string;
  /** Port (default 8765; 0 picks a free one). */
  readonly port?: number;
  /** The endpoint's path (default `/mcp`). */
  readonly path?: string;
  /** The bearer token every request must carry. Required: generate one when none is configured. */
  readonly token: string;
  /** Origins allowed besides loopback ones (exact origins such as `https://app.example.com`). */
  readonly allowedOrigins?: readonly string[];
  /** Host names allowed in the `Host` header besides loopback ones (when bound beyond loopback). */
  readonly allowedHosts?: readonly string[];
  /** Largest request body, bytes (default 1 MiB); larger ones get 413. */
  readonly maxBodyBytes?: number;
  /** Concurrent sessions (2025 protocol) and subscription streams (2026 protocol), default 32. */
  readonly maxSessions?: number;
  /** A session unused this long is closed, ms (default 30 minutes). */
  readonly sessionIdleMs?: number;
  /** Out-of-band errors (default: dropped). */
  readonly onError?: (error: Error) => void;
  /** Where the policies' questions go (the gateway must have been built with its approver). */
  readonly approvals?: ElicitationApprovals;
}

/**
 * Options of {@link serveGatewayHttp} for a gateway shared by several clients: each with its own
 * token (held as its SHA-256), tool allowlist and permission mode. A session belongs to the client
 * that opened it: another client's token on it is a 404.
 */
export interface HttpServeClientsOptions extends Omit<HttpServeOptions, 'token'> {
  /**
   * The clients with their own tokens; with `oauth`, also the settings (tools, mode) of identities
   * access tokens name (entries without a token). Optional with `oauth`.
   */
  readonly clients?: readonly GatewayClient[];
  /**
   * Accept OAuth 2.1 access tokens issued for this gateway by an authorization server (the MCP
   * authorization spec's resource server): see {@link OAuthOptions}.
   */
  readonly oauth?: OAuthOptions;
  readonly token?: undefined;
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** `http://host:port/mcp` as bound (port 0 resolved). */
  readonly url: string;
  readonly port: number;
  /** Open 2025-protocol sessions. */
  readonly sessions: number;
  /** Calls answered on the lean path so far (a plain `tools/call` on an open session). */
  readonly leanCalls: number;
  /** Stops accepting, closes every session and the listener. */
  close(): Promise<void>;
}
