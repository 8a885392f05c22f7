import { pointerSegment, unescapeSegment } from './json-check';
import { linearPattern, PatternRefusal, translatePattern } from './schema-regex';

/**
 * A schema the engine will not compile, and where in it: `path` is a JSON pointer into the schema
 * (`""` for its root), `reason` says what is wrong and what to do.
 */
export class SchemaRefusal extends Error {
  readonly path: string;
  readonly reason: string;
  /** `whole`: the refusal is about the schema as a whole (its size), not a place in it. */
  constructor(path: string, reason: string, whole = false) {
    super(whole ? reason : `${path === '' ? 'at its root' : `at "${path}"`}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

/** Keywords whose value is one subschema. */
export const ONE = [
  'additionalItems',
  'contains',
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
/** Keywords whose value is an array of subschemas. */
export const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
/** Keywords whose value is a map of subschemas. */
export const MAP = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
] as const;
/**
 * Keywords that apply their subschemas to the same instance as the schema holding them: a cycle
 * through these alone (and `$ref`) never reaches a smaller piece of data, so it never ends.
 */
const IN_PLACE_ONE = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const IN_PLACE_MAP = ['dependentSchemas', 'dependencies'] as const;

type Node = Readonly<Record<string, unknown>>;
const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The most patterns one `patternProperties` may hold. Each key of an argument is matched against
 * every pattern: 1,000 patterns made a 10 KB argument (1,100 keys) take 125 ms to validate, 100
 * patterns about 30 ms on a busy machine.
 */
export const MAX_PATTERN_PROPERTIES = 64;

const ROOT_BASE = 'urn:dsh-tools:schema';
const REF_KEYWORDS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;

/** Where a subschema is: its pointer from the root, and the base URI its `$ref`s resolve against. */
interface Place {
  readonly path: string;
  readonly base: string;
}

/**
 * Checks what a compiled validator cannot be trusted to enforce, before Ajv sees the schema:
 *
 * - `$async` anywhere a schema is: Ajv would compile a validator that returns a promise, which
 *   the caller reads as "valid".
 * - every `pattern` and `patternProperties` key: must run on the linear-time engine.
 * - every `$ref` (and `$dynamicRef`, `$recursiveRef`) must resolve inside the schema; remote
 *   references are never fetched.
 * - a `$ref` cycle that passes only through keywords applying to the same instance (`{"$ref":
 *   "#"}` at the root, `a` → `b` → `a` through `allOf`) would recurse forever. A cycle that goes
 *   through `properties`, `items` and the like is recursion over smaller data, and is fine.
 *
 * Throws {@link SchemaRefusal} naming the first problem and its path. Patterns are translated
 * for the linear-time engine here (which refuses what it cannot run in linear time); whether RE2
 * itself accepts each one is for the caller to check ({@link verifyPatterns}), on this thread or,
 * for a schema with many, on the compiling worker. Returns them, with their paths.
 */
export const checkSchema = (schema: unknown): FoundPattern[] => {
  const patterns: FoundPattern[] = [];
  const checkPattern = (pattern: string, path: string): void => {
    try {
      patterns.push({ path, pattern, translated: translatePattern(pattern) });
    } catch (error) {
      if (!(error instanceof PatternRefusal)) throw error;
      throw patternRefusal(pattern, path, error.message);
    }
  };
  const places = new Map<Node, Place>();
  /** The places in the order they were found, for the reference pass to go on from. */
  const found: [Node, Place][] = [];
  const resources = new Map<string, Node>();
  const anchors = new Map<string, Node>();
  const dynamic = new Map<string, Node[]>();

  const walk = (value: unknown, at: Place): void => {
    if (!isNode(value) || places.has(value)) return;
    let base = at.base;
    if (typeof value.$id === 'string') {
      try {
        base = new URL(value.$id, at.base).href.replace(/#$/, '');
      } catch {
        throw new SchemaRefusal(
          `${at.path}/$id`,
          `"$id" ${JSON.stringify(value.$id)} is not a URI`,
        );
      }
      resources.set(base, value);
    }
    const place = { path: at.path, base };
    places.set(value, place);
    found.push([value, place]);
    if (at.path === '') resources.set(ROOT_BASE, value);
    if ('$async' in value) {
      throw new SchemaRefusal(
        `${at.path}/$async`,
        '"$async" makes the validator asynchronous, so it could not refuse a call; remove it',
      );
    }
    if (typeof value.$anchor === 'string') anchors.set(`${base}#${value.$anchor}`, value);
    for (const key of ['$dynamicAnchor', '$recursiveAnchor'] as const) {
      const name = value[key] === true ? '' : value[key];
      if (typeof name === 'string') {
        anchors.set(`${base}#${name}`, value);
        const list = dynamic.get(name) ?? [];
        list.push(value);
        dynamic.set(name, list);
      }
    }
    if (typeof value.pattern === 'string') checkPattern(value.pattern, `${at.path}/pattern`);
    const child = (sub: unknown, path: string) => walk(sub, { path, base });
    for (const key of ONE) if (key in value) child(value[key], `${at.path}/${key}`);
    const items = value.items;
    if (Array.isArray(items)) {
      for (const [i, s] of items.entries()) child(s, `${at.path}/items/${i}`);
    } else if (items !== undefined) child(items, `${at.path}/items`);
    for (const key of LIST) {
      const list = value[key];
      if (!Array.isArray(list)) continue;
      for (const [i, s] of list.entries()) child(s, `${at.path}/${key}/${i}`);
    }
    for (const key of MAP) {
      const map = value[key];
      if (!isNode(map)) continue;
      const names = Object.keys(map);
      if (key === 'patternProperties' && names.length > MAX_PATTERN_PROPERTIES) {
        throw new SchemaRefusal(
          `${at.path}/patternProperties`,
          `it has ${names.length} patterns, more than ${MAX_PATTERN_PROPERTIES}: every key of an argument is matched against each of them, so a 10 KB argument would take longer than 50 ms to validate; merge them into fewer patterns`,
        );
      }
      for (const name of names) {
        const path = `${at.path}/${key}/${pointerSegment(name)}`;
        if (key === 'patternProperties') checkPattern(name, path);
        child(map[name], path);
      }
    }
  };

  /** What a reference names, or a refusal: JSON pointers, anchors and embedded `$id`s only. */
  const resolve = (ref: string, at: Place, keyword: string): unknown => {
    const where = `${at.path}/${keyword}`;
    let url: URL;
    try {
      url = new URL(ref, at.base);
    } catch {
      throw new SchemaRefusal(where, `the reference ${JSON.stringify(ref)} is not a URI reference`);
    }
    const fragment = decodeURIComponent(url.hash.slice(1));
    url.hash = '';
    const resource = resources.get(url.href);
    if (!resource) {
      throw new SchemaRefusal(
        where,
        `the reference ${JSON.stringify(ref)} points outside the schema (nothing is fetched); put what it names under "$defs" and refer to "#/$defs/…"`,
      );
    }
    if (fragment === '') return resource;
    if (!fragment.startsWith('/')) {
      const anchored = anchors.get(`${url.href}#${fragment}`);
      if (anchored) return anchored;
      throw new SchemaRefusal(
        where,
        `the reference ${JSON.stringify(ref)} names no anchor in the schema`,
      );
    }
    let target: unknown = resource;
    for (const raw of fragment.slice(1).split('/')) {
      const key = unescapeSegment(raw);
      if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key)) {
        throw new SchemaRefusal(
          where,
          `the reference ${JSON.stringify(ref)} points at nothing in the schema`,
        );
      }
      target = (target as Record<string, unknown>)[key];
    }
    if (!isNode(target) && typeof target !== 'boolean') {
      throw new SchemaRefusal(
        where,
        `the reference ${JSON.stringify(ref)} points at something that is not a schema`,
      );
    }
    return target;
  };

  // Every schema reachable from the root, then every schema a reference reaches (which may sit
  // under a keyword that is not walked, and must be checked all the same). Each reference is
  // resolved once, here; the edges below reuse what it named.
  walk(schema, { path: '', base: ROOT_BASE });
  const named = new Map<Node, [keyword: string, ref: string, target: unknown][]>();
  for (let i = 0; i < found.length; i++) {
    const [node, place] = found[i]!;
    for (const keyword of REF_KEYWORDS) {
      const ref = node[keyword];
      if (typeof ref !== 'string') continue;
      const target = resolve(ref, place, keyword);
      const list = named.get(node);
      if (list) list.push([keyword, ref, target]);
      else named.set(node, [[keyword, ref, target]]);
      // A target not walked yet joins `found`, and this loop reaches it in turn.
      if (isNode(target)) walk(target, { path: `${place.path}/${keyword}`, base: place.base });
    }
  }

  // In-place edges: which schemas apply to the same instance as each schema.
  const edges = new Map<Node, Node[]>();
  for (const node of places.keys()) {
    const out: Node[] = [];
    for (const key of IN_PLACE_ONE) if (isNode(node[key])) out.push(node[key] as Node);
    for (const key of IN_PLACE_LIST) {
      const list = node[key];
      if (Array.isArray(list)) for (const s of list) if (isNode(s)) out.push(s);
    }
    for (const key of IN_PLACE_MAP) {
      const map = node[key];
      if (isNode(map)) for (const s of Object.values(map)) if (isNode(s)) out.push(s);
    }
    for (const [keyword, ref, target] of named.get(node) ?? []) {
      if (isNode(target)) out.push(target);
      if (keyword === '$ref') continue;
      // Dynamically, any schema with the same dynamic anchor may be the target.
      const name = keyword === '$recursiveRef' ? '' : ref.slice(ref.indexOf('#') + 1);
      out.push(...(dynamic.get(name) ?? []));
    }
    edges.set(node, out);
  }
  findInPlaceCycle(edges, places);
  return patterns;
};

/** A schema's pattern (or `patternProperties` key), where it is, and its RE2 translation. */
export interface FoundPattern {
  readonly path: string;
  readonly pattern: string;
  readonly translated: string;
}

/** The refusal of one pattern, in the same words wherever it is found out. */
export const patternRefusal = (pattern: string, path: string, reason: string): SchemaRefusal =>
  new SchemaRefusal(
    path,
    `the pattern ${JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern)} is refused: ${reason}. Patterns run on a linear-time engine (RE2 syntax within ECMAScript's); rewrite it without that construct`,
  );

/** Compiles each pattern on the linear-time engine, or throws the first refusal, with its path. */
export const verifyPatterns = (patterns: readonly FoundPattern[]): void => {
  for (const { pattern, path } of patterns) {
    try {
      linearPattern(pattern);
    } catch (error) {
      if (!(error instanceof PatternRefusal)) throw error;
      throw patternRefusal(pattern, path, error.message);
    }
  }
};

/** Depth-first search, without recursion (a schema may be thousands of levels of `allOf`). */
const findInPlaceCycle = (edges: Map<Node, Node[]>, places: Map<Node, Place>): void => {
  const state = new Map<Node, 1 | 2>();
  for (const start of edges.keys()) {
    if (state.has(start)) continue;
    const stack: [Node, number][] = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = edges.get(top[0])?.[top[1]++];
      if (next === undefined) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const seen = state.get(next);
      if (seen === 1) {
        throw new SchemaRefusal(
          places.get(top[0])?.path ?? '',
          `its references form a cycle that never reaches a smaller piece of data (through "${places.get(next)?.path || '#'}"), so validating would recurse forever; make the cycle pass through "properties" or "items"`,
        );
      }
      if (seen === undefined) {
        state.set(next, 1);
        stack.push([next, 0]);
      }
    }
  }
};
