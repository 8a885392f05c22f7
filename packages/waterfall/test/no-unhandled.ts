import { afterEach, beforeEach, expect } from 'vitest';

/**
 * Fails each test of the file that calls it if a rejection went unhandled during the test: the
 * engine promises that a run's failure is reported once, through the run, never as an unhandled
 * rejection (a listener that drops a rejected `next()` included).
 */
export function expectNoUnhandledRejection(): void {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    // Give any stray rejection the turns it needs to be reported before asserting none was.
    await new Promise((resolve) => setTimeout(resolve, 5));
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });
}
