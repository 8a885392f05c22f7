/** What a {@link RefreshSchedule} runs and asks. */
export interface RefreshWork {
  /** How long after the first change notice the listing runs (a throttle, not a quiet period). */
  readonly debounceMs: number;
  /**
   * One listing; resolves `false` when there was nothing to list (reconnecting, failed, closed),
   * which ends the refresh without a follow-up.
   */
  readonly listOnce: () => Promise<boolean>;
  /** Whether the bridge is closing: no timer is started then. */
  readonly closing: () => boolean;
  /** Where a timer-started refresh's failure goes (nobody awaits it). */
  readonly report: (error: unknown) => void;
}

/**
 * When a server's tool list is listed again: on `tools/list_changed` (throttled) and on
 * `refresh()`. One listing at a time; requests during one are merged into a single follow-up
 * listing. A change announced during the follow-up is left to the throttled timer, so a server
 * that announces a change during every listing cannot hold `refresh()` forever, and a server that
 * never stops notifying is still listed, at most once per `debounceMs`.
 */
export class RefreshSchedule {
  readonly #work: RefreshWork;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;

  constructor(work: RefreshWork) {
    this.#work = work;
  }

  /** A change was announced: list within `debounceMs` (the first notice starts the timer). */
  schedule(): void {
    if (this.#timer !== undefined || this.#work.closing()) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // Joining a refresh in flight only asks for its follow-up: that run reports its own failure.
      if (this.#running) {
        this.#again = true;
        return;
      }
      this.now().catch((error: unknown) => this.#work.report(error));
    }, this.#work.debounceMs);
  }

  /** List now, or join the listing in flight (which then lists once more). */
  now(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = async (): Promise<void> => {
      for (let round = 0; round < 2; round++) {
        this.#again = false;
        if (!(await this.#work.listOnce())) return;
        if (!this.#again) return;
      }
      if (this.#again) {
        this.#again = false;
        this.schedule();
      }
    };
    // Started a tick later, so that a request made while the first listing starts joins it.
    this.#running = Promise.resolve()
      .then(run)
      .finally(() => {
        this.#running = undefined;
      });
    return this.#running;
  }

  /** No more timer-started listings (close). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
