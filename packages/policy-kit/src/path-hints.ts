import type { ToolArgs, ToolPathHint } from '@dsh-tools/protocol';

/** The most path values one call may carry; past it the call is refused rather than walked. */
export const MAX_PATHS_PER_CALL = 1000;

/** One value found at a hinted argument path. */
export interface PathArg {
  /** The concrete dotted path (`edits.2.file`). */
  readonly arg: string;
  readonly access: 'read' | 'write';
  /** What the arguments hold there: a path string when the call is sound, but not checked here. */
  readonly value: unknown;
  /** The hint that declared it (`honoursExclude` and the written `arg`, with its `*`). */
  readonly hint: ToolPathHint;
}

/** Arrays and objects: what a hint's dotted path can descend into. */
const isContainer = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null;

/**
 * The one reader of `hints.paths`: collects the values that the hints point at in `args`. Fails
 * closed, returning the problem as a string, when a hint is malformed, a container on the way is
 * of the wrong kind (a string where `edits.*.path` needs an array or object), or the call carries
 * more than {@link MAX_PATHS_PER_CALL} paths: a hint that no longer fits the arguments must not
 * silently check nothing. An absent argument (or an absent or `null` container on the way)
 * yields nothing, since there is no path there to check. Own properties only: a key inherited
 * from `Object.prototype` is never a path.
 */
export function collectPathArgs(
  args: ToolArgs,
  hints: readonly ToolPathHint[] | undefined,
): PathArg[] | string {
  const found: PathArg[] = [];
  if (!Array.isArray(hints)) return found;
  for (const hint of hints as unknown[]) {
    if (
      !isContainer(hint) ||
      typeof hint.arg !== 'string' ||
      (hint.access !== 'read' && hint.access !== 'write')
    ) {
      return `a malformed hints.paths entry (${JSON.stringify(hint)?.slice(0, 100)}): expected { arg, access: 'read' | 'write' }`;
    }
    const problem = collectOne(args, hint as unknown as ToolPathHint, found);
    if (problem !== undefined) return problem;
  }
  return found;
}

/** Adds the values of one hint to `found`; the problem, if the arguments do not fit it. */
function collectOne(args: ToolArgs, hint: ToolPathHint, found: PathArg[]): string | undefined {
  const segments = hint.arg.split('.');
  const walk = (value: unknown, index: number, at: string): string | undefined => {
    if (index === segments.length) {
      if (value === undefined) return undefined;
      if (found.length >= MAX_PATHS_PER_CALL) {
        return `more than ${MAX_PATHS_PER_CALL} path arguments in one call; split the call`;
      }
      found.push({ arg: at, access: hint.access, value, hint });
      return undefined;
    }
    if (value === undefined || value === null) return undefined;
    const segment = segments[index]!;
    const join = (key: string) => (at === '' ? key : `${at}.${key}`);
    if (!isContainer(value)) {
      return `argument "${at}" must be an array or object to hold the path "${hint.arg}" (got ${typeof value})`;
    }
    if (segment === '*') {
      const keys = Array.isArray(value) ? value.map((_, i) => String(i)) : Object.keys(value);
      for (const key of keys) {
        const problem = walk(value[key], index + 1, join(key));
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    if (!Object.hasOwn(value, segment)) return undefined;
    return walk(value[segment], index + 1, join(segment));
  };
  return walk(args, 0, '');
}
