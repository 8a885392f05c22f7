import { createHash } from 'node:crypto';

/** The function-name rule of the OpenAI and DeepSeek APIs, which every public tool name meets. */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z0-9_-]{1,64}$/;

/** A server name that needs no normalizing: no `__`, no `_` at either end, nothing outside the rule. */
const PLAIN_SERVER = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
/** A tool name that needs no normalizing: it must not start with `_` (that marks hashed names). */
const PLAIN_TOOL = /^[A-Za-z0-9-][A-Za-z0-9_-]*$/;
const MAX = 64;
const PREFIX = 'mcp__';
/** Room for the server part of a normalized name; the tool part gets the rest. */
const SERVER_ROOM = 20;
const HASH_LENGTH = 10;

/**
 * Reduces a name to the allowed characters in the shape a plain server name has: every run of
 * other characters or underscores becomes one `_`, and no `_` is left at either end.
 */
function sanitize(part: string, fallback: string): string {
  const cleaned = part
    // Accented letters keep their base letter (é -> e) rather than vanishing.
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return cleaned === '' ? fallback : cleaned;
}

function hash(server: string, tool: string): string {
  // The pair is hashed as JSON so that no choice of names can make two pairs hash the same input.
  return createHash('sha256')
    .update(JSON.stringify([server, tool]))
    .digest('hex')
    .slice(0, HASH_LENGTH);
}

/**
 * The public name of an MCP server's tool: `mcp__<server>__<tool>`.
 *
 * Used as is when it already meets `^[A-Za-z0-9_-]{1,64}$` and reads back unambiguously (the
 * server name has no `__` and no `_` at either end, the tool name does not start with `_`).
 * Otherwise it is normalized to `mcp__<server'>___<tool'>_<hash>`: both parts reduced to the
 * allowed characters and shortened, then a hash of the exact pair appended. Names of the two
 * kinds never meet (only a normalized name has `___` right after the server part), and two
 * normalized names differ unless 40 bits of SHA-256 collide, which the bridge detects. So two
 * tools never merge into one name, and the bridge maps each name back to its pair.
 */
export function mcpToolName(server: string, tool: string): string {
  if (typeof server !== 'string' || typeof tool !== 'string') {
    throw new TypeError(
      `mcpToolName(server, tool): both must be strings (got ${typeof server} and ${typeof tool}).`,
    );
  }
  const plain = `${PREFIX}${server}__${tool}`;
  if (plain.length <= MAX && PLAIN_SERVER.test(server) && PLAIN_TOOL.test(tool)) return plain;
  const s = sanitize(server, 'server').slice(0, SERVER_ROOM).replace(/_+$/, '') || 'server';
  const room = MAX - PREFIX.length - s.length - 3 - 1 - HASH_LENGTH;
  const t = sanitize(tool, 'tool').slice(0, room);
  return `${PREFIX}${s}___${t}_${hash(server, tool)}`;
}

/**
 * Reads a public name made by {@link mcpToolName} back into its server and tool when the name was
 * used unchanged; `undefined` for a normalized name (its pair is only known to the bridge that
 * made it: see `McpServerHandle.tools`) and for names that are not MCP tool names at all.
 */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (typeof name !== 'string' || !name.startsWith(PREFIX) || name.length > MAX) return undefined;
  const rest = name.slice(PREFIX.length);
  const sep = rest.indexOf('__');
  if (sep <= 0) return undefined;
  const server = rest.slice(0, sep);
  const tool = rest.slice(sep + 2);
  if (!PLAIN_SERVER.test(server) || !PLAIN_TOOL.test(tool)) return undefined;
  return { server, tool };
}
