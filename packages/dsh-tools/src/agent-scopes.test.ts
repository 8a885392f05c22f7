/**
 * Agent scopes as the DeepSeek Harness defines them (`@deepseek-ai/dsh-scope`): what an agent's
 * context registers or listens to is that agent's (and its sub-agents'), nobody else's.
 */
import { Context } from '@deepseek-ai/cordis';
import { bindScopeParent, createScope } from '@deepseek-ai/dsh-scope';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import { type ToolDefinition, textContent } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from './cordis';

// biome-ignore lint/suspicious/noExplicitAny: the scoped context is cordis's, typed loosely here
type Any = any;

const tool = (name: string, ran: string[] = []): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  parameters: { type: 'object', properties: {} },
  execute: () => {
    ran.push(name);
    return [textContent(`${name} ran`)];
  },
});

/** A root app with the service, and two agents, each with its own scoped context. */
async function agents() {
  const root = new Context();
  await root.plugin(SystemPrompt, {});
  await root.plugin(ToolRegistry, {});
  const a = { id: 'agent-a' };
  const b = { id: 'agent-b' };
  // As the agent loop makes them: scopes of a plugin that injects `tools`.
  let host!: Context;
  await root.plugin({
    name: 'agents',
    inject: ['tools'],
    apply: (ctx: Context) => {
      host = ctx;
    },
  });
  const scopeA = createScope(host, a);
  const scopeB = createScope(host, b);
  return { root: root as Any, a, b, ctxA: scopeA.ctx as Any, ctxB: scopeB.ctx as Any };
}

let calls = 0;
const run = (root: Any, name: string, agent?: object) =>
  root.tools.execute({ callId: `s${++calls}`, name, arguments: {}, ...(agent && { agent }) });

describe('agent scopes', () => {
  it('attack: a tool registered for one agent is callable by another only when registered globally', async () => {
    // Unguarded: registered on the root context, every agent can call it.
    const open = await agents();
    const ranOpen: string[] = [];
    open.root.tools.register(tool('secret', ranOpen));
    expect((await run(open.root, 'secret', open.b)).isError).toBe(false);
    expect(ranOpen).toEqual(['secret']);

    // Guarded: registered through agent A's context, agent B gets UNKNOWN_TOOL and nothing runs.
    const { root, a, b, ctxA } = await agents();
    const ran: string[] = [];
    ctxA.tools.register(tool('secret', ran));
    const denied = await run(root, 'secret', b);
    expect(denied.error?.code).toBe('UNKNOWN_TOOL');
    // The refusal names what B may call, and nothing of A's.
    expect(denied.error?.message).toBe(
      'Unknown tool "secret": no tool of that name is available to this agent (it has none). Call one of the tools you were given.',
    );
    expect((await run(root, 'secret')).error?.code).toBe('UNKNOWN_TOOL');
    expect(ran).toEqual([]);
    expect((await run(root, 'secret', a)).isError).toBe(false);
    expect(ran).toEqual(['secret']);
    // Nor does it show: not in B's schemas, the global ones, or a lookup from B.
    expect(root.tools.schemas(b).map((s: Any) => s.name)).toEqual([]);
    expect(root.tools.schemas().map((s: Any) => s.name)).toEqual([]);
    expect(root.tools.schemas(a).map((s: Any) => s.name)).toEqual(['secret']);
    expect(root.tools.get('secret', b)).toBeUndefined();
    expect(root.tools.get('secret', a)?.name).toBe('secret');
    // The prompt of each agent lists what that agent sees.
    const assembled = await root.systemPrompt.assemble({ scope: a });
    expect(assembled.tools.map((s: Any) => s.name)).toEqual(['secret']);
    expect((await root.systemPrompt.assemble({ scope: b })).tools).toEqual([]);
  });

  it("shows a sub-agent its parent's tools, and one agent's tool shadows a global one for it", async () => {
    const { root, a, ctxA } = await agents();
    const child = { id: 'child' };
    bindScopeParent(child, a);
    const ran: string[] = [];
    root.tools.register(tool('shared', ran));
    ctxA.tools.register({ ...tool('shared'), execute: () => [textContent('mine')] });
    ctxA.tools.register(tool('parental', ran));
    expect((await run(root, 'parental', child)).isError).toBe(false);
    expect((await run(root, 'shared', a)).content).toEqual([textContent('mine')]);
    expect((await run(root, 'shared')).content).toEqual([textContent('shared ran')]);
    expect(ran).toEqual(['parental', 'shared']);
  });

  it("gives an agent's listeners and guards that agent's calls only", async () => {
    const { root, a, b, ctxA } = await agents();
    root.tools.register(tool('read'));
    const seen: unknown[] = [];
    ctxA.on('tools/pre-execute', async (exec: Any) => {
      seen.push(exec.agent);
      return { kind: 'deny', reason: 'A may not read' };
    });
    ctxA.tools.guard((exec: Any) => (seen.push(['guard', exec.agent]) ? undefined : undefined));
    const executed: unknown[] = [];
    ctxA.on('tools/execute', (exec: Any, next: Any) => {
      executed.push(exec.agent);
      return next();
    });
    expect((await run(root, 'read', b)).isError).toBe(false);
    expect((await run(root, 'read')).isError).toBe(false);
    expect(seen).toEqual([]);
    expect(executed).toEqual([]);
    const results: unknown[] = [];
    ctxA.on('tools/result', (exec: Any) => results.push(exec.agent));
    await run(root, 'read', b);
    await run(root, 'nope', b);
    expect(results).toEqual([]);
    const own = await run(root, 'read', a);
    // A call refused before any policy (an unknown tool) is still that agent's result.
    await run(root, 'nope', a);
    expect(results).toEqual([a, a]);
    expect(own.error?.code).toBe('DENIED');
    expect(own.error?.message).toContain('A may not read');
    expect(seen).toEqual([a]);
  });

  it('restricts what an agent inherits, never what it registers itself', async () => {
    const { root, a, b, ctxA } = await agents();
    root.tools.register(tool('read'));
    root.tools.register(tool('write'));
    ctxA.tools.register(tool('report'));
    const changes: unknown[] = [];
    root.on('tools/change', (event: unknown) => changes.push(event));
    const lift = ctxA.tools.restrict({ allow: ['read'] });
    expect(changes).toHaveLength(1);
    expect(root.tools.schemas(a).map((s: Any) => s.name)).toEqual(['read', 'report']);
    // The prompt lists what A sees; a toolOrder may still name what was restricted away (the
    // harness's knownNames), and an unknown name still fails assembly.
    const ordered = new Context() as Any;
    await ordered.plugin(SystemPrompt, { toolOrder: ['write', 'report', '<unlisted-tools>'] });
    await ordered.plugin(ToolRegistry, {});
    let host!: Context;
    await ordered.plugin({
      name: 'agents',
      inject: ['tools'],
      apply: (ctx: Context) => {
        host = ctx;
      },
    });
    const scoped = createScope(host, a).ctx as Any;
    ordered.tools.register(tool('read'));
    ordered.tools.register(tool('write'));
    scoped.tools.register(tool('report'));
    scoped.tools.restrict({ allow: ['read'] });
    const assembled = await ordered.systemPrompt.assemble({ scope: a });
    expect(assembled.tools.map((s: Any) => s.name)).toEqual(['report', 'read']);
    expect((await run(root, 'write', a)).error?.code).toBe('UNKNOWN_TOOL');
    expect(root.tools.executionMode({ name: 'write', agent: a, arguments: {} })).toEqual({
      kind: 'exclusive',
    });
    expect((await run(root, 'write', b)).isError).toBe(false);
    lift();
    expect((await run(root, 'write', a)).isError).toBe(false);
    // Misuse fails at once, saying what to do.
    expect(() => root.tools.restrict({ allow: ['read'] })).toThrow(/requires an agent scope/);
    expect(() => ctxA.tools.restrict({})).toThrow(/does nothing/);
    expect(() => ctxA.tools.restrict({ deny: ['nope'] })).toThrow(/"nope"/);
    expect(() => ctxA.tools.restrict({ deny: ['report'] })).toThrow(/"report"/);
  });

  it('fails loudly on Code Mode rather than presenting natively', async () => {
    const { root, a, b, ctxA } = await agents();
    root.tools.register(tool('read'));
    ctxA.tools.presentAs('code');
    await expect(root.systemPrompt.assemble({ scope: a })).rejects.toThrow(
      /mode "code" requires a code runtime/,
    );
    expect((await root.systemPrompt.assemble({ scope: b })).tools).toHaveLength(1);
    expect(() => ctxA.tools.presentAs('native')).toThrow(/conflicts with "code"/);
    expect(() => root.tools.presentAs('code')).toThrow(/requires an agent scope/);
    const coded = new Context() as Any;
    await coded.plugin(SystemPrompt, {});
    await coded.plugin(ToolRegistry, { mode: 'code' });
    await expect(coded.systemPrompt.assemble({})).rejects.toThrow(/requires a code runtime/);
  });
});
