import {
  type ApprovalDecision,
  type ContentBlock,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type TextContent,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { quoteValue, type ResolvedHook } from './config';
import { effectiveDecision, mergeDecisions } from './merge';
import { readOptions } from './options';
import { type HookOutcome, interpretHookRun } from './output';
import { runHookProcess } from './run-hook';
import type {
  HookDecision,
  HookDenialDetails,
  HookEvent,
  HookFeedbackMeta,
  HookRunRecord,
  HooksInterceptorOptions,
} from './types';

/** The `_meta` key of the blocks this package appends to a result. */
export const HOOKS_META_KEY = 'dsh-tools/hooks';

const RECORD_TEXT_LIMIT = 8192;

/** One hook's run for one call: its record and what it said. */
interface HookRun {
  readonly hook: ResolvedHook;
  readonly outcome: HookOutcome;
  readonly decision: HookDecision;
  readonly record: HookRunRecord;
}

const clip = (text: string): string =>
  text.length > RECORD_TEXT_LIMIT ? `${text.slice(0, RECORD_TEXT_LIMIT)}…` : text;

/** How a message names a hook: its command (shortened) and where it was configured. */
const describeHook = (hook: ResolvedHook): string =>
  `${hook.event} hook ${quoteValue(hook.command, 120)} (${hook.path} in ${hook.source})`;

/**
 * Hooks whose command is identical run once per call, as in Claude Code. The copy that runs is
 * the first; it blocks on failure if any copy says so, and gets the longest timeout of them.
 */
const dedupe = (hooks: readonly ResolvedHook[]): ResolvedHook[] => {
  const byCommand = new Map<string, ResolvedHook>();
  for (const hook of hooks) {
    const seen = byCommand.get(hook.command);
    if (seen === undefined) {
      byCommand.set(hook.command, hook);
    } else if (
      (hook.onError === 'block' && seen.onError !== 'block') ||
      hook.timeoutSeconds > seen.timeoutSeconds
    ) {
      byCommand.set(hook.command, {
        ...seen,
        onError: hook.onError === 'block' ? 'block' : seen.onError,
        timeoutSeconds: Math.max(hook.timeoutSeconds, seen.timeoutSeconds),
      });
    }
  }
  return [...byCommand.values()];
};

const feedbackBlock = (text: string, meta: HookFeedbackMeta): TextContent => ({
  type: 'text',
  text,
  ...(meta.kind === 'context' && { annotations: { audience: ['assistant'] } }),
  _meta: { [HOOKS_META_KEY]: meta },
});

const isApprovalDecision = (value: unknown): value is ApprovalDecision => {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, reason } = value as { kind?: unknown; reason?: unknown };
  return (
    kind === 'allow' || (kind === 'deny' && (reason === undefined || typeof reason === 'string'))
  );
};

const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
};

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

  const report = (record: HookRunRecord) => {
    if (settings.onHookRun === undefined) return;
    try {
      settings.onHookRun(record);
    } catch {
      // An observer's failure must not change the call's outcome.
    }
  };

  const runAll = async (
    event: HookEvent,
    selected: readonly ResolvedHook[],
    exec: InterceptedExecution,
    toolInput: unknown,
    toolResponse?: unknown,
  ): Promise<HookRun[]> => {
    const input = JSON.stringify({
      session_id: settings.sessionId,
      transcript_path: settings.transcriptPath,
      cwd: settings.cwd,
      permission_mode: settings.permissionMode,
      hook_event_name: event,
      tool_name: exec.name,
      tool_input: toolInput,
      tool_use_id: exec.callId,
      ...(event === 'PostToolUse' && { tool_response: toolResponse }),
    });
    return Promise.all(
      selected.map(async (hook): Promise<HookRun> => {
        const raw = await runHookProcess({
          command: hook.command,
          cwd: settings.cwd,
          env: settings.env,
          input,
          timeoutMs: hook.timeoutSeconds * 1000,
          maxOutputBytes: settings.maxOutputBytes,
          signal: exec.signal,
        });
        const outcome = interpretHookRun(event, raw);
        const decision = effectiveDecision(event, hook.onError, outcome);
        const { matches: _, ...identity } = hook;
        const stderr = raw.stderr.trim();
        const record: HookRunRecord = deepFreeze({
          callId: exec.callId,
          tool: exec.name,
          hook: identity,
          status: outcome.status,
          decision,
          durationMs: raw.durationMs,
          exitCode: raw.exitCode,
          exitSignal: raw.exitSignal,
          rewrote: outcome.updatedInput !== undefined,
          ...(outcome.reason !== undefined && { reason: outcome.reason }),
          ...(outcome.failure !== undefined && { failure: outcome.failure }),
          ...(outcome.additionalContext !== undefined && {
            additionalContext: outcome.additionalContext,
          }),
          ...(outcome.systemMessage !== undefined && { systemMessage: outcome.systemMessage }),
          ...(outcome.stop !== undefined && { stop: { ...outcome.stop } }),
          ...(outcome.suppressOutput !== undefined && { suppressOutput: outcome.suppressOutput }),
          ...(outcome.plainOutput !== undefined && { stdout: clip(outcome.plainOutput) }),
          ...(stderr !== '' && { stderr: clip(stderr) }),
        });
        report(record);
        return { hook, outcome, decision, record };
      }),
    );
  };

  /** Why one run denies or blocks, in a line a person and the model read. */
  const objection = (run: HookRun): string => {
    const { hook, outcome } = run;
    if (outcome.status === 'failed' || outcome.status === 'aborted') {
      const what = hook.event === 'PreToolUse' ? 'the call' : 'the result';
      return `${describeHook(hook)} ${outcome.failure}; with "onError": "block" a failed hook blocks ${what} (fix the hook, or set "onError": "allow" on it to let ${what} through when it fails)`;
    }
    if (outcome.stop !== undefined && outcome.decision !== 'deny') {
      return `${describeHook(hook)} stopped the agent ("continue": false)${
        outcome.stop.reason === undefined ? '' : `: ${outcome.stop.reason}`
      }`;
    }
    return `${describeHook(hook)}: ${outcome.reason ?? 'no reason given'}`;
  };

  const denial = (
    exec: InterceptedExecution,
    event: HookEvent,
    kind: HookDenialDetails['reason'],
    message: string,
    runs: readonly HookRun[],
  ): ToolExecutionResult => {
    const stop = runs.find((run) => run.outcome.stop !== undefined)?.outcome.stop;
    const details: HookDenialDetails = {
      event,
      reason: kind,
      hooks: runs.map((run) => run.record),
      ...(stop !== undefined && { stop }),
    };
    return errorResult(exec.callId, 'DENIED', message, details);
  };

  const ask = async (
    exec: InterceptedExecution,
    askers: readonly HookRun[],
    runs: readonly HookRun[],
    rewritten: InterceptedExecution | undefined,
  ): Promise<ToolExecutionResult | undefined> => {
    const first = askers[0]!;
    const reasons = askers.map(
      (run) => `${describeHook(run.hook)}: ${run.outcome.reason ?? 'asks for approval'}`,
    );
    const reason = `${reasons.join('; ')}${
      rewritten === undefined ? '' : ' (the arguments shown are the ones a hook rewrote them to)'
    }`;
    const { approve } = settings;
    if (approve === undefined) {
      return denial(
        exec,
        'PreToolUse',
        'ask',
        `Tool "${exec.name}" needs approval, but no approver is configured: ${reason}. Pass "approve" to hooksInterceptor, or have the hook answer "allow" or "deny".`,
        runs,
      );
    }
    const controller = new AbortController();
    const onAbort = () => controller.abort(exec.signal?.reason);
    exec.signal?.addEventListener('abort', onAbort, { once: true });
    if (exec.signal?.aborted) onAbort();
    let timer: NodeJS.Timeout | undefined;
    try {
      const stop = new Promise<'aborted' | 'timeout'>((resolve) => {
        if (controller.signal.aborted) resolve('aborted');
        controller.signal.addEventListener(
          'abort',
          () => resolve(exec.signal?.aborted ? 'aborted' : 'timeout'),
          { once: true },
        );
        if (settings.approveTimeoutMs > 0) {
          timer = setTimeout(
            () => controller.abort(new Error('approval timed out')),
            settings.approveTimeoutMs,
          );
        }
      });
      let answer: unknown;
      try {
        answer = await Promise.race([
          Promise.resolve().then(() =>
            approve({
              exec: rewritten ?? exec,
              tool: exec.tool,
              asker: 'hooks',
              reason,
              rule: first.hook.command,
              ruleSource: `${first.hook.path} in ${first.hook.source}`,
              signal: controller.signal,
            }),
          ),
          stop,
        ]);
      } catch (error) {
        controller.abort(error);
        return denial(
          exec,
          'PreToolUse',
          'ask',
          `Tool "${exec.name}" was not approved: the approver failed (${
            error instanceof Error ? error.message : String(error)
          }), so the call is denied (fail closed). It was asked because ${reason}.`,
          runs,
        );
      }
      if (answer === 'aborted') {
        return errorResult(
          exec.callId,
          'ABORTED',
          `Tool "${exec.name}" was aborted while waiting for approval asked by a PreToolUse hook.`,
        );
      }
      if (answer === 'timeout') {
        return denial(
          exec,
          'PreToolUse',
          'ask',
          `Tool "${exec.name}" was not approved: no answer came within ${settings.approveTimeoutMs} ms, so the call is denied (fail closed). It was asked because ${reason}. Ask the user before trying again.`,
          runs,
        );
      }
      if (!isApprovalDecision(answer)) {
        return denial(
          exec,
          'PreToolUse',
          'ask',
          `Tool "${exec.name}" was not approved: the approver answered ${quoteValue(answer)} instead of { kind: "allow" } or { kind: "deny", reason? } (${reason}).`,
          runs,
        );
      }
      if (answer.kind === 'deny') {
        return denial(
          exec,
          'PreToolUse',
          'ask',
          `Tool "${exec.name}" was not approved${answer.reason === undefined ? '' : `: ${answer.reason}`} (asked by ${reasons.join('; ')}).`,
          runs,
        );
      }
      return undefined;
    } finally {
      clearTimeout(timer);
      exec.signal?.removeEventListener('abort', onAbort);
    }
  };

  const contextEntries = (runs: readonly HookRun[]): HookFeedbackMeta['entries'] =>
    runs.flatMap((run) =>
      run.outcome.additionalContext === undefined || run.outcome.additionalContext.trim() === ''
        ? []
        : [
            {
              event: run.hook.event,
              command: run.hook.command,
              source: run.hook.source,
              text: run.outcome.additionalContext,
            },
          ],
    );

  const pre = async (
    exec: InterceptedExecution,
    selected: readonly ResolvedHook[],
  ): Promise<
    | { readonly result: ToolExecutionResult }
    | { readonly next: InterceptedExecution | undefined; readonly runs: readonly HookRun[] }
  > => {
    const runs = await runAll('PreToolUse', selected, exec, exec.arguments);
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
      const refused = await ask(
        exec,
        runs.filter((run) => run.decision === 'ask'),
        runs,
        rewritten,
      );
      if (refused !== undefined) return { result: refused };
    }
    return { next: rewritten, runs };
  };

  const post = async (
    exec: InterceptedExecution,
    result: ToolExecutionResult,
    selected: readonly ResolvedHook[],
    preContexts: HookFeedbackMeta['entries'],
  ): Promise<ToolExecutionResult> => {
    let runs: HookRun[] = [];
    if (selected.length > 0 && !result.isError && !exec.signal?.aborted) {
      const toolInput = result.arguments?.effective ?? exec.arguments;
      const toolResponse = result.structuredContent ?? result.content;
      runs = await runAll('PostToolUse', selected, exec, toolInput, toolResponse);
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
        const outcome = await pre(exec, selectedPre);
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
      return await post(exec, result, selectedPost, preContexts);
    } catch {
      // The tool has run: its result stands even if reading the PostToolUse hooks went wrong.
      return result;
    }
  };
};
