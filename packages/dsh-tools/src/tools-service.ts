import { type Context, Service } from '@deepseek-ai/cordis';
import type {
  InterceptedExecution,
  Interceptor,
  InterceptorNext,
  ToolChangeEvent,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolSchema,
} from '@dsh-tools/protocol';
import type {
  ExecuteAllOptions,
  InterceptorOptions,
  ToolRegistry as StandaloneToolRegistry,
} from '@dsh-tools/registry';
import { nameLabel } from './label';
import { createListenerAdapter, type ListenerAdapter } from './listener-adapter';
import type { SystemPromptLike, ToolRegistryConfig } from './types';

declare module '@deepseek-ai/cordis' {
  interface Context {
    /** The tool registry of this application, provided by the {@link ToolRegistry} plugin. */
    tools: ToolRegistry;
  }

  interface Events {
    /**
     * Wraps every tool call, outermost listener first: call `next()` to proceed,
     * `next(changedExec)` to proceed with rewritten arguments, or return a result to veto.
     */
    'tools/execute'(
      exec: InterceptedExecution,
      next: InterceptorNext,
    ): Promise<ToolExecutionResult> | ToolExecutionResult;
    /** The final result of a call; observe only (a listener that throws is contained). */
    'tools/result'(result: ToolExecutionResult, exec: ToolExecution): void;
    /** Tools were added or removed. */
    'tools/change'(event: ToolChangeEvent): void;
  }
}

/**
 * The tool registry as the cordis service `ctx.tools`: `ctx.plugin(ToolRegistry)` provides it.
 *
 * It wraps one standalone registry from `@dsh-tools/registry`, so calls behave exactly as they do
 * without cordis, and adds what a cordis app expects: `register`, `use` and `on` are effects of the
 * calling plugin (they go when its fiber is disposed), `tools/execute`, `tools/result` and
 * `tools/change` are cordis events, and the schemas feed `ctx.systemPrompt.tools()` whenever a
 * system-prompt service is present.
 *
 * Cordis calls service methods with `this` as a proxy that carries the caller's context; that is
 * how a registration finds the calling fiber, and why this class keeps TypeScript `private`
 * members rather than ES `#private` fields (those throw on a proxy). Every read of `this.x` goes
 * through that proxy, so each method reads its state once.
 */
export class ToolRegistry extends Service implements StandaloneToolRegistry {
  /** The standalone registry and its link to cordis's listener table. */
  private readonly adapter: ListenerAdapter;

  constructor(ctx: Context, config: ToolRegistryConfig = {}) {
    super(ctx, 'tools');
    const adapter = createListenerAdapter(ctx, config);
    this.adapter = adapter;
    // When the service goes, so do the interceptors it mirrored into other plugins' fibers.
    ctx.effect(() => () => adapter.unmirror(), 'ctx.tools: tools/execute mirror');
    // A child fiber that exists while a system-prompt service does: it follows that service when
    // it is loaded late or replaced, and the provider is evaluated at every assembly.
    ctx.inject(['systemPrompt'], (inner) => {
      const systemPrompt = inner.get('systemPrompt') as SystemPromptLike | undefined;
      systemPrompt?.tools(() => ({ schemas: adapter.registry.schemas() }));
    });
  }

  /**
   * Adds a tool for as long as the calling plugin lives: disposing its fiber (or calling the
   * returned disposer) removes it and fires `tools/change`. Throws on a duplicate or malformed tool.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void {
    const { registry } = this.adapter;
    return this.ctx.effect(
      () => registry.register(definition),
      `ctx.tools.register(${nameLabel(definition)})`,
    );
  }

  /** The definition registered under `name`, if any. */
  get(name: string): ToolDefinition | undefined {
    return this.adapter.registry.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.adapter.registry.has(name);
  }

  /** What the model sees, in registration order (frozen, cached). */
  schemas(): readonly ToolSchema[] {
    return this.adapter.registry.schemas();
  }

  /**
   * Runs one call through the `tools/execute` listeners (those registered when it starts) and
   * every `use()` interceptor. Never throws or rejects: every outcome is a result.
   */
  execute(exec: ToolExecution): Promise<ToolExecutionResult> {
    const adapter = this.adapter;
    adapter.sync();
    return adapter.registry.execute(exec);
  }

  /** Runs a model turn's calls: safe calls overlap (bounded), results come back in call order. */
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]> {
    const adapter = this.adapter;
    adapter.sync();
    return adapter.registry.executeAll(execs, options);
  }

  /**
   * Adds an interceptor with a priority (higher runs outer), for as long as the calling plugin
   * lives. The cordis `tools/execute` listeners run just above priority 0: outside every `use()`
   * interceptor of priority 0 or less, inside every higher one.
   */
  use(interceptor: Interceptor, options: InterceptorOptions = {}): () => void {
    const { registry } = this.adapter;
    const ctx = this.ctx;
    const name =
      options.name ??
      (typeof interceptor === 'function' && interceptor.name ? interceptor.name : ctx.fiber.name);
    return ctx.effect(
      () => registry.use(interceptor, { ...options, name }),
      `ctx.tools.use(${JSON.stringify(name)})`,
    );
  }

  /** Observes the registry (same as the cordis events), for as long as the calling plugin lives. */
  on(event: 'change', listener: (event: ToolChangeEvent) => void): () => void;
  on(
    event: 'result',
    listener: (result: ToolExecutionResult, exec: ToolExecution) => void,
  ): () => void;
  on(event: 'change' | 'result', listener: (...args: never[]) => void): () => void {
    const registry = this.adapter.registry as unknown as {
      on(event: string, listener: (...args: never[]) => void): () => void;
    };
    return this.ctx.effect(() => registry.on(event, listener), `ctx.tools.on(${event})`);
  }
}
