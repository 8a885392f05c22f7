/**
 * Per-call cost of the waterfall engine against a hand-written minimal compose, koa-compose and
 * cordis's `ctx.waterfall`, with 0, 1, 5 and 20 pass-through listeners, all in one run.
 * Per-listener cost is the slope (mean at 20 - mean at 5) / 15 of the same engine: what one more
 * listener adds, without the fixed per-run cost that a non-empty chain pays once.
 */
import { Context } from '@deepseek-ai/cordis';
import { createWaterfall } from '@dsh-tools/waterfall';
import compose from 'koa-compose';
import { type BenchTask, reportRatio, runSuite } from './lib';

type Ctx = { n: number };
type Mw = (ctx: Ctx, next: () => Promise<number>) => Promise<number> | number;

const terminal = async (ctx: Ctx) => ctx.n;
const pass: Mw = (_ctx, next) => next();

/** The smallest correct compose: no checks, no argument replacement, no snapshots. */
function handCompose(middleware: Mw[], inner: (ctx: Ctx) => Promise<number>) {
  return (ctx: Ctx): Promise<number> => {
    const dispatch = (i: number): Promise<number> => {
      const fn = middleware[i];
      if (fn === undefined) return inner(ctx);
      try {
        return Promise.resolve(fn(ctx, () => dispatch(i + 1)));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return dispatch(0);
  };
}

const counts = [0, 1, 5, 20] as const;
// Each task iteration makes BATCH sequential calls, so that the harness's own per-iteration cost
// (timers, bookkeeping) does not drown differences of a few nanoseconds per listener.
const BATCH = 100;
const batch = (call: () => Promise<number>) => async () => {
  for (let i = 0; i < BATCH; i++) await call();
};
const tasks: BenchTask[] = [{ name: 'direct async call', fn: batch(() => terminal({ n: 1 })) }];

for (const n of counts) {
  const w = createWaterfall<[Ctx], number>();
  for (let i = 0; i < n; i++) w.use(pass);
  tasks.push({ name: `ours x${n}`, fn: batch(() => w.run({ n: 1 }, terminal)) });
}
for (const n of counts) {
  const run = handCompose(
    Array.from({ length: n }, () => pass),
    terminal,
  );
  tasks.push({ name: `hand compose x${n}`, fn: batch(() => run({ n: 1 })) });
}
for (const n of counts) {
  const composed = compose<Ctx>(Array.from({ length: n }, () => pass as compose.Middleware<Ctx>));
  // koa-compose's types say Promise<void>; at runtime it resolves what the chain returns.
  const run = composed as unknown as (ctx: Ctx, inner: () => Promise<number>) => Promise<number>;
  // koa-compose takes the innermost step as the `next` of the last middleware.
  tasks.push({
    name: `koa-compose x${n}`,
    fn: batch(() => run({ n: 1 }, () => terminal({ n: 1 }))),
  });
}
for (const n of counts) {
  const ctx = new Context();
  const event = `bench/x${n}`;
  for (let i = 0; i < n; i++) ctx.on(event as never, pass as never);
  const waterfall = ctx.waterfall as unknown as (
    name: string,
    ...args: unknown[]
  ) => Promise<number>;
  tasks.push({
    name: `cordis ctx.waterfall x${n}`,
    fn: batch(() => waterfall.call(ctx, event, { n: 1 }, terminal)),
  });
}

const means = await runSuite(
  'waterfall: per call, pass-through listeners',
  'direct async call',
  tasks,
  {
    time: 400,
    batch: BATCH,
    targets: [{ task: 'ours x0', against: 'direct async call', atMost: 2 }],
  },
);

const perListener = (engine: string) =>
  ((means[`${engine} x20`] ?? Number.NaN) - (means[`${engine} x5`] ?? Number.NaN)) / 15;
const ours = perListener('ours');
console.log('');
for (const engine of ['ours', 'hand compose', 'koa-compose', 'cordis ctx.waterfall']) {
  console.log(`per-listener cost, ${engine}: ${perListener(engine).toFixed(0)} ns`);
}
reportRatio('per-listener cost, ours / koa-compose', ours / perListener('koa-compose'), 1.0);
reportRatio('per-listener cost, ours / hand compose', ours / perListener('hand compose'), 1.3);
reportRatio(
  'per-listener cost, ours / cordis ctx.waterfall',
  ours / perListener('cordis ctx.waterfall'),
);
