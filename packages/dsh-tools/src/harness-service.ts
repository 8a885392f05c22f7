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
import { RUN_CODE_NAME } from './code-mode';
import { codeOnlyMessage, modeFor } from './code-mode-presentation';
import type { ToolSdkSchema } from './code-mode-sdk';
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

export type { ToolPresentationMode } from './code-mode-presentation';

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
  let scoped = layers.scoped() && typeof name === 'string';
  const { presentation } = adapter;
  if (presentation.installed && typeof name === 'string' && typeof exec.callId === 'string') {
    // Code Mode: `run_code` is there for the agents that present in code, whatever their
    // restrictions; under `code`, it is the only tool a model may call directly (the program's
    // calls carry their `run_code` call as parent).
    const mode = modeFor(presentation, agent);
    if (name === RUN_CODE_NAME) {
      if (mode === 'native') return Promise.resolve(refuseUnseen(adapter, exec, name, agent, call));
      scoped = false;
    } else if (mode === 'code' && call?.parent === undefined) {
      return Promise.resolve(refuseUnseen(adapter, exec, name, agent, call, codeOnlyMessage(name)));
    }
  }
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
  message?: string,
): HarnessShapedResult {
  const names = visibleNames(adapter, agent);
  const shown = names.length > 20 ? `${names.slice(0, 20).join(', ')}, …` : names.join(', ');
  const result = errorResult(
    exec.callId,
    'UNKNOWN_TOOL',
    message ??
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
    const { presentation } = adapter;
    // Code Mode's rules (run_code's visibility, the `code` collapse) are applied per call.
    const plain =
      !presentation.installed ||
      execs.every((e) => e.name !== RUN_CODE_NAME && modeFor(presentation, e.agent) !== 'code');
    unscoped = plain && (!layers.scoped() || execs.every((e) => scopeChain(e.agent).length === 0));
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
  const { layers, presentation } = adapter;
  const all =
    scope === undefined || !layers.scoped()
      ? layers.global.schemas()
      : [...layers.visible(scope).values()].map(({ definition }) => ({
          name: definition.name,
          description: definition.description,
          parameters: definition.parameters,
        }));
  // `run_code` is a presentation, not a tool of the agent's: listed only where it is presented.
  if (!presentation.installed) return all;
  const own = all.filter((schema) => schema.name !== RUN_CODE_NAME);
  const runCode = layers.global.schemas().find((schema) => schema.name === RUN_CODE_NAME);
  return modeFor(presentation, scope) === 'native' || runCode === undefined
    ? own
    : [...own, runCode];
}

/** The names of the tools an agent may call, `run_code` where it is presented. */
const visibleNames = (adapter: ListenerAdapter, agent: unknown): string[] =>
  adapter.presentation.installed
    ? schemasFor(adapter, agent).map((schema) => schema.name)
    : [...adapter.layers.visible(agent).keys()];

/** The native schemas of one agent, `run_code` left out (for the prompt feed and bindings). */
export function nativeSchemasFor(adapter: ListenerAdapter, scope: unknown): readonly ToolSchema[] {
  const all = schemasFor(adapter, scope);
  return adapter.presentation.installed ? all.filter((s) => s.name !== RUN_CODE_NAME) : all;
}

/** The `run_code` schema, once registered. */
export const runCodeSchema = (adapter: ListenerAdapter): ToolSchema | undefined =>
  adapter.layers.global.schemas().find((schema) => schema.name === RUN_CODE_NAME);

/**
 * What the SDK declares for one agent: each tool it sees (`run_code` aside) with the JSON value a
 * call resolves to: a harness tool's `output.schema`, our `outputSchema`, else its text.
 */
export function sdkSchemasFor(adapter: ListenerAdapter, scope: unknown): ToolSdkSchema[] {
  return nativeSchemasFor(adapter, scope).map((schema) => {
    const definition = adapter.layers.resolve(schema.name, scope)?.definition as
      | { output?: { schema?: unknown }; outputSchema?: unknown }
      | undefined;
    const output = definition?.output?.schema ?? definition?.outputSchema ?? { type: 'string' };
    return { ...schema, output };
  });
}

/**
 * The names an agent's prompt may order or name in its config: every tool it sees or has had
 * restricted away (the harness's `knownNames`); `undefined` where that is just what it sees.
 */
export function knownNamesFor(adapter: ListenerAdapter, scope: unknown): string[] | undefined {
  const { layers } = adapter;
  if (typeof scope !== 'object' || scope === null || !layers.scoped()) return undefined;
  const names = new Set([...layers.inherited(scope), ...layers.visible(scope).keys()]);
  names.delete(RUN_CODE_NAME);
  return [...names];
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
  if (names.includes(RUN_CODE_NAME)) {
    throw new Error(
      `ctx.tools.restrict() cannot name "${RUN_CODE_NAME}": it is Code Mode's transport, present wherever the agent presents in code. Restrict the tools a program calls instead.`,
    );
  }
  const known = adapter.layers.inherited(scope);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `ctx.tools.restrict() names ${unknown.length > 1 ? 'tools' : 'a tool'} this agent does not inherit: ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${[...known].sort().join(', ') || '(none)'}. Restrict only inherited tools (a tool this agent registers itself stays visible to it).`,
    );
  }
}
