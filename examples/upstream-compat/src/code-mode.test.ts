/**
 * Code Mode with the real code runtime (`@deepseek-ai/dsh-code-runtime-worker-thread`, a fresh
 * worker thread per program): `run_code` programs on our service and on upstream's, side by side.
 * Every tool call a program makes goes through our one pipeline: a `tools/execute` listener sees
 * each, validation refuses bad arguments before any policy, and a denial (a harness gate or our
 * Permission plugin) comes back to the program as a `ToolCallError`.
 */
import * as nodeModule from 'node:module';
import { defineTool } from '@deepseek-ai/dsh-tools';
import { Permission } from 'dsh-tools/cordis';
import { afterEach, describe, expect, it } from 'vitest';
import { boot, HOSTS, type Host, type HostName, liveAgent, outcome } from '../test/hosts';

// The runtime strips types with `node:module`'s `stripTypeScriptTypes` (Node >= 22.13): on older
// Node, these hooks hand that package a `node:module` that has it (amaro, Node's own stripper).
if (!('stripTypeScriptTypes' in nodeModule)) {
  nodeModule.register('../test/strip-types-hooks.mjs', import.meta.url);
}
const { WorkerThreadCodeRuntime } = (await import(
  '@deepseek-ai/dsh-code-runtime-worker-thread'
)) as unknown as { WorkerThreadCodeRuntime: object };

// biome-ignore lint/suspicious/noExplicitAny: both services' contexts, typed loosely here
type Any = any;

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** Three harness-shaped tools (both services take them); `ran` records each body that ran. */
const notes = (ran: string[]) => [
  defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    parameters: {
      a: { type: 'number', required: true, description: 'The first number.' },
      b: { type: 'number', required: true },
    },
    output: { schema: { type: 'number' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
    isConcurrencySafe: () => true,
    execute: async ({ a, b }: { a: number; b: number }) => {
      ran.push('add');
      return a + b;
    },
  }),
  defineTool({
    name: 'read_note',
    description: 'Reads one note.',
    parameters: { title: { type: 'string', required: true } },
    output: {
      schema: {
        type: 'object',
        additionalProperties: false,
        properties: { title: { type: 'string', required: true } },
      },
      render: (_a, v) => [{ type: 'text', text: JSON.stringify(v) }],
    },
    isConcurrencySafe: () => true,
    execute: async ({ title }: { title: string }) => {
      ran.push('read_note');
      return { title: `note ${title}` };
    },
  }),
  defineTool({
    name: 'delete_note',
    description: 'Deletes one note.',
    parameters: { title: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: String(v) }] },
    execute: async ({ title }: { title: string }) => {
      ran.push('delete_note');
      return `deleted ${title}`;
    },
  }),
];

/** A host in `mode`, with the real runtime (unless told not to), the tools and a listener. */
async function scenario(name: HostName, options: { runtime?: boolean; mode?: string } = {}) {
  const host = await boot(name, { mode: options.mode ?? 'code' });
  hosts.push(host);
  const root = host.root as Any;
  if (options.runtime !== false) await root.plugin(WorkerThreadCodeRuntime, {});
  const ran: string[] = [];
  const seen: { name: string; callId: string; nested: boolean }[] = [];
  await root.plugin({
    name: 'notes',
    inject: ['tools'],
    apply: (ctx: Any) => {
      for (const tool of notes(ran)) ctx.tools.register(tool);
    },
  });
  await root.plugin({
    name: 'watch',
    apply: (ctx: Any) => {
      ctx.on('tools/execute', (exec: Any, next: () => unknown) => {
        seen.push({ name: exec.name, callId: exec.callId, nested: exec.parent !== undefined });
        return next();
      });
      ctx.on('tools/pre-execute', (exec: Any, next: () => unknown) =>
        exec.name === 'delete_note' ? { kind: 'deny', reason: 'notes are kept' } : next(),
      );
    },
  });
  const agent = liveAgent(host.root);
  const runCode = async (code: string) =>
    outcome(
      await host.tools.execute({
        callId: 'rc1',
        name: 'run_code',
        arguments: { code, description: 'test program' },
        agent,
        signal: new AbortController().signal,
      }),
    );
  return { host, root, ran, seen, agent, runCode };
}

const TWO_CALLS = `
const sum: number = await tools.add({ a: 1, b: 2 });
const note = await tools.read_note({ title: 'todo' });
console.log('sum', sum);
return { sum, note };`;

describe('Code Mode with the worker-thread code runtime', () => {
  it('runs both calls of a program through the pipeline, as upstream does', async () => {
    const results: Record<string, unknown> = {};
    for (const name of HOSTS) {
      const { runCode, seen, ran, agent } = await scenario(name);
      const result = await runCode(TWO_CALLS);
      expect(result.isError, name).toBe(false);
      expect(result.text, name).toBe(
        'sum 3\n{\n  "sum": 3,\n  "note": {\n    "title": "note todo"\n  }\n}',
      );
      // The listener saw run_code itself and each call the program made, as nested calls.
      expect(seen, name).toEqual([
        { name: 'run_code', callId: 'rc1', nested: false },
        { name: 'add', callId: 'rc1:code:1', nested: true },
        { name: 'read_note', callId: 'rc1:code:2', nested: true },
      ]);
      expect(ran, name).toEqual(['add', 'read_note']);
      results[name] = agent.session.events
        .filter((e: Any) => e.type.startsWith('tool/code-dispatch'))
        .map((e: Any) => ({ type: e.type, data: e.data }));
    }
    // The session logs each sub-call the same way (start, then the settled content).
    expect(results.ours).toEqual(results.upstream);
    expect((results.ours as unknown[]).length).toBe(4);
  });

  it('refuses a denied call to the program, which can catch it; the body never runs', async () => {
    for (const name of HOSTS) {
      const { runCode, ran } = await scenario(name);
      const result = await runCode(`
        try { await tools.delete_note({ title: 'todo' }); return 'deleted'; }
        catch (e) { return [e instanceof ToolCallError, e.toolName, e.message]; }`);
      expect(result.isError, name).toBe(false);
      const [isToolCallError, toolName, message] = JSON.parse(result.text);
      expect([isToolCallError, toolName], name).toEqual([true, 'delete_note']);
      expect(message, name).toMatch(/notes are kept/);
      expect(ran, name).toEqual([]);
    }
  });

  it('applies our Permission plugin to each call inside code (attack: unguarded, the call runs)', async () => {
    // Unguarded: nothing stops the program's call.
    const open = await scenario('ours', { mode: 'code' });
    expect((await open.runCode('return await tools.add({ a: 2, b: 2 });')).text).toBe('4');
    expect(open.ran).toEqual(['add']);
    // Guarded: a deny rule of our Permission plugin refuses that call inside the program (run_code
    // itself needs its own allow rule: a program may do anything its tools can).
    const { root, runCode, ran, seen } = await scenario('ours', { mode: 'code' });
    await root.plugin(Permission, { rules: { allow: ['run_code'], deny: ['add'] } });
    const result = await runCode(`
      try { return await tools.add({ a: 2, b: 2 }); }
      catch (e) { return e.name + ': ' + e.message; }`);
    expect(result.text).toMatch(/^ToolCallError: .*denied/i);
    expect(ran).toEqual([]);
    // The call did reach the pipeline (the listener outside the permission interceptor saw it).
    expect(seen.map((s) => s.name)).toEqual(['run_code', 'add']);
  });

  it('refuses invalid arguments inside code by validation, before any policy sees them', async () => {
    const { runCode, ran, seen } = await scenario('ours');
    const result = await runCode(`
      try { return await tools.add({ a: 'one', b: 2 }); }
      catch (e) { return e.toolName + ': ' + e.message; }`);
    expect(result.text).toMatch(/^add: .*"a"/);
    expect(result.text).toMatch(/number/);
    expect(ran).toEqual([]);
    expect(seen.map((s) => s.name)).toEqual(['run_code']);
  });

  it('offers only run_code and the SDK under code; a direct call of another tool is refused', async () => {
    const offered: Record<string, Any> = {};
    for (const name of HOSTS) {
      const { root, host, ran } = await scenario(name);
      const assembled = await root.systemPrompt.assemble({});
      const sdk = assembled.sections.find((s: Any) => s.name === 'tools:sdk')?.text as string;
      offered[name] = {
        tools: assembled.tools.map((t: Any) => t.name),
        sections: assembled.sections
          .map((s: Any) => s.name)
          .filter((n: string) => n.startsWith('tools:')),
        declarations: sdk.slice(sdk.indexOf('```ts')),
      };
      const direct = await host.call('add', { a: 1, b: 1 });
      expect(direct.isError, name).toBe(true);
      expect(direct.text, name).toMatch(/only `run_code` is callable directly/);
      expect(ran, name).toEqual([]);
    }
    expect(offered.ours.tools).toEqual(['run_code']);
    expect(offered.ours.sections).toEqual(offered.upstream.sections);
    // The TypeScript the model programs against is the same, declaration for declaration.
    expect(offered.ours.declarations).toBe(offered.upstream.declarations);
  });

  it('attaches an image a program’s call returned to the run_code result, as upstream does', async () => {
    const contexts: Record<string, unknown> = {};
    const pixel = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
    for (const name of HOSTS) {
      const { root, host, agent } = await scenario(name);
      await root.plugin({
        name: 'camera',
        inject: ['tools'],
        apply: (ctx: Any) =>
          ctx.tools.register(
            defineTool({
              name: 'snap',
              description: 'Takes a picture.',
              parameters: { fail: { type: 'boolean' } },
              output: {
                schema: { type: 'string' },
                render: (_a, v) => [{ type: 'text', text: String(v) }, pixel as never],
              },
              execute: async ({ fail }: { fail?: boolean }) => {
                if (fail) throw new Error('no camera');
                return 'a picture';
              },
            }),
          ),
      });
      const result = (await host.tools.execute({
        callId: 'rc1',
        name: 'run_code',
        arguments: {
          code: `await tools.add({ a: 1, b: 1 }); const v = await tools.snap({});
            try { await tools.snap({ fail: true }); } catch {} return v;`,
          description: 'take a picture',
        },
        agent,
        signal: new AbortController().signal,
      })) as Any;
      expect(outcome(result).text, name).toBe('a picture');
      contexts[name] = (result.additionalContexts ?? []).map(({ id, ...rest }: Any) => ({
        id: typeof id,
        frozen: Object.isFrozen(rest.content),
        ...rest,
      }));
    }
    // One context, for the successful picture only: the call's whole content as a user message.
    expect(contexts.upstream).toEqual([
      {
        id: 'string',
        frozen: true,
        content: [{ type: 'text', text: 'a picture' }, pixel],
        source: { kind: 'plugin', plugin: 'tools-code-mode' },
        role: 'user',
      },
    ]);
    expect(contexts.ours).toEqual(contexts.upstream);
  });

  it('fails loudly without a code runtime, as upstream does', async () => {
    for (const name of HOSTS) {
      const { root, runCode, ran } = await scenario(name, { runtime: false });
      await expect(root.systemPrompt.assemble({}), name).rejects.toThrow(
        /mode "code" requires a code runtime/,
      );
      const result = await runCode(TWO_CALLS);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toMatch(/requires a code runtime/);
      expect(ran, name).toEqual([]);
    }
  });

  it('reports a failed program with its kind and captured output', async () => {
    const texts: string[] = [];
    for (const name of HOSTS) {
      const { runCode } = await scenario(name);
      const result = await runCode(`console.log('before'); throw new Error('boom');`);
      expect(result.isError, name).toBe(true);
      expect(result.code, name).toBe(name === 'ours' ? 'TOOL_ERROR' : 'CODE_RUN_FAILED');
      texts.push(result.text);
    }
    expect(texts[0]).toMatch(
      /^Error: code run failed \(exception\): .*boom.*\nCaptured output:\nbefore$/s,
    );
    expect(texts[1]).toBe(texts[0]);
  });
});
