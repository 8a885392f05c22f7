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
import {
  compileSchema,
  type ExecuteAllOptions,
  type InterceptorOptions,
  type ToolRegistry as StandaloneToolRegistry,
} from '@dsh-tools/registry';
import type {
  HarnessToolDefinition,
  PostToolDecision,
  PreToolDecision,
  ToolGuard,
} from './harness-contract';
import {
  adaptHarnessDefinition,
  isHarnessDefinition,
  type SchemaCompiler,
} from './harness-definition';
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
    /**
     * Decides before a call runs (after its arguments are validated, before every
     * `tools/execute` listener): return `next()` to pass, `{ kind: 'deny', reason }` to fail it
     * `DENIED`, or `{ kind: 'ask', reason }` to run it only if `ctx.approval` answers
     * `allowed-once`. The DeepSeek Harness's gate; a listener cannot rewrite the call.
     */
    'tools/pre-execute'(
      exec: InterceptedExecution,
      next: () => Promise<PreToolDecision>,
    ): Promise<PreToolDecision> | PreToolDecision;
    /**
     * Reviews a dispatched result: `next()` accepts it, `{ kind: 'accept', content }` replaces
     * its content, `{ kind: 'block', feedback }` turns it into a `DENIED` failure.
     */
    'tools/post-execute'(
      exec: InterceptedExecution,
      result: ToolExecutionResult,
      next: () => Promise<PostToolDecision>,
    ): Promise<PostToolDecision> | PostToolDecision;
    /**
     * The final result of a call, after the call it answers (the DeepSeek Harness's order);
     * observe only (a listener that throws is contained).
     */
    'tools/result'(exec: ToolExecution, result: ToolExecutionResult): void;
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
/** `output.schema` of a harness-shaped tool, compiled by the registry's own JSON Schema engine. */
const compileOutput: SchemaCompiler = (schema) => compileSchema(schema);

export class ToolRegistry extends Service implements StandaloneToolRegistry {
  /** The standalone registry and its link to cordis's listener table. */
  private readonly adapter: ListenerAdapter;
  /** Which plugin registered each tool, for the message of a duplicate. */
  private readonly owners: Map<string, { readonly plugin: string }>;

  constructor(ctx: Context, config: ToolRegistryConfig = {}) {
    super(ctx, 'tools');
    const adapter = createListenerAdapter(ctx, config);
    this.adapter = adapter;
    this.owners = new Map();
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
   * returned disposer) removes it and fires `tools/change` (and `system-prompt/change` when a
   * system-prompt service is loaded). Takes this package's definitions and the DeepSeek Harness's
   * (`output: { schema, render }`, a body that returns a JSON value; see the README). Throws on a
   * malformed tool, or on a duplicate name, saying which plugin holds the existing tool.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void;
  register(definition: HarnessToolDefinition): () => void;
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any> | HarnessToolDefinition): () => void {
    const { registry, harnessTools } = this.adapter;
    const owners = this.owners;
    const ctx = this.ctx;
    const plugin = ctx.fiber.name;
    return ctx.effect(
      () => {
        let registered: ToolDefinition = definition as ToolDefinition;
        let harness: ReturnType<typeof adaptHarnessDefinition>['tool'] | undefined;
        if (isHarnessDefinition(definition)) {
          ({ definition: registered, tool: harness } = adaptHarnessDefinition(
            definition,
            compileOutput,
          ));
        }
        const name = registered.name;
        let dispose: () => void;
        try {
          dispose = registry.register(registered);
        } catch (error) {
          const holder = typeof name === 'string' ? owners.get(name) : undefined;
          if (holder === undefined || !registry.has(name)) throw error;
          throw new Error(
            `ctx.tools.register() in plugin "${plugin}": tool "${name}" is already registered by plugin "${holder.plugin}". Dispose that plugin first, or register this tool under another name.`,
            { cause: error },
          );
        }
        const owner = { plugin };
        owners.set(name, owner);
        if (harness) harnessTools.set(registered, harness);
        return () => {
          if (owners.get(name) === owner) owners.delete(name);
          dispose();
        };
      },
      `ctx.tools.register(${nameLabel(definition)})`,
    );
  }

  /**
   * Adds a guard for as long as the calling plugin lives: after every `tools/pre-execute`
   * listener, a returned string denies the call (`DENIED`, naming the plugin and that reason);
   * `undefined` leaves it alone. A guard that throws denies too. No guard or listener can allow a
   * call another guard denied.
   */
  guard(guard: ToolGuard): () => void {
    if (typeof guard !== 'function') {
      throw new TypeError(
        'ctx.tools.guard(): a guard must be a function (exec) => reason | undefined.',
      );
    }
    const { guards } = this.adapter;
    const ctx = this.ctx;
    const entry = { guard, name: ctx.fiber.name };
    return ctx.effect(() => {
      guards.add(entry);
      return () => guards.delete(entry);
    }, 'ctx.tools.guard()');
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
