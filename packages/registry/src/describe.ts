/**
 * Small, total helpers for messages: they never throw and never print more than a few dozen
 * characters of a value, because the values come from models, MCP servers and other hostile
 * places (a 10 MB string, a Proxy whose traps throw). The ones the schema engine's messages need
 * too are the schema package's, re-exported, so the two packages word a value alike.
 */

export { formatBytes, kindOf, messageOf, utf8Bytes } from '@dsh-tools/schema';

const MAX_QUOTED = 80;

/** A string quoted for a message, cut to a readable length. */
export const quote = (value: string): string =>
  JSON.stringify(value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value);

/**
 * Whether a value is a non-null object that is not an array. Never throws: a revoked Proxy counts
 * as an object, and reading it then fails where reads are guarded.
 */
export const isRecord = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return !Array.isArray(value);
  } catch {
    return true;
  }
};
