import { describe, expectTypeOf, it } from 'vitest';
import { createEmitter } from './emitter';
import {
  type ChainEntry,
  createWaterfall,
  type Next,
  runChain,
  type Waterfall,
  type WaterfallError,
  type WaterfallMisuse,
} from './index';

describe('waterfall types', () => {
  it('types listeners from the run arguments and the result', () => {
    const w = createWaterfall<[id: string, n: number], boolean>();
    expectTypeOf(w).toEqualTypeOf<Waterfall<[id: string, n: number], boolean>>();
    w.use(async (id, n, next) => {
      expectTypeOf(id).toEqualTypeOf<string>();
      expectTypeOf(n).toEqualTypeOf<number>();
      expectTypeOf(next).toEqualTypeOf<Next<[id: string, n: number], boolean>>();
      expectTypeOf(next).returns.toEqualTypeOf<Promise<boolean>>();
      return next(id, n + 1);
    });
    expectTypeOf(w.run('a', 1, () => true)).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(w.use).returns.toEqualTypeOf<() => void>();
  });

  it('rejects wrong replacement arguments, wrong results and wrong terminals', () => {
    const w = createWaterfall<[string], number>();
    // @ts-expect-error replacement arguments must match the run's
    w.use((_s, next) => next(42));
    // @ts-expect-error a listener must produce the run's result type
    w.use(() => 'not a number');
    // @ts-expect-error the terminal must produce the run's result type
    void w.run('x', () => 'nope');
  });

  it('types runChain and the emitter', () => {
    expectTypeOf(runChain<[number], string>([], [1], (n) => String(n))).toEqualTypeOf<
      Promise<string>
    >();
    const e = createEmitter<[event: { name: string }]>();
    e.on((event) => expectTypeOf(event).toEqualTypeOf<{ name: string }>());
    // @ts-expect-error emitted arguments must match
    e.emit(1);
  });

  it("types every reader with the link's arguments and the run's context", () => {
    interface Ctx {
      readonly call: string;
    }
    const entry: ChainEntry<[n: number], string, Ctx> = {
      name: 'e',
      listener: async (n, next) => next(n + 1),
      resolved: (value, args, context) => {
        expectTypeOf(value).toEqualTypeOf<string>();
        expectTypeOf(args).toEqualTypeOf<[n: number]>();
        expectTypeOf(context).toEqualTypeOf<Ctx>();
        return value;
      },
      rejected: (_error, _args, context) => context.call,
      vetoed: (value) => value,
      sent: (changed, _args, _context, go) => {
        expectTypeOf(changed).toEqualTypeOf<[n: number]>();
        expectTypeOf(go).returns.toEqualTypeOf<Promise<string> | false>();
        return go(changed) || Promise.resolve('refused');
      },
    };
    expectTypeOf(
      runChain<[n: number], string, Ctx>([entry], [1], String, { call: 'c' }),
    ).toEqualTypeOf<Promise<string>>();
    // @ts-expect-error the context must be the chain's
    void runChain<[n: number], string, Ctx>([entry], [1], String, { other: 1 });
    // @ts-expect-error sent answers a promise of the run's result
    const wrong: ChainEntry<[number], string> = { name: 'w', listener: () => 'x', sent: () => 1 };
    void wrong;
  });

  it('exposes misuse details on WaterfallError', () => {
    expectTypeOf<WaterfallError['kind']>().toEqualTypeOf<WaterfallMisuse>();
    expectTypeOf<WaterfallError['listener']>().toEqualTypeOf<string>();
    expectTypeOf<WaterfallMisuse>().toEqualTypeOf<'next-twice' | 'threw' | 'returned-early'>();
  });
});
