/**
 * Small, total helpers for messages: they never throw and never print more than a few dozen
 * characters of a value, because the values come from models, MCP servers and other hostile
 * places (a 10 MB string, a Proxy whose traps throw).
 */

const MAX_QUOTED = 80;

/** A string quoted for a message, cut to a readable length. */
export const quote = (value: string): string =>
  JSON.stringify(value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value);

/** What kind of value this is, in the words a message uses ("number", "null", "an array"). */
export const kindOf = (value: unknown): string => {
  if (value === null) return 'null';
  try {
    if (Array.isArray(value)) return 'array';
  } catch {
    return 'an unreadable object'; // a revoked Proxy
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
};

/** The message of a thrown value, read defensively (a getter on `message` may throw). */
export const messageOf = (error: unknown): string => {
  try {
    if (error instanceof Error || (typeof error === 'object' && error !== null)) {
      const message = (error as { message?: unknown }).message;
      if (typeof message === 'string' && message.length > 0) return message;
    }
    if (typeof error === 'string' && error.length > 0) return error;
    const text = String(error);
    return text.length > 0 ? text : 'unknown error';
  } catch {
    return 'an error that could not be read';
  }
};

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

/** Bytes of a string in UTF-8, without making the encoded copy. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A count of bytes for a message: `1,048,576`. */
export const formatBytes = (n: number): string => n.toLocaleString('en-US');
