/**
 * The parts of the `tools` service that follow the DeepSeek Harness's `ToolRuntime` over the
 * layers: how a call finds its layer and gets its harness state, the per-agent views, the
 * restriction checks, and the presentation modes. Plain functions over the adapter, so that the
 * service class stays a list of thin methods.
 */
import {
  errorResult,
  type ToolExecution,
  type ToolExecutionResult,
  type ToolSchema,
} from '@dsh-tools/protocol';
import {
  createHarnessCall,
  HARNESS_CALL,
  type HarnessCall,
  type HarnessShapedResult,
  harnessCallOf,
  shapeResult,
} from './harness-call';
import { executionModeOf, type ToolExecutionMode } from './harness-scheduler';
import { scopeChain } from './harness-scope';
import type { ListenerAdapter } from './listener-adapter';
import type { ToolRestriction } from './scope-layers';
import { isRecord } from './values';

/** How the model is shown the tools (the harness's `mode`): only `native` is implemented here. */
export type ToolPresentationMode = 'native' | 'code' | 'both';

/**
 * Runs one call on the layer that holds the tool its agent sees (an agent that cannot see the
 * tool gets `UNKNOWN_TOOL` from a layer without tools, never the hidden tool), with its harness
 * state attached, and returns the result shaped for the harness. Never rejects.
 */
export function runCall(
  adapter: ListenerAdapter,
  exec: ToolExecution,
): Promise<HarnessShapedResult> {
  adapter.sync();
  const { layers } = adapter;
  let call: HarnessCall | undefined;
  let name: unknown;
  let agent: unknown;
  try {
    if (!isRecord(exec) || Array.isArray(exec)) throw new TypeError('not a call');
    call = harnessCallOf(exec);
    name = exec.name;
    agent = exec.agent;
  } catch {
    // Malformed or hostile: the registry answers it with a result, as it answers any.
    return layers.global.execute(exec);
  }
  const scoped = layers.scoped() && typeof name === 'string';
  const visible = scoped ? layers.resolve(name as string, agent) : undefined;
  if (scoped && visible === undefined && typeof exec.callId === 'string') {
    return Promise.resolve(refuseUnseen(adapter, exec, name as string, agent, call));
  }
  const registry = !scoped ? layers.global : (visible?.registry ?? layers.nowhere());
  // The harness state costs the registry its extension path: a call gets it only when something
  // can use it (the loop's calls carry theirs already), or when it names an agent object (the
  // harness's): a call refused before its pipeline still reaches that agent's observers.
  const agentObject = typeof agent === 'object' && agent !== null;
  if (call === undefined && (agentObject || adapter.needsHarnessCall(name, agent))) {
    call = createHarnessCall(exec);
  }
  if (call === undefined) return registry.execute(exec).then(shapeBare);
  const own = call;
  const withCall = (
    harnessCallOf(exec) === undefined ? { ...exec, [HARNESS_CALL]: own } : exec
  ) as ToolExecution;
  const { running } = adapter;
  const callId = (withCall as { callId?: unknown }).callId;
  if (typeof callId === 'string') running.set(callId, own);
  return registry.execute(withCall).then((result) => {
    if (typeof callId === 'string' && running.get(callId) === own) running.delete(callId);
    return shapeResult(result, own, own.full);
  });
}

/**
 * `UNKNOWN_TOOL` for a tool its agent cannot see (registered for another agent, restricted away,
 * or nowhere), naming the tools it can: the model is told what it may call instead, and what
 * another agent holds stays unsaid. Observers are told as for any result.
 */
function refuseUnseen(
  adapter: ListenerAdapter,
  exec: ToolExecution,
  name: string,
  agent: unknown,
  call: HarnessCall | undefined,
): HarnessShapedResult {
  const names = [...adapter.layers.visible(agent).keys()];
  const shown = names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ');
  const result = errorResult(
    exec.callId,
    'UNKNOWN_TOOL',
    `Unknown tool "${name}": no tool of that name is available to this agent (${names.length === 0 ? 'it has none' : `its tools: ${shown}`}). Call one of the tools you were given.`,
  );
  Object.freeze(result.content);
  Object.freeze(result.error);
  Object.freeze(result);
  const seen = Object.freeze(
    call === undefined
      ? {
          callId: exec.callId,
          name,
          arguments: exec.arguments,
          ...(agent !== undefined && { agent }),
        }
      : { callId: exec.callId, name, arguments: exec.arguments, agent, [HARNESS_CALL]: call },
  ) as ToolExecution;
  adapter.layers.emitResult(result, seen);
  return call === undefined ? shapeBare(result) : shapeResult(result, call, call.full);
}

/** A result without harness state: a harness wrapper's failure still shows its code. */
const shapeBare = (result: ToolExecutionResult): HarnessShapedResult =>
  result.isError ? shapeResult(result, undefined) : result;

/** A turn's calls, as `executeAll`: on the global layer as ever, or one by one across layers. */
export async function runTurn(
  adapter: ListenerAdapter,
  execs: readonly ToolExecution[],
  runAll: (execs: readonly ToolExecution[]) => Promise<ToolExecutionResult[]>,
): Promise<HarnessShapedResult[]> {
  adapter.sync();
  const { layers } = adapter;
  let calls: (HarnessCall | undefined)[];
  let withCalls: ToolExecution[];
  let unscoped: boolean;
  try {
    calls = execs.map((exec) => {
      if (!isRecord(exec) || Array.isArray(exec)) throw new TypeError('not a call');
      const own = harnessCallOf(exec);
      if (own !== undefined || !adapter.needsHarnessCall(exec.name, exec.agent)) return own;
      return createHarnessCall(exec);
    });
    withCalls = execs.map((exec, i) => {
      const call = calls[i];
      return call === undefined || harnessCallOf(exec) !== undefined
        ? exec
        : ({ ...exec, [HARNESS_CALL]: call } as ToolExecution);
    });
    unscoped = !layers.scoped() || execs.every((e) => scopeChain(e.agent).length === 0);
  } catch {
    // Malformed or hostile: the registry answers each call with a result, as it answers any.
    return runAll(execs);
  }
  if (unscoped) {
    const results = await runAll(withCalls);
    return results.map((result, i) => {
      const call = calls[i];
      return call === undefined ? shapeBare(result) : shapeResult(result, call);
    });
  }
  // Calls of different layers cannot share one registry's scheduling: they run in call order.
  const results: HarnessShapedResult[] = [];
  for (const exec of execs) results.push(await runCall(adapter, exec));
  return results;
}

/** The schemas an agent's model sees (global view without a scope), in the harness's order. */
export function schemasFor(adapter: ListenerAdapter, scope: unknown): readonly ToolSchema[] {
  const { layers } = adapter;
  if (scope === undefined || !layers.scoped()) return layers.global.schemas();
  return [...layers.visible(scope).values()].map(({ definition }) => ({
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters,
  }));
}

/**
 * The names an agent's prompt may order or name in its config: every tool it sees or has had
 * restricted away (the harness's `knownNames`); `undefined` where that is just what it sees.
 */
export function knownNamesFor(adapter: ListenerAdapter, scope: unknown): string[] | undefined {
  const { layers } = adapter;
  if (typeof scope !== 'object' || scope === null || !layers.scoped()) return undefined;
  return [...new Set([...layers.inherited(scope), ...layers.visible(scope).keys()])];
}

/** The harness's `executionMode(exec)`: parallel only for a visible tool that says it is safe. */
export function modeOf(adapter: ListenerAdapter, exec: unknown): ToolExecutionMode {
  const call = isRecord(exec) ? exec : {};
  const name = typeof call.name === 'string' ? call.name : '';
  return executionModeOf(adapter.layers.resolve(name, call.agent)?.definition, call.arguments);
}

/** Checks a restriction as the harness does, naming what is wrong and what to do instead. */
export function checkRestriction(
  adapter: ListenerAdapter,
  scope: object | undefined,
  filter: ToolRestriction,
): void {
  if (scope === undefined) {
    throw new Error(
      'ctx.tools.restrict() requires an agent scope (agent.ctx): a restriction on the global context would hide tools from every agent. Deny the tool for the intended agent instead.',
    );
  }
  if (!isRecord(filter) || (filter.allow === undefined && filter.deny === undefined)) {
    throw new Error(
      'ctx.tools.restrict({}) does nothing: pass `allow` and/or `deny`, lists of tool names.',
    );
  }
  const { allow = [], deny = [] } = filter as ToolRestriction;
  const names = [...allow, ...deny];
  const known = adapter.layers.inherited(scope);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `ctx.tools.restrict() names ${unknown.length > 1 ? 'tools' : 'a tool'} this agent does not inherit: ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${[...known].sort().join(', ') || '(none)'}. Restrict only inherited tools (a tool this agent registers itself stays visible to it).`,
    );
  }
}

/**
 * The error of a presentation this package does not implement. The harness's Code Mode needs a
 * code runtime; without one it fails at the first prompt assembly, and so does this service, with
 * or without one, rather than silently presenting natively.
 */
export function unsupportedMode(mode: ToolPresentationMode, runtime: unknown): Error {
  return new Error(
    runtime === undefined
      ? `dsh-tools: mode "${mode}" requires a code runtime — load a ctx.codeRuntime implementation (e.g. @deepseek-ai/dsh-code-runtime-worker-thread) or set tools mode to "native"`
      : `dsh-tools: mode "${mode}" (Code Mode) is not implemented by dsh-tools' tools service yet; set tools mode to "native", or use @deepseek-ai/dsh-tools for Code Mode agents.`,
  );
}
