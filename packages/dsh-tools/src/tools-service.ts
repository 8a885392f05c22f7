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
import { assertNotReserved, createPresentation } from './code-mode-presentation';
import { type CodeMode, createCodeMode } from './code-mode-service';
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
import {
  createScheduler,
  TOOL_RUNTIME_SCHEDULER,
  type ToolExecutionMode,
  type ToolRuntimeScheduler,
} from './harness-scheduler';
import { scopeKeyOf } from './harness-scope';
import {
  checkRestriction,
  modeOf,
  runCall,
  runTurn,
  schemasFor,
  type ToolPresentationMode,
} from './harness-service';
import { nameLabel } from './label';
import { createListenerAdapter, type ListenerAdapter } from './listener-adapter';
import type { ToolRestriction } from './scope-layers';
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
  /**
   * The staged pipeline the DeepSeek Harness's agent loop drives (`prepare`, `dispatch`,
   * `finalize`, `finish`): policy in model order, bodies overlapping. Not for plugins: they call
   * `execute`.
   */
  readonly [TOOL_RUNTIME_SCHEDULER]: ToolRuntimeScheduler;
  /** The standalone registries and their link to cordis's listener table. */
  private readonly adapter: ListenerAdapter;
  /** Which plugin registered each tool, per layer, for the message of a duplicate. */
  private readonly owners: WeakMap<object, Map<string, { readonly plugin: string }>>;
  /** How each agent's model is shown the tools, and Code Mode's transport. */
  private readonly codeMode: CodeMode;

  constructor(ctx: Context, config: ToolRegistryConfig = {}) {
    super(ctx, 'tools');
    const { schedulerKey, mode, maxParallelSubCalls, ...options } = config;
    const adapter = createListenerAdapter(ctx, options, createPresentation(mode));
    this.adapter = adapter;
    this.owners = new WeakMap();
    const scheduler = createScheduler({ run: (exec) => runCall(adapter, exec) });
    this[TOOL_RUNTIME_SCHEDULER] = scheduler;
    const codeMode = createCodeMode(ctx, adapter, scheduler, maxParallelSubCalls);
    this.codeMode = codeMode;
    if (adapter.presentation.defaultMode !== 'native') codeMode.install();
    // `@deepseek-ai/dsh-tools` installed beside this package: its loop reads its own symbol.
    if (typeof schedulerKey === 'symbol') {
      Object.defineProperty(this, schedulerKey, { value: scheduler, enumerable: false });
    }
    // When the service goes, so do the interceptors it mirrored into other plugins' fibers.
    ctx.effect(() => () => adapter.unmirror(), 'ctx.tools: tools/execute mirror');
    // A child fiber that exists while a system-prompt service does: it follows that service when
    // it is loaded late or replaced, and the provider is evaluated at every assembly.
    ctx.inject(['systemPrompt'], (inner) => {
      const systemPrompt = inner.get('systemPrompt') as SystemPromptLike | undefined;
      systemPrompt?.tools((context) => codeMode.feed(context));
      if (adapter.presentation.defaultMode !== 'native') codeMode.addSections(inner);
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
    const { layers, harnessTools } = this.adapter;
    const ctx = this.ctx;
    const plugin = ctx.fiber.name;
    const scope = scopeKeyOf(ctx);
    const allOwners = this.owners;
    return ctx.effect(
      () => {
        const registry = scope === undefined ? layers.global : layers.layer(scope);
        let owners = allOwners.get(registry);
        if (owners === undefined) {
          owners = new Map();
          allOwners.set(registry, owners);
        }
        let registered: ToolDefinition = definition as ToolDefinition;
        let harness: ReturnType<typeof adaptHarnessDefinition>['tool'] | undefined;
        if (isHarnessDefinition(definition)) {
          ({ definition: registered, tool: harness } = adaptHarnessDefinition(
            definition,
            compileOutput,
          ));
        }
        const name = registered.name;
        assertNotReserved(name, `ctx.tools.register() in plugin "${plugin}"`);
        let dispose: () => void;
        try {
          dispose = registry.register(registered);
        } catch (error) {
          if (scope !== undefined) layers.release(scope);
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
          if (owners?.get(name) === owner) owners.delete(name);
          dispose();
          if (scope !== undefined) layers.release(scope);
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
    const scope = scopeKeyOf(ctx);
    const entry = { guard, name: ctx.fiber.name, ...(scope !== undefined && { scope }) };
    return ctx.effect(() => {
      guards.add(entry);
      return () => guards.delete(entry);
    }, 'ctx.tools.guard()');
  }

  /**
   * The definition registered under `name`, if any; with a scope (the harness passes the calling
   * agent), the one that agent sees: its own, else an inherited one its restrictions leave.
   */
  get(name: string, scope?: unknown): ToolDefinition | undefined {
    const { layers } = this.adapter;
    return scope === undefined ? layers.global.get(name) : layers.resolve(name, scope)?.definition;
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.adapter.registry.has(name);
  }

  /**
   * What the model sees, in registration order (frozen, cached); with a scope (an agent), what
   * that agent's model sees.
   */
  schemas(scope?: unknown): readonly ToolSchema[] {
    return schemasFor(this.adapter, scope);
  }

  /**
   * Runs one call through the `tools/execute` listeners (those registered when it starts) and
   * every `use()` interceptor, on the tool its agent sees (`UNKNOWN_TOOL` for a tool of another
   * agent's scope). Never throws or rejects: every outcome is a result, with the harness's fields
   * (`error.info`, `value`, `meta`, `additionalContexts`, `concludesTurn`: `HarnessShapedResult`)
   * beside ours.
   */
  execute(exec: ToolExecution): Promise<ToolExecutionResult> {
    return runCall(this.adapter, exec);
  }

  /** Runs a model turn's calls: safe calls overlap (bounded), results come back in call order. */
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]> {
    const adapter = this.adapter;
    return runTurn(adapter, execs, (calls) => adapter.registry.executeAll(calls, options));
  }

  /**
   * Whether a call may overlap its neighbours, as the harness's agent loop asks before each:
   * `parallel` only for a tool the caller sees whose hint (or classifier, on these arguments)
   * says it is concurrency-safe; `exclusive` otherwise, unknown tools included.
   */
  executionMode(exec: unknown): ToolExecutionMode {
    return modeOf(this.adapter, exec);
  }

  /**
   * Hides inherited tools from the calling agent's scope (and the agents under it) for as long
   * as the calling plugin lives: `allow` keeps only those, `deny` removes those. Restrictions
   * intersect; the agent's own registrations stay visible. Throws outside an agent scope, on an
   * empty filter, and on a name the agent does not inherit.
   */
  restrict(filter: ToolRestriction): () => void {
    const adapter = this.adapter;
    const ctx = this.ctx;
    const scope = scopeKeyOf(ctx);
    checkRestriction(adapter, scope, filter);
    return ctx.effect(
      () => adapter.layers.restrict(scope as object, filter),
      'ctx.tools.restrict()',
    );
  }

  /**
   * Declares how the calling agent's model is shown its tools, for as long as the calling plugin
   * lives: `native`, or Code Mode (`code`: only `run_code` and the SDK in the prompt; `both`),
   * which needs a code runtime (`ctx.codeRuntime`) and fails loudly at the agent's next prompt
   * assembly without one. Throws outside an agent scope or on a second declaration.
   */
  presentAs(mode: ToolPresentationMode): () => void {
    const codeMode = this.codeMode;
    const modes = codeMode.presentation.modes;
    const ctx = this.ctx;
    const scope = scopeKeyOf(ctx);
    if (scope === undefined) {
      throw new Error(
        "ctx.tools.presentAs() requires an agent scope (agent.ctx); the presentation of every agent is the service's `mode` option.",
      );
    }
    return ctx.effect(() => {
      const declared = modes.get(scope);
      if (declared !== undefined) {
        throw new Error(
          `ctx.tools.presentAs("${mode}") conflicts with "${declared}" already declared for this agent; one agent has one presentation.`,
        );
      }
      modes.set(scope, mode);
      let sections: (() => void) | undefined;
      if (mode !== 'native') {
        codeMode.install();
        sections = codeMode.addSections(ctx);
      }
      return () => {
        sections?.();
        if (modes.get(scope) === mode) modes.delete(scope);
      };
    }, 'ctx.tools.presentAs()');
  }

  /**
   * Adds an interceptor with a priority (higher runs outer), for as long as the calling plugin
   * lives. The cordis `tools/execute` listeners run just above priority 0: outside every `use()`
   * interceptor of priority 0 or less, inside every higher one.
   */
  use(interceptor: Interceptor, options: InterceptorOptions = {}): () => void {
    const { layers } = this.adapter;
    const ctx = this.ctx;
    const name =
      options.name ??
      (typeof interceptor === 'function' && interceptor.name ? interceptor.name : ctx.fiber.name);
    return ctx.effect(
      () => layers.use(interceptor, { ...options, name }),
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
    const layers = this.adapter.layers as unknown as {
      on(event: string, listener: (...args: never[]) => void): () => void;
    };
    return this.ctx.effect(() => layers.on(event, listener), `ctx.tools.on(${event})`);
  }
}
