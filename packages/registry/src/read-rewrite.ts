import type { InterceptedExecution, ToolArgs, ToolExecutionResult } from '@dsh-tools/protocol';
import { isRecord, kindOf, messageOf } from './describe';
import { readExtensions } from './extensions';
import { invalidArgs, keep, misuse } from './results';
import type { Checked, Extensions, Hop } from './types';

/**
 * Checks an interceptor's `next(changed)` (part of *run the interceptors*): each field of `changed` read once;
 * `callId` and `name` must not change and `agent` must be a string (else misuse, failing the call
 * closed); extension fields pass on as they are; the arguments are copied, frozen and validated
 * again like the model's, by the call itself (`state.validate`; `INVALID_ARGS` naming the interceptor). `tool` and `signal` stay the
 * registry's. Answers the next step's execution, or the result `next()` resolves with instead.
 */
export function readRewrite(
  changed: unknown,
  from: Hop,
  by: string,
): Hop | ToolExecutionResult | Promise<Hop | ToolExecutionResult> {
  const { exec, state } = from;
  let callId: unknown;
  let name: unknown;
  let args: unknown;
  let agent: unknown;
  let extensions: Extensions | string | undefined;
  try {
    if (!isRecord(changed)) {
      throw new TypeError(`next() was given ${kindOf(changed)}, not an execution`);
    }
    callId = changed.callId;
    name = changed.name;
    args = changed.arguments;
    agent = changed.agent;
    extensions = readExtensions(changed);
  } catch (error) {
    return misuse(
      state,
      exec,
      by,
      `passed an unreadable execution to next() (${messageOf(error)})`,
    );
  }
  if (callId !== exec.callId || name !== exec.name) {
    return misuse(
      state,
      exec,
      by,
      'changed the callId or the tool name in next(); only arguments, agent and extension fields may change',
    );
  }
  if (typeof extensions === 'string') {
    return misuse(state, exec, by, `passed next() an execution whose ${extensions}`);
  }
  const fields = extensions;
  /** The next step's execution: the registry's own fields over the extension fields. */
  const passOn = (passed: ToolArgs): Hop => {
    const own = {
      callId: exec.callId,
      name: exec.name,
      arguments: passed,
      ...(agent !== undefined && { agent }),
      ...(exec.signal !== undefined && { signal: exec.signal }),
      tool: exec.tool,
    };
    const next: InterceptedExecution = Object.freeze(
      fields === undefined ? own : { ...fields, ...own },
    );
    return { exec: next, extensions: fields, state };
  };
  // The same deep-frozen copy the registry validated (`next({ ...exec, sandbox })` attaching an
  // extension): nothing to validate again, and the call's arguments were not rewritten.
  if (args === exec.arguments) return passOn(exec.arguments);
  const preface = `interceptor "${by}" rewrote the arguments, and they are invalid`;
  if (!isRecord(args)) {
    return keep(
      state,
      invalidArgs(
        exec.callId,
        state.entry.name,
        {
          violations: [{ path: '', message: `must be a JSON object (got ${kindOf(args)})` }],
          more: 0,
        },
        preface,
      ),
    );
  }
  const settle = (checked: ToolExecutionResult | Checked): Hop | ToolExecutionResult => {
    if (!('value' in checked)) return keep(state, checked);
    state.effective = checked.value;
    return passOn(checked.value as ToolArgs);
  };
  const checked = state.validate(args, preface);
  return checked instanceof Promise ? checked.then(settle) : settle(checked);
}
