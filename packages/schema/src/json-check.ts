import { isProxy } from 'node:util/types';
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

/** One segment of a JSON pointer read back (RFC 6901): `~1` is `/`, `~0` is `~`. */
export const unescapeSegment = (segment: string): string =>
  segment.replaceAll('~1', '/').replaceAll('~0', '~');

/** Problems found in a value, at most {@link MAX_VIOLATIONS}, plus a count of the rest. */
export interface JsonProblems {
  readonly ok: false;
  readonly violations: readonly Violation[];
  readonly more: number;
}

/** A value that is JSON, copied. */
export interface JsonCopy {
  readonly ok: true;
  readonly value: unknown;
}

const getOwn = Object.getOwnPropertyDescriptor;
const ObjectProto = Object.prototype;
const hasOwn = Object.hasOwn;
// Whether an own property is an accessor, asked without allocating a descriptor: on an object that
// is not a Proxy (checked first) these read the property's own descriptor in the engine, call
// nothing, and answer its getter or setter (undefined for a data property).
const getterOf = (ObjectProto as unknown as { __lookupGetter__: (key: PropertyKey) => unknown })
  .__lookupGetter__;
const setterOf = (ObjectProto as unknown as { __lookupSetter__: (key: PropertyKey) => unknown })
  .__lookupSetter__;

/**
 * Sets a key of a fresh copy. A key that `Object.prototype` also has (`__proto__`, `constructor`,
 * `toString`) is defined rather than assigned: assigning `__proto__` would set the prototype, and
 * assigning over a frozen `Object.prototype` (a hardened realm) would throw.
 */
const put = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key in ObjectProto) {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
};

/**
 * Checks that a value is JSON, the only thing a model can send (plain objects, arrays, strings,
 * finite numbers, booleans and null), and returns a copy of it: plain objects and arrays holding
 * the same strings, numbers, booleans and nulls, deep-frozen unless `freeze` is false. Otherwise it
 * returns the problems found, each with its path.
 *
 * Why a copy: the registry validates the arguments, hands them to the interceptors and then runs
 * the body with them; with the caller's own objects, a getter (or the caller, or an interceptor
 * mutating in place) could show each of them a different value. The copy is read once, here, and
 * cannot change: what was validated is what runs. Each property is read through its descriptor,
 * exactly once, and an accessor property is refused (`is a getter; pass plain JSON data`) without
 * calling it. Only own enumerable string keys are copied, so `__proto__` and `constructor` are
 * plain data (and stay own keys of the copy, never its prototype); `undefined` object properties
 * mean "absent", as in `JSON.stringify`, and are left out.
 *
 * Why a walk instead of `JSON.parse(JSON.stringify(...))`: stringifying copies every string (a
 * 10 MB argument would become two more), silently drops functions, turns `NaN` into `null`, calls
 * getters and `toJSON`, and throws on cycles and BigInt without saying where. The walk shares each
 * string (strings are immutable: "copying" one costs nothing), reports each problem with its path,
 * bounds nesting at {@link MAX_DEPTH} (no stack overflow), reports cycles, and copies an object
 * shared by several parents once when there are many of them (a hostile DAG cannot make it
 * exponential). It throws only if a Proxy's trap throws; the caller turns that into a result.
 */
export const copyJson = (value: unknown, freeze = true): JsonCopy | JsonProblems => {
  // Saved and restored: a Proxy trap may call back into the registry in the middle of a copy, and
  // must not reset the budget (or the freezing) of the copy it interrupted.
  const outerBudget = budget;
  const outerFreezing = freezing;
  try {
    freezing = freeze;
    return copyTree(value);
  } finally {
    budget = outerBudget;
    freezing = outerFreezing;
  }
};

const copyTree = (value: unknown): JsonCopy | JsonProblems => {
  if (typeof value === 'object' && value !== null) {
    budget = FAST_BUDGET;
    const copy = fast(value, 0);
    if (copy !== NOT_PLAIN) return { ok: true, value: copy };
  }
  const violations: Violation[] = [];
  let more = 0;
  const report = (path: string, message: string): void => {
    if (violations.length < MAX_VIOLATIONS) violations.push({ path, message });
    else more++;
  };
  const onPath = new Set<object>();
  const done = new Map<object, unknown>();

  const visit = (v: unknown, path: string, depth: number, inArray: boolean): unknown => {
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        if (!Number.isFinite(v)) report(path, `must be a finite number (got ${v})`);
        return v;
      case 'undefined':
        if (inArray) report(path, 'must be a JSON value (got undefined)');
        return v;
      case 'bigint':
      case 'symbol':
      case 'function':
        report(path, `must be a JSON value (got a ${typeof v})`);
        return undefined;
    }
    if (v === null) return null;
    const object = v as object;
    if (onPath.has(object)) {
      report(path, 'refers back to one of its parents (a cycle is not JSON)');
      return undefined;
    }
    if (done.has(object)) return done.get(object);
    if (depth >= MAX_DEPTH) {
      report(path, `is nested deeper than ${MAX_DEPTH} levels`);
      return undefined;
    }
    /** Reads one property through its descriptor; an accessor is reported, never called. */
    const read = (key: string | number, at: string): unknown => {
      const descriptor = getOwn(object, key);
      if (descriptor === undefined) return undefined;
      if (descriptor.get !== undefined || descriptor.set !== undefined) {
        report(at, `is a ${descriptor.get ? 'getter' : 'setter'}; pass plain JSON data`);
        return undefined;
      }
      return descriptor.value;
    };
    let copy: unknown[] | Record<string, unknown>;
    if (Array.isArray(object)) {
      onPath.add(object);
      // Through its descriptor too: a Proxy's `get` trap is code, and could answer any length.
      const length: unknown = getOwn(object, 'length')?.value;
      const n =
        typeof length === 'number' && Number.isSafeInteger(length) && length > 0 ? length : 0;
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const at = `${path}/${i}`;
        const descriptor = getOwn(object, i);
        if (descriptor && (descriptor.get !== undefined || descriptor.set !== undefined)) {
          read(i, at);
          continue;
        }
        out[i] = visit(descriptor?.value, at, depth + 1, true);
      }
      copy = out;
    } else {
      const proto = Object.getPrototypeOf(object);
      if (proto !== Object.prototype && proto !== null) {
        const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
        report(
          path,
          `must be a plain object (got ${typeof name === 'string' && name ? `a ${name}` : 'an object with a custom prototype'})`,
        );
        return undefined;
      }
      onPath.add(object);
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        const at = `${path}/${pointerSegment(key)}`;
        const x = read(key, at);
        if (x === undefined) continue;
        put(out, key, visit(x, at, depth + 1, false));
      }
      copy = out;
    }
    if (freezing) Object.freeze(copy);
    onPath.delete(object);
    done.set(object, copy);
    return copy;
  };

  const copy = visit(value, '', 0, false);
  return violations.length > 0 ? { ok: false, violations, more } : { ok: true, value: copy };
};

/** What the fast copy answers when it is not sure; the full walk then decides. */
const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * How many objects and arrays the fast copy makes before it hands over to the full walk, which
 * remembers what it has copied: a hostile DAG (one object referenced from two places, sixty levels
 * deep) has 2^60 paths, and only remembering makes it linear.
 */
const FAST_BUDGET = 2_000;
let budget = 0;
let freezing = true;

/**
 * The common case, copied without any bookkeeping: a tree of plain objects and arrays holding
 * strings, booleans, finite numbers and null, with data properties only. {@link NOT_PLAIN} means
 * "not sure": the full walk then decides and says where the problem is (a cycle also ends here,
 * at the budget or the depth bound). Module-level and closure-free because it runs on every call.
 */
const fast = (v: unknown, depth: number): unknown => {
  const type = typeof v;
  if (type === 'string' || type === 'boolean') return v;
  if (type === 'number') return Number.isFinite(v) ? v : NOT_PLAIN;
  if (type !== 'object') return NOT_PLAIN;
  if (v === null) return null;
  // A Proxy answers each of the questions below with code of its own: the full walk reads it.
  if (--budget < 0 || depth >= MAX_DEPTH || isProxy(v)) return NOT_PLAIN;
  if (Array.isArray(v)) {
    const n = v.length;
    const out: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) {
      // A hole, or a getter: the full walk reports it. A setter alone reads as undefined, which
      // is not JSON in an array either: the full walk reports that too.
      if (!hasOwn(v as object, i) || getterOf.call(v, i) !== undefined) return NOT_PLAIN;
      const x = fast(v[i], depth + 1);
      if (x === NOT_PLAIN) return NOT_PLAIN;
      out[i] = x;
    }
    return freezing ? Object.freeze(out) : out;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== ObjectProto && proto !== null) return NOT_PLAIN;
  const out: Record<string, unknown> = {};
  // for-in lists own enumerable keys without allocating an array (and inherited ones, which only a
  // polluted Object.prototype has: they have no own descriptor, and are skipped).
  for (const key in v as object) {
    if (!hasOwn(v as object, key)) continue;
    if (getterOf.call(v, key) !== undefined) return NOT_PLAIN;
    const value = (v as Record<string, unknown>)[key];
    // A property with no getter that reads as undefined is a data property holding undefined
    // (left out, as JSON does) or a setter alone (the full walk reports it): only then is the
    // second question asked, so a common key costs one lookup of its accessors, not two.
    if (value === undefined) {
      if (setterOf.call(v, key) !== undefined) return NOT_PLAIN;
      continue;
    }
    const x = fast(value, depth + 1);
    if (x === NOT_PLAIN) return NOT_PLAIN;
    put(out, key, x);
  }
  return freezing ? Object.freeze(out) : out;
};

/**
 * Deep-freezes the plain objects and arrays of a value (a Standard Schema validator's output, which
 * becomes the arguments that run). Anything else (a `Date` a validator made, a class instance) is
 * left as it is: freezing it would not make it immutable, and its owner may rely on changing it.
 */
export const freezePlain = <T>(value: T, depth = 0): T => {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || depth > MAX_DEPTH) {
    return value;
  }
  const isPlain = Array.isArray(value) || Object.getPrototypeOf(value) === ObjectProto;
  if (!isPlain) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) {
    const descriptor = getOwn(value, key);
    if (descriptor && 'value' in descriptor) freezePlain(descriptor.value, depth + 1);
  }
  return value;
};
