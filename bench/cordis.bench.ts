/**
 * `ctx.tools.execute` through the cordis service against `registry.execute` of the standalone
 * registry, with 0 and 5 pass-through interceptors, all in one run. The cordis service wraps one
 * standalone registry and registers each `tools/execute` listener in it, so the difference is the
 * cordis layer alone: per call, cordis's lookup of `ctx.tools`, its tracing proxy around the
 * service method, and a check of cordis's listener table; per listener, cordis's `reflect.bind`
 * proxy (every listener cordis stores is wrapped so that `this` and each argument are traced to
 * the listener's context). The "held service" and "runChain" tasks split those costs.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context, Service } from '@deepseek-ai/cordis';
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
import { TOOL_RUNTIME_SCHEDULER, ToolRegistry } from 'dsh-tools/cordis';
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

// ---------------------------------------------------------------------------------------------
// The DeepSeek Harness's own agent loop, one full turn with 5 parallel tool calls, on ours and on
// `@deepseek-ai/dsh-tools`'s ToolRuntime. The harness packages are the ones examples/upstream-compat
// installs: resolved from there, so the bench package does not pin a second copy of each.

const compat = createRequire(join(process.cwd(), '../examples/upstream-compat/package.json'));
// biome-ignore lint/suspicious/noExplicitAny: the harness's packages are loaded untyped here
type Any = any;
const load = async (name: string): Promise<Any> => import(pathToFileURL(compat.resolve(name)).href);
const [agentMod, loopMod, llmMod, sessionMod, promptMod, upstreamTools] = await Promise.all([
  load('@deepseek-ai/dsh-agent'),
  load('@deepseek-ai/dsh-agent-loop'),
  load('@deepseek-ai/dsh-llm'),
  load('@deepseek-ai/dsh-session'),
  load('@deepseek-ai/dsh-system-prompt'),
  load('@deepseek-ai/dsh-tools'),
]);
// The loop uses Promise.withResolvers (Node 22); this repository's floor is Node 20.
(Promise as unknown as { withResolvers?: unknown }).withResolvers ??= () => {
  let resolve: unknown;
  let reject: unknown;
  const promise = new Promise((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
};

const PARALLEL = 5;
/** A model that asks for 5 parallel calls, then answers: one turn is two model calls. */
class FiveCalls extends (llmMod.LlmAdapter as new () => Any) {
  private asked = false;
  providerInfo(provider: string) {
    return { id: provider, name: provider };
  }
  async resolveModel(provider: string, model: string) {
    return { provider, id: model, name: model };
  }
  async *stream(): AsyncIterable<Any> {
    this.asked = !this.asked;
    if (!this.asked) {
      yield { type: 'block-start', index: 0, blockType: 'text' };
      yield { type: 'text-delta', index: 0, text: 'done' };
      yield { type: 'block-end', index: 0, block: { type: 'text', text: 'done' } };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    for (let i = 0; i < PARALLEL; i++) {
      const block = {
        type: 'tool-call',
        id: `t${i}`,
        name: 'lookup',
        arguments: `{"key":"k${i}"}`,
      };
      yield { type: 'block-start', index: i, blockType: 'tool-call' };
      yield {
        type: 'tool-call-delta',
        index: i,
        id: block.id,
        name: block.name,
        argumentsDelta: block.arguments,
      };
      yield { type: 'block-end', index: i, block };
    }
    yield { type: 'finish', reason: 'tool-calls' };
  }
}

const lookup = upstreamTools.defineTool({
  name: 'lookup',
  description: 'Looks a key up.',
  parameters: { key: { type: 'string', required: true } },
  output: {
    schema: { type: 'string' },
    render: (_a: unknown, v: string) => [{ type: 'text', text: v }],
  },
  isConcurrencySafe: () => true,
  execute: async (args: { key: string }) => `value of ${args.key}`,
});

/**
 * The floor of any tools service in this loop: the members the loop reads and nothing else (every
 * call parallel, the body run as is, no validation, no policy, no events). A turn on it is the
 * loop's own cost; what a real service adds is its turn minus this one.
 */
class FloorTools extends Service {
  static inject = ['systemPrompt'];
  readonly definitions = new Map<string, Any>();
  constructor(ctx: Context) {
    super(ctx, 'tools');
    const definitions = this.definitions;
    (this as Any)[upstreamTools.TOOL_RUNTIME_SCHEDULER] = {
      prepare: async (exec: Any) => ({
        kind: 'dispatch',
        exec: {
          ...exec,
          token: Symbol('call'),
          rootCallId: exec.callId,
          deferContext() {},
          concludeTurn() {},
        },
      }),
      dispatch: async (exec: Any) => {
        const tool = definitions.get(exec.name);
        const value = await tool.execute(exec.arguments, exec);
        const result = {
          isError: false,
          value,
          content: tool.output.render(exec.arguments, value),
        };
        return { kind: 'final-result', result };
      },
      finalize: async (_exec: Any, result: Any) => result,
      finish: (_exec: Any, result: Any) => result,
    };
    (ctx as Any).systemPrompt.tools(() => ({
      schemas: [...definitions.values()].map(({ name, description, parameters }) => ({
        name,
        description,
        parameters,
      })),
    }));
  }
  register(definition: Any) {
    this.definitions.set(definition.name, definition);
    return () => this.definitions.delete(definition.name);
  }
  executionMode() {
    return { kind: 'parallel' };
  }
}

let sessions = 0;
const loopApp = async (host: 'ours' | 'upstream' | 'floor') => {
  const app = new Context() as Any;
  await app.plugin(promptMod.default, {});
  await app.plugin(agentMod.AgentRegistry);
  await app.plugin(sessionMod.SessionStore);
  await app.plugin(llmMod.LlmRuntime);
  if (host === 'upstream') await app.plugin(upstreamTools.ToolRuntime, {});
  else if (host === 'floor') await app.plugin(FloorTools);
  else await app.plugin(ToolRegistry, { schedulerKey: upstreamTools.TOOL_RUNTIME_SCHEDULER });
  await app.plugin(loopMod.default, { agents: [] });
  app.llm.registerAdapter(['five'], new FiveCalls());
  await app.plugin({
    name: 'lookup',
    inject: ['tools'],
    apply(ctx: Any) {
      ctx.tools.register(lookup);
    },
  });
  /** One turn of a fresh agent: 2 model calls, 5 parallel tool calls, results recorded. */
  return async () => {
    const handle = await app.agents.create({
      sessionId: sessionMod.SessionId(`bench-${++sessions}`),
      agentOptions: { provider: 'five', model: 'm' },
    });
    const { agent } = handle;
    agent.followup(
      llmMod.createUserMessage({
        content: [{ type: 'text', text: 'go' }],
        source: { kind: 'user' },
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    await agent.whenIdle();
    const results = agent.session.events.filter((e: Any) => e.type === 'tool/result');
    if (
      results.length !== PARALLEL ||
      results.some((e: Any) => e.data.message.content[0].isError)
    ) {
      throw new Error(`bench turn on ${host} did not record ${PARALLEL} successful results`);
    }
    await handle.dispose();
  };
};

const turns = {
  'upstream ToolRuntime': await loopApp('upstream'),
  'dsh-tools/cordis': await loopApp('ours'),
  'floor: a service that only runs the bodies': await loopApp('floor'),
};
/**
 * A turn takes milliseconds and this machine is shared: the three services run interleaved, 10
 * turns each in turn, 40 times, so that a neighbour's burst, the heap every turn's session leaves
 * and the JIT's state fall on all three alike (tinybench would run each one's turns in a block,
 * and the block that happens to meet a burst loses). Each service's turn is the median of its
 * slices, and its best slice is shown beside it.
 */
async function interleaved(tasks: Record<string, () => Promise<void>>, slices = 40, per = 10) {
  const names = Object.keys(tasks);
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  for (const name of names) for (let i = 0; i < per; i++) await tasks[name]?.();
  for (let slice = 0; slice < slices; slice++) {
    for (const name of names) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < per; i++) await tasks[name]?.();
      times.get(name)?.push(Number(process.hrtime.bigint() - start) / per);
    }
  }
  const stats = new Map<string, { median: number; best: number }>();
  for (const [name, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    stats.set(name, {
      median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
      best: sorted[0] ?? Number.NaN,
    });
  }
  return stats;
}
{
  const UPSTREAM = 'upstream ToolRuntime';
  const OURS = 'dsh-tools/cordis';
  const FLOOR = 'floor: a service that only runs the bodies';
  const stats = await interleaved(turns);
  const median = (name: string) => stats.get(name)?.median ?? Number.NaN;
  const base = median(UPSTREAM);
  console.log(`\n## the harness's agent loop: one turn with ${PARALLEL} parallel tool calls\n`);
  console.log(`| task | median | best slice | ratio to ${UPSTREAM} (medians) |`);
  console.log('|---|---:|---:|---:|');
  for (const [name, { median: m, best }] of stats) {
    console.log(`| ${name} | ${formatNs(m)} | ${formatNs(best)} | ${(m / base).toFixed(2)}x |`);
  }
  // What each service adds to a turn (its turn minus the floor's), and the best ratio any
  // service could reach: the floor's turn over upstream's.
  const floor = median(FLOOR);
  const adds = (name: string) => {
    const own = median(name) - floor;
    return `${formatNs(own)} of ${formatNs(median(name))} (${((own / median(name)) * 100).toFixed(0)}%)`;
  };
  console.log(
    [
      'where a turn goes:',
      `- the loop, its session, the model stream and cordis (the floor): ${formatNs(floor)}`,
      `- ${UPSTREAM} adds ${adds(UPSTREAM)}`,
      `- ${OURS} adds ${adds(OURS)}`,
    ].join('\n'),
  );
  reportRatio(`a service costing nothing (the floor) / ${UPSTREAM}`, floor / base);
  reportRatio(`${OURS} / ${UPSTREAM}`, median(OURS) / base, 0.5);
}

// The part of that turn the tools service owns: the batch of 5 calls as the loop's scheduler
// drives it (prepare each in model order, overlap the bodies, finalize in model order).
const batchApp = async (host: 'ours' | 'upstream') => {
  const app = new Context() as Any;
  await app.plugin(promptMod.default, {});
  if (host === 'upstream') await app.plugin(upstreamTools.ToolRuntime, {});
  else await app.plugin(ToolRegistry, {});
  await app.plugin({
    name: 'lookup',
    inject: ['tools'],
    apply(ctx: Any) {
      ctx.tools.register(lookup);
    },
  });
  const tools = app.tools;
  const key = host === 'upstream' ? upstreamTools.TOOL_RUNTIME_SCHEDULER : TOOL_RUNTIME_SCHEDULER;
  const scheduler = tools[key];
  const signal = new AbortController().signal;
  let batch = 0;
  return async () => {
    batch++;
    const calls = Array.from({ length: PARALLEL }, (_, i) => ({
      callId: `b${batch}-${i}`,
      name: 'lookup',
      arguments: { key: `k${i}` },
      signal,
    }));
    const slots: Any[] = [];
    const inFlight: Promise<void>[] = [];
    for (const [i, call] of calls.entries()) {
      if (tools.executionMode(call).kind !== 'parallel') throw new Error('expected parallel calls');
      const prepared = await scheduler.prepare(call);
      if (prepared.kind !== 'dispatch') throw new Error(`bench batch on ${host}: ${prepared.kind}`);
      inFlight.push(
        scheduler.dispatch(prepared.exec).then((d: Any) => {
          slots[i] = { exec: prepared.exec, d };
        }),
      );
    }
    await Promise.all(inFlight);
    for (const { exec, d } of slots) {
      const result =
        d.kind === 'post-result'
          ? await scheduler.finalize(exec, d.result)
          : scheduler.finish(exec, d.result);
      if (result.isError) throw new Error(`bench batch on ${host}: ${result.error?.message}`);
    }
  };
};

const oursBatch = await batchApp('ours');
const upstreamBatch = await batchApp('upstream');
await runSuite(
  `the loop's tool batch alone: ${PARALLEL} parallel calls through the scheduler`,
  'upstream ToolRuntime',
  [
    { name: 'upstream ToolRuntime', fn: upstreamBatch },
    { name: 'dsh-tools/cordis', fn: oursBatch },
  ],
  { targets: [{ task: 'dsh-tools/cordis', against: 'upstream ToolRuntime', atMost: 0.5 }] },
);
