/**
 * Small, total helpers for messages: they never throw, because the values come from models, MCP
 * servers and other hostile places (a Proxy whose traps throw, a getter on `message`). Exported so
 * that the registry words its messages with the same helpers instead of a copy of them.
 */

/** What kind of value this is, in the words a message uses ("number", "null", "array"). */
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

/** Bytes of a string in UTF-8, without making the encoded copy. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A count of bytes for a message: `1,048,576`. */
export const formatBytes = (n: number): string => n.toLocaleString('en-US');
