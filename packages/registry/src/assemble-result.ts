import type { ToolExecutionResult } from '@dsh-tools/protocol';
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
