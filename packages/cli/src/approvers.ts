import { createInterface } from 'node:readline';
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

/** Where {@link terminalApprover} asks: by default stdin, and stderr so that stdout keeps only the result. */
export interface TerminalStreams {
  readonly input?: NodeJS.ReadableStream;
  readonly output?: NodeJS.WritableStream;
}

/** The answers that allow; anything else, an empty line included, denies. */
const YES = new Set(['y', 'yes']);

/**
 * Asks one yes/no question on `streams`; resolves true only for a typed yes. End of input, Ctrl-C
 * (readline's SIGINT on a terminal) and `signal` resolve false: a question nobody answered denies.
 */
function askYesNo(
  question: string,
  streams: Required<TerminalStreams>,
  signal: AbortSignal,
): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const terminal = (streams.output as NodeJS.WriteStream).isTTY === true;
    const rl = createInterface({ input: streams.input, output: streams.output, terminal });
    let settled = false;
    const settle = (allowed: boolean) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve(allowed);
    };
    const onAbort = () => {
      streams.output.write('\n');
      settle(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    rl.once('SIGINT', () => {
      streams.output.write('\n');
      settle(false);
    });
    rl.once('close', () => settle(false));
    rl.question(`${question} (y/N) `, (answer) => settle(YES.has(answer.trim().toLowerCase())));
  });
}

/**
 * Asks the person at the terminal (stdin and stderr both terminals), with a yes/no prompt on
 * stderr so that stdout keeps only the result. Only a typed `y` or `yes` allows; Enter, any other
 * answer, Ctrl-C, end of input or the call's abort deny. Questions never overlap: a second call
 * that asks while one question is open waits for its answer.
 *
 * Node's own readline, not a prompt library: the yes/no needs nothing more, and it runs on every
 * Node the package declares.
 */
export function terminalApprover(streams: TerminalStreams = {}): Approver {
  const io = { input: streams.input ?? process.stdin, output: streams.output ?? process.stderr };
  let previous: Promise<unknown> = Promise.resolve();
  return async (request): Promise<ApprovalDecision> => {
    const turn = previous.then(() => askYesNo(approvalQuestion(request), io, request.signal));
    previous = turn;
    if (!(await turn)) {
      return { kind: 'deny', reason: 'The person at the terminal did not allow this call.' };
    }
    return { kind: 'allow' };
  };
}
