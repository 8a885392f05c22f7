import type { ErrorObject, ValidateFunction } from 'ajv';
import { type CompileJob, checkForCompile, compileChecked, compileJob } from './compile-schema';
import { compileInWorker } from './compile-worker';
import { kindOf, messageOf } from './describe';
import {
  type JsonProblems,
  MAX_VIOLATIONS,
  pointerSegment,
  unescapeSegment,
  type Violation,
} from './json-check';
import { SchemaRefusal } from './schema-check';

/** What failed validation reports: every problem found (at most 20) and how many more there were. */
export type ArgsFailure = JsonProblems;

/**
 * A compiled `parameters` schema: `undefined` when the arguments are valid (they then run as
 * they are; nothing is allocated on the path every call takes), else what is wrong.
 */
export type CompiledSchema = (args: unknown) => ArgsFailure | undefined;

/** A compiled schema, and what the engine warned while compiling it (say, an unknown format). */
export interface Compiled {
  /** Set once `ready` has settled, for a schema compiled on the worker. */
  validate: CompiledSchema;
  warnings: readonly string[];
  /** Set while the schema compiles on the worker: `validate` is ready once this settles. */
  ready: Promise<void> | undefined;
  /** Why the schema cannot be enforced after all: the worker could not compile it. */
  refused: string | undefined;
}

/**
 * Schemas whose JSON is longer than this compile on the compiling worker (see
 * `compile-worker.ts`); smaller ones compile here, in a few milliseconds at most (16 KiB took
 * 17.5 ms, 64 KiB 137 ms). Tests lower it to send small schemas through the worker, and read
 * `fellBack`: how many compiles ran here because the worker could not.
 */
export const offThread = { aboveChars: 8 * 1024, fellBack: 0 };

/** Until the worker has answered: never called, since a call waits for `ready` first. */
const notReady: CompiledSchema = () => ({
  ok: false,
  violations: [{ path: '', message: 'cannot be validated yet (the schema is still compiling)' }],
  more: 0,
});

/**
 * Compiles on the worker, or here when no worker can run; records the outcome in `compiled`. A
 * refusal is not kept for the schema's next registration (a deadline may not be overrun twice).
 */
const compileAside = (compiled: Compiled, job: CompileJob, json: string): Promise<void> =>
  compileInWorker(job)
    .catch((error: unknown) => {
      if (error instanceof SchemaRefusal) throw error;
      offThread.fellBack++;
      return compileJob(job);
    })
    .then(
      ({ validate, warnings }) => {
        compiled.validate = wrapAjv(validate);
        compiled.warnings = warnings;
      },
      (error: unknown) => {
        compiled.refused = messageOf(error);
        if (live.get(json)?.deref() === compiled) live.delete(json);
        if (recent.get(json) === compiled) recent.delete(json);
      },
    )
    .finally(() => {
      compiled.ready = undefined;
    });

/**
 * Compiled schemas by JSON text, while any tool holds them. Compiling is the expensive part of
 * validation (about a millisecond a tool), and the same schemas come back again and again: an
 * MCP server that reconnects or announces `tools/list_changed` is re-registered with the schemas
 * it had, and a host may keep one registry per agent over the same tools. Entries are weak, so a
 * registration that throws after compiling (a duplicate name) leaks nothing; the last
 * {@link RECENT} compiled schemas are also held strongly, so a tool disposed and registered again
 * soon compiles nothing.
 */
const live = new Map<string, WeakRef<Compiled>>();
const forget = new FinalizationRegistry<string>((key) => {
  if (live.get(key)?.deref() === undefined) live.delete(key);
});
const recent = new Map<string, Compiled>();
const RECENT = 64;

const remember = (key: string, compiled: Compiled): void => {
  recent.delete(key);
  recent.set(key, compiled);
  if (recent.size > RECENT) recent.delete(recent.keys().next().value as string);
};

/**
 * Compiles a tool's `parameters` for a host that validates many calls against many schemas, fail
 * closed: throws {@link SchemaRefusal} naming the path in the schema and what to do when the
 * schema cannot be enforced (the same checks as `compileSchema`).
 *
 * The caller gives the schema as a frozen plain-JSON copy (`copyJson`) that passed its budget
 * (`checkBudget`), and `json`, its JSON text, which is also the cache key: the same schema
 * compiled again (a reconnecting MCP server) is not compiled twice. A schema longer than
 * {@link offThread}`.aboveChars` is checked here and compiled on the compiling worker: the
 * answer's `ready` settles when it is, and `refused` says why if the worker could not.
 */
export const compileParameters = (schema: object, json: string): Compiled => {
  const found = live.get(json)?.deref();
  if (found) {
    remember(json, found);
    return found;
  }
  let compiled: Compiled;
  if (json.length > offThread.aboveChars) {
    // Checked here, fail closed; compiled off the event loop.
    const job = checkForCompile(schema, json, true);
    compiled = { validate: notReady, warnings: [], ready: undefined, refused: undefined };
    compiled.ready = compileAside(compiled, job, json);
  } else {
    const { validate, warnings } = compileChecked(schema, json);
    compiled = { validate: wrapAjv(validate), warnings, ready: undefined, refused: undefined };
  }
  live.set(json, new WeakRef(compiled));
  forget.register(compiled, json);
  remember(json, compiled);
  return compiled;
};

const wrapAjv =
  (fn: ValidateFunction): CompiledSchema =>
  (args) => {
    if (fn(args) === true) return undefined;
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
    const key = unescapeSegment(raw);
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
