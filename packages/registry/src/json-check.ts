/** One problem found in a value: where (a JSON pointer, `""` for the root) and what. */
export interface Violation {
  readonly path: string;
  readonly message: string;
}

/** How deep arguments may nest: far beyond any real call, far below any stack limit. */
export const MAX_DEPTH = 256;

/** How many problems one report lists; the rest are counted ("and 3 more"). */
export const MAX_VIOLATIONS = 20;

/** Escapes one segment of a JSON pointer (RFC 6901), cut so a hostile key stays readable. */
export const pointerSegment = (key: string | number): string => {
  const text = String(key);
  const cut = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  return cut.replaceAll('~', '~0').replaceAll('/', '~1');
};

/**
 * Checks that a value is JSON, the only thing a model can send: plain objects, arrays, strings,
 * finite numbers, booleans and null. Returns the problems found (at most {@link MAX_VIOLATIONS}
 * plus a count of the rest), or an empty array.
 *
 * Why it walks instead of `JSON.stringify`: stringifying copies every string (a 10 MB argument
 * becomes another 10 MB), silently drops functions and `undefined`, turns `NaN` into `null`,
 * and throws on cycles and BigInt without saying where. The walk looks at each string's type
 * only, reports each problem with its path, bounds nesting at {@link MAX_DEPTH} (no stack
 * overflow), reports cycles, and visits an object shared by several parents once (a hostile
 * DAG cannot make it exponential). Only own enumerable string keys are read, so keys such as
 * `__proto__` and `constructor` are plain data here. `undefined` object properties are allowed
 * and mean "absent", as in `JSON.stringify`.
 */
export const checkJson = (
  value: unknown,
): { readonly violations: readonly Violation[]; readonly more: number } => {
  if (isFlat(value)) return NONE;
  const violations: Violation[] = [];
  let more = 0;
  const report = (path: string, message: string): void => {
    if (violations.length < MAX_VIOLATIONS) violations.push({ path, message });
    else more++;
  };
  const onPath = new Set<object>();
  const done = new Set<object>();

  const visit = (v: unknown, path: string, depth: number, inArray: boolean): void => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) report(path, `must be a finite number (got ${v})`);
        return;
      case 'undefined':
        if (inArray) report(path, 'must be a JSON value (got undefined)');
        return;
      case 'bigint':
      case 'symbol':
      case 'function':
        report(path, `must be a JSON value (got a ${typeof v})`);
        return;
    }
    if (v === null) return;
    const object = v as object;
    if (onPath.has(object)) {
      report(path, 'refers back to one of its parents (a cycle is not JSON)');
      return;
    }
    if (done.has(object)) return;
    if (depth >= MAX_DEPTH) {
      report(path, `is nested deeper than ${MAX_DEPTH} levels`);
      return;
    }
    if (Array.isArray(object)) {
      onPath.add(object);
      for (let i = 0; i < object.length; i++) {
        visit(object[i], `${path}/${i}`, depth + 1, true);
      }
    } else {
      const proto = Object.getPrototypeOf(object);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
        report(
          path,
          `must be a plain object (got ${typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype'})`,
        );
        return;
      }
      onPath.add(object);
      for (const key of Object.keys(object)) {
        visit(
          (object as Record<string, unknown>)[key],
          `${path}/${pointerSegment(key)}`,
          depth + 1,
          false,
        );
      }
    }
    onPath.delete(object);
    done.add(object);
  };

  visit(value, '', 0, false);
  return { violations, more };
};

const NONE = Object.freeze({ violations: Object.freeze([]) as readonly Violation[], more: 0 });

/**
 * The common case, checked without allocating: a plain object whose values are all strings,
 * booleans, finite numbers or null.
 */
const isFlat = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    const v = (value as Record<string, unknown>)[key];
    const t = typeof v;
    if (t === 'string' || t === 'boolean' || v === null) continue;
    if (t === 'number' && Number.isFinite(v)) continue;
    return false;
  }
  return true;
};
