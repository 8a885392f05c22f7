import { isIP } from 'node:net';

/**
 * Defaults of `serveGatewayHttp`, in a module of their own: the command line's option parser
 * needs them to print `--help`, and must not load the HTTP server and the MCP SDK to do so.
 */
export const HTTP_DEFAULTS = {
  host: '127.0.0.1',
  port: 8765,
  path: '/mcp',
  maxBodyBytes: 1024 * 1024,
  maxSessions: 32,
  sessionIdleMs: 30 * 60_000,
} as const;

/** Whether `host` is a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1';
  return false;
}
