import { listen, reasonOf, unlisten } from './signal';

/** Timer functions, injectable (a fake clock in a test) like p-timeout's `customTimers`. */
export interface Timers {
  readonly setTimeout: (callback: () => void, ms: number) => unknown;
  readonly clearTimeout: (handle: unknown) => void;
}

/** What stopped the work: its time limit, the caller's signal, or its owner (`control.stop`). */
export type StoppedBy = 'timeout' | 'abort' | 'stop';

/** How work run under a deadline ended. */
export type DeadlineOutcome<T> =
  | { readonly status: 'fulfilled'; readonly value: T }
  | { readonly status: 'rejected'; readonly reason: unknown }
  /** The time limit passed, or the caller aborted, and the work did not succeed within the grace. */
  | { readonly status: 'stopped'; readonly by: StoppedBy }
  /** The caller's signal could not be listened to; the work never started. */
  | { readonly status: 'unlistenable'; readonly reason: unknown };

/** Options of {@link runWithDeadline}. */
export interface DeadlineOptions {
  /** The time limit in ms; 0 for none. */
  readonly milliseconds: number;
  /** After the work's signal aborts, how long to wait for the work before giving up on it. */
  readonly graceMs: number;
  /** The caller's signal: a real AbortSignal (read through the intrinsic accessors only). */
  readonly signal: AbortSignal | undefined;
  /** The reason the work's signal aborts with when the time is up. */
  readonly timeoutReason: () => unknown;
  /** Told when the work settles after its outcome was decided without it; its result is dropped. */
  readonly onLate: (
    settled: DeadlineOutcome<unknown> & { status: 'fulfilled' | 'rejected' },
    stoppedBy: StoppedBy | undefined,
  ) => void;
  /** Default: the global `setTimeout` / `clearTimeout`, looked up on each use. */
  readonly timers?: Timers;
  /**
   * Receives, while the work runs, a function that stops it from outside (as an abort does, with
   * the reason given; the outcome then says `stop`); reset to `undefined` once the outcome is decided.
   */
  readonly control?: { stop: ((reason: unknown) => void) | undefined };
}

const globalTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs `work` under a time limit and the caller's signal. The work gets a signal of its own, made
 * when it first reads it (an AbortController costs more than the rest of a tool call, and most
 * work never looks at its signal), that aborts when the time is up (with `timeoutReason()`) or
 * when the caller aborts (with the caller's reason). After that the work has `graceMs` to settle:
 * a success within the grace is kept (the work happened, and the caller must not be told
 * otherwise), a failure becomes `stopped`, and silence becomes `stopped` when the grace ends, so
 * work that ignores its signal never holds the caller for longer than its limit plus the grace.
 * What settles later goes to `onLate`. Never rejects. Timers are cleared the moment the outcome
 * is decided; they are not unref'd, so work in flight keeps the process alive until it settles.
 */
export function runWithDeadline<T>(
  work: (signal: () => AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<DeadlineOutcome<T>> {
  const { milliseconds, graceMs, signal: caller, timeoutReason, onLate, control } = options;
  const timers = options.timers ?? globalTimers;
  return new Promise((resolve) => {
    let controller: AbortController | undefined;
    let abortReason: unknown;
    let finished = false;
    let stopped: StoppedBy | undefined;
    let timer: unknown;
    let graceTimer: unknown;
    const finish = (outcome: DeadlineOutcome<T>): void => {
      if (finished) return;
      finished = true;
      if (control) control.stop = undefined;
      if (timer !== undefined) timers.clearTimeout(timer);
      if (graceTimer !== undefined) timers.clearTimeout(graceTimer);
      // Resolve first: nothing that happens while cleaning up may keep the caller waiting.
      resolve(outcome);
      if (caller) {
        try {
          unlisten.call(caller, 'abort', onAbort);
        } catch {
          // Cannot happen for a real AbortSignal; the listener is `once` and harmless anyway.
        }
      }
    };
    const stop = (by: StoppedBy, reason: unknown): void => {
      if (stopped || finished) return;
      stopped = by;
      if (timer !== undefined) timers.clearTimeout(timer);
      graceTimer = timers.setTimeout(() => finish({ status: 'stopped', by }), graceMs);
      abortReason = reason;
      controller?.abort(reason);
    };
    const onAbort = (): void => stop('abort', caller && reasonOf.call(caller));
    if (caller) {
      try {
        listen.call(caller, 'abort', onAbort, { once: true });
      } catch (reason) {
        // Cannot happen for a real AbortSignal; if it did, the work could not be cancelled.
        finish({ status: 'unlistenable', reason });
        return;
      }
    }
    if (milliseconds > 0) {
      timer = timers.setTimeout(() => stop('timeout', timeoutReason()), milliseconds);
    }
    if (control) control.stop = (reason) => stop('stop', reason);
    const signal = (): AbortSignal => {
      if (!controller) {
        controller = new AbortController();
        if (stopped) controller.abort(abortReason);
      }
      return controller.signal;
    };
    let running: Promise<T>;
    try {
      running = work(signal);
    } catch (reason) {
      running = Promise.reject(reason);
    }
    running.then(
      (value) => {
        if (finished) onLate({ status: 'fulfilled', value }, stopped);
        else finish({ status: 'fulfilled', value });
      },
      (reason: unknown) => {
        if (finished) onLate({ status: 'rejected', reason }, stopped);
        else finish(stopped ? { status: 'stopped', by: stopped } : { status: 'rejected', reason });
      },
    );
  });
}
