/**
 * Agent scopes as the DeepSeek Harness defines them (`@deepseek-ai/dsh-scope`): an agent's
 * context (`agent.ctx`) carries a scope key (the agent), and a key may have a parent (a
 * sub-agent's parent agent). What an agent's context registers or listens to belongs to that
 * agent and the agents under it. The package is an optional peer: without it there are no
 * scopes, and everything is global, as before.
 */
import type { Context } from '@deepseek-ai/cordis';

interface ScopeApi {
  scopeOf(ctx: Context): object | undefined;
  scopeChainOf(key: object | undefined): object[];
}

// Loaded once, when this entry is imported: the scope key is a symbol private to that package,
// so reading it means asking the package. Absent, the service runs unscoped.
const api: ScopeApi | undefined = await import('@deepseek-ai/dsh-scope').then(
  (module) => module as unknown as ScopeApi,
  () => undefined,
);

/** Whether agent scopes are available (`@deepseek-ai/dsh-scope` is installed). */
export const scopesAvailable: boolean = api !== undefined;

/** The scope key of a context (`agent.ctx`), or `undefined` for an unscoped one. */
export const scopeKeyOf = (ctx: Context): object | undefined => {
  if (api === undefined) return undefined;
  try {
    return api.scopeOf(ctx);
  } catch {
    return undefined;
  }
};

/** The scope keys of a call's agent, nearest first (the agent, its parent, …); none without one. */
export const scopeChain = (agent: unknown): readonly object[] => {
  if (api === undefined || typeof agent !== 'object' || agent === null) return [];
  return api.scopeChainOf(agent);
};

/** Whether something registered in `scope` applies to a call made by `agent`. */
export const scopeCovers = (scope: object, agent: unknown): boolean =>
  scopeChain(agent).includes(scope);
