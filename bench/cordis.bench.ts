/**
 * `ctx.tools.execute` through the cordis service against `registry.execute` of the standalone
 * registry, with 0 and 5 pass-through interceptors, all in one run. The cordis service wraps one
 * standalone registry and registers each `tools/execute` listener in it, so the difference is the
 * cordis layer alone: per call, cordis's lookup of `ctx.tools`, its tracing proxy around the
 * service method, and a check of cordis's listener table; per listener, cordis's `reflect.bind`
 * proxy (every listener cordis stores is wrapped so that `this` and each argument are traced to
 * the listener's context). The "held service" and "runChain" tasks split those costs.
 */
import { Context } from '@deepseek-ai/cordis';
import {
  type ChainEntry,
  createToolRegistry,
  type InterceptedExecution,
  type Interceptor,
  runChain,
  type ToolDefinition,
  type ToolExecutionResult,
  textContent,
} from 'dsh-tools';
import { ToolRegistry } from 'dsh-tools/cordis';
import { formatNs, isResolved, reportRatio, runSuite } from './lib';

const echo: ToolDefinition<{ text: string }> = {
  name: 'echo',
  description: 'Echoes its text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
  },
  execute: (args) => [textContent(args.text)],
};
const template = { callId: 'c1', name: 'echo', arguments: { text: 'hi' } };
// Every call its own callId: a registry refuses a callId already in flight, and a timed call that
// failed would flatter the figures (each task pays the same small allocation).
let seq = 0;
const call = () => ({ ...template, callId: `c${++seq}` });
/** One listener of a bare chain, as `runChain` takes it. */
type ChainLink = ChainEntry<[InterceptedExecution], ToolExecutionResult>;
const asListener = (listener: unknown) => listener as ChainLink['listener'];
const pass: Interceptor = (_exec, next) => next();

const standalone = (n: number) => {
  const registry = createToolRegistry();
  registry.register(echo);
  for (let i = 0; i < n; i++) registry.use(pass, { name: `pass-${i}` });
  return registry;
};

/** The listeners as cordis stores them (`ctx.on` keeps `ctx.reflect.bind(listener)`), by plugin. */
const bound: ChainLink[] = [];

const cordis = async (n: number) => {
  const root = new Context();
  await root.plugin(ToolRegistry);
  await root.plugin({
    name: 'tools',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(echo);
    },
  });
  for (let i = 0; i < n; i++) {
    await root.plugin({
      name: `pass-${i}`,
      apply(ctx: Context) {
        ctx.on('tools/execute', pass);
        // The same wrapper through cordis's public reflect service, not its private listener table.
        if (n === 5)
          bound.push({ listener: asListener(ctx.reflect.bind(pass)), name: `pass-${i}` });
      },
    });
  }
  return root;
};

const s0 = standalone(0);
const s5 = standalone(5);
const c0 = await cordis(0);
const c5 = await cordis(5);

// Where the time goes: the same five listeners as a bare chain, once as plain functions and once
// as the proxies cordis stores in its listener table.
const plainChain: ChainLink[] = Array.from({ length: 5 }, (_, i) => ({
  listener: asListener(pass),
  name: `pass-${i}`,
}));
const cordisChain: ChainLink[] = bound;
if (cordisChain.length !== 5)
  throw new Error(`expected 5 cordis-bound listeners, got ${cordisChain.length}`);
const frozen = Object.freeze(call()) as unknown as InterceptedExecution;
const done = Promise.resolve({ callId: 'c1', content: [], isError: false });
const terminal = () => done;
const chain = (entries: ChainLink[]) =>
  runChain<[InterceptedExecution], ToolExecutionResult>(entries, [frozen], terminal);

/** Counts only a call that worked: a failing result fails the run instead of being timed. */
const succeeded = (result: ToolExecutionResult): void => {
  if (result.isError) throw new Error(`bench call failed: ${result.error?.message}`);
};

const h0 = c0.tools;
const h5 = c5.tools;

const means = await runSuite(
  'ctx.tools.execute (cordis) vs registry.execute (standalone)',
  'standalone x0',
  [
    { name: 'standalone x0', fn: () => s0.execute(call()).then(succeeded) },
    { name: 'cordis x0', fn: () => c0.tools.execute(call()).then(succeeded) },
    { name: 'cordis, held service x0', fn: () => h0.execute(call()).then(succeeded) },
    { name: 'standalone x5', fn: () => s5.execute(call()).then(succeeded) },
    { name: 'cordis x5', fn: () => c5.tools.execute(call()).then(succeeded) },
    { name: 'cordis, held service x5', fn: () => h5.execute(call()).then(succeeded) },
    { name: 'cordis service lookup (ctx.tools)', fn: () => c0.tools },
    { name: 'runChain x5, plain listeners', fn: () => chain(plainChain) },
    {
      name: 'runChain x5, cordis-bound listeners',
      fn: () => chain(cordisChain),
    },
  ],
);

const m = (name: string) => means[name] ?? Number.NaN;
reportRatio('cordis x0 / standalone x0', m('cordis x0') / m('standalone x0'));
reportRatio('cordis x5 / standalone x5', m('cordis x5') / m('standalone x5'));
reportRatio(
  'cordis, held service x0 / standalone x0',
  m('cordis, held service x0') / m('standalone x0'),
);
reportRatio(
  'cordis, held service x5 / standalone x5',
  m('cordis, held service x5') / m('standalone x5'),
);

// Per listener: the growth from 0 to 5 listeners, on a held service so that cordis's service
// lookup (which builds an Error for its diagnostics on every `ctx.tools`) does not blur it.
const perListenerCordis = (m('cordis, held service x5') - m('cordis, held service x0')) / 5;
const perListenerStandalone = (m('standalone x5') - m('standalone x0')) / 5;
// A difference built on a figure this run could not resolve is not resolved either.
const perListenerLayer =
  isResolved(perListenerCordis) && isResolved(perListenerStandalone)
    ? perListenerCordis - perListenerStandalone
    : Number.NaN;
const perListenerProxy =
  (m('runChain x5, cordis-bound listeners') - m('runChain x5, plain listeners')) / 5;
const perCallMethod = m('cordis, held service x0') - m('standalone x0');
const perCallLookup = m('cordis service lookup (ctx.tools)');
/** A derived time as printed: a difference of two noisy means can come out impossible. */
const shown = (ns: number): string =>
  isResolved(ns) ? formatNs(ns) : `${formatNs(ns)} (not resolved by this run)`;
console.log(
  [
    '',
    'where the time goes:',
    `- per listener: cordis ${shown(perListenerCordis)}, standalone ${shown(perListenerStandalone)}; ` +
      `the event layer adds ${shown(perListenerLayer)}, of which cordis's reflect.bind proxy ` +
      `around every listener is ${shown(perListenerProxy)}`,
    `- per call: the ctx.tools lookup ${shown(perCallLookup)} (cordis's context proxy), ` +
      `the service method through cordis's tracing proxy plus the listener-table check ${shown(perCallMethod)}`,
  ].join('\n'),
);
// Not clamped: a negative or NaN cost is reported as not resolved, never as met.
reportRatio('event-layer cost per listener / 1 µs', perListenerLayer / 1000, 1);
