import type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalRequest,
  Approver,
} from '@dsh-tools/protocol';

/** How one question to an approver ended; every way but `allow` is a refusal for the asker. */
export type ApproverOutcome =
  | { readonly kind: 'allow'; readonly grant?: ApprovalGrant }
  | { readonly kind: 'deny'; readonly reason?: string }
  /** The approver threw or rejected. */
  | { readonly kind: 'failed'; readonly error: unknown }
  /** No answer within the time limit; the request's signal was aborted. */
  | { readonly kind: 'timeout' }
  /** The call was aborted before or while the approver was asked. */
  | { readonly kind: 'aborted' }
  /** An answer that is not an {@link ApprovalDecision} (a string, a deny with a non-string reason). */
  | { readonly kind: 'malformed'; readonly answer: unknown };

/** Bounds of {@link askApprover}. */
export interface AskApproverOptions {
  /** The longest wait for an answer, in milliseconds; `0` waits as long as the call lives. */
  readonly timeoutMs: number;
  /** The call's signal: aborting it ends the wait and aborts the request's own signal. */
  readonly signal?: AbortSignal | undefined;
}

// Symbols, not strings: an approver answering the string "timeout" is malformed, not a timeout.
const ABORTED = Symbol('aborted');
const TIMEOUT = Symbol('timeout');

const isApprovalDecision = (value: unknown): value is ApprovalDecision => {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, reason } = value as { kind?: unknown; reason?: unknown };
  return (
    kind === 'allow' || (kind === 'deny' && (reason === undefined || typeof reason === 'string'))
  );
};

/**
 * The one approver loop: puts `question` to `approve` once and says how it ended. Never rejects:
 * a throw is `failed`, a wait past `timeoutMs` is `timeout`, an abort of the call is `aborted` (a
 * call aborted before the question is never asked), an answer of the wrong shape is `malformed`.
 * The request's `signal` aborts when the answer no longer matters (a timeout, the call's abort, a
 * throw), so an approver showing a prompt can take it down. Askers map each outcome to their own
 * message, and fail closed on all but `allow`.
 */
export async function askApprover(
  approve: Approver,
  question: Omit<ApprovalRequest, 'signal'>,
  { timeoutMs, signal }: AskApproverOptions,
): Promise<ApproverOutcome> {
  if (signal?.aborted) return { kind: 'aborted' };
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const stop = new Promise<typeof ABORTED | typeof TIMEOUT>((resolve) => {
      controller.signal.addEventListener(
        'abort',
        () => resolve(signal?.aborted ? ABORTED : TIMEOUT),
        { once: true },
      );
      if (timeoutMs > 0) {
        timer = setTimeout(() => controller.abort(new Error('approval timed out')), timeoutMs);
      }
    });
    let answer: unknown;
    try {
      answer = await Promise.race([
        // A synchronous throw of the approver becomes a rejection here, not an escape.
        Promise.resolve().then(() => approve({ ...question, signal: controller.signal })),
        stop,
      ]);
    } catch (error) {
      controller.abort(error);
      return { kind: 'failed', error };
    }
    if (answer === ABORTED) return { kind: 'aborted' };
    if (answer === TIMEOUT) return { kind: 'timeout' };
    if (!isApprovalDecision(answer)) return { kind: 'malformed', answer };
    return answer;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
