import type {
  ObjectJsonSchema,
  ToolDefinition,
  ToolHints,
  ToolInputValidator,
  ToolSchema,
  ToolSource,
  ToolView,
} from '@dsh-tools/protocol';
import {
  type Compiled,
  checkBudget,
  compileParameters,
  copyJson,
  DEFAULT_MAX_SCHEMA_BYTES,
  SchemaRefusal,
} from '@dsh-tools/schema';
import { DEFAULT_MAX_OUTPUT_BYTES } from './bound-output';
import { isRecord, kindOf, messageOf, quote, utf8Bytes } from './describe';
import type { RegisteredTool } from './types';

/** The function-name rule of the OpenAI and DeepSeek APIs; the model can call nothing else. */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The longest time limit a Node timer can hold (2^31 - 1 ms, about 24.8 days): Node clamps a longer
 * delay to 1 ms, which would time every call out at once, so longer limits are refused.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Why a time limit is unusable, or `undefined` when it is a number from 0 to {@link MAX_TIMER_MS}. */
export const timeLimitProblem = (value: unknown, zero: string): string | undefined =>
  typeof value === 'number' && value >= 0 && value <= MAX_TIMER_MS
    ? undefined
    : `must be a number of milliseconds from 0 to ${MAX_TIMER_MS} (about 24.8 days), ${zero} (got ${String(value)})`;

const HINT_FLAGS = ['readOnly', 'destructive', 'idempotent', 'openWorld'] as const;

const describeSource = (source: ToolSource): string =>
  source.kind === 'mcp'
    ? `MCP server ${quote(source.server)} (its tool ${quote(source.tool)})`
    : source.plugin !== undefined
      ? `plugin ${quote(source.plugin)}`
      : 'a local registration';

/** What registration holds every definition to (registry options). */
export interface DefinitionLimits {
  /** The schema budget: description plus parameters as JSON, UTF-8 bytes. Default 64 KiB. */
  readonly maxSchemaBytes?: number;
  /** The registry's `maxOutputBytes`, where the definition sets none. Default 1 MiB. */
  readonly maxOutputBytes?: number;
  /** The registry's `callTimeoutMs`, where the definition sets none. Default 0 (none). */
  readonly callTimeoutMs?: number;
}

/**
 * Reads and checks a definition once, at registration, so that a malformed tool fails where it
 * is registered (with what to fix) rather than on the model's first call. Accepts what
 * `defineTool` produces and raw JSON-Schema definitions as an MCP server sends them (a missing
 * `description` becomes `""`).
 *
 * Schemas fail closed: the description plus the parameters must fit the schema budget, and
 * (unless a Standard Schema `inputValidator` validates instead) the parameters are compiled here,
 * synchronously, to a validator that enforces them, or the tool is refused with the path in the
 * schema and what to do. No tool ever runs unvalidated because its schema was odd.
 */
export const readDefinition = (
  definition: unknown,
  limits: DefinitionLimits = {},
): RegisteredTool => {
  if (!isRecord(definition)) {
    throw new TypeError(
      `register(): a tool definition must be an object with name, description, parameters and execute (got ${kindOf(definition)}).`,
    );
  }
  const read = (key: string): unknown => {
    try {
      return definition[key];
    } catch (error) {
      throw new TypeError(`register(): reading the tool's "${key}" threw: ${messageOf(error)}`);
    }
  };
  const name = read('name');
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    const shown = typeof name === 'string' ? quote(name) : `a ${kindOf(name)}`;
    throw new TypeError(
      `register(): tool name ${shown} is invalid: names must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, "_" and "-", at most 64), the function-name rule of the OpenAI and DeepSeek APIs. Rename the tool.`,
    );
  }
  const fail = (what: string): never => {
    throw new TypeError(`register(): tool "${name}": ${what}`);
  };

  const description = read('description') ?? '';
  if (typeof description !== 'string') {
    fail(`"description" must be a string (got ${kindOf(description)}).`);
  }

  const execute = read('execute');
  if (typeof execute !== 'function') {
    fail(`"execute" must be a function (args, exec) => content blocks (got ${kindOf(execute)}).`);
  }

  /** Reads nested parts of the definition once, into a snapshot; a throwing getter is named. */
  const snapshot = <T>(what: string, take: () => T): T => {
    try {
      return take();
    } catch (error) {
      throw new TypeError(`register(): tool "${name}": reading ${what} threw: ${messageOf(error)}`);
    }
  };

  const parameters = read('parameters');
  // A frozen deep copy, read once: the caller's schema object can change or be frozen later
  // without touching ours, and `__proto__` stays an ordinary own key, never a prototype.
  const copied = isRecord(parameters)
    ? snapshot('"parameters"', () => copyJson(parameters))
    : undefined;
  const schemaType = copied?.ok ? (copied.value as { type?: unknown }).type : undefined;
  if (copied === undefined || (copied.ok && schemaType !== 'object')) {
    fail(
      `"parameters" must be a JSON Schema whose root is { "type": "object", ... } (got ${
        copied ? `type ${JSON.stringify(schemaType) ?? 'undefined'}` : kindOf(parameters)
      }); function-calling APIs only accept object arguments. Wrap the arguments in an object schema.`,
    );
  }
  if (!copied!.ok) {
    const first = copied!.violations[0]!;
    fail(`"parameters" must be plain JSON: at "${first.path}" it ${first.message}.`);
  }

  const hints = read('hints') ?? {};
  if (!isRecord(hints)) fail(`"hints" must be an object (got ${kindOf(hints)}).`);
  // Each hint is read once: what is checked here is what the frozen view keeps.
  const h = snapshot('"hints"', () => ({ ...(hints as Record<string, unknown>) }));
  for (const flag of HINT_FLAGS) {
    if (h[flag] !== undefined && typeof h[flag] !== 'boolean') {
      fail(`hint "${flag}" must be a boolean (got ${kindOf(h[flag])}).`);
    }
  }
  if (
    h.concurrencySafe !== undefined &&
    typeof h.concurrencySafe !== 'boolean' &&
    typeof h.concurrencySafe !== 'function'
  ) {
    fail(
      `hint "concurrencySafe" must be a boolean or a function (args) => boolean (got ${kindOf(h.concurrencySafe)}).`,
    );
  }
  if (h.command !== undefined && typeof h.command !== 'string') {
    fail(
      `hint "command" must name the argument that holds the command line (got ${kindOf(h.command)}).`,
    );
  }
  if (h.paths !== undefined) {
    if (!Array.isArray(h.paths))
      fail(`hint "paths" must be an array of { arg, access } (got ${kindOf(h.paths)}).`);
    const paths = snapshot('hint "paths"', () =>
      Array.from(h.paths as unknown[], (p) =>
        isRecord(p)
          ? {
              arg: p.arg,
              access: p.access,
              ...(p.honoursExclude !== undefined && { honoursExclude: p.honoursExclude }),
            }
          : undefined,
      ),
    );
    paths.forEach((p, i) => {
      if (!p || typeof p.arg !== 'string' || (p.access !== 'read' && p.access !== 'write')) {
        fail(`hint "paths"[${i}] must be { arg: string, access: "read" | "write" }.`);
      }
      const honours = p?.honoursExclude;
      if (honours !== undefined && typeof honours !== 'boolean')
        fail(`hint "paths"[${i}].honoursExclude must be a boolean (got ${kindOf(honours)}).`);
      if (honours === true && p?.access !== 'read')
        fail(
          `hint "paths"[${i}].honoursExclude is for readers: a tool that writes "${p?.arg}" cannot leave excluded paths out. Remove it or make the access "read".`,
        );
      Object.freeze(p);
    });
    h.paths = Object.freeze(paths);
  }

  const timeoutMs = read('timeoutMs');
  const timeoutProblem =
    timeoutMs === undefined ? undefined : timeLimitProblem(timeoutMs, '0 for no limit');
  if (timeoutProblem) fail(`"timeoutMs" ${timeoutProblem}.`);
  const callTimeoutMs = read('callTimeoutMs');
  const callTimeoutProblem =
    callTimeoutMs === undefined ? undefined : timeLimitProblem(callTimeoutMs, '0 for none');
  if (callTimeoutProblem) fail(`"callTimeoutMs" ${callTimeoutProblem}.`);
  const maxOutputBytes = read('maxOutputBytes');
  if (
    maxOutputBytes !== undefined &&
    (typeof maxOutputBytes !== 'number' ||
      !Number.isSafeInteger(maxOutputBytes) ||
      maxOutputBytes < 1)
  ) {
    fail(`"maxOutputBytes" must be a whole number >= 1 (got ${String(maxOutputBytes)}).`);
  }

  const inputValidator = read('inputValidator');
  if (inputValidator !== undefined) {
    const standard =
      isRecord(inputValidator) || typeof inputValidator === 'function'
        ? (inputValidator as { '~standard'?: { validate?: unknown } })['~standard']
        : undefined;
    if (typeof standard?.validate !== 'function') {
      fail('"inputValidator" must be a Standard Schema (an object with ["~standard"].validate).');
    }
  }

  const rawSource = read('source') ?? { kind: 'local' };
  if (!isRecord(rawSource)) {
    fail(
      '"source" must be { kind: "local", plugin?: string } or { kind: "mcp", server: string, tool: string }.',
    );
  }
  // Read once, like the hints: what is checked is what is kept.
  const source = snapshot('"source"', () => ({ ...(rawSource as Record<string, unknown>) }));
  if (
    !(
      (source.kind === 'local' &&
        (source.plugin === undefined || typeof source.plugin === 'string')) ||
      (source.kind === 'mcp' &&
        typeof source.server === 'string' &&
        typeof source.tool === 'string')
    )
  ) {
    fail(
      '"source" must be { kind: "local", plugin?: string } or { kind: "mcp", server: string, tool: string }.',
    );
  }

  const frozenParameters = (copied as { value: unknown }).value as ObjectJsonSchema;
  const parametersJson = JSON.stringify(frozenParameters);
  let checked: Compiled | undefined;
  try {
    checkBudget(
      utf8Bytes(description as string) + utf8Bytes(parametersJson),
      limits.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES,
      'its description plus parameters as JSON',
      'createToolRegistry({ maxSchemaBytes })',
    );
    // A Standard Schema validator validates instead: the parameters are only what the model sees.
    if (inputValidator === undefined) checked = compileParameters(frozenParameters, parametersJson);
  } catch (error) {
    if (!(error instanceof SchemaRefusal)) throw error;
    fail(
      `its schema is refused: ${error.message}. The registry runs no tool whose schema it cannot enforce.`,
    );
  }
  const frozenSource = Object.freeze(source) as unknown as ToolSource;
  const frozenHints = Object.freeze(h) as Readonly<ToolHints>;
  const schema: ToolSchema = Object.freeze({
    name,
    description: description as string,
    parameters: frozenParameters,
  });
  const view: ToolView = Object.freeze({
    ...schema,
    hints: frozenHints,
    source: frozenSource,
    ...(timeoutMs !== undefined && { timeoutMs: timeoutMs as number }),
  });
  return {
    name,
    definition: definition as unknown as ToolDefinition,
    execute: execute as ToolDefinition['execute'],
    schema,
    view,
    timeoutMs: timeoutMs as number | undefined,
    callTimeoutMs: (callTimeoutMs as number | undefined) ?? limits.callTimeoutMs ?? 0,
    maxOutputBytes:
      (maxOutputBytes as number | undefined) ?? limits.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    inputValidator: inputValidator as ToolInputValidator<unknown> | undefined,
    holder: describeSource(frozenSource),
    compiled: checked,
  };
};
