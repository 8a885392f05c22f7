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
  return error instanceof Error ? error : new Error(textOf(error));
}

/**
 * `String(value)`, or its tag (`[object Object]`) when converting throws: an object without a
 * usable `toString` (or one that throws) must not turn the mapping of a failure into a throw.
 */
export function textOf(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
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

/**
 * An error's message followed by what its causes add (`fetch failed: connect ECONNREFUSED
 * 127.0.0.1:9`), with each system code (`ECONNREFUSED`, `ENOTFOUND`) named: fetch says only
 * "fetch failed" and keeps the reason in `cause`, where a model reading the message never looks.
 */
export function withCauses(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number): void => {
    if (!(e instanceof Error) || seen.has(e) || depth > 5) return;
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    let text = e.message;
    if (typeof code === 'string' && !text.includes(code)) text = `${text} (${code})`;
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
    if (e instanceof AggregateError) for (const inner of e.errors) walk(inner, depth + 1);
    walk(e.cause, depth + 1);
  };
  walk(error, 0);
  return parts.length > 0 ? parts.join(': ') : textOf(error);
}

/** The first system code (`ECONNREFUSED`, ...) in an error's cause chain. */
export function systemCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    if (e instanceof AggregateError) {
      const inner = e.errors.map(systemCode).find((c) => c !== undefined);
      if (inner) return inner;
    }
    e = e.cause;
  }
  return undefined;
}
