/**
 * The registry's behaviour suite, written once against a host and run against every host: the
 * standalone registry and the cordis service must give identical results. Test-only (under test/,
 * never built or published).
 */
import {
  errorResult,
  type Interceptor,
  type ToolChangeEvent,
  type ToolDefinition,
  ToolError,
  type ToolExecution,
  type ToolExecutionResult,
  type ToolSchema,
  textContent,
} from '@dsh-tools/protocol';
import type {
  ExecuteAllOptions,
  RegistryErrorInfo,
  ToolRegistryOptions,
} from '@dsh-tools/registry';
import { describe, expect, it } from 'vitest';

/** Undoes one registration; for the cordis host it disposes the plugin that made it. */
export type Dispose = () => Promise<void>;

/** One registry as a test drives it; each method maps to what a user of that host would write. */
export interface RegistryHost {
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): Promise<Dispose>;
  use(interceptor: Interceptor, options: { readonly name: string }): Promise<Dispose>;
  onResult(
    listener: (result: ToolExecutionResult, exec: ToolExecution) => void,
    name: string,
  ): Promise<Dispose>;
  onChange(listener: (event: ToolChangeEvent) => void, name: string): Promise<Dispose>;
  execute(exec: ToolExecution): Promise<ToolExecutionResult>;
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]>;
  schemas(): readonly ToolSchema[];
  has(name: string): boolean;
  /** Everything reported to `onError`, in order. */
  readonly errors: { readonly error: unknown; readonly info: RegistryErrorInfo }[];
  close(): Promise<void>;
}

/** Makes a fresh host; `onError` is the host's, so `errors` collects what it reports. */
export type HostFactory = (options: ToolRegistryOptions) => Promise<RegistryHost>;

/** Resolves when released; lets a test hold a tool body or an interceptor in flight. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

export const gate = (): Gate => {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
};

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const call = (name: string, args: unknown, callId = `call-${name}`): ToolExecution => ({
  callId,
  name,
  arguments: args as ToolExecution['arguments'],
});

/** A tool that echoes `text`, recording what its body received. */
const echoTool = (seen: unknown[] = [], name = 'echo'): ToolDefinition<{ text: string }> => ({
  name,
  description: 'Echoes its text.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  hints: { readOnly: true, concurrencySafe: true },
  execute(args) {
    seen.push(args);
    return [textContent(args.text)];
  },
});

/** A scenario: what it does on a host, and what must hold of its outcome on every host. */
export interface Scenario {
  readonly options?: ToolRegistryOptions;
  run(host: RegistryHost): Promise<unknown>;
  check(outcome: never): void;
}

const scenario = <O>(s: {
  options?: ToolRegistryOptions;
  run(host: RegistryHost): Promise<O>;
  check(outcome: O): void;
}): Scenario => s as Scenario;

/** Strips what legitimately differs between runs (nothing should differ between hosts). */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));

/** The scenarios, by name. Their outcomes are plain data so hosts can be compared with `toEqual`. */
export const scenarios: Record<string, Scenario> = {
  'runs a call and returns its content': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { result: plain(result), seen };
    },
    check({ result, seen }) {
      expect(result).toEqual({ callId: 'call-echo', content: [textContent('hi')], isError: false });
      expect(seen).toEqual([{ text: 'hi' }]);
    },
  }),

  'answers an unknown tool with UNKNOWN_TOOL naming the closest tools': scenario({
    async run(host) {
      await host.register(echoTool());
      return plain(await host.execute(call('ecko', { text: 'x' })));
    },
    check(result) {
      const r = result as ToolExecutionResult;
      expect(r.isError).toBe(true);
      expect(r.error?.code).toBe('UNKNOWN_TOOL');
      expect(r.error?.message).toContain('ecko');
    },
  }),

  'rejects invalid arguments before any interceptor or the body': scenario({
    async run(host) {
      const seen: unknown[] = [];
      const intercepted: string[] = [];
      await host.register(echoTool(seen));
      await host.use(
        (exec, next) => {
          intercepted.push(exec.callId);
          return next();
        },
        { name: 'spy' },
      );
      const result = await host.execute(call('echo', { text: 42 }));
      return { result: plain(result), seen, intercepted };
    },
    check({ result, seen, intercepted }) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('INVALID_ARGS');
      expect(r.error?.message).toContain('text');
      expect(seen).toEqual([]);
      expect(intercepted).toEqual([]);
    },
  }),

  'lets an interceptor veto a call: the body never runs': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use(
        (exec) => errorResult(exec.callId, 'DENIED', `Tool "${exec.name}" is denied by policy`),
        { name: 'deny-all' },
      );
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { result: plain(result), seen };
    },
    check({ result, seen }) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('DENIED');
      expect(r.content).toEqual([textContent('Error: Tool "echo" is denied by policy')]);
      expect(seen).toEqual([]);
    },
  }),

  'runs interceptors outermost first, in registration order': scenario({
    async run(host) {
      const trace: string[] = [];
      await host.register(echoTool());
      for (const name of ['first', 'second', 'third']) {
        await host.use(
          async (_exec, next) => {
            trace.push(`${name}:in`);
            const result = await next();
            trace.push(`${name}:out`);
            return result;
          },
          { name },
        );
      }
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { result: plain(result), trace };
    },
    check({ result, trace }) {
      expect((result as ToolExecutionResult).isError).toBe(false);
      expect(trace).toEqual([
        'first:in',
        'second:in',
        'third:in',
        'third:out',
        'second:out',
        'first:out',
      ]);
    },
  }),

  'passes a rewrite through next(changedExec) to inner interceptors and the body': scenario({
    async run(host) {
      const seen: unknown[] = [];
      const inner: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use((exec, next) => next({ ...exec, arguments: { text: 'rewritten' } }), {
        name: 'rewriter',
      });
      await host.use(
        (exec, next) => {
          inner.push(exec.arguments);
          return next();
        },
        { name: 'inner' },
      );
      const result = await host.execute(call('echo', { text: 'original' }));
      return { result: plain(result), seen, inner };
    },
    check({ result, seen, inner }) {
      const r = result as ToolExecutionResult;
      expect(r.isError).toBe(false);
      expect(r.content).toEqual([textContent('rewritten')]);
      expect(seen).toEqual([{ text: 'rewritten' }]);
      expect(inner).toEqual([{ text: 'rewritten' }]);
    },
  }),

  're-validates rewritten arguments: an invalid rewrite never reaches the body': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use((exec, next) => next({ ...exec, arguments: { text: 7 } }), {
        name: 'bad-rewriter',
      });
      const result = await host.execute(call('echo', { text: 'ok' }));
      return { result: plain(result), seen };
    },
    check({ result, seen }) {
      expect((result as ToolExecutionResult).error?.code).toBe('INVALID_ARGS');
      expect(seen).toEqual([]);
    },
  }),

  'shows inner interceptors a rewrite validated and frozen, and records it on the result': scenario(
    {
      async run(host) {
        const inner: unknown[] = [];
        await host.register(echoTool());
        await host.use((exec, next) => next({ ...exec, arguments: { text: 'changed' } }), {
          name: 'rewriter',
        });
        await host.use(
          (exec, next) => {
            inner.push({
              arguments: exec.arguments,
              frozen: Object.isFrozen(exec),
              tool: exec.tool?.name,
            });
            return next();
          },
          { name: 'inner' },
        );
        const result = await host.execute(call('echo', { text: 'sent' }));
        return { inner, arguments: plain(result.arguments) };
      },
      check({ inner, arguments: args }) {
        expect(inner).toEqual([{ arguments: { text: 'changed' }, frozen: true, tool: 'echo' }]);
        expect(args).toEqual({ original: { text: 'sent' }, effective: { text: 'changed' } });
      },
    },
  ),

  'stops an invalid rewrite at once: inner interceptors never see it': scenario({
    async run(host) {
      const inner: string[] = [];
      await host.register(echoTool());
      await host.use((exec, next) => next({ ...exec, arguments: { text: 7 } }), {
        name: 'bad-rewriter',
      });
      await host.use(
        (exec, next) => {
          inner.push(exec.callId);
          return next();
        },
        { name: 'inner' },
      );
      const result = await host.execute(call('echo', { text: 'ok' }));
      return { code: result.error?.code, message: result.error?.message, inner };
    },
    check({ code, message, inner }) {
      expect(code).toBe('INVALID_ARGS');
      expect(message).toContain('bad-rewriter');
      expect(inner).toEqual([]);
    },
  }),

  'refuses a rewrite of the callId or the tool name': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use((exec, next) => next({ ...exec, callId: 'forged' }), { name: 'forger' });
      const result = await host.execute(call('echo', { text: 'x' }));
      return { code: result.error?.code, message: result.error?.message, seen };
    },
    check({ code, message, seen }) {
      expect(code).toBe('INTERCEPTOR_ERROR');
      expect(message).toContain('forger');
      expect(seen).toEqual([]);
    },
  }),

  'keeps the code of a ToolError thrown by an interceptor': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.use(
        () => {
          throw new ToolError('DENIED', 'Tool "echo" needs approval, and nobody approved it');
        },
        { name: 'approval' },
      );
      return plain(await host.execute(call('echo', { text: 'x' })));
    },
    check(result) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('DENIED');
      expect(r.error?.message).toContain('nobody approved it');
    },
  }),

  'fails closed when an interceptor swallows the error of a second next()': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use(
        async (_exec, next) => {
          const first = await next();
          await next().catch(() => undefined);
          return first;
        },
        { name: 'swallower' },
      );
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { code: result.error?.code, message: result.error?.message, seen };
    },
    check({ code, message, seen }) {
      expect(code).toBe('INTERCEPTOR_ERROR');
      expect(message).toContain('swallower');
      expect(seen).toHaveLength(1);
    },
  }),

  'fails closed when an interceptor returns the result of another call': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.use(
        async (_exec, next) => {
          const result = await next();
          return { ...result, callId: 'someone-else' };
        },
        { name: 'mixer' },
      );
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { callId: result.callId, code: result.error?.code, message: result.error?.message };
    },
    check({ callId, code, message }) {
      expect(callId).toBe('call-echo');
      expect(code).toBe('INTERCEPTOR_ERROR');
      expect(message).toContain('mixer');
    },
  }),

  'fails closed when an interceptor returns before next() settles': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use(
        (exec, next) => {
          void next();
          return errorResult(exec.callId, 'DENIED', 'too early');
        },
        { name: 'impatient' },
      );
      const result = await host.execute(call('echo', { text: 'hi' }));
      await tick();
      return { code: result.error?.code, message: result.error?.message };
    },
    check({ code, message }) {
      expect(code).toBe('INTERCEPTOR_ERROR');
      expect(message).toContain('impatient');
    },
  }),

  'fails closed when an interceptor calls next() twice: the body runs once': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      await host.use(
        async (_exec, next) => {
          await next();
          return next();
        },
        { name: 'twice' },
      );
      const result = await host.execute(call('echo', { text: 'hi' }));
      return { result: plain(result), seen };
    },
    check({ result, seen }) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('INTERCEPTOR_ERROR');
      expect(r.error?.message).toContain('twice');
      expect(seen).toHaveLength(1);
    },
  }),

  'fails closed when an interceptor throws, naming it': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.use(
        () => {
          throw new Error('policy exploded');
        },
        { name: 'exploding-policy' },
      );
      return plain(await host.execute(call('echo', { text: 'hi' })));
    },
    check(result) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('INTERCEPTOR_ERROR');
      expect(r.error?.message).toContain('exploding-policy');
    },
  }),

  'fails closed when an interceptor returns something that is not a result': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.use((() => 'not a result') as unknown as Interceptor, { name: 'sloppy' });
      return plain(await host.execute(call('echo', { text: 'hi' })));
    },
    check(result) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('INTERCEPTOR_ERROR');
      expect(r.error?.message).toContain('sloppy');
    },
  }),

  'contains a throwing result observer: the others still see the result': scenario({
    async run(host) {
      const seen: string[] = [];
      await host.register(echoTool());
      await host.onResult(() => {
        throw new Error('observer exploded');
      }, 'bad-observer');
      await host.onResult((result) => {
        seen.push(result.callId);
      }, 'good-observer');
      const result = await host.execute(call('echo', { text: 'hi' }));
      await tick();
      return {
        result: plain(result),
        seen,
        reported: host.errors.map(({ error, info }) => ({
          message: (error as Error).message,
          kind: info.kind,
        })),
      };
    },
    check({ result, seen, reported }) {
      expect((result as ToolExecutionResult).isError).toBe(false);
      expect(seen).toEqual(['call-echo']);
      expect(reported).toEqual([{ message: 'observer exploded', kind: 'observer' }]);
    },
  }),

  'maps a thrown error to TOOL_ERROR': scenario({
    async run(host) {
      await host.register({
        ...echoTool(),
        name: 'broken',
        execute() {
          throw new Error('disk on fire');
        },
      });
      return plain(await host.execute(call('broken', { text: 'x' })));
    },
    check(result) {
      const r = result as ToolExecutionResult;
      expect(r.error?.code).toBe('TOOL_ERROR');
      expect(r.error?.message).toContain('disk on fire');
    },
  }),

  'times out a body that never settles': scenario({
    options: { timeoutGraceMs: 10 },
    async run(host) {
      let aborted = false;
      await host.register({
        ...echoTool(),
        name: 'hang',
        timeoutMs: 30,
        execute(_args, exec) {
          exec.signal.addEventListener('abort', () => {
            aborted = true;
          });
          return new Promise(() => {});
        },
      });
      const result = await host.execute(call('hang', { text: 'x' }));
      return { result: plain(result), aborted };
    },
    check({ result, aborted }) {
      expect((result as ToolExecutionResult).error?.code).toBe('TIMEOUT');
      expect(aborted).toBe(true);
    },
  }),

  'answers a pre-aborted call with ABORTED without running anything': scenario({
    async run(host) {
      const seen: unknown[] = [];
      await host.register(echoTool(seen));
      const result = await host.execute({
        ...call('echo', { text: 'x' }),
        signal: AbortSignal.abort(),
      });
      return { result: plain(result), seen };
    },
    check({ result, seen }) {
      expect((result as ToolExecutionResult).error?.code).toBe('ABORTED');
      expect(seen).toEqual([]);
    },
  }),

  'executeAll returns results in call order; one failure cancels no sibling': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.register({
        ...echoTool(),
        name: 'broken',
        execute() {
          throw new Error('nope');
        },
      });
      const results = await host.executeAll([
        call('echo', { text: 'a' }, 'c1'),
        call('broken', { text: 'b' }, 'c2'),
        call('echo', { text: 'c' }, 'c3'),
        call('missing', {}, 'c4'),
        call('echo', { text: 'e' }, 'c5'),
      ]);
      return results.map((r) => ({ callId: r.callId, code: r.error?.code ?? 'OK' }));
    },
    check(outcome) {
      expect(outcome).toEqual([
        { callId: 'c1', code: 'OK' },
        { callId: 'c2', code: 'TOOL_ERROR' },
        { callId: 'c3', code: 'OK' },
        { callId: 'c4', code: 'UNKNOWN_TOOL' },
        { callId: 'c5', code: 'OK' },
      ]);
    },
  }),

  'executeAll runs interceptors for every call': scenario({
    async run(host) {
      await host.register(echoTool());
      await host.use(
        (exec, next) =>
          exec.arguments.text === 'b'
            ? errorResult(exec.callId, 'DENIED', 'b is not allowed')
            : next(),
        { name: 'deny-b' },
      );
      const results = await host.executeAll(
        ['a', 'b', 'c'].map((text) => call('echo', { text }, `c-${text}`)),
      );
      return results.map((r) => r.error?.code ?? 'OK');
    },
    check(outcome) {
      expect(outcome).toEqual(['OK', 'DENIED', 'OK']);
    },
  }),

  'removes a disposed registration and announces both changes': scenario({
    async run(host) {
      const changes: ToolChangeEvent[] = [];
      await host.onChange((event) => changes.push(event), 'change-log');
      const dispose = await host.register(echoTool());
      const before = host.schemas().map((s) => s.name);
      await dispose();
      const after = host.schemas().map((s) => s.name);
      const result = await host.execute(call('echo', { text: 'x' }));
      return { before, after, changes: plain(changes), code: result.error?.code };
    },
    check({ before, after, changes, code }) {
      expect(before).toEqual(['echo']);
      expect(after).toEqual([]);
      expect(changes).toEqual([
        { added: ['echo'], removed: [] },
        { added: [], removed: ['echo'] },
      ]);
      expect(code).toBe('UNKNOWN_TOOL');
    },
  }),

  'stops running a disposed interceptor': scenario({
    async run(host) {
      await host.register(echoTool());
      const dispose = await host.use((exec) => errorResult(exec.callId, 'DENIED', 'no'), {
        name: 'temporary',
      });
      const first = await host.execute(call('echo', { text: 'x' }, 'first'));
      await dispose();
      const second = await host.execute(call('echo', { text: 'x' }, 'second'));
      return [first.error?.code ?? 'OK', second.error?.code ?? 'OK'];
    },
    check(outcome) {
      expect(outcome).toEqual(['DENIED', 'OK']);
    },
  }),

  'stops a call in flight when its tool is disposed meanwhile: its signal aborts, ABORTED':
    scenario({
      async run(host) {
        const held = gate();
        const started = gate();
        let aborted: boolean | undefined;
        const dispose = await host.register({
          ...echoTool(),
          name: 'slow',
          async execute(args, exec) {
            started.open();
            await held.promise;
            aborted = exec.signal.aborted;
            return [textContent(`done ${args.text}`)];
          },
        });
        const pending = host.execute(call('slow', { text: 'x' }));
        await started.promise;
        await dispose();
        const registeredDuring = host.has('slow');
        // Unregistering stops the call a tick later (a tool registered again at once keeps it).
        await new Promise((r) => setTimeout(r, 1));
        held.open();
        const result = await pending;
        const again = await host.execute(call('slow', { text: 'y' }, 'again'));
        return { registeredDuring, aborted, code: result.error?.code, again: again.error?.code };
      },
      check({ registeredDuring, aborted, code, again }) {
        expect(registeredDuring).toBe(false);
        expect(aborted).toBe(true);
        expect(code).toBe('ABORTED');
        expect(again).toBe('UNKNOWN_TOOL');
      },
    }),

  'keeps the interceptors a call started with when one is disposed during it': scenario({
    async run(host) {
      const held = gate();
      const started = gate();
      const trace: string[] = [];
      await host.register({
        ...echoTool(),
        name: 'slow',
        async execute(args) {
          started.open();
          await held.promise;
          return [textContent(args.text)];
        },
      });
      const dispose = await host.use(
        async (_exec, next) => {
          trace.push('in');
          const result = await next();
          trace.push('out');
          return result;
        },
        { name: 'wrapper' },
      );
      const pending = host.execute(call('slow', { text: 'x' }));
      await started.promise;
      await dispose();
      held.open();
      const result = await pending;
      await host.execute(call('slow', { text: 'y' }, 'later'));
      return { trace, code: result.error?.code ?? 'OK' };
    },
    check({ trace, code }) {
      expect(trace).toEqual(['in', 'out']);
      expect(code).toBe('OK');
    },
  }),

  'refuses a duplicate registration and keeps the first': scenario({
    async run(host) {
      await host.register(echoTool());
      const error = await host.register(echoTool()).then(
        () => undefined,
        (e: unknown) => (e as Error).message,
      );
      // Each host words the refusal its own way (a cordis app names the plugin holding the
      // tool); what they share is that the refusal names the tool.
      return { namesTheTool: error?.includes('"echo"'), names: host.schemas().map((s) => s.name) };
    },
    check({ namesTheTool, names }) {
      expect(namesTheTool).toBe(true);
      expect(names).toEqual(['echo']);
    },
  }),
};

/** Runs every scenario against hosts made by `makeHost`, one fresh host per scenario. */
export function defineRegistrySuite(hostName: string, makeHost: HostFactory): void {
  describe(`registry behaviour on ${hostName}`, () => {
    for (const [name, s] of Object.entries(scenarios)) {
      it(name, async () => {
        const host = await makeHost(s.options ?? {});
        try {
          s.check((await s.run(host)) as never);
        } finally {
          await host.close();
        }
      });
    }
  });
}

/** Runs one scenario on a fresh host and returns its plain outcome, for cross-host comparison. */
export async function outcomeOf(makeHost: HostFactory, name: string): Promise<unknown> {
  const s = scenarios[name];
  if (s === undefined) throw new Error(`no scenario named "${name}"`);
  const host = await makeHost(s.options ?? {});
  try {
    return plain(await s.run(host));
  } finally {
    await host.close();
  }
}
