import {
  ToolErrorCode as Codes,
  errorResult,
  type ToolArgs,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { messageOf, quote } from './describe';
import { copyJson, freezePlain, type Violation } from './json-check';
import type { Checked, RegisteredTool, Report } from './types';
import { type ArgsCheck, type Compiled, compileParameters, runStandardSchema } from './validation';

const formatViolations = (violations: readonly Violation[], more: number): string => {
  const parts = violations.map((v) =>
    v.path === ''
      ? `the arguments ${v.message}`
      : `argument ${quote(v.path.slice(1))} ${v.message}`,
  );
  if (more > 0) parts.push(`and ${more} more`);
  return parts.join('; ');
};

/** `INVALID_ARGS` listing every violation with its path, so a model fixes its call in one retry. */
export const invalidArgs = (
  callId: string,
  tool: string,
  check: { readonly violations: readonly Violation[]; readonly more: number },
  preface = 'invalid arguments',
): ToolExecutionResult =>
  errorResult(
    callId,
    Codes.INVALID_ARGS,
    `Tool "${tool}": ${preface}: ${formatViolations(check.violations, check.more)}. Fix the call and retry.`,
    { violations: check.violations, more: check.more },
  );

/**
 * The tool's compiled `parameters`: compiled on its first call and cached on the entry, or `null`
 * (reported once) when the engine cannot compile them, and the tool runs unvalidated.
 */
const compiledFor = (entry: RegisteredTool, report: Report): Compiled | null => {
  if (entry.compiled === undefined) {
    const warn = (message: string) =>
      report(new Error(`Tool "${entry.name}": ${message}`), { kind: 'schema', tool: entry.name });
    const outcome = compileParameters(entry.schema.parameters, warn);
    if ('error' in outcome) {
      entry.compiled = null;
      report(
        new Error(
          `Tool "${entry.name}": its parameters schema could not be compiled (${outcome.error}); calls to it run without argument validation. Fix the schema to validate them.`,
        ),
        { kind: 'schema', tool: entry.name },
      );
    } else {
      entry.compiled = outcome;
      // Compiled for a call that outlived its tool: usable for that call, owned by no one.
      if (entry.disposed) outcome.release();
    }
  }
  return entry.compiled;
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
  const compiled = compiledFor(entry, report);
  if (!compiled) return { value: copy };
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
