import { ToolErrorCode as Codes, errorResult, type ToolExecutionResult } from '@dsh-tools/protocol';
import { BODY } from './results';
import { listen, reasonOf, unlisten } from './signal';
import type { CallDeadline, Prepared, Report } from './types';

/**
 * A whole-call deadline for a call about to be prepared (`callTimeoutMs`), or none: its own
 * controller, whose signal the interceptors and the body see in place of the caller's (it aborts
 * when the caller's does, or when the time is up).
 */
export const callDeadline = (
  ms: number,
  caller: AbortSignal | undefined,
): CallDeadline | undefined =>
  ms > 0 ? { ms, caller, controller: new AbortController() } : undefined;

/**
 * The stage *bound the call*: everything after validation (the interceptors, then the body) within
 * the call's whole-call deadline. On expiry the signal that the interceptors and the body see
 * aborts (a `TimeoutError`), and the call resolves `TIMEOUT` at once, naming what was still
 * pending: the innermost interceptor that had not settled, or the body. What the chain produces
 * afterwards is dropped (reported as a late settlement). The caller's abort reaches the call's
 * signal while it runs; the listener is removed when the call ends, so a long-lived caller
 * signal gathers nothing.
 */
export function boundCall(
  call: Prepared,
  deadline: CallDeadline,
  run: () => Promise<ToolExecutionResult>,
  report: Report,
): Promise<ToolExecutionResult> {
  const { exec } = call;
  const { controller, caller, ms } = deadline;
  const forward = (): void => controller.abort(caller && reasonOf.call(caller));
  // Not aborted yet: dispatch answered an aborted caller ABORTED just before, in the same turn.
  if (caller) listen.call(caller, 'abort', forward, { once: true });
  return new Promise<ToolExecutionResult>((resolve) => {
    let done = false;
    const end = (): void => {
      done = true;
      clearTimeout(timer);
      if (caller) unlisten.call(caller, 'abort', forward);
    };
    const timer = setTimeout(() => {
      const pending = call.pending?.at(-1);
      end();
      controller.abort(
        new DOMException(
          `The call to tool "${exec.name}" passed its whole-call deadline of ${ms} ms`,
          'TimeoutError',
        ),
      );
      resolve(
        errorResult(
          exec.callId,
          Codes.TIMEOUT,
          `The call to tool "${exec.name}" did not finish within its whole-call deadline of ${ms} ms (callTimeoutMs); ${
            pending === undefined
              ? 'nothing was pending'
              : pending === BODY
                ? 'the tool body was still running'
                : `interceptor "${pending}" was still pending`
          }, and was stopped. Retry later, or raise callTimeoutMs.`,
        ),
      );
    }, ms);
    run().then((result) => {
      if (done) {
        report(
          new Error(
            `The call to tool "${exec.name}" settled after its whole-call deadline of ${ms} ms had resolved it TIMEOUT; its result was discarded.`,
          ),
          { kind: 'late-settlement', tool: exec.name, callId: exec.callId },
        );
        return;
      }
      end();
      resolve(result);
    });
  });
}
