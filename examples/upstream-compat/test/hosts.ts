/**
 * The two `tools` services the scenarios run on, booted the same way: the DeepSeek Harness's own
 * `ToolRuntime` (`@deepseek-ai/dsh-tools`) and ours (`dsh-tools/cordis`), each beside the real
 * system-prompt service, the agent registry and a session store, as a harness app composes them.
 *
 * Both services claim `ctx.tools` with different types, so this file reads `ctx.tools` through
 * the small {@link ToolsLike} view the scenarios need, and outcomes through {@link outcome}.
 */
import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import { Session } from '@deepseek-ai/dsh-session';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import { ToolRuntime } from '@deepseek-ai/dsh-tools';
import { ToolRegistry } from 'dsh-tools/cordis';

export type HostName = 'upstream' | 'ours';
export const HOSTS: readonly HostName[] = ['upstream', 'ours'];

/** What the scenarios call on either service. */
export interface ToolsLike {
  execute(exec: Record<string, unknown>): Promise<unknown>;
  schemas(): readonly { readonly name: string }[];
  get(name: string): unknown;
}

/** A call's outcome, comparable across the two services' result shapes. */
export interface Outcome {
  readonly isError: boolean;
  /** The text of every text block, joined. */
  readonly text: string;
  /** Our `error.code`, or the harness's `error.info.code`. */
  readonly code: string | undefined;
  /** The text of each context the result carries for the next request, when it carries any. */
  readonly contexts?: readonly string[];
}

/** The outcome of either service's result. */
export function outcome(result: unknown): Outcome {
  const r = result as {
    isError: boolean;
    content: { type: string; text?: string }[];
    error?: { code?: string; info?: { code?: string } };
    additionalContexts?: { content: { type: string; text?: string }[] }[];
  };
  const contexts = r.additionalContexts?.map((c) => c.content.map((b) => b.text).join('\n'));
  return {
    ...(contexts !== undefined && { contexts }),
    isError: r.isError,
    text: r.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n'),
    code: r.error?.code ?? r.error?.info?.code,
  };
}

/** A booted app: the root context and its `tools` service. */
export interface Host {
  readonly name: HostName;
  readonly root: Context;
  readonly tools: ToolsLike;
  /** Runs one call as the harness's agent loop does: with a signal, and the agent when given. */
  call(name: string, args: unknown, agent?: unknown): Promise<Outcome>;
  close(): Promise<void>;
}

let calls = 0;

/** Boots `name`'s tools service beside the system-prompt service and the agent registry. */
export async function boot(name: HostName, config: Record<string, unknown> = {}): Promise<Host> {
  const root = new Context();
  await root.plugin(SystemPrompt, {});
  await root.plugin(AgentRegistry);
  if (name === 'upstream') await root.plugin(ToolRuntime, config);
  else await root.plugin(ToolRegistry, config);
  const tools = root.get('tools') as unknown as ToolsLike;
  return {
    name,
    root,
    tools,
    call: async (tool, args, agent) =>
      outcome(
        await tools.execute({
          callId: `call-${++calls}`,
          name: tool,
          arguments: args,
          signal: new AbortController().signal,
          ...(agent !== undefined && { agent }),
        }),
      ),
    close: () => root.fiber.dispose() as Promise<void>,
  };
}

/**
 * A live agent as the harness's agent loop hands it to tools: registered in `ctx.agents` (so the
 * user-questions seam accepts it as the live caller), with a real session from
 * `@deepseek-ai/dsh-session` whose turn is open (so the approval seam can audit to it). The loop
 * itself (model calls, steps) is not part of any scenario here, so `inject` / `steer` only record.
 */
export function liveAgent(root: Context, id = `agent-${++calls}`) {
  const session = Session.create(id as never);
  session.append('turn/start', { turn: 1 } as never);
  const injected: unknown[] = [];
  const agent = {
    id,
    session,
    ctx: root,
    injected,
    inject: (message: unknown) => void injected.push(message),
    steer: (message: unknown) => void injected.push(message),
  };
  (root as unknown as { agents: { register(agent: unknown): () => void } }).agents.register(agent);
  return agent;
}
