import { ToolError } from '@dsh-tools/protocol';

/** What a redacted secret reads as in a message. */
const HIDDEN = '***';
/** Shorter values are not searched for in free text: "1" or "on" would mangle every message. */
const MIN_SECRET = 3;

/** Every spelling of `value` a message may carry: as written, percent-decoded and encoded. */
function spellings(value: string): string[] {
  const out = new Set([value]);
  try {
    out.add(decodeURIComponent(value));
  } catch {
    // not valid percent-encoding: the raw spelling is the only one
  }
  out.add(encodeURIComponent(value));
  for (const v of [...out]) out.add(v.replace(/\+/g, ' '));
  return [...out].filter((v) => v.length >= MIN_SECRET);
}

/**
 * A function that takes the secrets of a server URL out of any text: the user name, the
 * password and every query value (the fragment too). The URL itself, in the spellings a message
 * may quote it, becomes its redacted form (`https://***:***@host/mcp?token=***`), and each secret
 * found elsewhere in the text (an SDK or fetch message quoting a part of it) becomes `***`.
 * Headers are never quoted in messages, so they need no redacting. Without a URL it is identity.
 */
export function createRedactor(url: string | URL | undefined): (text: string) => string {
  if (url === undefined) return (text) => text;
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return (text) => text;
  }
  const secrets = new Set<string>();
  const safe = new URL(parsed.href);
  if (parsed.username) {
    for (const s of spellings(parsed.username)) secrets.add(s);
    safe.username = HIDDEN;
  }
  if (parsed.password) {
    for (const s of spellings(parsed.password)) secrets.add(s);
    safe.password = HIDDEN;
  }
  const query = new URLSearchParams();
  for (const [key, value] of parsed.searchParams) {
    for (const s of spellings(value)) secrets.add(s);
    query.append(key, HIDDEN);
  }
  for (const piece of parsed.search.slice(1).split('&')) {
    const raw = piece.includes('=') ? piece.slice(piece.indexOf('=') + 1) : piece;
    for (const s of spellings(raw)) secrets.add(s);
  }
  safe.search = parsed.search ? `?${query.toString().replaceAll('%2A', '*')}` : '';
  if (parsed.hash.length > 1) {
    for (const s of spellings(parsed.hash.slice(1))) secrets.add(s);
    safe.hash = HIDDEN;
  }
  const shown = safe.href;
  const whole = new Set([String(url), parsed.href, parsed.toString()]);
  // Longest first, so that a secret containing another is replaced whole.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const form of whole) out = out.split(form).join(shown);
    for (const secret of ordered) out = out.split(secret).join(HIDDEN);
    return out;
  };
}

/**
 * `error` with its message (and its causes', as far as they go) redacted. The original is not
 * kept as the cause: a host that logs causes would print the secret all the same.
 */
export function redactError(error: Error, redact: (text: string) => string): Error {
  const depth = (e: unknown, n: number): Error | undefined => {
    if (!(e instanceof Error) || n > 4) return undefined;
    const cause = depth(e.cause, n + 1);
    const code = (e as { code?: unknown }).code;
    const copy =
      e instanceof ToolError
        ? new ToolError(e.code, redact(e.message), {
            ...(cause ? { cause } : {}),
            ...(e.details === undefined ? {} : { details: redactDetails(e.details, redact) }),
          })
        : new Error(redact(e.message), cause ? { cause } : {});
    if (!(e instanceof ToolError)) {
      copy.name = e.name;
      if (typeof code === 'string' || typeof code === 'number') {
        (copy as Error & { code?: unknown }).code = code;
      }
    }
    return copy;
  };
  return depth(error, 0) ?? error;
}

function redactDetails(details: unknown, redact: (text: string) => string): unknown {
  try {
    return JSON.parse(redact(JSON.stringify(details)));
  } catch {
    return undefined;
  }
}
