import type { ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { localhostAllowedHostnames, localhostAllowedOrigins } from '@modelcontextprotocol/server';
import { isLoopbackHost } from './http-defaults';

// The checks `serve --http` makes on a request's headers before anything else reads them.

// RFC 9110's Host: a bracketed IPv6 literal, or an IPv4 address or registered name of letters,
// digits, dots and hyphens; then an optional port. Nothing else (userinfo, a path, a bare IPv6
// address, spaces, control characters) is a host a client meant.
const HOST_HEADER = /^(?:\[([0-9A-Fa-f:.]{2,45})\]|([A-Za-z0-9.-]{1,253}))(?::(\d{1,5}))?$/;
const ORIGIN_HEADER = /^https?:\/\/(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9.-]{1,253})(?::\d{1,5})?$/;

/** Whether a `Host` header is well-formed (whether it is allowed is checked after). */
export function isWellFormedHost(value: string | undefined): boolean {
  if (value === undefined) return false;
  const match = HOST_HEADER.exec(value);
  if (!match) return false;
  if (match[1] !== undefined && isIP(match[1]) !== 6) return false;
  return match[3] === undefined || Number(match[3]) <= 65_535;
}

/** Whether an `Origin` header is a well-formed `http(s)://host[:port]` (or absent). */
export function isWellFormedOrigin(value: string | undefined): boolean {
  if (value === undefined) return true;
  if (!ORIGIN_HEADER.test(value)) return false;
  const port = /:(\d+)$/.exec(value.replace(/^https?:\/\//, ''))?.[1];
  return port === undefined || Number(port) <= 65_535;
}

/** A refusal written before the request reaches the MCP handler. */
export function refuse(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = { connection: 'close' },
  code = -32000,
  id: string | number | null = null,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
}

/** The `Host` names a gateway on `host` accepts: loopback, `allowedHosts`, and `host` itself. */
export function allowedHostnamesOf(host: string, allowedHosts: readonly string[] = []): string[] {
  return [
    ...localhostAllowedHostnames(),
    ...allowedHosts,
    ...(isLoopbackHost(host) ? [] : [isIP(host) === 6 ? `[${host}]` : host]),
  ];
}

/**
 * The `Origin` host names a gateway accepts: loopback, and those of `allowedOrigins`.
 * @throws {TypeError} naming an allowed origin that is not a URL.
 */
export function allowedOriginHostnamesOf(allowedOrigins: readonly string[] = []): string[] {
  return [
    ...localhostAllowedOrigins(),
    ...allowedOrigins.map((origin) => {
      try {
        return new URL(origin).hostname;
      } catch {
        throw new TypeError(
          `serveGatewayHttp: allowed origin "${origin}" is not a URL (write https://host[:port]).`,
        );
      }
    }),
  ];
}
