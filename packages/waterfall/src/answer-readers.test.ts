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

describe('the run context, vetoes, synchronous throws and sent arguments', () => {
  const ctx = { call: 'c1' };

  it("every reader sees the run's context, the last argument of runChain", async () => {
    const seen: unknown[] = [];
    const chain: ChainEntry<[number], string, typeof ctx>[] = [
      {
        name: 'answers',
        listener: async (n, next) => `${await next(n + 1)}?`,
        resolved: (value, args, context) => {
          seen.push(['resolved', value, args, context]);
          return value;
        },
        sent: (changed, args, context, go) => {
          seen.push(['sent', changed, args, context]);
          return go(changed) as Promise<string>;
        },
      },
      {
        name: 'vetoes',
        listener: () => 'no',
        vetoed: (value, args, context) => {
          seen.push(['vetoed', value, args, context]);
          return `${value}!`;
        },
      },
    ];
    expect(await runChain<[number], string, typeof ctx>(chain, [1], () => 'unreached', ctx)).toBe(
      'no!?',
    );
    expect(seen).toEqual([
      ['sent', [2], [1], ctx],
      ['vetoed', 'no', [2], ctx],
      ['resolved', 'no!?', [1], ctx],
    ]);
  });

  it('vetoed reads a plain value returned without next(); a kept next() is still refused after it', async () => {
    let kept: (() => Promise<string>) | undefined;
    let ran = 0;
    const chain: ChainEntry<[], string>[] = [
      {
        name: 'veto',
        listener: (next) => {
          kept = next;
          return 'denied';
        },
        vetoed: (value) => `checked(${value})`,
      },
    ];
    expect(
      await runChain(chain, [], () => {
        ran++;
        return 't';
      }),
    ).toBe('checked(denied)');
    const late = await kept!().catch((error: unknown) => error);
    expect(late).toMatchObject({ kind: 'next-twice', listener: 'veto' });
    expect(ran).toBe(0);
  });

  it("vetoed is not called for a promise or for next()'s answer; what it throws is the listener's error", async () => {
    let calls = 0;
    const vetoed = (value: string) => {
      calls++;
      return value;
    };
    expect(await runChain([{ name: 'a', listener: async () => 'x', vetoed }], [], () => 't')).toBe(
      'x',
    );
    expect(await runChain([{ name: 'b', listener: (next) => next(), vetoed }], [], () => 't')).toBe(
      't',
    );
    expect(calls).toBe(0);
    const boom = new Error('reader failed');
    const failure = await runChain(
      [
        {
          name: 'reads',
          listener: () => 'v',
          vetoed: () => {
            throw boom;
          },
        },
      ],
      [],
      () => 't',
    ).catch((error: unknown) => error);
    expect(failure).toMatchObject({ kind: 'threw', listener: 'reads', cause: boom });
  });

  it('rejected reads a synchronous throw like a rejection, and a next() after it is refused', async () => {
    let kept: (() => Promise<string>) | undefined;
    let ran = 0;
    const seen: unknown[] = [];
    const chain: ChainEntry<[number], string>[] = [
      {
        name: 'throws',
        listener: (_n, next) => {
          kept = next;
          throw new Error('sync');
        },
        rejected: (error, args) => {
          seen.push([(error as Error).message, args]);
          return 'recovered';
        },
      },
    ];
    const terminal = () => {
      ran++;
      return 't';
    };
    expect(await runChain<[number], string, unknown>(chain, [3], terminal)).toBe('recovered');
    expect(seen).toEqual([['sync', [3]]]);
    expect(await kept!().catch((error: unknown) => error)).toMatchObject({ kind: 'next-twice' });
    expect(ran).toBe(0);
    // Without a reader it is the listener's error, `threw`, as before.
    const plain = await runChain(
      [
        {
          name: 'bare',
          listener: () => {
            throw new Error('sync');
          },
        },
      ],
      [],
      () => 't',
    ).catch((error: unknown) => error);
    expect(plain).toMatchObject({ kind: 'threw', listener: 'bare' });
  });

  it('sent decides what next(...changed) answers, and may go on later with other arguments', async () => {
    const seenByTerminal: number[] = [];
    const chain: ChainEntry<[number], string>[] = [
      {
        name: 'doubles',
        listener: async (n, next) => `${await next(n + 1)}.`,
        // Checked asynchronously, then the rest of the chain runs with the checked value.
        sent: async (changed, _args, _context, go) => {
          await Promise.resolve();
          return (go([changed[0] * 2]) as Promise<string>).then((inner) => `[${inner}]`);
        },
      },
      {
        name: 'refuses',
        listener: async (n, next) => next(n),
        sent: async (changed) => `refused ${changed[0]}`,
      },
    ];
    expect(
      await runChain<[number], string, unknown>(chain, [1], (n) => {
        seenByTerminal.push(n);
        return `t${n}`;
      }),
    ).toBe('[refused 4].');
    expect(seenByTerminal).toEqual([]);
  });

  it('go starts nothing once the listener has settled: it answers false', async () => {
    let ran = 0;
    let started: Promise<string> | false | undefined;
    let release: () => void = () => {};
    const checked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chain: ChainEntry<[number], string>[] = [
      {
        name: 'impatient',
        listener: async (n, next) => {
          // Sends a rewrite and settles without waiting for it.
          void next(n + 1).catch(() => {});
          return 'gave up';
        },
        sent: async (changed, _args, _context, go) => {
          await checked;
          started = go(changed);
          return started || 'abandoned';
        },
      },
    ];
    const failure = await runChain<[number], string, unknown>(chain, [1], () => {
      ran++;
      return 't';
    }).catch((error: unknown) => error);
    // Returning before its next() settled is a misuse, as for any listener.
    expect(failure).toMatchObject({ kind: 'returned-early', listener: 'impatient' });
    release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(started).toBe(false);
    expect(ran).toBe(0);
  });

  it('without sent, next(...changed) goes on with changed as it is', async () => {
    const chain: ChainEntry<[number], number>[] = [
      { name: 'adds', listener: async (n, next) => next(n + 1) },
    ];
    expect(await runChain<[number], number, unknown>(chain, [1], (n) => n * 10)).toBe(20);
  });
});
