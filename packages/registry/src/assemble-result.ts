import {
  ToolErrorCode as Codes,
  errorResult,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { messageOf, quote } from './describe';
import { freezeResult } from './results';
import type { CallState } from './types';

/**
 * The stage *assemble the result*: the first interceptor misuse, if any, replaces whatever the chain
 * produced (fail closed, even when an outer interceptor would have turned it into a success); a
 * call whose arguments an interceptor rewrote carries `arguments: { original, effective }`; and
 * the result is frozen, so that no observer can change what the others, and the caller, see.
 */
export function assembleResult(
  state: CallState,
  produced: ToolExecutionResult,
): ToolExecutionResult {
  let result = state.misuse ?? produced;
  if (state.effective !== state.original && result.arguments === undefined) {
    result = {
      ...result,
      arguments: Object.freeze({ original: state.original, effective: state.effective }),
    };
  }
  return freezeResult(result);
}

/**
 * The result of a failure inside the registry itself (a bug, or a hostile object that slipped
 * past every check): the call keeps its callId when it was read, and says so.
 */
export const internalErrorResult = (
  exec: ToolExecution,
  where: string,
  error: unknown,
): ToolExecutionResult =>
  errorResult(
    exec.callId,
    Codes.TOOL_ERROR,
    `${where}: internal error in the registry${exec.name ? ` (tool ${quote(exec.name)})` : ''}: ${messageOf(error)}. Whether the tool ran is unknown; please report this bug to @dsh-tools/registry.`,
  );
