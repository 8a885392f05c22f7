import type { ApprovalDecision, ApprovalGrant, InterceptedExecution } from '@dsh-tools/protocol';
import { describeOrigin } from '../decide/rules';
import type { PermissionDecision, PermissionOptions } from '../types';

/** The rule that decided, when a rule did. */
export const ruleText = (decision: PermissionDecision): string | undefined =>
  decision.decidedBy.kind === 'rule' ? decision.decidedBy.rule : undefined;

/** The message a denied call carries: what denied it, and what the model or the user can do next. */
export const denialMessage = (exec: InterceptedExecution, decision: PermissionDecision): string => {
  const tool = JSON.stringify(exec.name);
  if (decision.decidedBy.kind === 'rule' && decision.decidedBy.origin.list === 'deny') {
    return `Permission denied for tool ${tool}: ${decision.reason}. Do not retry this call or try to get around the rule; if it is needed, ask the user to change rule ${JSON.stringify(decision.decidedBy.rule)} in ${describeOrigin(decision.decidedBy.origin)}.`;
  }
  if (decision.mode === 'plan' && decision.decidedBy.kind === 'mode') {
    return `Tool ${tool} cannot run: the session is in plan mode, where only read-only tools run and nothing is changed. Finish the plan and present it; the user leaves plan mode by switching the permission mode (for example to "default" or "acceptEdits") before it is carried out.`;
  }
  if (decision.mode === 'plan') {
    return `Tool ${tool} cannot run in plan mode without asking, and plan mode never asks: ${decision.reason}. Present the plan; the user leaves plan mode to carry it out.`;
  }
  return `Permission denied for tool ${tool}: ${decision.reason}. To run it, the user can add an allow rule for it or switch to a mode that asks.`;
};

/** What the person asked answered: allow (with a grant to keep, or none), deny, or the call was aborted. */
export type Answer =
  | { kind: 'allow'; grant?: ApprovalGrant }
  | { kind: 'deny'; message: string }
  | { kind: 'aborted' };

/**
 * Asks the host's approver about calls, one question at a time (asks wait in one line, so a person
 * sees one question at a time), each bounded by `approveTimeoutMs` and the call's abort signal.
 * Reads `options.approve` at each ask, as the interceptor always has.
 */
export function createAskPerson(
  options: PermissionOptions,
  approveTimeoutMs: number,
): (exec: InterceptedExecution, decision: PermissionDecision) => Promise<Answer> {
  let queue: Promise<void> = Promise.resolve();
  return async (exec: InterceptedExecution, decision: PermissionDecision): Promise<Answer> => {
    const approve = options.approve;
    const tool = JSON.stringify(exec.name);
    if (typeof approve !== 'function') {
      return {
        kind: 'deny',
        message: `Permission denied for tool ${tool}: it needs approval (${decision.reason}), but no approver is configured, so it is denied (fail closed). The user can add an allow rule for it.`,
      };
    }
    const callSignal = exec.signal;
    if (callSignal?.aborted) return { kind: 'aborted' };
    const previous = queue;
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    queue = previous.then(() => mine);
    try {
      if (callSignal) {
        let onAbort!: () => void;
        const aborted = new Promise<'aborted'>((r) => {
          onAbort = () => r('aborted');
          callSignal.addEventListener('abort', onAbort, { once: true });
        });
        const turn = await Promise.race([previous.then(() => 'turn' as const), aborted]);
        callSignal.removeEventListener('abort', onAbort);
        if (turn === 'aborted') return { kind: 'aborted' };
      } else {
        await previous;
      }
      const controller = new AbortController();
      const onCallAbort = () => controller.abort(callSignal?.reason);
      callSignal?.addEventListener('abort', onCallAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const stop = new Promise<'timeout' | 'aborted'>((r) => {
          if (approveTimeoutMs > 0) {
            timer = setTimeout(() => {
              controller.abort(new Error('approval timed out'));
              r('timeout');
            }, approveTimeoutMs);
          }
          controller.signal.addEventListener(
            'abort',
            () => r(callSignal?.aborted ? 'aborted' : 'timeout'),
            { once: true },
          );
        });
        const rule = ruleText(decision);
        const origin =
          decision.decidedBy.kind === 'rule'
            ? describeOrigin(decision.decidedBy.origin)
            : undefined;
        let answer: ApprovalDecision | 'timeout' | 'aborted';
        try {
          answer = await Promise.race([
            Promise.resolve().then(() =>
              approve({
                exec,
                tool: exec.tool,
                asker: 'permission',
                reason: decision.reason,
                ...(rule !== undefined && { rule }),
                ...(origin !== undefined && { ruleSource: origin }),
                signal: controller.signal,
              }),
            ),
            stop,
          ]);
        } catch (error) {
          controller.abort(error);
          return {
            kind: 'deny',
            message: `Permission denied for tool ${tool}: it needs approval (${decision.reason}), but the approver failed (${error instanceof Error ? error.message : String(error)}), so it is denied (fail closed). Try again later or ask the user.`,
          };
        }
        if (answer === 'aborted') return { kind: 'aborted' };
        if (answer === 'timeout') {
          return {
            kind: 'deny',
            message: `Permission denied for tool ${tool}: it needs approval (${decision.reason}), but no answer came within ${approveTimeoutMs} ms, so it is denied (fail closed). Ask the user before trying again.`,
          };
        }
        if (answer !== null && typeof answer === 'object' && answer.kind === 'allow') {
          return answer.grant === undefined
            ? { kind: 'allow' }
            : { kind: 'allow', grant: answer.grant };
        }
        if (answer !== null && typeof answer === 'object' && answer.kind === 'deny') {
          const why =
            typeof answer.reason === 'string' && answer.reason !== ''
              ? answer.reason
              : 'no reason given';
          return {
            kind: 'deny',
            message: `The user denied tool ${tool}: ${why}. (It was asked because ${decision.reason}.) Do not retry the same call; adjust the approach or ask the user.`,
          };
        }
        return {
          kind: 'deny',
          message: `Permission denied for tool ${tool}: the approver gave a malformed answer (${JSON.stringify(answer)?.slice(0, 80)}), so it is denied (fail closed).`,
        };
      } finally {
        if (timer) clearTimeout(timer);
        callSignal?.removeEventListener('abort', onCallAbort);
      }
    } finally {
      release();
    }
  };
}
