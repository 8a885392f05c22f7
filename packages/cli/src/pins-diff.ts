import { isRecord } from '@dsh-tools/policy-kit';
import { canonicalJson, type PinnedDefinition } from './pins-file';

const MAX_ENTRIES = 8;
const MAX_TEXT = 160;

const short = (value: unknown, limit: number): string => {
  const text = typeof value === 'string' ? JSON.stringify(value) : canonicalJson(value);
  return text === undefined
    ? 'nothing'
    : text.length > limit
      ? `${text.slice(0, limit)}… (${text.length} characters)`
      : text;
};

/** One changed leaf: its path, and the line that shows it (old and new values, cut). */
interface Change {
  readonly path: string;
  readonly line: string;
}

/** The leaf paths where `a` and `b` differ (objects compared key by key), at most `max` + 1. */
function walk(
  a: unknown,
  b: unknown,
  path: string,
  out: Change[],
  max: number,
  limit: number,
): void {
  if (out.length > max) return;
  if (isRecord(a) && isRecord(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const at = path === '' ? key : `${path}.${key}`;
      if (!(key in b)) out.push({ path: at, line: `${at} removed (was ${short(a[key], limit)})` });
      else if (!(key in a)) out.push({ path: at, line: `${at} added: ${short(b[key], limit)}` });
      else walk(a[key], b[key], at, out, max, limit);
    }
    return;
  }
  if (canonicalJson(a) !== canonicalJson(b)) {
    out.push({ path, line: `${path}: ${short(a, limit)} -> ${short(b, limit)}` });
  }
}

/**
 * How a tool's definition changed since it was pinned, one line per changed field or schema
 * path (at most `max`), values cut at `limit` characters: what an operator reads before approving.
 */
export function diffDefinitions(
  pinned: PinnedDefinition,
  now: PinnedDefinition,
  max = MAX_ENTRIES,
  limit = MAX_TEXT,
): string[] {
  const out: Change[] = [];
  walk(pinned, now, '', out, max, limit);
  const lines = out.map((change) => change.line);
  return lines.length > max
    ? [...lines.slice(0, max), 'and more (dsh-tools pin list shows every change)']
    : lines;
}

/**
 * The paths that changed (`description`, `inputSchema.properties.note`), without their values:
 * taken from the walk itself, never parsed back out of a line (a key may hold `: ` or ` added`).
 */
export function changedPaths(pinned: PinnedDefinition, now: PinnedDefinition): string[] {
  const out: Change[] = [];
  walk(pinned, now, '', out, Number.POSITIVE_INFINITY, 0);
  return out.map((change) => change.path);
}
