import {
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { askApprover } from './approval';
import type { ResolvedHook } from './config';
import {
  deepFreeze,
  denial,
  describeHook,
  type HookRun,
  objection,
  type RunHooks,
} from './hook-runs';
import { mergeDecisions } from './merge';
import type { Settings } from './options';
import type { HookDenialDetails } from './types';

/** What the PreToolUse phase decided: a final result, or the call to forward (rewritten or not). */
export type PreToolUseOutcome =
  | { readonly result: ToolExecutionResult }
  | { readonly next: InterceptedExecution | undefined; readonly runs: readonly HookRun[] };

/**
 * Runs the PreToolUse hooks of one call and merges their answers (deny > ask > allow): a denial,
 * an abort or a conflict between rewrites ends the call; an `ask` goes to the approver; otherwise
 * the call goes on, with the one hook's `updatedInput` merged over its arguments.
 */
export const runPreToolUse = async (
  settings: Settings,
  runHooks: RunHooks,
  exec: InterceptedExecution,
  selected: readonly ResolvedHook[],
): Promise<PreToolUseOutcome> => {
  const runs = await runHooks('PreToolUse', selected, exec, exec.arguments);
  if (exec.signal?.aborted) {
    return {
      result: errorResult(
        exec.callId,
        'ABORTED',
        `Tool "${exec.name}" was aborted while its PreToolUse hooks ran.`,
        {
          event: 'PreToolUse',
          reason: 'aborted',
          hooks: runs.map((run) => run.record),
        } satisfies HookDenialDetails,
      ),
    };
  }
  const merged = mergeDecisions(runs.map((run) => run.decision));
  if (merged === 'deny') {
    const lines = runs.filter((run) => run.decision === 'deny').map(objection);
    return {
      result: denial(
        exec,
        'PreToolUse',
        'deny',
        `Tool "${exec.name}" was denied by ${lines.length === 1 ? lines[0] : `${lines.length} hooks: ${lines.join('; ')}`}`,
        runs,
      ),
    };
  }
  const rewriters = runs.filter((run) => run.outcome.updatedInput !== undefined);
  if (rewriters.length > 1) {
    return {
      result: denial(
        exec,
        'PreToolUse',
        'conflict',
        `Tool "${exec.name}" was denied: ${rewriters.length} PreToolUse hooks rewrote its arguments (${rewriters
          .map((run) => describeHook(run.hook))
          .join(
            ' and ',
          )}), and rewrites are never merged. Make one hook responsible for rewriting this tool's input.`,
        runs,
      ),
    };
  }
  // Claude Code documents updatedInput as "the fields you want to change or add": they go over
  // the original arguments (shallow), so a hook that prints only what it changes keeps the rest,
  // and one that prints the whole input works the same.
  const rewritten =
    rewriters[0] === undefined
      ? undefined
      : {
          ...exec,
          arguments: deepFreeze({
            ...exec.arguments,
            ...structuredClone(rewriters[0].outcome.updatedInput!),
          }),
        };
  if (merged === 'ask') {
    const refused = await askApprover(
      settings,
      exec,
      runs.filter((run) => run.decision === 'ask'),
      runs,
      rewritten,
    );
    if (refused !== undefined) return { result: refused };
  }
  return { next: rewritten, runs };
};
