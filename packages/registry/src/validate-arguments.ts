import {
  ToolErrorCode as Codes,
  errorResult,
  type ToolArgs,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { type Compiled, copyJson, freezePlain } from '@dsh-tools/schema';
import { messageOf } from './describe';
import { invalidArgs } from './results';
import { type ArgsCheck, runStandardSchema } from './standard-schema';
import type { Checked, RegisteredTool, Report } from './types';

const warned = new WeakSet<RegisteredTool>();

/**
 * The tool's compiled `parameters`, made at registration (which refuses a tool whose schema
 * cannot be enforced); `undefined` only if an entry lacked them, and the call is then refused
 * (fail closed). What the engine warned while compiling (an unknown format it ignores) is
 * reported once per tool, on its first call.
 */
const compiledFor = (entry: RegisteredTool, report: Report): Compiled | undefined => {
  const compiled = entry.compiled;
  if (!compiled) return undefined;
  if ((compiled.warnings.length > 0 || compiled.refused !== undefined) && !warned.has(entry)) {
    warned.add(entry);
    const messages =
      compiled.refused === undefined
        ? compiled.warnings
        : [
            `its parameters schema could not be compiled (${compiled.refused}); every call is refused`,
          ];
    for (const message of messages) {
      report(new Error(`Tool "${entry.name}": ${message}`), { kind: 'schema', tool: entry.name });
    }
  }
  return compiled;
};

/**
 * The stage *validate the arguments*: the JSON check, which makes the deep-frozen copy that
 * everything after it sees (the validator, the interceptors, the body), then the tool's Standard
 * Schema validator or its compiled `parameters`. Synchronous unless a Standard Schema validator
 * answers with a promise. `preface` names who wrote the arguments when an interceptor rewrote them.
 */
export function validateArguments(
  entry: RegisteredTool,
  callId: string,
  args: unknown,
  report: Report,
  preface?: string,
): ToolExecutionResult | Checked | Promise<ToolExecutionResult | Checked> {
  const standard = entry.inputValidator;
  let json: ReturnType<typeof copyJson>;
  try {
    // A Standard Schema validator gets its own unfrozen copy (some apply defaults in place);
    // its output is frozen instead.
    json = copyJson(args, standard === undefined);
  } catch (error) {
    // A Proxy whose traps throw: nothing a model can send, so nothing to run.
    return errorResult(
      callId,
      Codes.INVALID_ARGS,
      `Tool "${entry.name}": the arguments could not be read (${messageOf(error)}); send plain JSON.`,
    );
  }
  if (!json.ok) return invalidArgs(callId, entry.name, json, preface);
  const copy = json.value as ToolArgs;
  if (standard) {
    return runStandardSchema(standard, copy).then(
      (check: ArgsCheck) =>
        check.ok
          ? { value: freezePlain(check.value) as ToolArgs }
          : invalidArgs(callId, entry.name, check, preface),
      (error) =>
        errorResult(
          callId,
          Codes.TOOL_ERROR,
          `Tool "${entry.name}": its input validator threw (${messageOf(error)}). This is a bug in the tool, not in the call.`,
        ),
    );
  }
  const ready = entry.compiled?.ready;
  // A big schema may still be compiling on the worker: the call waits for it.
  return ready
    ? ready.then(() => checkCompiled(entry, callId, copy, report, preface))
    : checkCompiled(entry, callId, copy, report, preface);
}

/** Validates the JSON-checked copy against the tool's compiled `parameters` (fail closed). */
function checkCompiled(
  entry: RegisteredTool,
  callId: string,
  copy: ToolArgs,
  report: Report,
  preface: string | undefined,
): ToolExecutionResult | Checked {
  const compiled = compiledFor(entry, report);
  if (!compiled || compiled.refused !== undefined) {
    return errorResult(
      callId,
      Codes.INVALID_ARGS,
      `Tool "${entry.name}": its parameters schema cannot be enforced${compiled ? ` (${compiled.refused})` : ''}, so no call to it runs. Fix the tool's schema.`,
    );
  }
  try {
    const failure = compiled.validate(copy);
    return failure ? invalidArgs(callId, entry.name, failure, preface) : { value: copy };
  } catch (error) {
    return errorResult(
      callId,
      Codes.INVALID_ARGS,
      `Tool "${entry.name}": the arguments could not be validated (${messageOf(error)}). Send simpler arguments.`,
    );
  }
}
