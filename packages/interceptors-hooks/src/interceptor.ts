import { quoteValue } from '@dsh-tools/policy-kit';
import {
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { ResolvedHook } from './config';
import { contextEntries, createHookRunner, dedupe } from './hook-runs';
import { readOptions } from './options';
import { runPostToolUse } from './post-tool-use';
import { runPreToolUse } from './pre-tool-use';
import type { HookFeedbackMeta, HooksInterceptorOptions } from './types';

export { HOOKS_META_KEY } from './result-feedback';

/**
 * Runs Claude Code's PreToolUse and PostToolUse command hooks around every tool call, so that
 * hook scripts written for Claude Code run unchanged, with three differences users asked for: a
 * PreToolUse hook that crashes, hangs or answers garbage denies the call (per hook `onError`),
 * several hooks rewriting one call is a denial instead of a lost rewrite, and a rewrite continues
 * through `next()` so that the registry validates it again and inner policies judge what will
 * actually run. Throws a `TypeError` (or a `SyntaxError` for a bad matcher) on bad options; the
 * interceptor itself never throws.
 */
export const hooksInterceptor = (options: HooksInterceptorOptions): Interceptor => {
  const settings = readOptions(options);
  const { hooks } = settings;
  const runHooks = createHookRunner(settings);

  return async (exec, next) => {
    let selectedPre: ResolvedHook[];
    let selectedPost: ResolvedHook[];
    try {
      const { name } = exec;
      if (typeof name !== 'string') throw new TypeError(`the call's name is ${quoteValue(name)}`);
      selectedPre = dedupe(hooks.PreToolUse.filter((hook) => hook.matches(name)));
      selectedPost = dedupe(hooks.PostToolUse.filter((hook) => hook.matches(name)));
    } catch (error) {
      // Only a call that did not come through a registry gets here; it still gets a result.
      let callId = '';
      try {
        callId = String(exec.callId);
      } catch {}
      return errorResult(
        callId,
        'INTERCEPTOR_ERROR',
        `The hooks interceptor could not read the call (${error instanceof Error ? error.message : String(error)}); it is blocked. Run calls through a registry, which validates them.`,
      );
    }
    if (selectedPre.length === 0 && selectedPost.length === 0) return next();

    let forward: InterceptedExecution | undefined;
    let preContexts: HookFeedbackMeta['entries'] = [];
    if (selectedPre.length > 0) {
      try {
        const outcome = await runPreToolUse(settings, runHooks, exec, selectedPre);
        if ('result' in outcome) return outcome.result;
        forward = outcome.next;
        preContexts = contextEntries(outcome.runs);
      } catch (error) {
        return errorResult(
          exec.callId,
          'INTERCEPTOR_ERROR',
          `The PreToolUse hooks of tool "${exec.name}" could not be run (${error instanceof Error ? error.message : String(error)}); the call is blocked.`,
        );
      }
    }
    let result: ToolExecutionResult;
    try {
      result = await next(forward);
    } catch (error) {
      return errorResult(
        exec.callId,
        'INTERCEPTOR_ERROR',
        `Tool "${exec.name}" failed inside the hooks interceptor (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
    try {
      return await runPostToolUse(runHooks, exec, result, selectedPost, preContexts);
    } catch {
      // The tool has run: its result stands even if reading the PostToolUse hooks went wrong.
      return result;
    }
  };
};
