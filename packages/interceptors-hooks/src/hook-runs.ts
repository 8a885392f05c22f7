import { quoteValue } from '@dsh-tools/policy-kit';
import {
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { ResolvedHook } from './config';
import { effectiveDecision } from './merge';
import type { Settings } from './options';
import { type HookOutcome, interpretHookRun } from './output';
import { runHookProcess } from './run-hook';
import type {
  HookDecision,
  HookDenialDetails,
  HookEvent,
  HookFeedbackMeta,
  HookRunRecord,
} from './types';

const RECORD_TEXT_LIMIT = 8192;

/** One hook's run for one call: its record and what it said. */
export interface HookRun {
  readonly hook: ResolvedHook;
  readonly outcome: HookOutcome;
  readonly decision: HookDecision;
  readonly record: HookRunRecord;
}

/**
 * Runs the selected hooks of one event for one call, in parallel, and reports each record; the
 * phases take it as a function so that they share the settings and the observer without a cycle.
 */
export type RunHooks = (
  event: HookEvent,
  selected: readonly ResolvedHook[],
  exec: InterceptedExecution,
  toolInput: unknown,
  toolResponse?: unknown,
) => Promise<HookRun[]>;

const clip = (text: string): string =>
  text.length > RECORD_TEXT_LIMIT ? `${text.slice(0, RECORD_TEXT_LIMIT)}…` : text;

/** How a message names a hook: its command (shortened) and where it was configured. */
export const describeHook = (hook: ResolvedHook): string =>
  `${hook.event} hook ${quoteValue(hook.command, 120)} (${hook.path} in ${hook.source})`;

/**
 * Hooks whose command is identical run once per call, as in Claude Code. The copy that runs is
 * the first; it blocks on failure if any copy says so, and gets the longest timeout of them.
 */
export const dedupe = (hooks: readonly ResolvedHook[]): ResolvedHook[] => {
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

/** Freezes a record or rewritten input all the way down, so no later stage can change it. */
export const deepFreeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value;
};

/**
 * Binds the hook runner to the interceptor's settings: it writes Claude Code's stdin object, runs
 * each hook's process, interprets its output and hands a frozen record to `onHookRun`.
 */
export const createHookRunner = (settings: Settings): RunHooks => {
  const report = (record: HookRunRecord) => {
    if (settings.onHookRun === undefined) return;
    try {
      settings.onHookRun(record);
    } catch {
      // An observer's failure must not change the call's outcome.
    }
  };

  return async (event, selected, exec, toolInput, toolResponse) => {
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
};

/** Why one run denies or blocks, in a line a person and the model read. */
export const objection = (run: HookRun): string => {
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

/** A `DENIED` result whose details carry every run's record, and the stop request if any. */
export const denial = (
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

/** The non-blank `additionalContext` the runs returned, in the order the hooks were selected. */
export const contextEntries = (runs: readonly HookRun[]): HookFeedbackMeta['entries'] =>
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
