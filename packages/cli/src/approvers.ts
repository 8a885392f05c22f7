import type { ApprovalDecision, ApprovalRequest, Approver } from '@dsh-tools/protocol';

/** At most this much of a call's arguments is shown in a question. */
const MAX_SHOWN_ARGS = 400;

/** A call's arguments as a short line a person can read. */
export function showArguments(args: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(args);
  } catch {
    text = '(arguments that cannot be shown)';
  }
  return text.length > MAX_SHOWN_ARGS ? `${text.slice(0, MAX_SHOWN_ARGS)}…` : text;
}

/** The question put to a person, in one place so every channel asks the same thing. */
export function approvalQuestion(request: ApprovalRequest): string {
  const rule = request.rule
    ? ` (rule ${request.rule}${request.ruleSource ? ` in ${request.ruleSource}` : ''})`
    : '';
  return `${request.asker}: ${request.reason}${rule}\nAllow ${request.exec.name} ${showArguments(request.exec.arguments)}?`;
}

/**
 * Asks the person at the terminal (stdin and stderr both terminals), with a yes/no prompt on
 * stderr so that stdout keeps only the result. No answer, Ctrl-C or Esc deny.
 */
export function terminalApprover(): Approver {
  return async (request): Promise<ApprovalDecision> => {
    const { confirm, isCancel } = await import('@clack/prompts');
    const answer = await confirm({
      message: approvalQuestion(request),
      initialValue: false,
      input: process.stdin,
      output: process.stderr,
      signal: request.signal,
    });
    if (isCancel(answer) || answer !== true) {
      return { kind: 'deny', reason: 'The person at the terminal did not allow this call.' };
    }
    return { kind: 'allow' };
  };
}
