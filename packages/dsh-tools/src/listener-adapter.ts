import { Context, type Hook } from '@deepseek-ai/cordis';
import type {
  ContentBlock,
  InterceptedExecution,
  Interceptor,
  ToolChangeEvent,
  ToolExecution,
} from '@dsh-tools/protocol';
import {
  createToolRegistry,
  type ToolRegistry as StandaloneToolRegistry,
} from '@dsh-tools/registry';
import type { ChainEntry } from '@dsh-tools/waterfall';
import type { CodeDispatchLog } from './code-mode';
import { createPresentation, type Presentation } from './code-mode-presentation';
import { listenerTable } from './cordis-listeners';
import { HARNESS_CALL, type HarnessCall, harnessCallOf, shapeResult } from './harness-call';
import type { ApprovalServiceLike } from './harness-contract';
import type { HarnessTool } from './harness-definition';

const shapeResultOf = (result: Parameters<typeof shapeResult>[0], call: HarnessCall | undefined) =>
  shapeResult(result, call, call?.full === true);

import { adoptHarnessResult } from './harness-result';
import { notifyInOrder } from './harness-scheduler';
import { scopeCovers, scopeKeyOf } from './harness-scope';
import { createPolicyInterceptor, type GuardEntry } from './policy-interceptor';
import { createScopeLayers, type ScopeLayers } from './scope-layers';
import type { CordisRegistryErrorInfo, ToolRegistryConfig } from './types';
import { messageOf } from './values';

/** A cordis `tools/execute` listener and its registration as a registry interceptor. */
interface MirroredListener {
  readonly hook: Hook;
  readonly dispose: () => void;
}

/**
 * The standalone registry and its link to cordis's listener table: what the service keeps; plain
 * closures, so the hot path pays no proxy per property read.
 */
export interface ListenerAdapter {
  /** The global registry (the layer of unscoped registrations). */
  readonly registry: StandaloneToolRegistry;
  /** The global registry and one per agent scope, sharing interceptors and observers. */
  readonly layers: ScopeLayers;
  /** Brings the registry's copy of the `tools/execute` listeners up to date. */
  sync(): void;
  /** Disposes every mirrored listener. */
  unmirror(): void;
  /** The guards added with `ctx.tools.guard()`, in the order they were added. */
  readonly guards: Set<GuardEntry>;
  /** The harness-shaped tools by the definition object the registry holds. */
  readonly harnessTools: WeakMap<object, HarnessTool>;
  /** The harness state of the calls running now, by callId. */
  readonly running: Map<string, HarnessCall>;
  /**
   * Whether a call needs its harness state: its tool is harness-shaped (its body may defer
   * context, its value and meta travel on the result), or a listener may attach contexts
   * (`tools/post-execute`).
   */
  needsHarnessCall(name: unknown, agent: unknown): boolean;
  /** How each agent's model is shown the tools (Code Mode). */
  readonly presentation: Presentation;
  /**
   * The content a Code Mode sub-call's log event carries: the `tools/code-dispatch-log`
   * listeners' (of the calling agent's scope), outermost first; one that throws or returns
   * something else leaves the content as it was (the log entry is never lost).
   */
  shapeDispatchLog(dispatch: CodeDispatchLog): Promise<readonly ContentBlock[]>;
}

/**
 * The priority of the mirrored cordis listeners: the smallest number above 0, so that they run
 * outside every `use()` interceptor of priority 0 or less and inside every higher one, whenever
 * either was added.
 */
const CORDIS_PRIORITY = Number.MIN_VALUE;

/**
 * The priority of the harness's policy points (`tools/pre-execute`, guards, `tools/post-execute`):
 * outermost, as in the harness, where they decide before any `tools/execute` wrapper runs.
 */
const POLICY_PRIORITY = Number.POSITIVE_INFINITY;

const EXECUTE = 'tools/execute';
const PRE_EXECUTE = 'tools/pre-execute';
const POST_EXECUTE = 'tools/post-execute';
const RESULT = 'tools/result';
const CHANGE = 'tools/change';
/** cordis reports every dispatch of an event here; ours, which bypass cordis's, are reported too. */
const DISPATCH = 'internal/dispatch';

const SYSTEM_PROMPT_CHANGE = 'system-prompt/change';
const DISPATCH_LOG = 'tools/code-dispatch-log';
const NO_CHAIN: readonly ChainEntry<never, unknown>[] = Object.freeze([]);
const NO_GUARDS: readonly GuardEntry[] = Object.freeze([]);
/** What a restriction changes: no tool was added or removed, but what an agent sees was. */
const NO_CHANGE: ToolChangeEvent = Object.freeze({
  added: Object.freeze([]),
  removed: Object.freeze([]),
});

/**
 * The execution a harness `tools/execute` wrapper receives: ours with the harness's identity and
 * deferral, and a `signal` it may set for what it delegates (mutable, unlike ours, which is frozen).
 */
const dispatchView = (
  exec: InterceptedExecution,
  call: HarnessCall,
): Record<PropertyKey, unknown> => ({
  ...exec,
  [HARNESS_CALL]: call,
  token: call.token,
  rootCallId: call.rootCallId,
  ...(call.parent !== undefined && { parent: call.parent }),
  deferContext(context: unknown): void {
    call.contexts.push(context);
  },
  concludeTurn(): void {
    call.concludes = true;
  },
});

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
export function createListenerAdapter(
  ctx: Context,
  config: ToolRegistryConfig,
  presentation: Presentation = createPresentation(),
): ListenerAdapter {
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
      const line = `${info.kind}${where}: ${messageOf(error)}`;
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
  const changed = (event: ToolChangeEvent): void => {
    notify(CHANGE, [event], undefined);
    // The system-prompt service reads the tool schemas lazily at each assembly; its change event
    // is how a host that caches the assembled prompt learns that the next assembly differs.
    if (ctx.get('systemPrompt') !== undefined) {
      try {
        (ctx as unknown as { emit(name: string): void }).emit(SYSTEM_PROMPT_CHANGE);
      } catch (error) {
        report(error, { kind: 'observer' });
      }
    }
  };
  const layers = createScopeLayers(
    () => createToolRegistry({ ...config, onError: report }),
    () => changed(NO_CHANGE),
    (error, exec) => report(error, { kind: 'observer', tool: exec.name, callId: exec.callId }),
  );
  const registry = layers.global;
  const listeners = listenerTable(ctx);
  // The label of this service's isolation scope: listeners of a context that isolates `tools`
  // belong to that scope's service, the selection `ctx.emit(service, event)` makes.
  const label = ctx[Context.isolate].tools;
  const visible = (hook: Hook) => hook.global || hook.ctx[Context.isolate].tools === label;
  let mirrored: readonly MirroredListener[] = [];
  let isHarnessCall: (exec: InterceptedExecution) => boolean = () => false;

  const adopt = (hook: Hook): (() => void) => {
    const callback = hook.callback as Interceptor;
    const scope = scopeKeyOf(hook.ctx);
    // A harness wrapper may return a failure in the harness's shape (no callId): adopted here,
    // before the registry checks the result, so it counts as the wrapper's own result.
    const interceptor: Interceptor = (exec, next) => {
      // An agent's listener sees that agent's calls (and its sub-agents') only.
      if (scope !== undefined && !scopeCovers(scope, exec.agent)) return next();
      const call = harnessCallOf(exec);
      let returned: unknown;
      // Ours stays frozen; the harness's view is for the calls the harness makes: those its loop
      // schedules, and any call of a harness-shaped tool.
      if (call === undefined || !(call.full || isHarnessCall(exec))) {
        returned = callback(exec, next);
      } else {
        // The harness lets a wrapper put its own signal in place for what it delegates; here
        // it is added to the call's (the body's signal aborts with either), never a substitute.
        const view = dispatchView(exec, call);
        returned = callback(view as unknown as InterceptedExecution, (changed) => {
          const signal: unknown = view.signal;
          if (signal !== exec.signal && signal instanceof AbortSignal) call.signals.push(signal);
          return next(changed === undefined || (changed as unknown) === view ? undefined : changed);
        });
      }
      return (
        isThenable(returned)
          ? Promise.resolve(returned).then((value) => adoptHarnessResult(value, exec))
          : adoptHarnessResult(returned, exec)
      ) as ReturnType<Interceptor>;
    };
    const name = hook.ctx.fiber.name;
    const use = () => layers.use(interceptor, { name, priority: CORDIS_PRIORITY });
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
    const table = listeners(EXECUTE);
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
  const notify = (
    event: string,
    args: unknown[],
    exec: ToolExecution | undefined,
    scoped?: { readonly agent: unknown },
  ): void => {
    const table = listeners(event);
    if (table.length === 0) return;
    for (const hook of table.filter(visible)) {
      // A listener of an agent's context hears that agent's calls (and its sub-agents') only.
      if (scoped !== undefined && !covers(scopeKeyOf(hook.ctx), scoped.agent)) continue;
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

  /** Whether a listener or guard of `scope` (none: unscoped) applies to a call of `agent`. */
  const covers = (scope: object | undefined, agent: unknown): boolean =>
    scope === undefined || scopeCovers(scope, agent);
  const chain = <A extends unknown[]>(
    event: string,
    exec: InterceptedExecution,
  ): readonly ChainEntry<A, unknown>[] => {
    const table = listeners(event);
    if (table.length === 0) return NO_CHAIN as ChainEntry<A, unknown>[];
    return table
      .filter((hook) => visible(hook) && covers(scopeKeyOf(hook.ctx), exec.agent))
      .map((hook) => ({
        listener: hook.callback as ChainEntry<A, unknown>['listener'],
        name: hook.ctx.fiber.name,
      }));
  };
  const guards = new Set<GuardEntry>();
  const harnessTools = new WeakMap<object, HarnessTool>();
  const running = new Map<string, HarnessCall>();
  const harnessToolOf = (exec: InterceptedExecution): HarnessTool | undefined => {
    const definition = layers.resolve(exec.name, exec.agent)?.definition;
    return definition === undefined ? undefined : harnessTools.get(definition);
  };
  isHarnessCall = (exec) => harnessToolOf(exec) !== undefined;
  layers.use(
    createPolicyInterceptor({
      pre: (exec) => chain<[InterceptedExecution]>(PRE_EXECUTE, exec),
      post: (exec) => chain(POST_EXECUTE, exec),
      guards: (exec) => {
        if (guards.size === 0) return NO_GUARDS;
        const applying = [...guards].filter((entry) => covers(entry.scope, exec.agent));
        return applying.length === 0 ? NO_GUARDS : applying;
      },
      approval: () => ctx.get('approval') as ApprovalServiceLike | undefined,
      harnessTool: harnessToolOf,
      watched: () => listeners(DISPATCH).length > 0,
      dispatching: (name, args) =>
        notify(DISPATCH, ['waterfall', name, args, null], args[0] as ToolExecution),
    }),
    { name: 'tools/pre-execute, guards, tools/post-execute', priority: POLICY_PRIORITY },
  );

  // The harness's order: the call, then its result (with the harness's fields on ours).
  layers.on('result', (result, exec) => {
    // A call that failed before its pipeline (an unknown tool) reaches observers stripped of
    // its extension fields: its harness state is found by its callId while it runs.
    const call = harnessCallOf(exec) ?? running.get(exec.callId);
    // The harness freezes the call before its observers run; a call that failed before its
    // pipeline is handed over as the registry made it (without its agent): a frozen copy, with it.
    const agent = exec.agent ?? call?.agent;
    const seen =
      Object.isFrozen(exec) && exec.agent === agent
        ? exec
        : Object.freeze({ ...exec, ...(agent !== undefined && { agent }) });
    notifyInOrder(call, () => {
      const shaped = shapeResultOf(result, call);
      if (listeners(DISPATCH).length > 0) {
        notify(DISPATCH, ['emit', RESULT, [seen, shaped], null], seen);
      }
      notify(RESULT, [seen, shaped], seen, { agent });
    });
  });
  layers.on('change', changed);
  const needsHarnessCall = (name: unknown, agent: unknown): boolean => {
    if (typeof name !== 'string') return false;
    const definition = layers.resolve(name, agent)?.definition;
    if (definition !== undefined && harnessTools.has(definition)) return true;
    return listeners(POST_EXECUTE).length > 0;
  };
  const shapeDispatchLog = async (dispatch: CodeDispatchLog): Promise<readonly ContentBlock[]> => {
    const original = dispatch.content;
    // Reported as cordis reports the waterfall it stands for, so invariant checks see it.
    if (listeners(DISPATCH).length > 0) {
      notify(DISPATCH, ['waterfall', DISPATCH_LOG, [dispatch], null], undefined);
    }
    const hooks = listeners(DISPATCH_LOG).filter(
      (hook) => visible(hook) && covers(scopeKeyOf(hook.ctx), dispatch.agent),
    );
    const step = async (i: number): Promise<readonly ContentBlock[]> => {
      const hook = hooks[i];
      if (hook === undefined) return original;
      try {
        const content: unknown = await hook.callback(dispatch, () => step(i + 1));
        if (Array.isArray(content)) return content as ContentBlock[];
        throw new TypeError('a tools/code-dispatch-log listener must return content blocks');
      } catch (error) {
        report(error, {
          kind: 'observer',
          tool: dispatch.name,
          callId: dispatch.subCallId,
          listener: hook.ctx.fiber.name,
        });
        return original;
      }
    };
    return step(0);
  };
  return {
    registry,
    layers,
    sync,
    unmirror,
    guards,
    harnessTools,
    running,
    needsHarnessCall,
    presentation,
    shapeDispatchLog,
  };
}
