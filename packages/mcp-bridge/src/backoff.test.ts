import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, reconnectSettings, settledWithin } from './backoff';

describe('reconnectSettings', () => {
  it('fills in the documented defaults, and keeps every field given (0 included)', () => {
    const defaults = {
      maxAttempts: 8,
      initialDelayMs: 250,
      maxDelayMs: 30_000,
      factor: 2,
      budgetMs: 300_000,
    };
    expect(reconnectSettings(undefined)).toEqual(defaults);
    expect(reconnectSettings(false)).toEqual(defaults);
    expect(reconnectSettings({ maxAttempts: 0, initialDelayMs: 0 })).toEqual({
      ...defaults,
      maxAttempts: 0,
      initialDelayMs: 0,
    });
  });
});

describe('backoffDelay', () => {
  it('lies in the upper half of min(maxDelay, initial * factor^(attempt-1)), at both ends of the jitter', () => {
    fc.assert(
      fc.property(
        fc.record({
          maxAttempts: fc.nat(),
          initialDelayMs: fc.integer({ min: 0, max: 10_000 }),
          maxDelayMs: fc.integer({ min: 0, max: 60_000 }),
          factor: fc.double({ min: 1, max: 4, noNaN: true }),
          budgetMs: fc.nat(),
        }),
        fc.integer({ min: 1, max: 40 }),
        fc.oneof(
          fc.constantFrom(0, 1 - Number.EPSILON),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        ),
        (settings, attempt, random) => {
          const base = Math.min(
            settings.maxDelayMs,
            settings.initialDelayMs * settings.factor ** (attempt - 1),
          );
          const delay = backoffDelay(settings, attempt, () => random);
          expect(delay).toBeGreaterThanOrEqual(base / 2);
          expect(delay).toBeLessThanOrEqual(base);
          if (random === 0) expect(delay).toBe(base / 2);
        },
      ),
    );
  });

  it('starts at the initial delay on attempt 1 and never passes the cap', () => {
    const settings = reconnectSettings({ initialDelayMs: 100, maxDelayMs: 1000, factor: 10 });
    expect(backoffDelay(settings, 1, () => 0)).toBe(50);
    expect(backoffDelay(settings, 2, () => 0)).toBe(500);
    expect(backoffDelay(settings, 3, () => 0)).toBe(500);
    expect(backoffDelay(settings, 1000, () => 0.999)).toBeLessThanOrEqual(1000);
  });
});

describe('settledWithin', () => {
  it('resolves when the promise settles, either way', async () => {
    await settledWithin(Promise.resolve(1), 2 ** 31 - 1, new AbortController().signal);
    await settledWithin(Promise.reject(new Error('x')), 2 ** 31 - 1, new AbortController().signal);
  });

  it('resolves when the signal aborts, before or while waiting', async () => {
    const never = new Promise(() => {});
    await settledWithin(never, 2 ** 31 - 1, AbortSignal.abort());
    const controller = new AbortController();
    const waiting = settledWithin(never, 2 ** 31 - 1, controller.signal);
    controller.abort();
    await waiting;
  });

  it('resolves when the time is up', async () => {
    await settledWithin(new Promise(() => {}), 0, new AbortController().signal);
  });
});
