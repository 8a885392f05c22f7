import { describe, expect, it } from 'vitest';
import { expectNoUnhandledRejection } from '../test/no-unhandled';
import { type ChainEntry, createWaterfall, runChain, WaterfallError } from './waterfall';

expectNoUnhandledRejection();

describe("resolved and rejected: reading a listener's promise in the engine's own reaction", () => {
  it("resolved sees what the promise fulfilled with and the link's arguments; its return is what the outer link gets", async () => {
    const w = createWaterfall<[number], string>();
    const seen: unknown[] = [];
    w.use(async (_n, next) => `outer saw ${await next()}`, { name: 'outer' });
    w.use(async (n, next) => `${await next(n + 1)}!`, {
      name: 'inner',
      resolved: (value, args) => {
        seen.push([value, args]);
        return `checked(${value})`;
      },
    });
    expect(await w.run(1, (n) => `t${n}`)).toBe('outer saw checked(t2!)');
    // The arguments the link received, not the ones it passed on.
    expect(seen).toEqual([['t2!', [1]]]);
  });

  it('resolved is not called for `return next()` (the inner answer) nor for a veto', async () => {
    const w = createWaterfall<[], string>();
    let calls = 0;
    const resolved = (value: string) => {
      calls++;
      return value;
    };
    w.use((next) => next(), { resolved });
    expect(await w.run(() => 't')).toBe('t');
    const veto = createWaterfall<[], string>();
    veto.use(() => 'veto', { resolved });
    expect(await veto.run(() => 't')).toBe('veto');
    expect(calls).toBe(0);
  });

  it('resolved reads a plain value returned after next() was called, once the rest has settled', async () => {
    const w = createWaterfall<[], string>();
    const seen: string[] = [];
    w.use(
      (next) => {
        void next();
        return 'mine';
      },
      {
        resolved: (value) => {
          seen.push(value);
          return `read(${value})`;
        },
      },
    );
    // The terminal answers synchronously, so the rest has settled when the answer is read.
    expect(await w.run(() => 't')).toBe('read(mine)');
    expect(seen).toEqual(['mine']);
  });

  it("rejected turns the listener's own error into the link's result", async () => {
    const w = createWaterfall<[], string>();
    const seen: unknown[] = [];
    w.use(
      async () => {
        throw new Error('own');
      },
      {
        name: 'thrower',
        rejected: (error, args) => {
          seen.push([(error as Error).message, args]);
          return 'recovered';
        },
      },
    );
    expect(await w.run(() => 't')).toBe('recovered');
    expect(seen).toEqual([['own', []]]);
  });

  it('rejected is not called for an error from further in, which passes through unwrapped', async () => {
    const w = createWaterfall<[], string>();
    let calls = 0;
    const inner = new Error('terminal failed');
    w.use(async (next) => next(), {
      rejected: () => {
        calls++;
        return 'hidden';
      },
    });
    await expect(
      w.run(() => {
        throw inner;
      }),
    ).rejects.toBe(inner);
    expect(calls).toBe(0);
  });

  it('rejected is not called for a misuse: the run fails with it', async () => {
    const w = createWaterfall<[], string>();
    let calls = 0;
    w.use(
      async (next) => {
        void next();
        await next();
        return 'x';
      },
      {
        name: 'twice',
        rejected: () => {
          calls++;
          return 'hidden';
        },
      },
    );
    const failure = await w.run(() => 't').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WaterfallError);
    expect((failure as WaterfallError).kind).toBe('next-twice');
    expect(calls).toBe(0);
  });

  it("what resolved or rejected throws is the listener's error (threw), naming it", async () => {
    const boom = new Error('reader failed');
    const w = createWaterfall<[], string>();
    w.use(async () => 'a', {
      name: 'reads',
      resolved: () => {
        throw boom;
      },
    });
    const first = await w.run(() => 't').catch((error: unknown) => error);
    expect(first).toBeInstanceOf(WaterfallError);
    expect(first).toMatchObject({ kind: 'threw', listener: 'reads', cause: boom });
    const r = createWaterfall<[], string>();
    r.use(
      async () => {
        throw new Error('own');
      },
      {
        name: 'recovers',
        rejected: () => {
          throw boom;
        },
      },
    );
    const second = await r.run(() => 't').catch((error: unknown) => error);
    expect(second).toMatchObject({ kind: 'threw', listener: 'recovers', cause: boom });
  });

  it('runChain reads them from the chain entries', async () => {
    const entry: ChainEntry<[number], number> = {
      listener: async (n, next) => next(n),
      name: 'a',
      resolved: (value) => value * 10,
    };
    expect(await runChain<[number], number>([entry], [2], (n) => n + 1)).toBe(30);
  });
});

/**
 * The engine's cost per asynchronous link is its promise reactions. Counted, not timed: each `then`
 * the engine itself attaches during a run (a stack frame in this package's source). One per link
 * that answers with a promise of its own, plus one watch of the terminal per run: before this
 * design it attached two per link (a watch of the rest of the chain, and the reaction to the
 * listener's promise), and the registry two more around each interceptor.
 */
describe('reactions per asynchronous link', () => {
  const engineThens = async (run: () => Promise<unknown>): Promise<number> => {
    const original = Promise.prototype.then;
    const source = new URL('./waterfall.ts', import.meta.url).pathname;
    let count = 0;
    // biome-ignore lint/suspicious/noThenProperty: counting, and restored below
    Promise.prototype.then = function (this: Promise<unknown>, ...args) {
      if (new Error().stack?.split('\n')[2]?.includes(source)) count++;
      return original.apply(this, args as never);
    } as typeof original;
    try {
      await run();
      for (let i = 0; i < 20; i++) await null;
    } finally {
      // biome-ignore lint/suspicious/noThenProperty: restoring the original
      Promise.prototype.then = original;
    }
    return count;
  };
  const pass = async (_ctx: object, next: () => Promise<number>) => next();

  it('is one per link, and one per run', async () => {
    for (const n of [1, 5, 20]) {
      const w = createWaterfall<[object], number>();
      for (let i = 0; i < n; i++) w.use(pass);
      expect(await engineThens(() => w.run({}, async () => 1)), `${n} links`).toBe(n + 1);
    }
  });

  it('is none for links that return next() and for a run without listeners', async () => {
    const w = createWaterfall<[object], number>();
    expect(await engineThens(() => w.run({}, async () => 1))).toBe(0);
    for (let i = 0; i < 5; i++) w.use((_ctx, next) => next());
    expect(await engineThens(() => w.run({}, async () => 1))).toBe(0);
  });
});
