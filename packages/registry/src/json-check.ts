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
  if (isPlainTree(value)) return NONE;
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
 * How many objects and arrays the allocation-free first pass visits before it hands over to the
 * full walk, which remembers what it has seen: a hostile DAG (one object referenced from two
 * places, sixty levels deep) has 2^60 paths, and only remembering makes it linear.
 */
const FAST_BUDGET = 2_000;
let budget = 0;

/**
 * The common case, checked without allocating: a tree of plain objects and arrays holding strings,
 * booleans, finite numbers and null. `false` means "not sure": the full walk then decides and
 * says where the problem is (a cycle also ends here, at the depth bound). Module-level and
 * closure-free because it runs on every call: measured, this is twice as fast as a closure.
 */
const isPlainTree = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  budget = FAST_BUDGET;
  return fast(value, 0);
};

const fast = (v: unknown, depth: number): boolean => {
  const type = typeof v;
  if (type === 'string' || type === 'boolean') return true;
  if (type === 'number') return Number.isFinite(v);
  if (type !== 'object') return false;
  if (v === null) return true;
  if (--budget < 0 || depth >= MAX_DEPTH) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!fast(v[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  // for-in also lists inherited enumerable keys, which only a polluted Object.prototype has;
  // their values are checked like the rest, and the full walk (own keys only) decides.
  for (const key in v as object) {
    const x = (v as Record<string, unknown>)[key];
    if (x !== undefined && !fast(x, depth + 1)) return false;
  }
  return true;
};
