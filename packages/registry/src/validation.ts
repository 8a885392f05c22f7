import type { ObjectJsonSchema, ToolInputValidator } from '@dsh-tools/protocol';
import { Ajv as Ajv07, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { kindOf } from './describe';
import { MAX_VIOLATIONS, pointerSegment, type Violation } from './json-check';

/** The outcome of validating arguments: the value to run with, or every problem found. */
export type ArgsCheck =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly violations: readonly Violation[]; readonly more: number };

/** What failed validation reports: every problem found (at most 20) and how many more there were. */
export type ArgsFailure = Extract<ArgsCheck, { readonly ok: false }>;

/**
 * A compiled `parameters` schema: `undefined` when the arguments are valid (they then run as
 * they are; nothing is allocated on the path every call takes), else what is wrong.
 */
export type CompiledSchema = (args: unknown) => ArgsFailure | undefined;

/**
 * One shared engine per JSON Schema dialect (and property mode), made on first use. Sharing matters: a new Ajv costs
 * milliseconds (it compiles its meta-schemas), a compile on a shared one a fraction of that.
 *
 * - `strict: false`: MCP servers send keywords and formats no validator knows; they are ignored,
 *   not refused.
 * - `allErrors: true`: a model fixes every problem in one retry only if it hears of all of them.
 * - `ownProperties` only for schemas that need it (see {@link namesPrototypeMember}).
 * - `addUsedSchema: false`: two servers' schemas with the same `$id` must not collide.
 * - `validateSchema: false` and `code.optimize: false`: measured, these halve compile time
 *   (0.6 ms → 0.3 ms for a typical tool) without slowing validation; a schema that is invalid
 *   still fails to compile and is reported.
 * - No `verbose`: it makes compiled code a third larger and slower to compile; messages find the
 *   offending value in the arguments themselves (failures only).
 * - No `useDefaults`, `coerceTypes` or `removeAdditional`: validation never mutates arguments.
 */
const engineOptions = (ownProperties: boolean): Options => ({
  strict: false,
  allErrors: true,
  ownProperties,
  addUsedSchema: false,
  validateSchema: false,
  code: { optimize: false },
  logger: {
    log: () => {},
    warn: (...args: unknown[]) => warnSink?.(args.join(' ')),
    error: () => {},
  },
});

type Engine = InstanceType<typeof Ajv07>;
type Dialect = '07' | '2019' | '2020';
let warnSink: ((message: string) => void) | undefined;
const engines = new Map<string, Engine>();

const engine = (dialect: Dialect, ownProperties: boolean): Engine => {
  const key = `${dialect}${ownProperties ? '+own' : ''}`;
  let found = engines.get(key);
  if (!found) {
    const Class = dialect === '07' ? Ajv07 : dialect === '2019' ? Ajv2019 : Ajv2020;
    found = new Class(engineOptions(ownProperties));
    addFormats(found);
    engines.set(key, found);
  }
  return found;
};

/**
 * Which dialects to try, in order, for a schema's `$schema`. Without one, 2020-12 (the MCP
 * default dialect) is tried first and draft-07 (what most generators still emit) second.
 */
const dialectsFor = (schema: ObjectJsonSchema): Dialect[] => {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
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

/** A compiled schema, and how to release it from its engine's cache when the tool goes away. */
export interface Compiled {
  readonly validate: CompiledSchema;
  readonly release: () => void;
}

/** A compiled schema shared by every tool whose schema has the same JSON text. */
interface Shared {
  readonly validate: CompiledSchema;
  readonly remove: () => void;
  readonly warnings: readonly string[];
  refs: number;
}

/**
 * Compiled schemas by JSON text. Compiling is the expensive part of validation (a few hundred
 * µs a tool), and the same schemas come back again and again: an MCP server that reconnects or
 * announces `tools/list_changed` is re-registered with the schemas it had, and a host may keep
 * one registry per agent over the same tools. Entries no tool uses any more stay for a while
 * ({@link MAX_IDLE}, least recently released first out) and are then removed from their engine.
 */
const shared = new Map<string, Shared>();
const idle = new Set<string>();
const MAX_IDLE = 256;

const acquire = (key: string, entry: Shared): Compiled => {
  entry.refs++;
  idle.delete(key);
  let released = false;
  return {
    validate: entry.validate,
    release: () => {
      if (released) return;
      released = true;
      if (--entry.refs > 0) return;
      idle.add(key);
      if (idle.size > MAX_IDLE) {
        const oldest = idle.values().next().value as string;
        idle.delete(oldest);
        shared.get(oldest)?.remove();
        shared.delete(oldest);
      }
    },
  };
};

/**
 * Compiles a tool's `parameters`. Returns `{ error }` when no engine can compile the schema
 * (an unknown `$ref`, an invalid regular expression, a malformed keyword): the caller then skips
 * validation for that tool and reports why, instead of refusing every call to it. Warnings the
 * engine raises while compiling (say, an unknown format that it will ignore) go to `warn`, also
 * when the compiled schema is shared with a tool compiled earlier.
 */
export const compileParameters = (
  schema: ObjectJsonSchema,
  warn: (message: string) => void,
): Compiled | { readonly error: string } => {
  const ownProperties = namesPrototypeMember(schema);
  const key = `${ownProperties ? 'own' : 'any'}:${JSON.stringify(schema)}`;
  const found = shared.get(key);
  if (found) {
    for (const message of found.warnings) warn(message);
    return acquire(key, found);
  }
  const failures: string[] = [];
  const warnings: string[] = [];
  const previousSink = warnSink;
  warnSink = (message) => {
    // Ajv repeats some warnings (an unknown format, once per pass over the schema).
    if (warnings.includes(message)) return;
    warnings.push(message);
    warn(message);
  };
  try {
    for (const dialect of dialectsFor(schema)) {
      const ajv = engine(dialect, ownProperties);
      let fn: ValidateFunction;
      try {
        fn = ajv.compile(schema);
      } catch (error) {
        ajv.removeSchema(schema);
        failures.push(error instanceof Error ? error.message : String(error));
        continue;
      }
      const entry: Shared = {
        validate: wrapAjv(fn),
        remove: () => ajv.removeSchema(schema),
        warnings,
        refs: 0,
      };
      shared.set(key, entry);
      return acquire(key, entry);
    }
  } finally {
    warnSink = previousSink;
  }
  return { error: failures[0] ?? 'the schema could not be compiled' };
};

const wrapAjv =
  (fn: ValidateFunction): CompiledSchema =>
  (args) => {
    if (fn(args)) return undefined;
    const errors = fn.errors ?? [];
    const violations: Violation[] = [];
    for (let i = 0; i < errors.length && i < MAX_VIOLATIONS; i++) {
      violations.push(fromAjv(errors[i]!, args));
    }
    return { ok: false, violations, more: Math.max(0, errors.length - MAX_VIOLATIONS) };
  };

const MAX_LISTED = 10;

/** One Ajv error in the words a model understands, pointing at the argument itself. */
/** The value a JSON pointer points at in (already JSON-checked) arguments, own keys only. */
const valueAt = (root: unknown, pointer: string): unknown => {
  let value = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
};

const fromAjv = (error: ErrorObject, args: unknown): Violation => {
  const params = error.params as Record<string, unknown>;
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return {
        path: `${at}/${pointerSegment(String(params.missingProperty))}`,
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        path: `${at}/${pointerSegment(String(params.additionalProperty))}`,
        message: 'is not a parameter of this tool; remove it',
      };
    case 'unevaluatedProperties':
      return {
        path: `${at}/${pointerSegment(String(params.unevaluatedProperty))}`,
        message: 'is not allowed here; remove it',
      };
    case 'type':
      return {
        path: at,
        message: `must be ${String(params.type)} (got ${kindOf(valueAt(args, at))})`,
      };
    case 'enum': {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      const listed = allowed.slice(0, MAX_LISTED).map((v) => JSON.stringify(v));
      if (allowed.length > MAX_LISTED) listed.push(`and ${allowed.length - MAX_LISTED} more`);
      return { path: at, message: `must be one of ${listed.join(', ')}` };
    }
    default:
      return { path: at, message: error.message ?? `does not satisfy "${error.keyword}"` };
  }
};

/**
 * Runs a Standard Schema validator (zod, valibot, arktype, …). Its output value, which may be
 * transformed (defaults filled in, strings coerced), is what interceptors and the body receive.
 */
export const runStandardSchema = async (
  validator: ToolInputValidator<unknown>,
  args: unknown,
): Promise<ArgsCheck> => {
  let outcome = validator['~standard'].validate(args);
  if (outcome instanceof Promise) outcome = await outcome;
  if (!outcome.issues) return { ok: true, value: outcome.value };
  const issues = Array.from(outcome.issues);
  const violations = issues.slice(0, MAX_VIOLATIONS).map(
    (issue): Violation => ({
      path: (issue.path ?? [])
        .map((segment) => {
          const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
          return `/${pointerSegment(typeof key === 'symbol' ? key.toString() : (key as string | number))}`;
        })
        .join(''),
      message: String(issue.message),
    }),
  );
  return { ok: false, violations, more: Math.max(0, issues.length - MAX_VIOLATIONS) };
};
