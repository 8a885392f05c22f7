import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ToolArgs, ToolPathHint } from '@dsh-tools/protocol';

/** The most path values one call may carry; past it the call is refused rather than walked. */
export const MAX_PATHS_PER_CALL = 1000;

/** One value found at a hinted argument path. */
export interface PathArg {
  /** The concrete dotted path (`edits.2.file`). */
  readonly arg: string;
  readonly access: 'read' | 'write';
  readonly value: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/**
 * Collects the values that `hints.paths` point at. An absent argument (or an absent container on
 * the way) yields nothing; a container of the wrong kind is a problem, returned as a string,
 * because a hint that no longer fits the arguments must not silently check nothing.
 */
export function collectPathArgs(
  args: ToolArgs,
  hints: readonly ToolPathHint[] | undefined,
): PathArg[] | string {
  const found: PathArg[] = [];
  if (!Array.isArray(hints)) return found;
  for (const hint of hints) {
    if (
      !isRecord(hint) ||
      typeof hint.arg !== 'string' ||
      (hint.access !== 'read' && hint.access !== 'write')
    ) {
      return `a malformed hints.paths entry (${JSON.stringify(hint)?.slice(0, 100)}): expected { arg, access: 'read' | 'write' }`;
    }
    const segments = hint.arg.split('.');
    const problem = walk(args, 0, '');
    if (problem !== undefined) return problem;

    function walk(value: unknown, index: number, at: string): string | undefined {
      if (index === segments.length) {
        if (value === undefined) return undefined;
        if (found.length >= MAX_PATHS_PER_CALL) {
          return `more than ${MAX_PATHS_PER_CALL} path arguments in one call; split the call`;
        }
        found.push({ arg: at, access: hint.access, value });
        return undefined;
      }
      if (value === undefined || value === null) return undefined;
      const segment = segments[index]!;
      const join = (key: string) => (at === '' ? key : `${at}.${key}`);
      if (!isRecord(value)) {
        return `argument "${at}" must be an array or object to hold the path "${hint.arg}" (got ${typeof value})`;
      }
      if (segment === '*') {
        const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
        for (const key of keys) {
          const p = walk((value as Record<string, unknown>)[key], index + 1, join(key));
          if (p !== undefined) return p;
        }
        return undefined;
      }
      if (!Object.hasOwn(value, segment)) return undefined;
      return walk(value[segment], index + 1, join(segment));
    }
  }
  return found;
}

/**
 * Why a path argument that is a `file:` URL is refused, or `undefined` when it is not one. A URL
 * is refused rather than decoded and checked: a tool body may hand the string to `fs` (a relative
 * path whose first directory is `file:`) or to `new URL()` / `fileURLToPath()` (an absolute path,
 * after percent-decoding and dot removal), and no single reading would be the one the body takes.
 * A plain path has one meaning, and the message gives it. "A file: URL" is what Node's URL parser
 * says it is: any case, leading spaces, tabs and newlines inside the scheme, `file:x`,
 * `file://localhost/x`; a file really named `file:x` is passed as `./file:x`.
 */
export function fileUrlProblem(path: string): string | undefined {
  // Node's own parser decides: whatever new URL(path) takes for a file: URL, a body could too.
  if (!URL.canParse(path)) return undefined;
  const url = new URL(path);
  if (url.protocol !== 'file:') return undefined;
  const named = 'is a file: URL, not a path';
  const literal = 'a file really named so is passed as "./file:…"';
  if (url.host !== '') {
    return `${named}, and its host "${url.host}" is not this machine; pass a plain path (${literal})`;
  }
  let plain: string;
  try {
    plain = fileURLToPath(url);
  } catch {
    return `${named}, and it does not decode to a path (an encoded "/"); pass a plain path (${literal})`;
  }
  return `${named}; pass the plain path ${JSON.stringify(plain)} instead (${literal})`;
}

/**
 * Where a body that reads `path` as a URL relative to the cwd (`new URL(path, cwdUrl)`) would
 * land: the URL parser decodes `%2e%2e` to `..`, takes `\` for `/`, drops tabs and newlines and
 * the spaces and controls at either end, so `%2e%2e/x`, `..\x` or `  ../x` leave a directory that
 * the text stays in. `undefined` when it names no local file (another scheme, a host). The sandbox
 * checks this reading too: every reading a body might act on must be permitted.
 */
export function urlReading(path: string, cwd: string): string | undefined {
  try {
    const base = pathToFileURL(cwd.endsWith('/') ? cwd : `${cwd}/`);
    return fileURLToPath(new URL(path, base));
  } catch {
    return undefined;
  }
}
