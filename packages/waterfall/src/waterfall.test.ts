import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectNoUnhandledRejection } from '../test/no-unhandled';
import { createWaterfall, runChain, WaterfallError, type WaterfallListener } from './waterfall';

type L = WaterfallListener<[string[]], string>;

expectNoUnhandledRejection();

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('createWaterfall', () => {
  it('runs the terminal alone when there are no listeners, with the run arguments', async () => {
    const w = createWaterfall<[number, string], string>();
    expect(await w.run(2, 'x', (n, s) => s.repeat(n))).toBe('xx');
    expect(w.size).toBe(0);
  });

  it('delivers a synchronous throw of the terminal as a rejection', async () => {
    const w = createWaterfall<[], string>();
    const run = w.run(() => {
      throw new Error('boom');
    });
    await expect(run).rejects.toThrow('boom');
  });

  it('runs higher priorities outer; equal priorities keep registration order', async () => {
    const w = createWaterfall<[string[]], string>();
    const trace =
      (tag: string): L =>
      async (log, next) => {
        log.push(`>${tag}`);
        const r = await next();
        log.push(`<${tag}`);
        return r;
      };
    w.use(trace('a'));
    w.use(trace('b'), { priority: 10 });
    w.use(trace('c'));
    w.use(trace('d'), { priority: -1 });
    w.use(trace('e'), { priority: 10 });
    const log: string[] = [];
    await w.run(log, (l) => {
      l.push('T');
      return 'ok';
    });
    expect(log.join(' ')).toBe('>b >e >a >c >d T <d <c <a <e <b');
  });

  it('short-circuits when a listener does not call next (a veto)', async () => {
    const w = createWaterfall<[number], string>();
    let inner = 0;
    w.use(async () => 'vetoed');
    w.use(
      async (_n, next) => {
        inner++;
        return next();
      },
      { priority: -1 },
    );
    let ran = false;
    expect(
      await w.run(1, () => {
        ran = true;
        return 'ran';
      }),
    ).toBe('vetoed');
    expect(ran).toBe(false);
    expect(inner).toBe(0);
  });

  it('passes replacement arguments on to the rest of the chain and the terminal', async () => {
    const w = createWaterfall<[number, string], string>();
    const seen: [number, string][] = [];
    w.use(async (n, s, next) => next(n + 1, `${s}!`), { priority: 2 });
    w.use(async (n, s, next) => {
      seen.push([n, s]);
      return next();
    });
    expect(await w.run(1, 'a', (n, s) => `${n}${s}`)).toBe('2a!');
    expect(seen).toEqual([[2, 'a!']]);
  });

  it('lets a listener replace the result on the way out', async () => {
    const w = createWaterfall<[], string>();
    w.use(async (next) => `${await next()}+wrapped`);
    expect(await w.run(() => 'base')).toBe('base+wrapped');
  });

  it('accepts synchronous listeners that return next() directly', async () => {
    const w = createWaterfall<[], string>();
    w.use((next) => next());
    w.use((next) => next());
    expect(await w.run(async () => 'deep')).toBe('deep');
  });

  it('takes the listener list when a run starts', async () => {
    const w = createWaterfall<[string[]], string>();
    let dispose = () => {};
    w.use(async (log, next) => {
      log.push('first');
      dispose();
      w.use(async (l, n) => {
        l.push('added-late');
        return n();
      });
      return next();
    });
    dispose = w.use(async (log, next) => {
      log.push('second');
      return next();
    });
    const log: string[] = [];
    await w.run(log, () => 'x');
    expect(log).toEqual(['first', 'second']);
    const again: string[] = [];
    await w.run(again, () => 'x');
    expect(again).toEqual(['first', 'added-late']);
  });

  it('disposes idempotently', async () => {
    const w = createWaterfall<[], string>();
    const a = w.use((next) => next());
    const b = w.use((next) => next());
    a();
    a();
    expect(w.size).toBe(1);
    b();
    expect(w.size).toBe(0);
  });

  it('rejects a non-function listener and a non-numeric priority', () => {
    const w = createWaterfall<[], string>();
    expect(() => w.use('nope' as unknown as L as never)).toThrow(TypeError);
    expect(() => w.use((n) => n(), { priority: Number.NaN })).toThrow(/numeric priority/);
    expect(() => w.use((n) => n(), { priority: '1' as unknown as number })).toThrow(
      /numeric priority/,
    );
  });
});

describe('misuse', () => {
  it('next() called twice rejects the run naming the listener, and the terminal runs once', async () => {
    const w = createWaterfall<[], string>();
    let terminal = 0;
    w.use(
      async (next) => {
        await next();
        return next();
      },
      { name: 'double' },
    );
    const error = await w
      .run(() => {
        terminal++;
        return 'x';
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaterfallError);
    expect(error).toMatchObject({ listener: 'double', kind: 'next-twice' });
    expect((error as Error).message).toContain('"double"');
    expect(terminal).toBe(1);
  });

  it('fails the run even when the listener swallows the second next() rejection', async () => {
    const w = createWaterfall<[], string>();
    w.use(
      async (next) => {
        const r = await next();
        await next().catch(() => {});
        return r;
      },
      { name: 'swallower' },
    );
    await expect(w.run(() => 'x')).rejects.toMatchObject({
      kind: 'next-twice',
      listener: 'swallower',
    });
  });

  it.each([
    [
      'a sync veto',
      (keep: (n: () => Promise<string>) => void) => (next: () => Promise<string>) => {
        keep(next);
        return 'vetoed';
      },
    ],
    [
      'an async veto',
      (keep: (n: () => Promise<string>) => void) => async (next: () => Promise<string>) => {
        keep(next);
        await tick();
        return 'vetoed';
      },
    ],
    [
      'a throw',
      (keep: (n: () => Promise<string>) => void) => (next: () => Promise<string>) => {
        keep(next);
        throw new Error('no');
      },
    ],
  ])('a next() kept past %s is refused later and never runs the terminal', async (_label, make) => {
    const w = createWaterfall<[], string>();
    let kept: (() => Promise<string>) | undefined;
    w.use(
      make((n) => {
        kept = n;
      }) as never,
      { name: 'keeper' },
    );
    let terminal = 0;
    await w
      .run(() => {
        terminal++;
        return 'body';
      })
      .catch(() => {});
    await expect(kept?.()).rejects.toMatchObject({ kind: 'next-twice', listener: 'keeper' });
    expect(terminal).toBe(0);
  });

  it('a synchronous throw becomes a rejection naming the listener, with the cause kept', async () => {
    const w = createWaterfall<[], string>();
    const cause = new Error('sync boom');
    w.use(function policy() {
      throw cause;
    });
    const error = (await w.run(() => 'x').catch((e: unknown) => e)) as WaterfallError;
    expect(error).toBeInstanceOf(WaterfallError);
    expect(error.kind).toBe('threw');
    expect(error.listener).toBe('policy');
    expect(error.message).toContain('sync boom');
    expect(error.cause).toBe(cause);
  });

  it('a listener that returns without awaiting next() rejects the run, with no unhandled rejection', async () => {
    const w = createWaterfall<[], string>();
    w.use(
      (next) => {
        void next();
        return 'early';
      },
      { name: 'hasty' },
    );
    await expect(
      w.run(async () => {
        await tick();
        throw new Error('late terminal failure');
      }),
    ).rejects.toMatchObject({ kind: 'returned-early', listener: 'hasty' });
  });

  it('says which misuse of next() it was: a second call, or one after the listener returned', async () => {
    const w = createWaterfall<[], string>();
    let kept: (() => Promise<string>) | undefined;
    w.use(
      async (next) => {
        const r = await next();
        await next().catch(() => {});
        return r;
      },
      { name: 'double' },
    );
    const twice = await w.run(() => 'x').catch((e: Error) => e.message);
    expect(twice).toBe('listener "double" called next() twice');
    const v = createWaterfall<[], string>();
    v.use(
      (next) => {
        kept = next;
        return 'vetoed';
      },
      { name: 'keeper' },
    );
    await v.run(() => 'x');
    const late = await kept?.().catch((e: Error) => e.message);
    expect(late).toBe('listener "keeper" called next() after it had returned');
  });

  it('fails the run when a listener returns early even if an outer listener swallows it', async () => {
    const w = createWaterfall<[], string>();
    w.use((next) => next().catch(() => 'forgiven'), { name: 'outer', priority: 1 });
    w.use(
      (next) => {
        void next();
        return 'early';
      },
      { name: 'hasty' },
    );
    await expect(
      w.run(async () => {
        await tick();
        return 'body';
      }),
    ).rejects.toMatchObject({
      kind: 'returned-early',
      listener: 'hasty',
      message: 'listener "hasty" returned before next() settled',
    });
  });

  it('errors from the terminal pass through listeners unwrapped', async () => {
    const w = createWaterfall<[], string>();
    w.use(async (next) => next(), { name: 'outer' });
    w.use(async (next) => await next(), { name: 'inner' });
    const boom = new Error('terminal');
    await expect(
      w.run(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('a misuse deep in the chain keeps naming the inner listener', async () => {
    const w = createWaterfall<[], string>();
    w.use(async (next) => next(), { name: 'outer' });
    w.use(
      () => {
        throw new Error('inner failure');
      },
      { name: 'inner' },
    );
    await expect(w.run(() => 'x')).rejects.toMatchObject({ listener: 'inner', kind: 'threw' });
  });

  it('attributes a different error thrown after next() failed to the listener', async () => {
    const w = createWaterfall<[], string>();
    w.use(
      async (next) => {
        try {
          return await next();
        } catch {
          throw new Error('translated');
        }
      },
      { name: 'translator' },
    );
    await expect(
      w.run(() => {
        throw new Error('original');
      }),
    ).rejects.toMatchObject({ listener: 'translator', kind: 'threw' });
  });

  it('a thrown undefined is still attributed and reported', async () => {
    const w = createWaterfall<[], string>();
    w.use(
      () => {
        throw undefined;
      },
      { name: 'weird' },
    );
    await expect(w.run(() => 'x')).rejects.toMatchObject({ listener: 'weird' });
  });
});

describe('runChain', () => {
  it('runs an ad-hoc chain outermost first with the same checks', async () => {
    const log: string[] = [];
    const chain = ['a', 'b'].map((name) => ({
      name,
      listener: (async (l: string[], next) => {
        l.push(name);
        return next();
      }) as L,
    }));
    expect(await runChain(chain, [log], () => 'end')).toBe('end');
    expect(log).toEqual(['a', 'b']);
    await expect(
      runChain<[string[]], string>(
        [{ name: 'bad', listener: () => Promise.reject(new Error('no')) }],
        [log],
        () => 'x',
      ),
    ).rejects.toMatchObject({ listener: 'bad' });
  });
});

describe('properties', () => {
  type Op =
    | { kind: 'use'; priority: number; veto: boolean }
    | { kind: 'dispose'; index: number }
    | { kind: 'run'; fail: boolean };

  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('use' as const),
      priority: fc.integer({ min: -3, max: 3 }),
      veto: fc.boolean(),
    }),
    fc.record({ kind: fc.constant('dispose' as const), index: fc.nat(20) }),
    fc.record({ kind: fc.constant('run' as const), fail: fc.boolean() }),
  );

  it('any interleaving of use / dispose / run calls listeners in the documented order, each at most once per run, and errors reach the caller', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 40 }), async (ops) => {
        const w = createWaterfall<[number[]], string>();
        // The model: live listeners in registration order.
        const live: { id: number; priority: number; veto: boolean; dispose: () => void }[] = [];
        let id = 0;
        for (const o of ops) {
          if (o.kind === 'use') {
            const me = id++;
            const veto = o.veto;
            const dispose = w.use(
              async (calls, next) => {
                calls.push(me);
                return veto ? `veto:${me}` : next();
              },
              { priority: o.priority },
            );
            live.push({ id: me, priority: o.priority, veto, dispose });
          } else if (o.kind === 'dispose') {
            const victim = live.splice(o.index % Math.max(live.length, 1), 1)[0];
            victim?.dispose();
          } else {
            const expectedOrder = [...live].sort((a, b) => b.priority - a.priority); // stable sort
            const firstVeto = expectedOrder.findIndex((l) => l.veto);
            const called = firstVeto === -1 ? expectedOrder : expectedOrder.slice(0, firstVeto + 1);
            const calls: number[] = [];
            let terminalRuns = 0;
            const outcome = await w
              .run(calls, () => {
                terminalRuns++;
                if (o.fail) throw new Error('terminal failed');
                return 'done';
              })
              .then(
                (value) => ({ value }),
                (error: Error) => ({ error: error.message }),
              );
            expect(calls).toEqual(called.map((l) => l.id));
            expect(new Set(calls).size).toBe(calls.length);
            if (firstVeto === -1) {
              expect(terminalRuns).toBe(1);
              expect(outcome).toEqual(o.fail ? { error: 'terminal failed' } : { value: 'done' });
            } else {
              expect(terminalRuns).toBe(0);
              expect(outcome).toEqual({ value: `veto:${expectedOrder[firstVeto]?.id}` });
            }
          }
        }
        expect(w.size).toBe(live.length);
      }),
      { numRuns: 200 },
    );
  });
});
