/**
 * `ctx.tools.execute` through the cordis service against `registry.execute` of the standalone
 * registry, with 0 and 5 pass-through interceptors, all in one run. The cordis service wraps one
 * standalone registry, so the difference is the event layer alone: per call it reads cordis's
 * listener table and runs the listeners through `runChain`; per listener it pays cordis's
 * `reflect.bind` proxy (every listener cordis stores is wrapped so that `this` and each argument
 * are traced to the listener's context). The "where the time goes" tasks split those two costs.
 */
import { Context } from '@deepseek-ai/cordis';
import {
  createToolRegistry,
  type InterceptedExecution,
  type Interceptor,
  type InterceptorNext,
  runChain,
  type ToolDefinition,
  type ToolExecutionResult,
  textContent,
} from 'dsh-tools';
import { ToolRegistry } from 'dsh-tools/cordis';
import { formatNs, reportRatio, runSuite } from './lib';

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
const call = { callId: 'c1', name: 'echo', arguments: { text: 'hi' } };
const pass: Interceptor = (_exec, next) => next();

const standalone = (n: number) => {
  const registry = createToolRegistry();
  registry.register(echo);
  for (let i = 0; i < n; i++) registry.use(pass, { name: `pass-${i}` });
  return registry;
};

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
type Chain = Parameters<typeof runChain<[InterceptedExecution], ToolExecutionResult>>[0];
const plainChain: Chain = Array.from({ length: 5 }, (_, i) => ({
  listener: pass,
  name: `pass-${i}`,
}));
const hooks = c5.events._hooks['tools/execute'] ?? [];
const cordisChain: Chain = hooks.map((hook) => ({
  listener: hook.callback as (exec: InterceptedExecution, next: InterceptorNext) => never,
  name: hook.ctx.fiber.name,
}));
const frozen = Object.freeze({ ...call }) as unknown as InterceptedExecution;
const done = Promise.resolve({ callId: 'c1', content: [], isError: false });
const terminal = () => done;

const means = await runSuite(
  'ctx.tools.execute (cordis) vs registry.execute (standalone)',
  'standalone x0',
  [
    { name: 'standalone x0', fn: () => s0.execute(call) },
    { name: 'cordis x0', fn: () => c0.tools.execute(call) },
    { name: 'standalone x5', fn: () => s5.execute(call) },
    { name: 'cordis x5', fn: () => c5.tools.execute(call) },
    { name: 'runChain x5, plain listeners', fn: () => runChain(plainChain, [frozen], terminal) },
    {
      name: 'runChain x5, cordis-bound listeners',
      fn: () => runChain(cordisChain, [frozen], terminal),
    },
  ],
);

const m = (name: string) => means[name] ?? Number.NaN;
reportRatio('cordis x0 / standalone x0', m('cordis x0') / m('standalone x0'));
reportRatio('cordis x5 / standalone x5', m('cordis x5') / m('standalone x5'));
const perListenerCordis = (m('cordis x5') - m('cordis x0')) / 5;
const perListenerStandalone = (m('standalone x5') - m('standalone x0')) / 5;
const perListenerProxy =
  (m('runChain x5, cordis-bound listeners') - m('runChain x5, plain listeners')) / 5;
console.log(
  [
    `per listener: cordis ${formatNs(perListenerCordis)}, standalone ${formatNs(perListenerStandalone)}`,
    `cordis event layer: ${formatNs(perListenerCordis - perListenerStandalone)} per listener, ` +
      `of which cordis's reflect.bind proxy ${formatNs(perListenerProxy)}; ` +
      `${formatNs(m('cordis x0') - m('standalone x0'))} per call with no listener ` +
      '(one extra interceptor, the listener-table read)',
  ].join('\n'),
);
const target = 1000;
console.log(
  `target: cordis event layer at most ~1 µs per listener: ${
    perListenerCordis - perListenerStandalone <= target ? 'met' : 'MISSED'
  } (${formatNs(perListenerCordis - perListenerStandalone)})`,
);
