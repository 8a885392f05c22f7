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
import { nameLabel } from './label';

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

/** What the service keeps; plain closures, so the hot path pays no proxy per property read. */
interface Bridge {
  readonly registry: StandaloneToolRegistry;
  /** Brings the registry's copy of the `tools/execute` listeners up to date. */
  sync(): void;
  /** Disposes every mirrored listener. */
  unmirror(): void;
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

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { then?: unknown }).then === 'function';

/**
 * Connects one standalone registry to cordis's listener table.
 *
 * `tools/execute` listeners are registered in the registry with its own `use()`, so each gets
 * exactly the checks of a standalone interceptor (rewrites validated at each step, `ToolError`
 * codes kept, misuse failing closed and named). cordis's table stays the source of truth: `sync()`
 * compares it with the registry's copy when a call starts. Each copy is also an effect of its
 * listener's own fiber, so it goes with its plugin even before the next call notices.
 */
function createBridge(ctx: Context, config: ToolRegistryConfig): Bridge {
  const logger = ctx.logger('tools');
  const onError =
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
  const report = (error: unknown, info: CordisRegistryErrorInfo): void => {
    try {
      onError(error, info);
    } catch {
      // The reporter itself failed; there is nobody left to tell.
    }
  };
  const registry = createToolRegistry({ ...config, onError: report });
  const hooks = ctx.root.events._hooks as Record<string, Hook[] | undefined>;
  // The label of this service's isolation scope: listeners of a context that isolates `tools`
  // belong to that scope's service, the selection `ctx.emit(service, event)` makes.
  const label = ctx[Context.isolate].tools;
  const visible = (hook: Hook) => hook.global || hook.ctx[Context.isolate].tools === label;
  let mirrored: readonly Mirror[] = [];

  const adopt = (hook: Hook): (() => void) => {
    const interceptor = hook.callback as Interceptor;
    const name = hook.ctx.fiber.name;
    const use = () => registry.use(interceptor, { name, priority: CORDIS_PRIORITY });
    try {
      return hook.ctx.fiber.effect(() => {
        const dispose = use();
        return () => {
          dispose();
          // Forget the listener now, not at the next call: the copy must not keep its plugin.
          mirrored = mirrored.filter((mirror) => mirror.hook !== hook);
        };
      }, 'ctx.tools: tools/execute listener');
    } catch {
      // The listener's fiber is unloading and its hook not removed yet: it still applies to this
      // call (a policy must never silently lapse), and the next call drops it.
      return use();
    }
  };

  const unmirror = (): void => {
    const previous = mirrored;
    mirrored = [];
    for (const { dispose } of previous) dispose();
  };

  const sync = (): void => {
    const table = hooks[EXECUTE] ?? [];
    let i = 0;
    let same = true;
    for (const hook of table) {
      if (!visible(hook)) continue;
      if (mirrored[i]?.hook !== hook) {
        same = false;
        break;
      }
      i++;
    }
    if (same && i === mirrored.length) return;
    unmirror();
    mirrored = table.filter(visible).map((hook) => ({ hook, dispose: adopt(hook) }));
  };

  /** Calls every listener of a notification; one that throws or rejects never stops the others. */
  const notify = (event: string, args: unknown[], exec: ToolExecution | undefined): void => {
    const table = hooks[event];
    if (table === undefined || table.length === 0) return;
    for (const hook of table.filter(visible)) {
      const fail = (error: unknown) =>
        report(error, {
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
  };

  registry.on('result', (result, exec) => notify(RESULT, [result, exec], exec));
  registry.on('change', (event) => notify(CHANGE, [event], undefined));
  return { registry, sync, unmirror };
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
  private readonly bridge: Bridge;

  constructor(ctx: Context, config: ToolRegistryConfig = {}) {
    super(ctx, 'tools');
    const bridge = createBridge(ctx, config);
    this.bridge = bridge;
    // When the service goes, so do the interceptors it mirrored into other plugins' fibers.
    ctx.effect(() => () => bridge.unmirror(), 'ctx.tools: tools/execute mirror');
    // A child fiber that exists while a system-prompt service does: it follows that service when
    // it is loaded late or replaced, and the provider is evaluated at every assembly.
    ctx.inject(['systemPrompt'], (inner) => {
      const systemPrompt = inner.get('systemPrompt') as SystemPromptLike | undefined;
      systemPrompt?.tools(() => ({ schemas: bridge.registry.schemas() }));
    });
  }

  /**
   * Adds a tool for as long as the calling plugin lives: disposing its fiber (or calling the
   * returned disposer) removes it and fires `tools/change`. Throws on a duplicate or malformed tool.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void {
    const { registry } = this.bridge;
    return this.ctx.effect(
      () => registry.register(definition),
      `ctx.tools.register(${nameLabel(definition)})`,
    );
  }

  /** The definition registered under `name`, if any. */
  get(name: string): ToolDefinition | undefined {
    return this.bridge.registry.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.bridge.registry.has(name);
  }

  /** What the model sees, in registration order (frozen, cached). */
  schemas(): readonly ToolSchema[] {
    return this.bridge.registry.schemas();
  }

  /**
   * Runs one call through the `tools/execute` listeners (those registered when it starts) and
   * every `use()` interceptor. Never throws or rejects: every outcome is a result.
   */
  execute(exec: ToolExecution): Promise<ToolExecutionResult> {
    const bridge = this.bridge;
    bridge.sync();
    return bridge.registry.execute(exec);
  }

  /** Runs a model turn's calls: safe calls overlap (bounded), results come back in call order. */
  executeAll(
    execs: readonly ToolExecution[],
    options?: ExecuteAllOptions,
  ): Promise<ToolExecutionResult[]> {
    const bridge = this.bridge;
    bridge.sync();
    return bridge.registry.executeAll(execs, options);
  }

  /**
   * Adds an interceptor with a priority (higher runs outer), for as long as the calling plugin
   * lives. The cordis `tools/execute` listeners run just above priority 0: outside every `use()`
   * interceptor of priority 0 or less, inside every higher one.
   */
  use(interceptor: Interceptor, options: InterceptorOptions = {}): () => void {
    const { registry } = this.bridge;
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
    const registry = this.bridge.registry as unknown as {
      on(event: string, listener: (...args: never[]) => void): () => void;
    };
    return this.ctx.effect(() => registry.on(event, listener), `ctx.tools.on(${event})`);
  }
}

export default ToolRegistry;

export { McpServer, type McpServerPlugin } from './mcp-server';
