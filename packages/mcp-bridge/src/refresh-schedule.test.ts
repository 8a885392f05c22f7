import { describe, expect, it, vi } from 'vitest';
import { RefreshSchedule, type RefreshWork } from './refresh-schedule';

const gate = () => {
  let open!: () => void;
  const promise = new Promise<void>((r) => {
    open = r;
  });
  return { promise, open };
};

const schedule = (work: Partial<RefreshWork>) =>
  new RefreshSchedule({
    debounceMs: 5,
    listOnce: async () => true,
    closing: () => false,
    report: () => {},
    ...work,
  });

describe('RefreshSchedule (no server process)', () => {
  it('throttles change notices: many within the window give one listing', async () => {
    const listOnce = vi.fn(async () => true);
    const s = schedule({ listOnce });
    for (let i = 0; i < 10; i++) s.schedule();
    await vi.waitFor(() => expect(listOnce).toHaveBeenCalledTimes(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(listOnce).toHaveBeenCalledTimes(1);
  });

  it('merges requests during a listing into one follow-up listing', async () => {
    const first = gate();
    const listOnce = vi
      .fn<() => Promise<boolean>>()
      .mockImplementationOnce(async () => {
        await first.promise;
        return true;
      })
      .mockImplementation(async () => true);
    const s = schedule({ listOnce });
    const a = s.now();
    await vi.waitFor(() => expect(listOnce).toHaveBeenCalledTimes(1));
    const b = s.now();
    const c = s.now();
    expect(b).toBe(a);
    expect(c).toBe(a);
    first.open();
    await a;
    expect(listOnce).toHaveBeenCalledTimes(2);
  });

  it('leaves a change announced during the follow-up to the timer, so refresh() ends', async () => {
    let s!: RefreshSchedule;
    const listOnce = vi.fn(async () => {
      // Every listing is interrupted by another request, as a chatty server's would be.
      void s.now();
      return true;
    });
    s = schedule({ listOnce });
    await s.now();
    expect(listOnce).toHaveBeenCalledTimes(2);
    s.stop();
  });

  it('ends without a follow-up when there is nothing to list', async () => {
    const listOnce = vi.fn(async () => false);
    const s = schedule({ listOnce });
    const run = s.now();
    void s.now();
    await run;
    expect(listOnce).toHaveBeenCalledTimes(1);
  });

  it('reports the failure of a timer-started listing, and starts none while closing or stopped', async () => {
    const report = vi.fn();
    const s = schedule({
      listOnce: async () => {
        throw new Error('listing failed');
      },
      report,
    });
    s.schedule();
    await vi.waitFor(() => expect(report).toHaveBeenCalledTimes(1));
    expect(String(report.mock.calls[0]?.[0])).toMatch(/listing failed/);

    const listOnce = vi.fn(async () => true);
    const closing = schedule({ listOnce, closing: () => true });
    closing.schedule();
    const stopped = schedule({ listOnce });
    stopped.schedule();
    stopped.stop();
    await new Promise((r) => setTimeout(r, 20));
    expect(listOnce).not.toHaveBeenCalled();
  });
});
