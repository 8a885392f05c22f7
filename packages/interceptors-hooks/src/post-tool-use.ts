import type { ContentBlock, InterceptedExecution, ToolExecutionResult } from '@dsh-tools/protocol';
import type { ResolvedHook } from './config';
import { contextEntries, type HookRun, objection, type RunHooks } from './hook-runs';
import { feedbackBlock } from './result-feedback';
import type { HookDenialDetails, HookFeedbackMeta } from './types';

/**
 * Runs the PostToolUse hooks after a successful call and decorates its result: a blocking hook
 * turns it into a `DENIED` error (the content stays, with the hook's reason appended), and the
 * `additionalContext` of both phases is appended as one block addressed to the model.
 */
export const runPostToolUse = async (
  runHooks: RunHooks,
  exec: InterceptedExecution,
  result: ToolExecutionResult,
  selected: readonly ResolvedHook[],
  preContexts: HookFeedbackMeta['entries'],
): Promise<ToolExecutionResult> => {
  let runs: HookRun[] = [];
  if (selected.length > 0 && !result.isError && !exec.signal?.aborted) {
    const toolInput = result.arguments?.effective ?? exec.arguments;
    const toolResponse = result.structuredContent ?? result.content;
    runs = await runHooks('PostToolUse', selected, exec, toolInput, toolResponse);
  }
  const contexts = [...preContexts, ...contextEntries(runs)];
  const blockers = runs.filter((run) => run.decision === 'block');
  if (contexts.length === 0 && blockers.length === 0) return result;
  const extra: ContentBlock[] = [];
  let error: ToolExecutionResult['error'];
  if (blockers.length > 0) {
    const lines = blockers.map(objection);
    const message = `The result of tool "${exec.name}" was blocked by ${
      lines.length === 1 ? lines[0] : `${lines.length} hooks: ${lines.join('; ')}`
    }`;
    const details: HookDenialDetails = {
      event: 'PostToolUse',
      reason: 'block',
      hooks: runs.map((run) => run.record),
    };
    error = { code: 'DENIED', message, details };
    extra.push(
      feedbackBlock(`Error: ${message}`, {
        kind: 'block',
        entries: blockers.map((run) => ({
          event: 'PostToolUse',
          command: run.hook.command,
          source: run.hook.source,
          text: run.outcome.reason ?? run.outcome.failure ?? '',
        })),
      }),
    );
  }
  if (contexts.length > 0) {
    extra.push(
      feedbackBlock(
        contexts
          .map((entry) => `Additional context from a ${entry.event} hook:\n${entry.text}`)
          .join('\n\n'),
        { kind: 'context', entries: contexts },
      ),
    );
  }
  return {
    ...result,
    content: [...result.content, ...extra],
    ...(error !== undefined && { isError: true, error }),
  };
};
