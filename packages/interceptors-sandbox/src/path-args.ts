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
