import {
  type BodyExecution,
  type ContentBlock,
  type InterceptedExecution,
  isContentBlock,
  type ToolDefinition,
  ToolError,
  type ToolExecutionResult,
  type ToolOutput,
} from '@dsh-tools/protocol';
import { createHarnessCall, type HarnessCall, harnessCallOf } from './harness-call';
import type { HarnessToolDefinition } from './harness-contract';
import { isPlainObject, isRecord, messageOf } from './values';

/**
 * A body's failure as one of ours, keeping what the harness reads: the message as it is (the
 * content is `Error: <message>`, as the harness renders it), a `HarnessError`'s `{ name, code }`
 * as the call's info (`FS_NOT_FOUND`, …), our own `ToolError` as it is.
 */
const harnessFailure = (call: HarnessCall, error: unknown): unknown => {
  if (error instanceof ToolError) return error;
  let code: unknown;
  let name: unknown;
  try {
    code = isRecord(error) ? error.code : undefined;
    name = isRecord(error) ? error.name : undefined;
  } catch {
    code = undefined;
  }
  call.info =
    typeof code === 'string' && code !== ''
      ? { name: typeof name === 'string' ? name : 'HarnessError', code }
      : null;
  return new ToolError('TOOL_ERROR', messageOf(error), { cause: error });
};

/**
 * The execution a harness-shaped body receives: ours, plus the harness's `token`, `rootCallId`,
 * `parent`, `deferContext` and `concludeTurn`, with a signal that aborts with ours (the caller's
 * abort, the deadline) or with any a `tools/execute` wrapper put in place: a wrapper can only add.
 */
const runContext = (exec: BodyExecution, call: HarnessCall): object => {
  const own = exec.signal;
  const signal = call.signals.length === 0 ? own : AbortSignal.any([own, ...call.signals]);
  const view = {
    ...exec,
    signal,
    token: call.token,
    rootCallId: call.rootCallId,
    ...(call.parent !== undefined && { parent: call.parent }),
    deferContext(context: unknown): void {
      call.contexts.push(context);
    },
    concludeTurn(): void {
      call.concludes = true;
    },
  };
  return view;
};

/** Compiles a JSON Schema to a check that returns the first violation, or `undefined`. */
export type SchemaCompiler = (schema: unknown) => {
  validate(value: unknown): string | undefined;
};

/**
 * What the pipeline keeps of a harness-shaped tool besides the definition the registry runs: the
 * pieces `tools/post-execute` (a replaced value) and the final content step need.
 */
export interface HarnessTool {
  readonly name: string;
  /** Checks and renders a JSON value as the body's own value is; the content, or the failure. */
  render(args: unknown, value: unknown): ToolOutput | readonly ContentBlock[];
  readonly finalizeContent?: (exec: InterceptedExecution, result: ToolExecutionResult) => unknown;
}

/**
 * Whether a definition is shaped for the DeepSeek Harness (`output: { schema, render }`, a body
 * that returns a JSON value) rather than for this package's contract. Reads `output` once; a
 * getter that throws means "not harness-shaped", and the registry then reports the definition.
 */
export const isHarnessDefinition = (value: unknown): value is HarnessToolDefinition => {
  try {
    if (!isRecord(value)) return false;
    const output: unknown = value.output;
    return isRecord(output) && typeof output.render === 'function';
  } catch {
    return false;
  }
};

/**
 * A lossless, detached JSON copy of a body's value, or why there is none. The copy is what gets
 * validated and rendered, so a body that keeps a reference and mutates it later changes nothing.
 */
export const copyJson = (
  value: unknown,
): { readonly json: unknown } | { readonly problem: string } => {
  if (value === undefined) return { problem: 'undefined instead of a JSON value' };
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint' || typeof item === 'function' || typeof item === 'symbol') {
        throw new TypeError(`a ${typeof item} is not JSON`);
      }
      if (typeof item === 'number' && !Number.isFinite(item)) {
        throw new TypeError(`${item} is not a JSON number`);
      }
      return item;
    });
  } catch (error) {
    return { problem: `a value that is not JSON (${messageOf(error)})` };
  }
  if (text === undefined) return { problem: 'a value that is not JSON' };
  return { json: JSON.parse(text) as unknown };
};

/**
 * Adapts a harness-shaped definition to this package's contract, so the one pipeline runs it:
 * the registry validates its arguments against `parameters` and enforces `timeoutMs`, every
 * interceptor sees the call, and the body's JSON value is validated against `output.schema`
 * (`INVALID_OUTPUT` naming the violation) before `output.render` turns it into content. An object
 * value also travels as `structuredContent`. `isConcurrencySafe` becomes the `concurrencySafe`
 * hint. `presentCall`, `presentResult` and `output` stay on the adapted definition, so
 * `ctx.tools.get(name)` hands a UI what it expects; the model still sees only the schema.
 *
 * Throws, naming the tool, when `output.schema` does not compile or a field has the wrong type.
 */
export function adaptHarnessDefinition(
  definition: HarnessToolDefinition,
  compile: SchemaCompiler,
): { readonly definition: ToolDefinition; readonly tool: HarnessTool } {
  // Each field read once: a definition is caller data, and a getter must not answer twice.
  const name: unknown = definition.name;
  const label = typeof name === 'string' ? JSON.stringify(name) : '(unnamed)';
  const output = definition.output;
  const schema: unknown = output.schema;
  const render: unknown = output.render;
  const body: unknown = definition.execute;
  const finalize: unknown = definition.finalizeContent;
  const concurrency: unknown = definition.isConcurrencySafe;
  if (typeof body !== 'function') {
    throw new TypeError(`register(): tool ${label} has no execute function.`);
  }
  if (typeof render !== 'function') {
    throw new TypeError(`register(): tool ${label} needs output.render(args, value) => content.`);
  }
  if (finalize !== undefined && typeof finalize !== 'function') {
    throw new TypeError(`register(): tool ${label}: finalizeContent must be a function.`);
  }
  if (concurrency !== undefined && typeof concurrency !== 'function') {
    throw new TypeError(`register(): tool ${label}: isConcurrencySafe must be a function.`);
  }
  if (typeof schema !== 'boolean' && !isPlainObject(schema)) {
    throw new TypeError(`register(): tool ${label}: output.schema must be a JSON Schema object.`);
  }
  let validator: ReturnType<SchemaCompiler>;
  try {
    validator = compile(schema);
  } catch (error) {
    throw new TypeError(
      `register(): tool ${label}: output.schema cannot be enforced (${messageOf(error)}). Fix the schema; a tool whose output cannot be checked is refused.`,
      { cause: error },
    );
  }

  const toContent = (args: unknown, value: unknown): ToolOutput | readonly ContentBlock[] => {
    const copied = copyJson(value);
    if ('problem' in copied) {
      throw new ToolError(
        'INVALID_OUTPUT',
        `tool ${label} returned ${copied.problem}; a tool with an output declaration returns a JSON value matching output.schema.`,
      );
    }
    const violation = validator.validate(copied.json);
    if (violation !== undefined) {
      throw new ToolError(
        'INVALID_OUTPUT',
        `tool ${label} returned a value that does not match its output.schema: ${violation}. Fix the tool's body or its output.schema.`,
      );
    }
    let content: unknown;
    try {
      content = (render as HarnessToolDefinition['output']['render']).call(
        output,
        args,
        copied.json,
      );
    } catch (error) {
      throw new ToolError(
        'TOOL_ERROR',
        `tool ${label}: output.render threw (${messageOf(error)}).`,
      );
    }
    if (!Array.isArray(content) || !content.every(isContentBlock)) {
      throw new ToolError(
        'INVALID_OUTPUT',
        `tool ${label}: output.render returned something that is not an array of content blocks.`,
      );
    }
    return isPlainObject(copied.json)
      ? { content, structuredContent: copied.json }
      : (content as readonly ContentBlock[]);
  };

  const presentationMeta: unknown = output.presentationMeta;
  const isConcurrencySafe = concurrency as ((args: unknown) => unknown) | undefined;
  const adapted: ToolDefinition = {
    ...definition,
    async execute(args: unknown, exec: BodyExecution) {
      const call = harnessCallOf(exec) ?? createHarnessCall(exec);
      const run = runContext(exec, call);
      call.dispatched = true;
      let value: unknown;
      try {
        value = await (body as HarnessToolDefinition['execute']).call(definition, args, run);
      } catch (error) {
        throw harnessFailure(call, error);
      }
      const content = toContent(args, value);
      call.hasValue = true;
      const copied = copyJson(value);
      call.value = 'json' in copied ? copied.json : undefined;
      if (typeof presentationMeta === 'function' && call.parent === undefined) {
        const meta = copyJson(presentationMeta.call(output, args, call.value));
        if ('problem' in meta) {
          throw new ToolError(
            'INVALID_OUTPUT',
            `tool ${label}: output.presentationMeta returned ${meta.problem}.`,
          );
        }
        call.meta = meta.json;
      }
      return content;
    },
    ...(isConcurrencySafe && {
      hints: {
        concurrencySafe: (args: unknown) => {
          try {
            return isConcurrencySafe.call(definition, args) === true;
          } catch {
            // The harness's rule: a classifier that throws means exclusive.
            return false;
          }
        },
      },
    }),
  };
  return {
    definition: adapted,
    tool: {
      name: typeof name === 'string' ? name : '',
      render: toContent,
      ...(typeof finalize === 'function' && {
        finalizeContent: (exec: InterceptedExecution, result: ToolExecutionResult) =>
          (finalize as (e: unknown, r: unknown) => unknown).call(definition, exec, result),
      }),
    },
  };
}
