import { describe, expect, it, vi } from 'vitest';
import { deferred } from '../test/helpers';
import { type DeadlineOptions, runWithDeadline, type Timers } from './run-with-deadline';

/** A clock the test moves by hand: what runWithDeadline's injectable timers are for. */
const manualClock = () => {
  let now = 0;
  let next = 1;
  const pending = new Map<number, { at: number; callback: () => void }>();
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, callback });
      return id;
    },
    clearTimeout: (handle) => {
      pending.delete(handle as number);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    for (const [id, timer] of [...pending].sort((a, b) => a[1].at - b[1].at)) {
      if (timer.at <= now && pending.delete(id)) timer.callback();
    }
  };
  return { timers, advance, pending };
};

const options = (over: Partial<DeadlineOptions> = {}): DeadlineOptions => ({
  milliseconds: 100,
  graceMs: 10,
  signal: undefined,
  timeoutReason: () => new Error('time is up'),
  onLate: () => {},
  ...over,
});

describe('runWithDeadline', () => {
  it('resolves what the work resolves, and clears its timer', async () => {
    const clock = manualClock();
    const outcome = await runWithDeadline(async () => 42, options({ timers: clock.timers }));
    expect(outcome).toEqual({ status: 'fulfilled', value: 42 });
    expect(clock.pending.size).toBe(0);
  });

  it('aborts the work’s signal at the limit, then gives up after the grace; a late settlement goes to onLate', async () => {
    const clock = manualClock();
    const onLate = vi.fn();
    const work = deferred<string>();
    let signal: AbortSignal | undefined;
    const running = runWithDeadline(
      (read) => {
        signal = read();
        return work.promise;
      },
      options({ timers: clock.timers, onLate }),
    );
    clock.advance(99);
    expect(signal?.aborted).toBe(false);
    clock.advance(1);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toEqual(new Error('time is up'));
    clock.advance(10);
    expect(await running).toEqual({ status: 'stopped', by: 'timeout' });
    work.resolve('late');
    await work.promise;
    await Promise.resolve();
    expect(onLate).toHaveBeenCalledWith({ status: 'fulfilled', value: 'late' }, 'timeout');
    expect(clock.pending.size).toBe(0);
  });

  it('keeps a success within the grace, and turns a failure within it into stopped', async () => {
    const clock = manualClock();
    const ok = deferred<string>();
    const kept = runWithDeadline(() => ok.promise, options({ timers: clock.timers }));
    clock.advance(100);
    ok.resolve('done anyway');
    expect(await kept).toEqual({ status: 'fulfilled', value: 'done anyway' });

    const failing = runWithDeadline(
      (read) =>
        new Promise((_, reject) => {
          read().addEventListener('abort', () => reject(new Error('stopped')));
        }),
      options({ timers: clock.timers }),
    );
    clock.advance(100);
    expect(await failing).toEqual({ status: 'stopped', by: 'timeout' });
  });

  it('stops on the caller’s abort with its reason, and makes the signal only when read', async () => {
    const clock = manualClock();
    const caller = new AbortController();
    const running = runWithDeadline(
      (read) =>
        new Promise((_, reject) => {
          const signal = read();
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
      options({ milliseconds: 0, signal: caller.signal, timers: clock.timers }),
    );
    caller.abort('user cancelled');
    expect(await running).toEqual({ status: 'stopped', by: 'abort' });

    let made = false;
    const unread = await runWithDeadline(
      async () => {
        made = true;
        return 'x';
      },
      options({ timers: clock.timers }),
    );
    expect(unread.status).toBe('fulfilled');
    expect(made).toBe(true);
  });

  it('turns a synchronous throw of the work into a rejection', async () => {
    const clock = manualClock();
    const boom = new Error('sync');
    const outcome = await runWithDeadline(
      () => {
        throw boom;
      },
      options({ timers: clock.timers }),
    );
    expect(outcome).toEqual({ status: 'rejected', reason: boom });
    expect(clock.pending.size).toBe(0);
  });
});
