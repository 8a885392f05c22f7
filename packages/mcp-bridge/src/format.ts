/**
 * Small pieces of the bridge's messages, shared by its parts. Messages name the server, the tool
 * and what to do next; these only shape the values quoted in them.
 */

/** A value as a message quotes it: a string JSON-quoted and capped at 60 characters, else its type. */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return value === null ? 'null' : typeof value;
}

/** Whatever was thrown, as an Error (a thrown string keeps its text). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Indents every line by two spaces, for a block of quoted output inside a message. */
export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

/** The last `count` lines of `text`. */
export function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count).join('\n');
}

/**
 * A message from elsewhere (the SDK's validation, a library) cut to `max` characters: a schema
 * validator's dump of thousands of characters tells a model nothing more than its first lines.
 */
export function summarize(text: string, max = 300): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters in all)`;
}
