/**
 * The DeepSeek Harness's tool-definition helpers, for plugins written against
 * `@deepseek-ai/dsh-tools`: `defineTool` with the harness's keys (`parameters` as a property
 * spec, `output: { schema, render, presentationMeta? }`, `finalizeContent`, `isConcurrencySafe`,
 * `presentCall`, `presentResult`, `timeoutMs`), its spec-to-JSON-Schema conversions (producing
 * the same schema, key for key, so the model's prompt is byte-identical), and its schema checks,
 * all enforced by our registry's own JSON Schema engine.
 */
import { compileSchema } from '@dsh-tools/registry';
import { isPlainObject, messageOf } from './values';

// biome-ignore lint/suspicious/noExplicitAny: specs and args are caller data of any shape
type Any = any;

/** An error with the harness's `code`, as its `HarnessError`s carry one. */
class CodedError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** A schema outside what the tools layer can enforce (`UNSUPPORTED_SCHEMA`). */
export class JsonSchemaError extends CodedError {
  readonly violations: string[];
  constructor(violations: string[]) {
    super(`unsupported JSON schema: ${violations.join('; ')}`, 'UNSUPPORTED_SCHEMA');
    this.name = 'JsonSchemaError';
    this.violations = violations;
  }
}

/** A model's arguments that do not match the tool's parameters (`INVALID_ARGS`). */
export class ToolArgsError extends CodedError {
  readonly violations: string[];
  constructor(violations: string[]) {
    super(`invalid arguments: ${violations.join('; ')}`, 'INVALID_ARGS');
    this.name = 'ToolArgsError';
    this.violations = violations;
  }
}

/** A call of a tool that is not visible to its caller (`UNKNOWN_TOOL`). */
export class ToolNotFoundError extends CodedError {
  constructor(toolName: string, reachableFrom?: string) {
    super(
      reachableFrom === undefined
        ? `unknown tool "${toolName}"`
        : `unknown tool "${toolName}": ${reachableFrom}`,
      'UNKNOWN_TOOL',
    );
    this.name = 'ToolNotFoundError';
  }
}

/** A value that breaks a tool's declared output (`INVALID_TOOL_OUTPUT`). */
export class ToolOutputError extends CodedError {
  readonly violations: string[];
  constructor(toolName: string, violations: string[]) {
    super(
      `tool "${toolName}" returned invalid output: ${violations.join('; ')}`,
      'INVALID_TOOL_OUTPUT',
    );
    this.name = 'ToolOutputError';
    this.violations = violations;
  }
}

const ANNOTATIONS = ['description', 'title', 'default', 'examples'] as const;
const SCALARS: Record<string, (v: unknown) => boolean> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number' && Number.isFinite(v),
  integer: (v) => Number.isSafeInteger(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
};
const KEYS: Record<string, readonly string[]> = {
  array: ['type', 'items'],
  object: ['type', 'properties', 'additionalProperties'],
  json: ['type'],
  oneOf: ['oneOf'],
  scalar: ['type', 'enum', 'const'],
};

/** Converts one value spec, collecting what is wrong with it under `path`. */
function convert(spec: Any, path: string, problems: string[], property: boolean): Any {
  if (!isPlainObject(spec)) {
    problems.push(`${path} must be a value schema object`);
    return {};
  }
  const type = String(spec.type);
  const kind = 'oneOf' in spec ? 'oneOf' : Object.hasOwn(SCALARS, type) ? 'scalar' : type;
  const allowed = Object.hasOwn(KEYS, kind) ? KEYS[kind] : undefined;
  if (allowed === undefined) {
    problems.push(
      `${path}.type must be string/number/integer/boolean/null/array/object/json, or use oneOf`,
    );
    return {};
  }
  for (const key of Object.keys(spec)) {
    if (allowed.includes(key) || (ANNOTATIONS as readonly string[]).includes(key)) continue;
    if (property && key === 'required') {
      if (spec.required !== true) problems.push(`${path}.required must be true when present`);
      continue;
    }
    problems.push(`${path}.${key} is not supported by the value schema DSL`);
  }
  for (const key of ['description', 'title'] as const) {
    if (key in spec && typeof spec[key] !== 'string')
      problems.push(`${path}.${key} must be a string`);
  }
  const out: Any = {};
  if (kind === 'oneOf') {
    const options = spec.oneOf;
    if (!Array.isArray(options) || options.length < 2) {
      problems.push(`${path}.oneOf must be an array of at least two schemas`);
    } else {
      out.oneOf = options.map((o: unknown, i: number) =>
        convert(o, `${path}.oneOf[${i}]`, problems, false),
      );
    }
  } else if (kind !== 'json') out.type = spec.type;
  for (const key of ANNOTATIONS) if (key in spec) out[key] = spec[key];
  if (kind === 'array' && 'items' in spec) {
    if (!isPlainObject(spec.items)) problems.push(`${path}.items must be a value schema object`);
    else out.items = convert(spec.items, `${path}.items`, problems, false);
  }
  if (kind === 'object') {
    if (typeof spec.additionalProperties !== 'boolean') {
      problems.push(`${path}.additionalProperties must be explicitly true or false`);
    }
    out.additionalProperties = spec.additionalProperties;
    if ('properties' in spec)
      Object.assign(out, properties(spec.properties, `${path}.properties`, problems));
  }
  if (kind === 'scalar') {
    const fits = SCALARS[type] as (v: unknown) => boolean;
    if ('enum' in spec) {
      if (!Array.isArray(spec.enum) || spec.enum.length === 0 || !spec.enum.every(fits)) {
        problems.push(`${path}.enum must be a non-empty array of ${spec.type} values`);
      }
      out.enum = spec.enum;
    }
    if ('const' in spec) {
      if (!fits(spec.const)) problems.push(`${path}.const must be a ${spec.type} value`);
      out.const = spec.const;
    }
  }
  return out;
}

/** A property map as `{ properties, required? }`, in the spec's order. */
function properties(spec: Any, path: string, problems: string[]): Any {
  if (!isPlainObject(spec)) {
    problems.push(`${path} must be an object of property specs`);
    return { properties: {} };
  }
  const props: Any = {};
  const required: string[] = [];
  for (const [name, property] of Object.entries(spec)) {
    props[name] = convert(property, `${path}.${name}`, problems, true);
    if (isPlainObject(property) && property.required === true) required.push(name);
  }
  return { properties: props, ...(required.length > 0 && { required }) };
}

const orThrow = <T>(problems: string[], value: T): T => {
  if (problems.length > 0) throw new JsonSchemaError(problems);
  return value;
};

/** A value spec (`{ type: 'string' }`, `{ type: 'object', properties, additionalProperties }`, …) as JSON Schema. */
export function valueSchemaSpecToJsonSchema(spec: unknown): Record<string, unknown> {
  const problems: string[] = [];
  return orThrow(problems, convert(spec, 'schema', problems, false));
}

/** A parameter spec (`{ path: { type: 'string', required: true } }`) as an object JSON Schema. */
export function parameterSchemaSpecToJsonSchema(spec: unknown): Record<string, unknown> {
  const problems: string[] = [];
  return orThrow(problems, { type: 'object', ...properties(spec, 'parameters', problems) });
}

/** Throws `JsonSchemaError` for a schema our registry cannot enforce. */
export function assertSupportedJsonSchema(schema: unknown): void {
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    throw new JsonSchemaError(['schema must be a JSON Schema object']);
  }
  try {
    compileSchema(schema as Record<string, unknown>);
  } catch (error) {
    throw new JsonSchemaError([messageOf(error)]);
  }
}

/** Throws `JsonSchemaError` for an unenforceable schema, or one whose root is not an object. */
export function assertObjectJsonSchema(schema: unknown): void {
  assertSupportedJsonSchema(schema);
  if (!isPlainObject(schema) || schema.type !== 'object') {
    throw new JsonSchemaError([
      'schema.type must be "object" (structured output is object-rooted)',
    ]);
  }
}

/** The violations of `args` against a parameter spec (empty: valid). */
export function validateArgs(spec: unknown, args: unknown): string[] {
  const violation = compileSchema(parameterSchemaSpecToJsonSchema(spec)).validate(args);
  return violation === undefined ? [] : [violation];
}

/**
 * A tool as the harness defines one: the definition `ctx.tools.register` takes (on this
 * service and on the harness's). Arguments are checked again inside `execute` (`ToolArgsError`),
 * as the harness's own helper does, so the definition stays safe on a service that does not
 * validate; on ours the registry has validated them already.
 */
export function defineTool(options: Any): Any {
  const parameters = parameterSchemaSpecToJsonSchema(options.parameters);
  const output = options.output;
  if (!isPlainObject(output) || typeof output.render !== 'function') {
    throw new TypeError(
      `defineTool(${options.name}): output needs { schema, render(args, value) }.`,
    );
  }
  if (
    options.timeoutMs !== undefined &&
    (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)
  ) {
    throw new TypeError(`defineTool(${options.name}): timeoutMs must be a positive finite number`);
  }
  const schema = valueSchemaSpecToJsonSchema(output.schema);
  const check = compileSchema(parameters);
  const valid = (args: unknown) => check.validate(args) === undefined;
  const { render, presentationMeta } = output;
  const tool: Any = {
    name: options.name,
    description: options.description,
    parameters,
    output: {
      schema,
      render: (args: unknown, value: unknown) => render(args, value),
      ...(typeof presentationMeta === 'function' && {
        presentationMeta: (args: unknown, value: unknown) => presentationMeta(args, value),
      }),
    },
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    async execute(args: unknown, exec: unknown) {
      const violation = check.validate(args);
      if (violation !== undefined) throw new ToolArgsError([violation]);
      return options.execute(args, exec);
    },
  };
  const { finalizeContent, presentCall, presentResult, isConcurrencySafe } = options;
  if (typeof finalizeContent === 'function') {
    tool.finalizeContent = (exec: unknown, result: unknown) => finalizeContent(exec, result);
  }
  if (typeof presentCall === 'function') {
    tool.presentCall = (args: unknown) => (valid(args) ? presentCall(args) : undefined);
  }
  if (typeof presentResult === 'function') {
    tool.presentResult = (args: unknown, result: unknown) =>
      valid(args) ? presentResult(args, result) : undefined;
  }
  if (typeof isConcurrencySafe === 'function') {
    tool.isConcurrencySafe = (args: unknown) => valid(args) && isConcurrencySafe(args) === true;
  }
  return tool;
}
