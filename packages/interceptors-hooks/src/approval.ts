import { askApprover as putToApprover, quoteValue } from '@dsh-tools/policy-kit';
import {
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { denial, describeHook, type HookRun } from './hook-runs';
import type { Settings } from './options';

/**
 * Asks the configured approver about a call that PreToolUse hooks answered `ask`, showing it the
 * rewritten arguments when a hook rewrote them, through the policy kit's approver loop. Returns the
 * refusal (no approver, a failure, a timeout, an abort, a malformed answer or a deny: fail
 * closed), or `undefined` when allowed.
 */
export const askApprover = async (
  settings: Settings,
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
  const outcome = await putToApprover(
    approve,
    {
      exec: rewritten ?? exec,
      tool: exec.tool,
      asker: 'hooks',
      reason,
      rule: first.hook.command,
      ruleSource: `${first.hook.path} in ${first.hook.source}`,
    },
    { timeoutMs: settings.approveTimeoutMs, signal: exec.signal },
  );
  switch (outcome.kind) {
    case 'allow':
      return undefined;
    case 'aborted':
      return errorResult(
        exec.callId,
        'ABORTED',
        `Tool "${exec.name}" was aborted while waiting for approval asked by a PreToolUse hook.`,
      );
    case 'failed':
      return denial(
        exec,
        'PreToolUse',
        'ask',
        `Tool "${exec.name}" was not approved: the approver failed (${
          outcome.error instanceof Error ? outcome.error.message : String(outcome.error)
        }), so the call is denied (fail closed). It was asked because ${reason}.`,
        runs,
      );
    case 'timeout':
      return denial(
        exec,
        'PreToolUse',
        'ask',
        `Tool "${exec.name}" was not approved: no answer came within ${settings.approveTimeoutMs} ms, so the call is denied (fail closed). It was asked because ${reason}. Ask the user before trying again.`,
        runs,
      );
    case 'malformed':
      return denial(
        exec,
        'PreToolUse',
        'ask',
        `Tool "${exec.name}" was not approved: the approver answered ${quoteValue(outcome.answer)} instead of { kind: "allow" } or { kind: "deny", reason? } (${reason}).`,
        runs,
      );
    case 'deny':
      return denial(
        exec,
        'PreToolUse',
        'ask',
        `Tool "${exec.name}" was not approved${outcome.reason === undefined ? '' : `: ${outcome.reason}`} (asked by ${reasons.join('; ')}).`,
        runs,
      );
  }
};
