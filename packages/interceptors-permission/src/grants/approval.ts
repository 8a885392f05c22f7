import { type ApproverOutcome, askApprover } from '@dsh-tools/policy-kit';
import type { ApprovalGrant, InterceptedExecution } from '@dsh-tools/protocol';
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
 * Reads `options.approve` at each ask, as the interceptor always has. The question itself goes
 * through the policy kit's approver loop (`askApprover`), shared with the hooks interceptor.
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
        // A call aborted while it waits for its turn leaves the line without being asked.
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
      const rule = ruleText(decision);
      const origin =
        decision.decidedBy.kind === 'rule' ? describeOrigin(decision.decidedBy.origin) : undefined;
      const outcome = await askApprover(
        approve,
        {
          exec,
          tool: exec.tool,
          asker: 'permission',
          reason: decision.reason,
          ...(rule !== undefined && { rule }),
          ...(origin !== undefined && { ruleSource: origin }),
        },
        { timeoutMs: approveTimeoutMs, signal: callSignal },
      );
      return answerOf(outcome, tool, decision, approveTimeoutMs);
    } finally {
      release();
    }
  };
}

/** The person's answer as the interceptor acts on it, with the message a refusal carries. */
function answerOf(
  outcome: ApproverOutcome,
  tool: string,
  decision: PermissionDecision,
  approveTimeoutMs: number,
): Answer {
  switch (outcome.kind) {
    case 'allow':
      return outcome.grant === undefined
        ? { kind: 'allow' }
        : { kind: 'allow', grant: outcome.grant };
    case 'aborted':
      return { kind: 'aborted' };
    case 'failed': {
      const { error } = outcome;
      return {
        kind: 'deny',
        message: `Permission denied for tool ${tool}: it needs approval (${decision.reason}), but the approver failed (${error instanceof Error ? error.message : String(error)}), so it is denied (fail closed). Try again later or ask the user.`,
      };
    }
    case 'timeout':
      return {
        kind: 'deny',
        message: `Permission denied for tool ${tool}: it needs approval (${decision.reason}), but no answer came within ${approveTimeoutMs} ms, so it is denied (fail closed). Ask the user before trying again.`,
      };
    case 'deny':
      return userDenied(tool, decision, outcome.reason);
    case 'malformed': {
      const { answer } = outcome;
      // The kit calls a deny whose reason is not a string malformed; this interceptor has always
      // read it as the person's deny without a reason, and keeps that message.
      if (
        answer !== null &&
        typeof answer === 'object' &&
        (answer as { kind?: unknown }).kind === 'deny'
      ) {
        return userDenied(tool, decision, undefined);
      }
      return {
        kind: 'deny',
        message: `Permission denied for tool ${tool}: the approver gave a malformed answer (${JSON.stringify(answer)?.slice(0, 80)}), so it is denied (fail closed).`,
      };
    }
  }
}

const userDenied = (
  tool: string,
  decision: PermissionDecision,
  reason: string | undefined,
): Answer => {
  const why = reason !== undefined && reason !== '' ? reason : 'no reason given';
  return {
    kind: 'deny',
    message: `The user denied tool ${tool}: ${why}. (It was asked because ${decision.reason}.) Do not retry the same call; adjust the approach or ask the user.`,
  };
};
