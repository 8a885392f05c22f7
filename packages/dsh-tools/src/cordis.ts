import { Context, type Hook, Service } from '@deepseek-ai/cordis';
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
  createToolRegistry,
  type ExecuteAllOptions,
  type InterceptorOptions,
  type RegistryErrorInfo,
  type ToolRegistry as StandaloneToolRegistry,
  type ToolRegistryOptions,
} from '@dsh-tools/registry';

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
 * What the service reports to `onError`: the registry's info, plus the plugin whose
 * `tools/result` or `tools/change` listener failed.
 */
export interface CordisRegistryErrorInfo extends RegistryErrorInfo {
  /** The name of the plugin that registered the failing listener. */
  readonly listener?: string;
}

/**
 * Options of the {@link ToolRegistry} plugin: those of the standalone registry. Without
 * `onError`, contained failures go to the cordis logger `tools`.
 */
export interface ToolRegistryConfig extends Omit<ToolRegistryOptions, 'onError'> {
  readonly onError?: (error: unknown, info: CordisRegistryErrorInfo) => void;
}

/** The part of `ctx.systemPrompt` the service uses; typed here so cordis apps without it compile. */
interface SystemPromptLike {
  tools(provider: () => { readonly schemas: readonly ToolSchema[] }): () => void;
}

/** A cordis `tools/execute` listener and its registration as a registry interceptor. */
interface Mirror {
  readonly hook: Hook;
  readonly dispose: () => void;
}

/**
 * The priority of the mirrored cordis listeners: the smallest number above 0, so that they run
 * outside every `use()` interceptor of priority 0 or less and inside every higher one, whenever
 * either was added.
 */
const CORDIS_PRIORITY = Number.MIN_VALUE;

const EXECUTE = 'tools/execute';
const RESULT = 'tools/result';
const CHANGE = 'tools/change';

const describe = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/** A label for cordis's effect diagnostics that cannot throw, whatever the caller passed. */
const toolLabel = (definition: unknown): string => {
  try {
    const name = (definition as { name?: unknown } | null)?.name;
    return typeof name === 'string' ? JSON.stringify(name.slice(0, 64)) : '?';
  } catch {
    return '?';
  }
};

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

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
 * members rather than ES `#private` fields (those throw on a proxy).
 */
export class ToolRegistry extends Service implements StandaloneToolRegistry {
  /** The standalone registry this service wraps. */
  private readonly registry: StandaloneToolRegistry;
  /** Where contained listener failures go. */
  private readonly report: (error: unknown, info: CordisRegistryErrorInfo) => void;
  /** cordis's listener table (one per application, shared by every context). */
  private readonly hooks: Record<string, Hook[] | undefined>;
  /** The `tools/execute` listeners as registered in the registry, in cordis order. */
  private readonly mirror: { current: readonly Mirror[] } = { current: [] };

  constructor(ctx: Context, config: ToolRegistryConfig = {}) {
    super(ctx, 'tools');
    const logger = ctx.logger('tools');
    const report =
      config.onError ??
      ((error: unknown, info: CordisRegistryErrorInfo) => {
        const where = [
          info.tool === undefined ? '' : ` tool "${info.tool}"`,
          info.callId === undefined ? '' : ` call "${info.callId}"`,
          info.listener === undefined ? '' : ` listener of plugin "${info.listener}"`,
        ].join('');
        // cordis exports `error` by default and `warn` only when asked: a late settlement is
        // expected noise, a throwing listener or an uncompilable schema is a bug to see.
        const line = `${info.kind}${where}: ${describe(error)}`;
        if (info.kind === 'late-settlement') logger.warn(line);
        else logger.error(line);
      });
    this.report = (error, info) => {
      try {
        report(error, info);
      } catch {
        // The reporter itself failed; there is nobody left to tell.
      }
    };
    this.registry = createToolRegistry({ ...config, onError: this.report });
    this.hooks = ctx.root.events._hooks as Record<string, Hook[] | undefined>;
    this.registry.on('result', (result, exec) => this.notify(RESULT, [result, exec], exec));
    this.registry.on('change', (event) => this.notify(CHANGE, [event], undefined));
    // When the service goes, so do the interceptors it mirrored into other plugins' fibers.
    ctx.effect(() => () => this.unmirror(), 'ctx.tools: tools/execute mirror');

    // A child fiber that exists while a system-prompt service does: it follows that service when
    // it is loaded late or replaced, and the provider is evaluated at every assembly.
    ctx.inject(['systemPrompt'], (inner) => {
      const systemPrompt = inner.get('systemPrompt') as SystemPromptLike | undefined;
      systemPrompt?.tools(() => ({ schemas: this.registry.schemas() }));
    });
  }

  /**
   * Adds a tool for as long as the calling plugin lives: disposing its fiber (or calling the
   * returned disposer) removes it and fires `tools/change`. Throws on a duplicate or malformed tool.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void {
    const registry = this.registry;
    return this.ctx.effect(
      () => registry.register(definition),
      `ctx.tools.register(${toolLabel(definition)})`,
    );
  }

  /** The definition registered under `name`, if any. */
  get(name: string): ToolDefinition | undefined {
    return this.registry.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.registry.has(name);
  }

  /** What the model sees, in registration order (frozen, cached). */
  schemas(): readonly ToolSchema[] {
    return this.registry.schemas();
  }

  /**
   * Runs one call through the `tools/execute` listeners (those registered when it starts) and
   * every `use()` interceptor. Never throws or rejects: every outcome is a result.
   */
  execute(exec: ToolExecution): Promise<ToolExecutionResult> {
    this.sync();
    return this.registry.execute(exec);
  }

  /** Runs a model turn's calls: safe calls overlap (bounded), results come back in call order. */
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]> {
    this.sync();
    return this.registry.executeAll(execs, options);
  }

  /**
   * Adds an interceptor with a priority (higher runs outer), for as long as the calling plugin
   * lives. The cordis `tools/execute` listeners run just above priority 0: outside every `use()`
   * interceptor of priority 0 or less, inside every higher one.
   */
  use(interceptor: Interceptor, options: InterceptorOptions = {}): () => void {
    const registry = this.registry;
    const name =
      options.name ??
      (typeof interceptor === 'function' && interceptor.name
        ? interceptor.name
        : this.ctx.fiber.name);
    return this.ctx.effect(
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
    const registry = this.registry as unknown as {
      on(event: string, listener: (...args: never[]) => void): () => void;
    };
    return this.ctx.effect(() => registry.on(event, listener), `ctx.tools.on(${event})`);
  }

  /**
   * The hooks of a cordis event that this service's isolation scope sees, in cordis order: the
   * selection `ctx.emit(service, event)` makes, read from cordis's listener table because the
   * registry needs each listener's plugin name for its error messages.
   */
  private visible(event: string): Hook[] {
    const hooks = this.hooks[event];
    if (hooks === undefined || hooks.length === 0) return [];
    const label = this.ctx[Context.isolate].tools;
    return hooks.filter((hook) => hook.global || hook.ctx[Context.isolate].tools === label);
  }

  /**
   * Brings the registry's copy of the `tools/execute` listeners up to date with cordis's table.
   *
   * Each listener is registered with the registry's own `use()`, so it gets exactly the checks of
   * a standalone interceptor (rewrites validated at each step, `ToolError` codes kept, misuse
   * failing closed and named). The registration is an effect of the listener's own fiber, so it
   * goes with its plugin even before the next call notices.
   */
  private sync(): void {
    const hooks = this.visible(EXECUTE);
    const mirrored = this.mirror.current;
    if (hooks.length === mirrored.length && hooks.every((hook, i) => mirrored[i]?.hook === hook)) {
      return;
    }
    this.unmirror();
    this.mirror.current = hooks.map((hook) => ({ hook, dispose: this.adopt(hook) }));
  }

  /** Registers one cordis listener as a registry interceptor; returns its disposer. */
  private adopt(hook: Hook): () => void {
    const registry = this.registry;
    const interceptor = hook.callback as Interceptor;
    const name = hook.ctx.fiber.name;
    const use = () => registry.use(interceptor, { name, priority: CORDIS_PRIORITY });
    try {
      return hook.ctx.fiber.effect(use, 'ctx.tools: tools/execute listener');
    } catch {
      // The listener's fiber is unloading and its hook not removed yet: it still applies to this
      // call (a policy must never silently lapse), and the next call drops it.
      return use();
    }
  }

  private unmirror(): void {
    const mirrored = this.mirror.current;
    this.mirror.current = [];
    for (const { dispose } of mirrored) dispose();
  }

  /** Calls every listener of a notification; one that throws or rejects never stops the others. */
  private notify(event: string, args: unknown[], exec: ToolExecution | undefined): void {
    for (const hook of this.visible(event)) {
      const fail = (error: unknown) =>
        this.report(error, {
          kind: 'observer',
          ...(exec === undefined ? {} : { tool: exec.name, callId: exec.callId }),
          listener: hook.ctx.fiber.name,
        });
      try {
        const returned: unknown = hook.callback(...args);
        if (isThenable(returned)) Promise.resolve(returned).catch(fail);
      } catch (error) {
        fail(error);
      }
    }
  }
}

export default ToolRegistry;
