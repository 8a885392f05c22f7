/**
 * Code Mode on the `tools` service, with an in-process code runtime (the real worker-thread one
 * runs in examples/upstream-compat): how a program's calls are scheduled, who sees them, what each
 * agent is shown, and the misuse that must fail loudly.
 */

import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context, Service } from '@deepseek-ai/cordis';
import { createScope } from '@deepseek-ai/dsh-scope';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import { type ToolDefinition, textContent } from '@dsh-tools/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Hooks, Sandbox, ToolRegistry } from './cordis';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `dsh-code-${name}-`));
  dirs.push(dir);
  return dir;
};

// biome-ignore lint/suspicious/noExplicitAny: cordis contexts and results, typed loosely here
type Any = any;

class ToolCallError extends Error {
  toolName = '';
}

/**
 * A code runtime that runs the program in this process (no isolation: tests only), with the
 * seam's contract: bindings as a global object, rejections as `ToolCallError`, errors as fields.
 */
class InProcessRuntime extends Service {
  language: string;
  constructor(ctx: Context, config: { language?: string } = {}) {
    super(ctx, 'codeRuntime');
    this.language = config.language ?? 'typescript';
  }
  async run(request: Any) {
    const logs: string[] = [];
    const [namespace] = request.bindings;
    const tools: Record<string, (args: unknown) => Promise<unknown>> = {};
    for (const [name, fn] of Object.entries(namespace.functions)) {
      tools[name] = (args) =>
        (fn as (a: unknown) => Promise<unknown>)(args).catch((error: Error) => {
          const rejection = new ToolCallError(error.message);
          rejection.name = 'ToolCallError';
          rejection.toolName = name;
          throw rejection;
        });
    }
    const console = { log: (...parts: unknown[]) => logs.push(parts.join(' ')) };
    const AsyncFunction = (async () => undefined).constructor as new (
      ...args: string[]
    ) => (...args: unknown[]) => Promise<unknown>;
    try {
      const program = new AsyncFunction('tools', 'ToolCallError', 'console', request.program);
      const value = await program(tools, ToolCallError, console);
      return { logs, ...(value !== undefined && { value }) };
    } catch (error) {
      return { logs, error: { kind: 'exception', message: String(error) } };
    }
  }
}

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

/** A read tool that may overlap and records how many run at once; a write that may not. */
const tools = (trace: string[], state = { now: 0, max: 0 }) => {
  const read: ToolDefinition = {
    name: 'read',
    description: 'Reads one item.',
    parameters: { type: 'object', properties: { i: { type: 'number' } }, required: ['i'] },
    hints: { concurrencySafe: true },
    execute: async ({ i }) => {
      trace.push(`read ${i} start`);
      state.now++;
      state.max = Math.max(state.max, state.now);
      await new Promise((resolve) => setTimeout(resolve, 20));
      state.now--;
      trace.push(`read ${i} end`);
      return [textContent(`item ${i}`)];
    },
  };
  const write: ToolDefinition = {
    name: 'write',
    description: 'Writes one item.',
    parameters: { type: 'object', properties: { i: { type: 'number' } }, required: ['i'] },
    execute: async ({ i }) => {
      trace.push(`write ${i} start`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      trace.push(`write ${i} end`);
      return [textContent(`wrote ${i}`)];
    },
  };
  return { read, write, state };
};

async function app(config: Record<string, unknown> = { mode: 'code' }, runtime = true) {
  const root = new Context() as Any;
  await root.plugin(SystemPrompt, {});
  if (runtime) await root.plugin(InProcessRuntime, {});
  await root.plugin(ToolRegistry, config);
  const trace: string[] = [];
  const made = tools(trace);
  root.tools.register(made.read);
  root.tools.register(made.write);
  let n = 0;
  const run = (code: string, agent?: object) =>
    root.tools.execute({
      callId: `rc${++n}`,
      name: 'run_code',
      arguments: { code, description: 'a test program' },
      ...(agent && { agent }),
    });
  return { root, trace, state: made.state, run };
}

const text = (result: Any): string => result.content.map((b: Any) => b.text).join('\n');

describe('Code Mode', () => {
  it('overlaps a program’s safe calls up to maxParallelSubCalls and runs any other alone', async () => {
    const { run, trace, state } = await app({ mode: 'code', maxParallelSubCalls: 2 });
    const result = await run(`
      const items = await Promise.all([1, 2, 3, 4].map((i) => tools.read({ i })));
      return items;`);
    expect(text(result)).toBe('[\n  "item 1",\n  "item 2",\n  "item 3",\n  "item 4"\n]');
    expect(state.max).toBe(2);
    trace.length = 0;
    await run(
      `await Promise.all([tools.read({ i: 1 }), tools.write({ i: 2 }), tools.read({ i: 3 })]);`,
    );
    // The write waits for the read before it, and the read after it waits for the write.
    expect(trace).toEqual([
      'read 1 start',
      'read 1 end',
      'write 2 start',
      'write 2 end',
      'read 3 start',
      'read 3 end',
    ]);
  });

  it('runs the policy of a program’s calls in the order the program made them', async () => {
    const { root, run } = await app({ mode: 'code' });
    const asked: string[] = [];
    const first = gate();
    root.on('tools/pre-execute', async (exec: Any, next: () => unknown) => {
      asked.push(`${exec.name} ${exec.arguments.i ?? ''}`.trim());
      // The first call's gate holds; the second must not be asked before it answers.
      if (exec.arguments.i === 1) await first.opened;
      return next();
    });
    const pending = run(`await Promise.all([tools.read({ i: 1 }), tools.read({ i: 2 })]);`);
    // Once the first call is being asked about, the second waits for its answer.
    await vi.waitFor(() => expect(asked).toContain('read 1'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual(['run_code', 'read 1']);
    first.open();
    expect((await pending).isError).toBe(false);
    expect(asked).toEqual(['run_code', 'read 1', 'read 2']);
  });

  it('finishes every call a program started before run_code returns, and refuses later ones', async () => {
    const { root, run, trace } = await app({ mode: 'code', maxParallelSubCalls: 1 });
    const results: string[] = [];
    root.on('tools/result', (exec: Any, result: Any) =>
      results.push(`${exec.name} ${result.isError}`),
    );
    // Two calls left running when the program returns: the first was started, the second queued.
    const result = await run(
      `tools.read({ i: 1 }).catch(() => {}); tools.read({ i: 2 }).catch(() => {}); return 'done';`,
    );
    expect(text(result)).toBe('done');
    expect(results.at(-1)).toBe('run_code false');
    // The started call settled (aborted or done) before run_code's own result; the queued one never ran.
    expect(trace.filter((t) => t.startsWith('read 2'))).toEqual([]);
    expect(results.filter((r) => r.startsWith('read'))).toHaveLength(1);
  });

  it('shapes the logged content with tools/code-dispatch-log, and keeps it when a listener throws', async () => {
    const { root, run } = await app({ mode: 'code' });
    const events: Any[] = [];
    const agent = {
      session: { append: (type: string, data: unknown) => events.push({ type, data }) },
    };
    root.on('tools/code-dispatch-log', async (dispatch: Any, next: () => Promise<unknown>) =>
      dispatch.name === 'read' ? [textContent('(shortened)')] : next(),
    );
    root.on('tools/code-dispatch-log', () => {
      throw new Error('a broken log listener');
    });
    await run(`await tools.read({ i: 1 }); await tools.write({ i: 2 });`, agent);
    expect(events.map((e) => [e.type, e.data.subCallId, e.data.content?.[0]?.text])).toEqual([
      ['tool/code-dispatch-start', 'rc1:code:1', undefined],
      ['tool/code-dispatch', 'rc1:code:1', '(shortened)'],
      ['tool/code-dispatch-start', 'rc1:code:2', undefined],
      ['tool/code-dispatch', 'rc1:code:2', 'wrote 2'],
    ]);
  });

  it('presents per agent: code for one, native for another, and both', async () => {
    const { root, run } = await app({});
    let host!: Any;
    await root.plugin({
      name: 'agents',
      inject: ['tools'],
      apply: (ctx: Any) => {
        host = ctx;
      },
    });
    const a = { id: 'a' };
    const b = { id: 'b' };
    const ctxA = createScope(host, a).ctx as Any;
    createScope(host, b);
    ctxA.tools.presentAs('code');
    const names = async (scope: object) =>
      (await root.systemPrompt.assemble({ scope })).tools.map((t: Any) => t.name);
    expect(await names(a)).toEqual(['run_code']);
    expect(await names(b)).toEqual(['read', 'write']);
    const sections = (await root.systemPrompt.assemble({ scope: a })).sections.map(
      (s: Any) => s.name,
    );
    expect(sections).toEqual(expect.arrayContaining(['tools:code-only', 'tools:sdk']));
    const direct = (agent: object) =>
      root.tools.execute({ callId: 'd', name: 'read', arguments: { i: 1 }, agent });
    expect((await direct(a)).error?.message).toMatch(/only `run_code` is callable directly/);
    expect((await direct(b)).isError).toBe(false);
    expect((await run('return 1', b)).error?.code).toBe('UNKNOWN_TOOL');
    expect(text(await run('return await tools.read({ i: 7 })', a))).toBe('item 7');
    // A restriction hides tools from the program too, never run_code itself.
    expect(() => ctxA.tools.restrict({ deny: ['run_code'] })).toThrow(/cannot name "run_code"/);
    ctxA.tools.restrict({ deny: ['write'] });
    const hidden = await run(
      `try { await tools.write({ i: 1 }) } catch (e) { return e.message }`,
      a,
    );
    expect(text(hidden)).toMatch(/tools\.write is not a function/);
    expect(text(await run('return await tools.read({ i: 8 })', a))).toBe('item 8');

    const both = await app({ mode: 'both' });
    const assembled = await both.root.systemPrompt.assemble({});
    expect(assembled.tools.map((t: Any) => t.name)).toEqual(['read', 'run_code', 'write']);
    // The code-only rule is empty (dropped from the prompt): direct calls do run under `both`.
    const rule = assembled.sections.find((s: Any) => s.name === 'tools:code-only');
    expect(rule.text).toBe('');
    const plain = await both.root.tools.execute({ callId: 'p', name: 'read', arguments: { i: 2 } });
    expect(text(plain)).toBe('item 2');
    // A turn of direct calls still overlaps its safe ones under `both`.
    const turn = await both.root.tools.executeAll([
      { callId: 't1', name: 'read', arguments: { i: 3 } },
      { callId: 't2', name: 'read', arguments: { i: 4 } },
    ]);
    expect(turn.map(text)).toEqual(['item 3', 'item 4']);
    expect(both.state.max).toBe(2);
  });

  it('declares what a call resolves to, and the tools of the assembling agent only', async () => {
    const { root } = await app({ mode: 'code' });
    const sdk = (await root.systemPrompt.assemble({})).sections.find(
      (s: Any) => s.name === 'tools:sdk',
    ).text;
    expect(sdk).toContain(
      'interface ToolArgsMap {\n  /** Reads one item. */\n  read: {\n    i: number;\n  } & Record<string, JsonValue>;',
    );
    // Our content tools resolve to their text.
    expect(sdk).toContain('interface ToolOutputMap {\n  read: string;\n  write: string;\n}');
    expect(sdk).not.toMatch(/run_code:/);
  });

  it('presents a Python runtime in Python: the SDK and run_code’s own wording', async () => {
    const root = new Context() as Any;
    await root.plugin(SystemPrompt, {});
    await root.plugin(InProcessRuntime, { language: 'python' });
    await root.plugin(ToolRegistry, { mode: 'code' });
    root.tools.register(tools([]).read);
    const assembled = await root.systemPrompt.assemble({});
    const sdk = assembled.sections.find((s: Any) => s.name === 'tools:sdk').text;
    expect(sdk).toContain(
      'class ReadArgs(TypedDict):\n    i: float\n    # Additional keys beyond those declared are allowed.',
    );
    expect(sdk).toContain(
      'class Tools(Protocol):\n    async def read(self, args: ReadArgs) -> str:\n        """Reads one item."""',
    );
    const [runCode] = assembled.tools;
    expect(runCode.description).toMatch(/^Run a Python program/);
    expect(runCode.parameters.properties.code.description).toMatch(/async Python function/);
    // The registered schema keeps the TypeScript wording: only the presentation is reworded.
    expect(root.tools.get('run_code').description).toMatch(/^Run a TypeScript program/);
  });

  it('attaches an image a program’s call returned to the run_code result, as the harness does', async () => {
    const { root, run } = await app({ mode: 'code' });
    const pixel = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' } as const;
    root.tools.register({
      name: 'screenshot',
      description: 'Takes a screenshot.',
      parameters: { type: 'object', properties: { fail: { type: 'boolean' } } },
      execute: ({ fail }: Any) => {
        if (fail) throw new Error('no screen');
        return [textContent('the screen'), pixel];
      },
    });
    const result = await run(`
      await tools.read({ i: 1 });
      const shot = await tools.screenshot({});
      try { await tools.screenshot({ fail: true }); } catch {}
      return shot;`);
    expect(text(result)).toBe('the screen');
    // One context: the successful screenshot's whole content, none for the text-only read or
    // the failed call; as a frozen user message from the harness's code-mode plugin.
    expect(result.additionalContexts).toEqual([
      {
        content: [textContent('the screen'), pixel],
        source: { kind: 'plugin', plugin: 'tools-code-mode' },
        role: 'user',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ]);
    expect(Object.isFrozen(result.additionalContexts[0].content[1])).toBe(true);
  });

  it('reserves run_code and fails loudly on misuse', async () => {
    const { root } = await app({ mode: 'code' });
    const fake: ToolDefinition = { ...tools([]).read, name: 'run_code' };
    expect(() => root.tools.register(fake)).toThrow(/"run_code" is reserved/);
    await expect((new Context() as Any).plugin(ToolRegistry, { mode: 'all' })).rejects.toThrow(
      /option "mode"/,
    );
    const invalid = new Context() as Any;
    await expect(invalid.plugin(ToolRegistry, { maxParallelSubCalls: 0 })).rejects.toThrow(
      /maxParallelSubCalls/,
    );
    // A runtime of a language this package renders no SDK for.
    const ruby = new Context() as Any;
    await ruby.plugin(SystemPrompt, {});
    await ruby.plugin(InProcessRuntime, { language: 'ruby' });
    await ruby.plugin(ToolRegistry, { mode: 'code' });
    await expect(ruby.systemPrompt.assemble({})).rejects.toThrow(
      /no Code Mode SDK for runtime language "ruby" \(this package renders "typescript", "python"\)/,
    );
    // No runtime: the prompt and run_code both say so.
    const none = await app({ mode: 'code' }, false);
    await expect(none.root.systemPrompt.assemble({})).rejects.toThrow(/requires a code runtime/);
    expect(text(await none.run('return 1'))).toMatch(/requires a code runtime/);
  });

  it('applies the Hooks and Sandbox plugins to each call a program makes (attack: unguarded, both write)', async () => {
    const writer: ToolDefinition = {
      name: 'write_file',
      description: 'Writes a file.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
      hints: { paths: [{ arg: 'path', access: 'write' }] },
      execute: ({ path, content }) => {
        writeFileSync(String(path), String(content));
        return [textContent(`wrote ${String(path)}`)];
      },
    };
    const workspace = tempDir('workspace');
    const outside = join(tempDir('outside'), 'escaped.txt');
    const secret = join(workspace, 'secret.txt');
    const program = `
      const out = [];
      for (const path of ${JSON.stringify([outside, secret])}) {
        try { out.push(await tools.write_file({ path, content: 'x' })); }
        catch (e) { out.push(e.toolName + ': ' + e.message); }
      }
      return out;`;
    // Unguarded: the program writes outside the workspace and the file a hook protects.
    const open = await app({ mode: 'code' });
    open.root.tools.register(writer);
    expect(text(await open.run(program))).toContain(`wrote ${outside}`);
    expect(existsSync(outside)).toBe(true);
    expect(readFileSync(secret, 'utf8')).toBe('x');
    rmSync(outside);
    rmSync(secret);
    // Guarded: the sandbox refuses the first write, a PreToolUse hook (exit 2) the second.
    const { root, run } = await app({ mode: 'code' });
    root.tools.register(writer);
    await root.plugin(Sandbox, { mode: 'workspace-write', cwd: workspace });
    const hook = join(tempDir('hook'), 'hook.sh');
    writeFileSync(
      hook,
      '#!/bin/sh\ngrep -q secret && { echo "secret.txt is kept" >&2; exit 2; }\nexit 0\n',
    );
    chmodSync(hook, 0o755);
    await root.plugin(Hooks, {
      hooks: {
        PreToolUse: [{ matcher: 'write_file', hooks: [{ type: 'command', command: hook }] }],
      },
      cwd: workspace,
    });
    const [first, second] = JSON.parse(text(await run(program)));
    expect(first).toMatch(/^write_file: .*may not be written: mode "workspace-write"/);
    expect(second).toMatch(/^write_file: .*denied by PreToolUse hook .*secret\.txt is kept/);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(secret)).toBe(false);
  });
});
