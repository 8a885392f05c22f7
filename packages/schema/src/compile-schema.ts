import type { Ajv as AjvClass, ErrorObject, Options, ValidateFunction } from 'ajv';
import { messageOf, utf8Bytes } from './describe';
import { copyJson } from './json-check';
import { checkBudget, readBudget } from './schema-budget';
import {
  checkSchema,
  type FoundPattern,
  LIST,
  MAP,
  ONE,
  SchemaRefusal,
  verifyPatterns,
} from './schema-check';
import { type AjvCodegen, makeEngine } from './schema-engine';
import { linearFormats } from './schema-formats';
import { loadModule } from './schema-load';
import { linearPattern } from './schema-regex';

export type Dialect = '07' | '2019' | '2020';
type AjvConstructor = new (options: Options) => AjvClass;

let classes: Record<Dialect, AjvConstructor> | undefined;
const ajvClass = (dialect: Dialect): AjvConstructor => {
  classes ??= {
    '07': loadModule<{ Ajv: AjvConstructor }>('ajv').Ajv,
    '2019': loadModule<{ Ajv2019: AjvConstructor }>('ajv/dist/2019.js').Ajv2019,
    '2020': loadModule<{ Ajv2020: AjvConstructor }>('ajv/dist/2020.js').Ajv2020,
  };
  return classes[dialect];
};

/** How generated code names the linear-time pattern engine (see `compile-worker.ts`). */
export const PATTERN_CODE = 'require("dsh:pattern")';

/** Ajv's `code.regExp` hook: every `pattern` and `patternProperties` key runs on the linear-time engine. */
const regExp = Object.assign((pattern: string, flags: string) => linearPattern(pattern, flags), {
  code: PATTERN_CODE,
});

/** JSON text with object keys sorted: equal JSON values (as JSON Schema compares them) map to one text. */
const canonical = (value: unknown): string => {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
};

/**
 * `uniqueItems` in linear time: the indexes `[j, i]` of the first two equal items, or
 * `undefined`. Each item is written once as canonical JSON and looked up in a map, where Ajv
 * compares every pair of items that are not all of one scalar type (1,000 small objects in a
 * 10 KB argument: half a million deep comparisons, about 50 ms).
 */
export const duplicateOf = (items: readonly unknown[]): readonly [number, number] | undefined => {
  const seen = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const key = canonical(items[i]);
    const j = seen.get(key);
    if (j !== undefined) return [j, i];
    seen.set(key, i);
  }
  return undefined;
};

/** An engine for one schema, on this thread (see {@link makeEngine}). */
const freshEngine = (dialect: Dialect, ownProperties: boolean, warn: (m: string) => void) =>
  makeEngine(ajvClass(dialect), loadModule<AjvCodegen>('ajv'), {
    ownProperties,
    source: false,
    formats: [...linearFormats()],
    regExp,
    duplicateOf,
    warn,
  });

/** One engine per dialect with its meta-schema, only to check schemas (it compiles none). */
const checkers = new Map<Dialect, AjvClass>();
const checker = (dialect: Dialect): AjvClass => {
  let found = checkers.get(dialect);
  if (!found) {
    found = new (ajvClass(dialect))({
      strict: false,
      allErrors: true,
      validateSchema: true,
      code: { optimize: false, regExp },
      logger: false,
    });
    checkers.set(dialect, found);
  }
  return found;
};

/**
 * Which dialects to try, in order, for a schema's `$schema`. Without one, 2020-12 (the MCP
 * default dialect) is tried first and draft-07 (what most generators still emit) second.
 */
const dialectsFor = (schema: unknown): Dialect[] => {
  const named =
    typeof schema === 'object' && schema !== null
      ? (schema as { $schema?: unknown }).$schema
      : undefined;
  const dialect = typeof named === 'string' ? named : '';
  if (/draft-0[4-7]/.test(dialect)) return ['07', '2020'];
  if (dialect.includes('2019-09')) return ['2019', '2020'];
  return ['2020', '07'];
};

/**
 * Whether a schema names anything that `Object.prototype` also has (`constructor`, `toString`,
 * `__proto__`, ...), anywhere: as a key or as a string. Only such schemas need Ajv's
 * `ownProperties` mode, where `required: ["constructor"]` is not satisfied by
 * `Object.prototype.constructor`; it costs every property check a `hasOwnProperty` call (measured:
 * validation twice as slow), so the others do without. Arguments reach the validator only after
 * the JSON check, which admits plain objects alone, so an inherited property can only ever come
 * from `Object.prototype` itself.
 */
const namesPrototypeMember = (value: unknown): boolean => {
  if (typeof value === 'string') return value in Object.prototype;
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(namesPrototypeMember);
  for (const key of Object.keys(value)) {
    if (key in Object.prototype || namesPrototypeMember((value as Record<string, unknown>)[key])) {
      return true;
    }
  }
  return false;
};

/**
 * Works around a defect of Ajv 8 (found by the differential fuzzer): in a subschema evaluated
 * without errors (`if`, `not`), `contains` next to `prefixItems` (or an array `items`) counts as
 * satisfied when it is not, so `{"if": {"contains": false, "prefixItems": [{}]}, "else": false}`
 * accepted `[]`. The copy Ajv compiles moves such a `contains` (with `minContains` and
 * `maxContains`) into an `allOf` of its own, which means the same and is compiled correctly. New
 * `allOf` entries go last, so no JSON pointer into the schema changes; a pointer into the moved
 * `contains` no longer resolves, and the schema is then refused (fail closed).
 */
const separateContains = (value: unknown): unknown => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const node = value as Record<string, unknown>;
  const out: Record<string, unknown> = { ...node };
  for (const key of ONE) if (key in node) out[key] = separateContains(node[key]);
  if (Array.isArray(node.items)) out.items = node.items.map(separateContains);
  else if ('items' in node) out.items = separateContains(node.items);
  for (const key of LIST) {
    if (Array.isArray(node[key])) out[key] = (node[key] as unknown[]).map(separateContains);
  }
  for (const key of MAP) {
    const map = node[key];
    if (typeof map !== 'object' || map === null || Array.isArray(map)) continue;
    out[key] = Object.fromEntries(
      Object.entries(map).map(([name, sub]) => [name, separateContains(sub)]),
    );
  }
  if ('contains' in out && ('prefixItems' in out || Array.isArray(out.items))) {
    const moved: Record<string, unknown> = { contains: out.contains };
    for (const key of ['minContains', 'maxContains']) {
      if (key in out) moved[key] = out[key];
      delete out[key];
    }
    delete out.contains;
    out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), moved];
  }
  return out;
};

/** The first meta-schema violation, as a refusal naming its path in the schema. */
const metaProblem = (errors: readonly ErrorObject[] | null | undefined): SchemaRefusal => {
  const first = errors?.[0];
  if (!first) return new SchemaRefusal('', 'it is not a valid JSON Schema');
  const params = first.params as Record<string, unknown>;
  const detail =
    first.keyword === 'enum' && Array.isArray(params.allowedValues)
      ? `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : (first.message ?? `does not satisfy "${first.keyword}"`);
  return new SchemaRefusal(first.instancePath, `${detail} (it is not a valid JSON Schema there)`);
};

/** A schema compiled to a synchronous validator that enforces it, and the warnings it raised. */
export interface CompiledValidator {
  readonly validate: ValidateFunction;
  readonly warnings: readonly string[];
}

/** A schema that passed every check, ready to compile here or in the compiling worker. */
export interface CompileJob {
  /** What Ajv compiles: the schema, with `contains` moved where Ajv 8 needs it. */
  readonly schema: unknown;
  readonly dialect: Dialect;
  readonly ownProperties: boolean;
  /**
   * Patterns translated but not yet compiled on RE2, for the worker to compile first (a schema
   * with more than {@link SYNC_PATTERNS}); empty when every pattern was compiled by the checks.
   */
  readonly patterns: readonly FoundPattern[];
}

/**
 * How many patterns the checks compile on RE2 themselves, about 20 µs each. A schema with more
 * (a 64 KB schema holds up to 1,600) has them translated here, which refuses every construct RE2
 * cannot run in linear time, and compiled on the compiling worker before the schema: what RE2
 * alone would refuse there (a repeat over 1,000, nesting over 1,000 deep, a Unicode property it
 * lacks) refuses the tool's calls instead of its registration.
 */
export const SYNC_PATTERNS = 128;

/** Whether `schema` is valid against `dialect`'s meta-schema; the refusal when it is not. */
const metaCheck = (dialect: Dialect, schema: unknown): SchemaRefusal | undefined => {
  const meta = checker(dialect);
  try {
    return meta.validateSchema(schema as object) ? undefined : metaProblem(meta.errors);
  } catch (error) {
    // Ajv throws for a "$schema" it does not know, instead of answering.
    return new SchemaRefusal(
      '/$schema',
      `it names no dialect the registry knows (${messageOf(error)}); use "https://json-schema.org/draft/2020-12/schema", 2019-09 or draft-07`,
    );
  }
};

/** A compile error as a refusal (a refusal stays as it is). */
export const compileRefusal = (error: unknown): SchemaRefusal =>
  error instanceof SchemaRefusal
    ? error
    : new SchemaRefusal('', `it could not be compiled (${messageOf(error)})`);

/** Compiles a checked schema on this thread; throws {@link SchemaRefusal}. */
export const compileJob = (job: CompileJob): CompiledValidator => {
  verifyPatterns(job.patterns);
  const warnings: string[] = [];
  // Ajv repeats some warnings (an unknown format, once per pass over the schema).
  const warn = (message: string) => {
    if (!warnings.includes(message)) warnings.push(message);
  };
  let validate: ValidateFunction;
  try {
    validate = freshEngine(job.dialect, job.ownProperties, warn).compile(job.schema as object);
  } catch (error) {
    throw compileRefusal(error);
  }
  refuseAsync(validate);
  return { validate, warnings };
};

/** Throws unless `validate` answers synchronously (wherever it was compiled). */
export const refuseAsync = (validate: ValidateFunction): void => {
  if ((validate as { $async?: unknown }).$async) {
    throw new SchemaRefusal('', 'it compiles to an asynchronous validator; remove "$async"');
  }
};

/**
 * The checks before compiling, for a schema that passed the budget: it must pass
 * {@link checkSchema} (no `$async`, references that resolve inside it, no cycle without data in
 * between, linear-time patterns) and be valid against a dialect's meta-schema. Throws
 * {@link SchemaRefusal}; returns what to compile for the first dialect that accepts it.
 * `json` is the schema's JSON text, which every caller has already made.
 */
export const checkForCompile = (
  schema: unknown,
  json: string,
  deferPatterns = false,
): CompileJob => {
  const found = checkSchema(schema);
  const patterns = deferPatterns && found.length > SYNC_PATTERNS ? found : [];
  if (patterns.length === 0) verifyPatterns(found);
  const ownProperties = namesPrototypeMember(schema);
  const compiled = json.includes('"contains"') ? separateContains(schema) : schema;
  let first: SchemaRefusal | undefined;
  for (const dialect of dialectsFor(schema)) {
    const problem = metaCheck(dialect, schema);
    if (!problem) return { schema: compiled, dialect, ownProperties, patterns };
    first ??= problem;
  }
  throw first ?? new SchemaRefusal('', 'it is not a valid JSON Schema');
};

/**
 * Checks and compiles a schema that passed the budget, on this thread, or throws
 * {@link SchemaRefusal} (see {@link checkForCompile}). A schema its dialect accepts but Ajv
 * cannot compile is tried in the next dialect that accepts it.
 */
export const compileChecked = (schema: unknown, json: string): CompiledValidator => {
  const job = checkForCompile(schema, json);
  try {
    return compileJob(job);
  } catch (refusal) {
    const order = dialectsFor(schema);
    for (const dialect of order.slice(order.indexOf(job.dialect) + 1)) {
      if (metaCheck(dialect, schema)) continue;
      try {
        return compileJob({ ...job, dialect });
      } catch {
        // The first dialect's refusal is the one reported.
      }
    }
    throw refusal;
  }
};

/** Options of {@link compileSchema} and {@link tryCompileSchema}. */
export interface CompileSchemaOptions {
  /** The largest schema accepted, as JSON in UTF-8 bytes; default 65536 (64 KiB). */
  readonly maxSchemaBytes?: number;
}

/** A compiled schema: `validate` answers `undefined` for a valid value, else what is wrong. */
export interface SchemaValidator {
  /** `undefined` when `value` is valid, else a short message naming the first failing path. */
  validate(value: unknown): string | undefined;
}

/** What {@link tryCompileSchema} answers: a validator that enforces the schema, or why there is none. */
export type SchemaCompilation =
  | {
      readonly ok: true;
      readonly validator: SchemaValidator;
      /** What the engine noted and ignored, such as a format it does not know (an annotation). */
      readonly warnings: readonly string[];
    }
  | {
      readonly ok: false;
      /** A JSON pointer into the schema; `""` for its root or for the schema as a whole (its size). */
      readonly path: string;
      /** What is wrong, where, and what to do: `at "/pattern": the pattern "(a)\\1" is refused: …`. */
      readonly reason: string;
    };

const MAX_MESSAGE_PARTS = 3;

/**
 * Compiles any JSON Schema (2020-12, 2019-09 or draft-07) and answers a validator or a refusal,
 * never a validator that enforces less than the schema says (fail closed).
 *
 * Refused, each with the path in the schema and what to do: a schema over its budget
 * (`maxSchemaBytes`), one that is not plain JSON or not valid against its meta-schema, one that
 * is asynchronous (`$async`), refers outside itself (nothing is fetched), has a reference cycle
 * with no data in between, or uses a pattern the linear-time engine cannot run (backreferences,
 * lookaround). The validator is synchronous, never throws, validates a plain-JSON copy of the
 * value, and runs every pattern in linear time. Throws only a `TypeError` for a bad
 * `maxSchemaBytes` (a bug of the caller, not of the schema).
 */
export function tryCompileSchema(
  schema: unknown,
  options: CompileSchemaOptions = {},
): SchemaCompilation {
  return compileOrRefuse(schema, options, 'tryCompileSchema()');
}

/**
 * Compiles any JSON Schema (2020-12, 2019-09 or draft-07) to a validator that enforces it, or
 * throws: {@link tryCompileSchema}, with a refusal thrown as an `Error` whose message is
 * `compileSchema(): the schema is refused: <reason>.`. Use it where a schema the program cannot
 * enforce is a bug of the program (a tool's own output schema); use {@link tryCompileSchema}
 * for schemas that come from elsewhere.
 */
export function compileSchema(
  schema: unknown,
  options: CompileSchemaOptions = {},
): SchemaValidator {
  const outcome = compileOrRefuse(schema, options, 'compileSchema()');
  if (!outcome.ok) throw new Error(`compileSchema(): the schema is refused: ${outcome.reason}.`);
  return outcome.validator;
}

const compileOrRefuse = (
  schema: unknown,
  options: CompileSchemaOptions,
  who: string,
): SchemaCompilation => {
  const limit = readBudget(options?.maxSchemaBytes, who);
  if (
    typeof schema !== 'boolean' &&
    (typeof schema !== 'object' || schema === null || Array.isArray(schema))
  ) {
    return {
      ok: false,
      path: '',
      reason: `at its root: a JSON Schema is an object or a boolean (got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema})`,
    };
  }
  let copied: ReturnType<typeof copyJson>;
  try {
    copied = copyJson(schema);
  } catch (error) {
    // A Proxy whose traps throw: nothing JSON could have made.
    return {
      ok: false,
      path: '',
      reason: `at its root: it could not be read (${messageOf(error)}); a schema must be plain JSON`,
    };
  }
  if (!copied.ok) {
    const first = copied.violations[0]!;
    return {
      ok: false,
      path: first.path,
      reason: `at "${first.path}": it ${first.message}; a schema must be plain JSON`,
    };
  }
  const frozen = copied.value;
  let compiled: CompiledValidator;
  try {
    const json = JSON.stringify(frozen);
    checkBudget(
      utf8Bytes(json),
      limit,
      'the schema as JSON',
      `${who.slice(0, -2)}(schema, { maxSchemaBytes })`,
    );
    compiled = compileChecked(frozen, json);
  } catch (error) {
    if (error instanceof SchemaRefusal)
      return { ok: false, path: error.path, reason: error.message };
    throw error;
  }
  return { ok: true, validator: validatorOf(compiled.validate), warnings: compiled.warnings };
};

/** The public face of a compiled validator: a message naming the first failing paths, or `undefined`. */
const validatorOf = (validate: ValidateFunction): SchemaValidator => ({
  validate(value: unknown): string | undefined {
    let ok: boolean;
    try {
      // The validator is given what the registry gives it for arguments: a plain-JSON copy
      // (no getters run twice, no class instances, no null-prototype surprises).
      const copy = copyJson(value, false);
      if (!copy.ok) {
        const problem = copy.violations[0]!;
        return `${problem.path === '' ? 'the value' : `"${problem.path}"`} ${problem.message}`;
      }
      ok = validate(copy.value) === true;
    } catch (error) {
      return `could not be validated (${messageOf(error)})`;
    }
    if (ok) return undefined;
    const errors = validate.errors ?? [];
    const parts = errors
      .slice(0, MAX_MESSAGE_PARTS)
      .map(
        (e) =>
          `${e.instancePath === '' ? 'the value' : `"${e.instancePath}"`} ${e.message ?? `fails "${e.keyword}"`}`,
      );
    if (errors.length > MAX_MESSAGE_PARTS)
      parts.push(`and ${errors.length - MAX_MESSAGE_PARTS} more`);
    return parts.join('; ');
  },
});
