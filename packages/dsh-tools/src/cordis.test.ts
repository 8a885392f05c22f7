import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Context, type Fiber } from '@deepseek-ai/cordis';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import {
  errorResult,
  type Interceptor,
  type ToolChangeEvent,
  type ToolDefinition,
  textContent,
} from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import DefaultExport, { ToolRegistry } from './cordis';

const tool = (name: string, text = name): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: {} },
  execute: () => [textContent(text)],
});

const boot = async (config: ConstructorParameters<typeof ToolRegistry>[1] = {}) => {
  const root = new Context();
  await root.plugin(ToolRegistry, config);
  return root;
};

/** A plugin that registers `names` as its tools. */
const toolPlugin = (names: readonly string[], name = 'tool-plugin') => ({
  name,
  inject: ['tools'],
  apply(ctx: Context) {
    for (const n of names) ctx.tools.register(tool(n));
  },
});

const executeHooks = (root: Context) => root.events._hooks['tools/execute']?.length ?? 0;

describe('the cordis tools service', () => {
  it('is provided at ctx.tools and is the default export', async () => {
    expect(DefaultExport).toBe(ToolRegistry);
    const root = await boot();
    expect(root.get('tools')).toBeInstanceOf(ToolRegistry);
    expect(root.tools.schemas()).toEqual([]);
  });

  it('registers a tool as an effect of the calling fiber, not of the service', async () => {
    const root = await boot();
    const changes: ToolChangeEvent[] = [];
    root.on('tools/change', (event) => {
      changes.push(event);
    });
    const fiber = await root.plugin(toolPlugin(['alpha', 'beta']));
    expect(root.tools.schemas().map((s) => s.name)).toEqual(['alpha', 'beta']);
    expect(fiber.getEffects().map((e) => e.label)).toContain('ctx.tools.register("alpha")');
    await fiber.dispose();
    expect(root.tools.schemas()).toEqual([]);
    expect(changes).toEqual([
      { added: ['alpha'], removed: [] },
      { added: ['beta'], removed: [] },
      { added: [], removed: ['beta'] },
      { added: [], removed: ['alpha'] },
    ]);
  });

  it('works for a plugin that reads the service softly with ctx.get', async () => {
    const root = await boot();
    const fiber = await root.plugin({
      name: 'soft',
      apply(ctx: Context) {
        ctx.get('tools')?.register(tool('soft_tool'));
      },
    });
    expect(root.tools.has('soft_tool')).toBe(true);
    await fiber.dispose();
    expect(root.tools.has('soft_tool')).toBe(false);
  });

  it('returns a disposer that removes the tool before its plugin goes', async () => {
    const root = await boot();
    let dispose!: () => void;
    const fiber = await root.plugin({
      name: 'early',
      inject: ['tools'],
      apply(ctx: Context) {
        dispose = ctx.tools.register(tool('early_tool'));
      },
    });
    dispose();
    dispose();
    expect(root.tools.has('early_tool')).toBe(false);
    await fiber.dispose();
    expect(root.tools.has('early_tool')).toBe(false);
  });

  it('refuses to register from a disposed plugin, saying so', async () => {
    const root = await boot();
    let later!: Context;
    const fiber = await root.plugin({
      name: 'gone',
      inject: ['tools'],
      apply(ctx: Context) {
        later = ctx;
      },
    });
    const tools = later.tools;
    await fiber.dispose();
    expect(() => tools.register(tool('ghost'))).toThrow(/inactive/);
    expect(root.tools.has('ghost')).toBe(false);
  });

  it('fails the registering plugin on a duplicate, keeping the first tool', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['dup'], 'first'));
    await expect(root.plugin(toolPlugin(['dup'], 'second'))).rejects.toThrow(/dup/);
    expect(root.tools.schemas().map((s) => s.name)).toEqual(['dup']);
  });

  it('removes a tools/execute listener with its fiber', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['guarded']));
    const fiber = await root.plugin({
      name: 'deny-all',
      apply(ctx: Context) {
        ctx.on('tools/execute', (exec) => errorResult(exec.callId, 'DENIED', 'denied by deny-all'));
      },
    });
    const call = { callId: 'c', name: 'guarded', arguments: {} };
    expect((await root.tools.execute(call)).error?.code).toBe('DENIED');
    await fiber.dispose();
    expect(executeHooks(root)).toBe(0);
    expect((await root.tools.execute(call)).isError).toBe(false);
  });

  it('runs listeners registered before the service existed', async () => {
    const root = new Context();
    root.on('tools/execute', (exec) => errorResult(exec.callId, 'DENIED', 'early bird'));
    await root.plugin(ToolRegistry);
    await root.plugin(toolPlugin(['late']));
    const result = await root.tools.execute({ callId: 'c', name: 'late', arguments: {} });
    expect(result.error?.message).toBe('early bird');
  });

  it('runs a ctx.once listener for one call only', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['once']));
    root.once('tools/execute', (exec) => errorResult(exec.callId, 'DENIED', 'first call only'));
    const call = (callId: string) => root.tools.execute({ callId, name: 'once', arguments: {} });
    expect((await call('a')).error?.code).toBe('DENIED');
    expect((await call('b')).isError).toBe(false);
    expect(executeHooks(root)).toBe(0);
  });

  it('stops running a listener removed by its own disposer', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['off']));
    const off = root.on('tools/execute', (exec) => errorResult(exec.callId, 'DENIED', 'no'));
    const call = (callId: string) => root.tools.execute({ callId, name: 'off', arguments: {} });
    expect((await call('a')).error?.code).toBe('DENIED');
    off();
    expect((await call('b')).isError).toBe(false);
  });

  it('runs a prepended listener outermost, as cordis orders it', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['ordered']));
    const trace: string[] = [];
    root.on('tools/execute', async (_exec, next) => {
      trace.push('appended');
      return next();
    });
    root.on(
      'tools/execute',
      async (_exec, next) => {
        trace.push('prepended');
        return next();
      },
      true,
    );
    await root.tools.execute({ callId: 'c', name: 'ordered', arguments: {} });
    expect(trace).toEqual(['prepended', 'appended']);
  });

  it('runs ctx.tools.use interceptors by priority around the cordis listeners', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['prio']));
    const trace: string[] = [];
    const mark = (name: string) => async (_exec: unknown, next: () => Promise<unknown>) => {
      trace.push(name);
      return next();
    };
    root.tools.use(mark('use:zero') as never);
    root.tools.use(mark('use:low') as never, { priority: -1 });
    root.on('tools/execute', mark('event') as never);
    root.tools.use(mark('use:high') as never, { priority: 10 });
    root.tools.use(mark('use:tiny') as never, { priority: 0.001 });
    await root.tools.execute({ callId: 'c', name: 'prio', arguments: {} });
    expect(trace).toEqual(['use:high', 'use:tiny', 'event', 'use:zero', 'use:low']);
  });

  it('names the plugin of a misbehaving listener in the INTERCEPTOR_ERROR', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['named']));
    await root.plugin({
      name: 'careless-policy',
      apply(ctx: Context) {
        ctx.on('tools/execute', () => {
          throw new Error('boom');
        });
      },
    });
    const result = await root.tools.execute({ callId: 'c', name: 'named', arguments: {} });
    expect(result.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(result.error?.message).toContain('careless-policy');
  });

  it('reports a throwing tools/result listener to the cordis logger, naming its plugin', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['observed']));
    let seen = 0;
    await root.plugin({
      name: 'noisy-observer',
      apply(ctx: Context) {
        ctx.on('tools/result', () => {
          throw new Error('observer broke');
        });
        ctx.on('tools/result', async () => {
          throw new Error('async observer broke');
        });
      },
    });
    root.on('tools/result', () => {
      seen += 1;
    });
    const result = await root.tools.execute({ callId: 'c1', name: 'observed', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(result.isError).toBe(false);
    expect(seen).toBe(1);
    const warnings = root.logger.buffer
      .filter((m) => m.type === 'error')
      .map((m) => String(m.args[0]));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('noisy-observer');
    expect(warnings[0]).toContain('observer broke');
    expect(warnings[0]).toContain('c1');
  });

  it('keeps ctx.tools.on and ctx.tools.use with the calling fiber', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['kept']));
    const results: string[] = [];
    const fiber = await root.plugin({
      name: 'observer',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.on('result', (result) => {
          results.push(result.callId);
        });
        ctx.tools.use((exec) => errorResult(exec.callId, 'DENIED', 'no'));
      },
    });
    const call = (callId: string) => root.tools.execute({ callId, name: 'kept', arguments: {} });
    expect((await call('one')).error?.code).toBe('DENIED');
    await fiber.dispose();
    expect((await call('two')).isError).toBe(false);
    expect(results).toEqual(['one']);
  });

  it('ignores tools/execute listeners of an isolated tools scope', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['scoped']));
    const isolated = root.isolate('tools');
    await isolated.plugin(ToolRegistry);
    isolated.on('tools/execute', (exec) => errorResult(exec.callId, 'DENIED', 'other scope'));
    const result = await root.tools.execute({ callId: 'c', name: 'scoped', arguments: {} });
    expect(result.isError).toBe(false);
    // The isolated scope has its own registry, tools and listeners.
    expect(isolated.tools.has('scoped')).toBe(false);
    await isolated.plugin(toolPlugin(['scoped']));
    const inner = await isolated.tools.execute({ callId: 'c', name: 'scoped', arguments: {} });
    expect(inner.error?.message).toBe('other scope');
  });

  it('passes the configuration to the registry', async () => {
    const root = await boot({ timeoutMs: 20, timeoutGraceMs: 5 });
    await root.plugin({
      name: 'hangs',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register({ ...tool('hang'), execute: () => new Promise(() => {}) });
      },
    });
    const result = await root.tools.execute({ callId: 'c', name: 'hang', arguments: {} });
    expect(result.error?.code).toBe('TIMEOUT');
  });

  it('drops its registry with its own fiber; plugins that need it stop', async () => {
    const root = new Context();
    const service = await root.plugin(ToolRegistry);
    const dependent = await root.plugin(toolPlugin(['dep']));
    const policy = await root.plugin({
      name: 'policy',
      apply(ctx: Context) {
        ctx.on('tools/execute', (_exec, next) => next());
      },
    });
    const registry = root.tools;
    await registry.execute({ callId: 'c', name: 'dep', arguments: {} });
    const mirrored = () =>
      policy.getEffects().filter((e) => e.label === 'ctx.tools: tools/execute listener');
    expect(mirrored()).toHaveLength(1);
    await service.dispose();
    expect(root.get('tools')).toBeUndefined();
    expect(registry.has('dep')).toBe(false);
    expect(dependent.state).not.toBe(2);
    // The listener's plugin lives on, without the copy the gone service had made of it.
    expect(mirrored()).toEqual([]);
    expect(executeHooks(root)).toBe(1);
  });
});

describe('hostile and huge input', () => {
  it('refuses a malformed definition with the registry’s message, registering nothing', async () => {
    const root = await boot();
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    for (const bad of [null, undefined, 42, 'tool', {}, { name: 'x' }, hostile]) {
      expect(() => root.tools.register(bad as never)).toThrow();
    }
    expect(() => root.tools.register({ ...tool('bad name!') })).toThrow(/bad name!/);
    expect(root.tools.schemas()).toEqual([]);
    expect(root.fiber.getEffects().filter((e) => e.label.startsWith('ctx.tools.register'))).toEqual(
      [],
    );
  });

  it('answers malformed calls with results, never a rejection', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['target']));
    for (const bad of [undefined, null, 7, 'call', {}, { callId: 'c' }, { name: 'target' }]) {
      const result = await root.tools.execute(bad as never);
      expect(result.isError).toBe(true);
    }
    const results = await root.tools.executeAll([
      null,
      { callId: 'ok', name: 'target', arguments: {} },
    ] as never);
    expect(results.map((r) => r.isError)).toEqual([true, false]);
  });

  it('refuses a non-function interceptor and a bad priority, naming them', async () => {
    const root = await boot();
    expect(() => root.tools.use('deny' as never)).toThrow(/function/);
    expect(() => root.tools.use((_e, next) => next(), { priority: Number.NaN })).toThrow(
      /priority/,
    );
    expect(root.fiber.getEffects().filter((e) => e.label.startsWith('ctx.tools.use'))).toEqual([]);
  });

  it('fails to load with a bad option, naming it', async () => {
    const root = new Context();
    await expect(root.plugin(ToolRegistry, { timeoutMs: -5 })).rejects.toThrow(/timeoutMs/);
    expect(root.get('tools')).toBeUndefined();
  });

  it('survives a listener that is not an interceptor at all', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['victim']));
    root.on('tools/execute', (() => undefined) as never);
    root.on('tools/result', (() => {
      throw 'a string, not an Error';
    }) as never);
    const result = await root.tools.execute({ callId: 'c', name: 'victim', arguments: {} });
    expect(result.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(result.error?.message).toContain('root');
  });

  it('holds 2,000 tools from 200 plugins and lets them all go', async () => {
    const root = await boot();
    const fibers: Fiber[] = [];
    for (let p = 0; p < 200; p++) {
      fibers.push(
        await root.plugin(
          toolPlugin(
            Array.from({ length: 10 }, (_, t) => `p${p}_t${t}`),
            `plugin-${p}`,
          ),
        ),
      );
    }
    expect(root.tools.schemas()).toHaveLength(2000);
    await Promise.all(fibers.map((fiber) => fiber.dispose()));
    expect(root.tools.schemas()).toEqual([]);
  });
});

describe('lifecycle', () => {
  it('keeps exactly the tools of the live plugins, whatever the order of loads and disposals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 5 })), { maxLength: 40 }),
        async (steps) => {
          const root = await boot();
          const live = new Map<number, Fiber>();
          for (const [load, id] of steps) {
            const fiber = live.get(id);
            if (load && fiber === undefined) {
              live.set(id, await root.plugin(toolPlugin([`a_${id}`, `b_${id}`], `p-${id}`)));
            } else if (!load && fiber !== undefined) {
              await fiber.dispose();
              live.delete(id);
            }
            const expected = [...live.keys()].flatMap((i) => [`a_${i}`, `b_${i}`]).sort();
            expect(
              root.tools
                .schemas()
                .map((s) => s.name)
                .sort(),
            ).toEqual(expected);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('reloading a plugin leaves no duplicate tool and no leaked listener', async () => {
    const root = await boot();
    const plugin = {
      name: 'reloadable',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(tool('reloaded'));
        ctx.on('tools/execute', (_exec, next) => next());
        ctx.on('tools/result', () => {});
      },
    };
    let fiber: Fiber = await root.plugin(plugin);
    for (let i = 0; i < 3; i++) {
      await fiber.dispose();
      fiber = await root.plugin(plugin);
    }
    expect(root.tools.schemas().map((s) => s.name)).toEqual(['reloaded']);
    expect(executeHooks(root)).toBe(1);
    expect(root.events._hooks['tools/result']).toHaveLength(1);
    await fiber.restart();
    expect(root.tools.schemas().map((s) => s.name)).toEqual(['reloaded']);
    expect(executeHooks(root)).toBe(1);
    await fiber.dispose();
    expect(root.tools.schemas()).toEqual([]);
    expect(executeHooks(root)).toBe(0);
    expect(root.events._hooks['tools/result']).toHaveLength(0);
  });

  it('1,000 load/dispose cycles leave the registry empty and nothing retained', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const root = await boot();
    const baseline = root.fiber.getEffects().length;
    const refs: WeakRef<object>[] = [];
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const cycle = async (i: number) => {
      const definition = tool(`cycle_${i % 7}`);
      const listener: Interceptor = (_exec, next) => next();
      refs.push(new WeakRef(definition), new WeakRef(listener));
      const fiber = await root.plugin({
        name: `cycle-${i}`,
        inject: ['tools'],
        apply(ctx: Context) {
          ctx.tools.register(definition);
          ctx.on('tools/execute', listener);
          ctx.on('tools/result', () => {});
        },
      });
      // A call makes the service register the listener in its registry: that copy must go too.
      if (i % 2 === 0) {
        const result = await root.tools.execute({
          callId: `c${i}`,
          name: definition.name,
          arguments: {},
        });
        expect(result.isError).toBe(false);
      }
      await fiber.dispose();
    };
    for (let i = 0; i < 1000; i++) await cycle(i);
    expect(root.tools.schemas()).toEqual([]);
    expect(executeHooks(root)).toBe(0);
    expect(root.fiber.getEffects()).toHaveLength(baseline);
    // Everything a cycle made must be collectable: the registry, cordis's hook table and fiber
    // tree must hold no reference to a disposed plugin's tool.
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      gc();
    }
    expect(refs.flatMap((ref, i) => (ref.deref() === undefined ? [] : [i]))).toEqual([]);
    const grown = process.memoryUsage().heapUsed - heapBefore;
    // A safety net only: the WeakRef check above is the precise one.
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  });
});

describe('system-prompt feed', () => {
  const names = async (root: Context) =>
    (await root.systemPrompt.assemble()).tools.map((t: { name: string }) => t.name);

  it('feeds registered tools to ctx.systemPrompt and drops a disposed plugin’s tools', async () => {
    const root = new Context();
    await root.plugin(SystemPrompt, {});
    await root.plugin(ToolRegistry);
    const fiber = await root.plugin(toolPlugin(['read_file', 'grep']));
    const assembly = await root.systemPrompt.assemble();
    expect(assembly.tools).toEqual([
      {
        name: 'grep',
        description: 'The grep tool.',
        parameters: { type: 'object', properties: {} },
      },
      {
        name: 'read_file',
        description: 'The read_file tool.',
        parameters: { type: 'object', properties: {} },
      },
    ]);
    await fiber.dispose();
    expect(await names(root)).toEqual([]);
  });

  it('sees every change at the next assembly (the provider is lazy)', async () => {
    const root = new Context();
    await root.plugin(SystemPrompt, {});
    await root.plugin(ToolRegistry);
    expect(await names(root)).toEqual([]);
    const dispose = root.tools.register(tool('live'));
    expect(await names(root)).toEqual(['live']);
    dispose();
    expect(await names(root)).toEqual([]);
  });

  it('follows a system prompt loaded after the service, and one that is replaced', async () => {
    const root = new Context();
    await root.plugin(ToolRegistry);
    await root.plugin(toolPlugin(['early_tool']));
    const first = await root.plugin(SystemPrompt, {});
    expect(await names(root)).toEqual(['early_tool']);
    await first.dispose();
    expect(root.tools.has('early_tool')).toBe(true);
    await root.plugin(SystemPrompt, {});
    expect(await names(root)).toEqual(['early_tool']);
  });

  it('works the same without a system-prompt service', async () => {
    const root = await boot();
    await root.plugin(toolPlugin(['solo']));
    expect(root.get('systemPrompt')).toBeUndefined();
    const result = await root.tools.execute({ callId: 'c', name: 'solo', arguments: {} });
    expect(result.content).toEqual([textContent('solo')]);
  });
});
