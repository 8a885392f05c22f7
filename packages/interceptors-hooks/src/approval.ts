import { quoteValue } from '@dsh-tools/policy-kit';
import {
  type ApprovalDecision,
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { denial, describeHook, type HookRun } from './hook-runs';
import type { Settings } from './options';

const isApprovalDecision = (value: unknown): value is ApprovalDecision => {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, reason } = value as { kind?: unknown; reason?: unknown };
  return (
    kind === 'allow' || (kind === 'deny' && (reason === undefined || typeof reason === 'string'))
  );
};

/**
 * Asks the configured approver about a call that PreToolUse hooks answered `ask`, showing it the
 * rewritten arguments when a hook rewrote them. Returns the refusal (no approver, a failure, a
 * timeout, an abort, a malformed answer or a deny: fail closed), or `undefined` when allowed.
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
