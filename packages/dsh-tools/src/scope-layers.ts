/**
 * One standalone registry per agent scope, beside the global one, as the DeepSeek Harness layers
 * its tools: a tool registered through an agent's context lives in that agent's layer, visible
 * and callable by that agent (and the agents under it) only; a restriction hides inherited tools
 * from one agent. Every layer runs the same interceptors and reports to the same observers, so a
 * call meets one pipeline whichever layer holds its tool.
 */
import type {
  Interceptor,
  ToolChangeEvent,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import type {
  InterceptorOptions,
  ToolRegistry as StandaloneToolRegistry,
} from '@dsh-tools/registry';
import { scopeChain } from './harness-scope';

/** A tool as one agent sees it, and the registry that runs it. */
export interface VisibleTool {
  readonly definition: ToolDefinition;
  readonly registry: StandaloneToolRegistry;
}

/** A per-agent filter over inherited tools (the harness's `ToolRestriction`). */
export interface ToolRestriction {
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
}

interface CompiledRestriction {
  readonly allow?: ReadonlySet<string>;
  readonly deny?: ReadonlySet<string>;
}

type Shared =
  | {
      readonly kind: 'use';
      readonly interceptor: Interceptor;
      readonly options: InterceptorOptions;
    }
  | { readonly kind: 'on'; readonly event: 'change' | 'result'; readonly listener: never };

/** The global registry and the agents' layers. */
export interface ScopeLayers {
  readonly global: StandaloneToolRegistry;
  /** Whether any agent has a layer or a restriction: without, every call takes the global path. */
  scoped(): boolean;
  /** The registry of an agent's scope, made on first need with every shared part installed. */
  layer(scope: object): StandaloneToolRegistry;
  /** Drops a scope's layer once it holds no tool. */
  release(scope: object): void;
  /** A registry without tools: where a call goes whose tool its agent cannot see. */
  nowhere(): StandaloneToolRegistry;
  /** An interceptor on every layer, present and future; the disposer removes it from all. */
  use(interceptor: Interceptor, options: InterceptorOptions): () => void;
  /** An observer on every layer, present and future. */
  on(event: 'change', listener: (event: ToolChangeEvent) => void): () => void;
  on(
    event: 'result',
    listener: (result: ToolExecutionResult, exec: ToolExecution) => void,
  ): () => void;
  /** Hides inherited tools from a scope (and the scopes under it) until disposed. */
  restrict(scope: object, filter: ToolRestriction): () => void;
  /** The tools an agent (or scope key) sees, in the order the model sees them. */
  visible(agent: unknown): ReadonlyMap<string, VisibleTool>;
  /** The tool an agent's call of `name` runs, if that agent can see one. */
  resolve(name: string, agent: unknown): VisibleTool | undefined;
  /** The names a scope inherits, which a restriction may name. */
  inherited(scope: object): ReadonlySet<string>;
  /**
   * Tells every `result` observer of a result no registry produced (a call refused before any
   * layer could run it), as a registry tells its own; an observer that throws is reported.
   */
  emitResult(result: ToolExecutionResult, exec: ToolExecution): void;
}

/** Builds the layers; `make` creates one standalone registry with the service's options. */
export function createScopeLayers(
  make: () => StandaloneToolRegistry,
  onChange: () => void,
  onObserverError: (error: unknown, exec: ToolExecution) => void = () => undefined,
): ScopeLayers {
  const global = make();
  const layers = new Map<object, StandaloneToolRegistry>();
  const restrictions = new Map<object, CompiledRestriction[]>();
  let empty: StandaloneToolRegistry | undefined;
  const shared = new Set<Shared>();
  /** The disposers of each shared part in each registry. */
  const installed = new Map<Shared, Map<StandaloneToolRegistry, () => void>>();

  const install = (part: Shared, registry: StandaloneToolRegistry): void => {
    const dispose =
      part.kind === 'use'
        ? registry.use(part.interceptor, part.options)
        : (registry.on as (e: string, l: never) => () => void)(part.event, part.listener);
    installed.get(part)?.set(registry, dispose);
  };
  const every = (): StandaloneToolRegistry[] => [
    global,
    ...layers.values(),
    ...(empty ? [empty] : []),
  ];
  const add = (part: Shared): (() => void) => {
    shared.add(part);
    installed.set(part, new Map());
    for (const registry of every()) install(part, registry);
    return () => {
      if (!shared.delete(part)) return;
      for (const dispose of installed.get(part)?.values() ?? []) dispose();
      installed.delete(part);
    };
  };
  const fresh = (): StandaloneToolRegistry => {
    const registry = make();
    for (const part of shared) install(part, registry);
    return registry;
  };
  const uninstall = (registry: StandaloneToolRegistry): void => {
    for (const byRegistry of installed.values()) {
      byRegistry.get(registry)?.();
      byRegistry.delete(registry);
    }
  };

  const admits = (chain: readonly object[], name: string): boolean =>
    chain.every((scope) =>
      (restrictions.get(scope) ?? []).every(
        (r) => !(r.allow !== undefined && !r.allow.has(name)) && !r.deny?.has(name),
      ),
    );

  const collect = (registry: StandaloneToolRegistry, into: Map<string, VisibleTool>): void => {
    for (const { name } of registry.schemas()) {
      const definition = registry.get(name);
      if (definition !== undefined) into.set(name, { definition, registry });
    }
  };

  /** The harness's view: inherited tools (global, then ancestors) filtered, then the agent's own. */
  const visible = (agent: unknown): Map<string, VisibleTool> => {
    const chain = scopeChain(agent);
    const own = chain[0] === undefined ? undefined : layers.get(chain[0]);
    const inherited = new Map<string, VisibleTool>();
    collect(global, inherited);
    for (const scope of [...chain].reverse()) {
      const registry = layers.get(scope);
      if (registry !== undefined && registry !== own) collect(registry, inherited);
    }
    const seen = new Map<string, VisibleTool>();
    for (const [name, tool] of inherited) if (admits(chain, name)) seen.set(name, tool);
    if (own !== undefined) collect(own, seen);
    return seen;
  };

  return {
    global,
    scoped: () => layers.size > 0 || restrictions.size > 0,
    layer(scope) {
      let registry = layers.get(scope);
      if (registry === undefined) {
        registry = fresh();
        layers.set(scope, registry);
      }
      return registry;
    },
    release(scope) {
      const registry = layers.get(scope);
      if (registry === undefined || registry.schemas().length > 0) return;
      layers.delete(scope);
      uninstall(registry);
    },
    nowhere() {
      empty ??= fresh();
      return empty;
    },
    use: (interceptor, options) => add({ kind: 'use', interceptor, options }),
    on: ((event: 'change' | 'result', listener: never) =>
      add({ kind: 'on', event, listener })) as ScopeLayers['on'],
    restrict(scope, filter) {
      const compiled: CompiledRestriction = {
        ...(filter.allow !== undefined && { allow: new Set(filter.allow) }),
        ...(filter.deny !== undefined && { deny: new Set(filter.deny) }),
      };
      const list = restrictions.get(scope) ?? [];
      list.push(compiled);
      restrictions.set(scope, list);
      onChange();
      return () => {
        const at = list.indexOf(compiled);
        if (at === -1) return;
        list.splice(at, 1);
        if (list.length === 0 && restrictions.get(scope) === list) restrictions.delete(scope);
        onChange();
      };
    },
    visible,
    resolve(name, agent) {
      const chain = scopeChain(agent);
      if (chain.length === 0 || (layers.size === 0 && restrictions.size === 0)) {
        const definition = global.get(name);
        return definition === undefined ? undefined : { definition, registry: global };
      }
      const own = layers.get(chain[0] as object);
      const mine = own?.get(name);
      if (own !== undefined && mine !== undefined) return { definition: mine, registry: own };
      if (!admits(chain, name)) return undefined;
      for (const scope of chain.slice(1)) {
        const registry = layers.get(scope);
        const definition = registry?.get(name);
        if (registry !== undefined && definition !== undefined) return { definition, registry };
      }
      const definition = global.get(name);
      return definition === undefined ? undefined : { definition, registry: global };
    },
    emitResult(result, exec) {
      for (const part of shared) {
        if (part.kind !== 'on' || part.event !== 'result') continue;
        try {
          (part.listener as (r: ToolExecutionResult, e: ToolExecution) => void)(result, exec);
        } catch (error) {
          onObserverError(error, exec);
        }
      }
    },
    inherited(scope) {
      const names = new Set(global.schemas().map((s) => s.name));
      for (const key of scopeChain(scope).slice(1)) {
        for (const s of layers.get(key)?.schemas() ?? []) names.add(s.name);
      }
      return names;
    },
  };
}
