import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context, Service } from '@deepseek-ai/cordis';
import type { HookRunRecord } from '@dsh-tools/interceptors-hooks';
import { exampleExecution } from '@dsh-tools/interceptors-permission';
import { type ApprovalRequest, type ToolExecutionResult, textContent } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Hooks, INTERCEPTOR_PRIORITY, Permission, Sandbox, ToolRegistry } from './cordis';

const dirs: string[] = [];
/** A real directory of its own, removed after the file's tests. */
const tempDir = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `dsh-tools-${prefix}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const text = (result: ToolExecutionResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('\n');

let serial = 0;
const call = (root: Context, name: string, args: Record<string, unknown>) =>
  root.tools.execute({ callId: `c${++serial}`, name, arguments: args });

/**
 * An app with the tools service and a tool plugin registering, through `ctx.tools.register`:
 * `Bash` (a shell that runs its command through the sandbox's runner when there is one, and records
 * what it was asked to run) and `write_file` (writes a real file where its path says).
 */
const boot = async () => {
  const root = new Context();
  await root.plugin(ToolRegistry);
  const ran: string[] = [];
  await root.plugin({
    name: 'shell-tools',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register({
        name: 'Bash',
        description: 'Runs a command.',
        parameters: {
          type: 'object',
          properties: { command: { type: 'string' } },
          required: ['command'],
        },
        hints: { command: 'command' },
        execute: ({ command }) => {
          ran.push(String(command));
          return [textContent(`ran ${String(command)}`)];
        },
      });
      ctx.tools.register({
        name: 'echo_sandboxed',
        description: 'Runs /bin/echo in the sandbox.',
        parameters: { type: 'object', properties: {} },
        execute: async (_args, exec) => {
          if (!exec.sandbox) return [textContent('no sandbox runner')];
          const run = await exec.sandbox.run(['/bin/echo', 'hi'], { signal: exec.signal });
          return [textContent(`${run.stdout}exit ${run.exitCode} sandboxed ${run.sandboxed}`)];
        },
      });
      ctx.tools.register({
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
      });
    },
  });
  return { root, ran };
};

/** A real hook script run by `/bin/sh`, as Claude Code runs hooks. */
const hookScript = (body: string): string => {
  const file = join(tempDir('hook'), 'hook.sh');
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
};

const failure = async (fiber: PromiseLike<unknown>): Promise<Error> => {
  try {
    await fiber;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the plugin loaded');
};

describe('the Permission plugin', () => {
  it('denies a call by a deny rule, is reached through ctx.permission, and goes on dispose', async () => {
    const { root, ran } = await boot();
    const cwd = tempDir('permission');
    const fiber = await root.plugin(Permission, {
      cwd,
      rules: { allow: ['Bash(echo:*)'], deny: ['Bash(rm:*)'] },
    });
    const denied = await call(root, 'Bash', { command: 'rm -rf build' });
    expect(denied.isError).toBe(true);
    expect(denied.error?.code).toBe('DENIED');
    expect(text(denied)).toContain('"Bash(rm:*)"');
    expect(ran).toEqual([]);
    expect((await call(root, 'Bash', { command: 'echo hi' })).isError).toBeFalsy();
    expect(ran).toEqual(['echo hi']);

    // The host's controls: the service forwards to the interceptor the plugin installed.
    expect(root.permission).toBeInstanceOf(Permission);
    expect(root.permission.mode).toBe('default');
    root.permission.setMode('plan');
    expect(root.permission.mode).toBe('plan');
    // Plan mode runs what the shell models prove read-only (echo), not what writes a file.
    const planned = await call(root, 'Bash', { command: 'echo again > planned.txt' });
    expect(planned.error?.code).toBe('DENIED');
    expect(text(planned)).toContain('plan mode');
    const decision = await root.permission.explain(exampleExecution('Bash(rm -rf build)'));
    expect(decision.behavior).toBe('deny');
    expect(decision.decidedBy).toMatchObject({ kind: 'rule', rule: 'Bash(rm:*)' });
    expect(() => root.permission.setMode('nope' as never)).toThrow(/nope/);
    root.permission.setMode('default');
    const grant = await root.permission.addGrant({ rule: 'Bash(ls:*)', uses: 1 });
    expect((await root.permission.listGrants()).map((g) => g.id)).toEqual([grant.id]);
    expect(await root.permission.revokeGrant(grant.id)).toBe(true);

    await fiber.dispose();
    expect(root.get('permission')).toBeUndefined();
    const after = await call(root, 'Bash', { command: 'rm -rf build' });
    expect(after.isError).toBeFalsy();
    expect(ran).toEqual(['echo hi', 'rm -rf build']);
  });

  it('fails on a bad config, naming the plugin and the option, and installs nothing', async () => {
    const { root, ran } = await boot();
    const configs: Array<[unknown, RegExp]> = [
      [null, /config must be the interceptor's options.*got null/],
      [['Bash(rm:*)'], /got an array/],
      [{ rules: { allow: ['Bash(npm:*run)'] } }, /Bash\(npm:\*run\)/],
      [{ mode: 'yolo' }, /mode "yolo"/],
      [{ cwd: 5 }, /option "cwd" must be a string \(got number\)/],
      [{ approve: 'yes' }, /option "approve" must be a function/],
      [{ grants: {} }, /option "grants" must be a GrantStore/],
      [{ approveTimeoutMs: -1 }, /approveTimeoutMs/],
    ];
    for (const [config, pattern] of configs) {
      const error = await failure(root.plugin(Permission, config as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/^dsh-tools Permission plugin: /);
      expect(error.message).toMatch(pattern);
      expect(root.get('permission')).toBeUndefined();
    }
    expect((await call(root, 'Bash', { command: 'rm -rf x' })).isError).toBeFalsy();
    expect(ran).toEqual(['rm -rf x']);
  });

  it('takes no config as the factory’s default policy', async () => {
    const { root, ran } = await boot();
    const fiber = await root.plugin(Permission);
    expect(root.permission.mode).toBe('default');
    // Nothing allows it and nobody is there to ask: denied, saying so.
    const result = await call(root, 'Bash', { command: 'touch x' });
    expect(result.error?.code).toBe('DENIED');
    expect(ran).toEqual([]);
    await fiber.dispose();
  });

  it('fails when the policy does not load (an example decided otherwise), leaving nothing', async () => {
    const { root, ran } = await boot();
    const error = await failure(
      root.plugin(Permission, {
        cwd: tempDir('permission'),
        rules: { allow: ['Bash(rm:*)'] },
        examples: { deny: ['Bash(rm -rf /)'] },
      }),
    );
    expect(error.message).toMatch(/^dsh-tools Permission plugin: the policy did not load: /);
    expect(error.message).toContain('rm -rf /');
    expect(root.get('permission')).toBeUndefined();
    expect((await call(root, 'Bash', { command: 'rm -rf x' })).isError).toBeFalsy();
    expect(ran).toEqual(['rm -rf x']);
  });
});

describe('the Sandbox plugin', () => {
  it('refuses a write outside its root, lets one inside run, and goes on dispose', async () => {
    const { root } = await boot();
    const workspace = tempDir('workspace');
    const outside = join(tempDir('outside'), 'escaped.txt');
    const fiber = await root.plugin(Sandbox, { mode: 'workspace-write', cwd: workspace });

    const refused = await call(root, 'write_file', { path: outside, content: 'x' });
    expect(refused.error?.code).toBe('SANDBOX_VIOLATION');
    expect(text(refused)).toContain(outside);
    expect(text(refused)).toContain('"path"');
    expect(existsSync(outside)).toBe(false);
    const traversal = await call(root, 'write_file', { path: '../escaped.txt', content: 'x' });
    expect(traversal.error?.code).toBe('SANDBOX_VIOLATION');

    const inside = join(workspace, 'ok.txt');
    expect((await call(root, 'write_file', { path: inside, content: 'fine' })).isError).toBeFalsy();
    expect(readFileSync(inside, 'utf8')).toBe('fine');

    await fiber.dispose();
    expect((await call(root, 'write_file', { path: outside, content: 'x' })).isError).toBeFalsy();
    expect(readFileSync(outside, 'utf8')).toBe('x');
  });

  it('waits for the tools service, and follows it when it is replaced', async () => {
    const root = new Context();
    const workspace = tempDir('workspace');
    const outside = join(tempDir('outside'), 'x.txt');
    // Loaded before any tools service: it applies once one is there.
    const sandbox = root.plugin(Sandbox, { mode: 'workspace-write', cwd: workspace });
    const registerWriter = {
      name: 'writer',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register({
          name: 'write_file',
          description: 'Writes a file.',
          parameters: { type: 'object', properties: { path: { type: 'string' } } },
          hints: { paths: [{ arg: 'path', access: 'write' }] },
          execute: ({ path }) => {
            writeFileSync(String(path), 'x');
            return [textContent('written')];
          },
        });
      },
    };
    await root.plugin(registerWriter);
    const first = await root.plugin(ToolRegistry);
    await sandbox;
    expect((await call(root, 'write_file', { path: outside })).error?.code).toBe(
      'SANDBOX_VIOLATION',
    );
    // A new tools service: the plugin installs its interceptor in it again.
    await first.dispose();
    await root.plugin(ToolRegistry);
    expect((await call(root, 'write_file', { path: outside })).error?.code).toBe(
      'SANDBOX_VIOLATION',
    );
    expect(existsSync(outside)).toBe(false);
  });

  it('hands tool bodies registered with ctx.tools.register the bubblewrap runner', async () => {
    const { root } = await boot();
    const fiber = await root.plugin(Sandbox, {
      mode: 'workspace-write',
      cwd: tempDir('workspace'),
      bwrapPath: '/usr/bin/bwrap',
    });
    const result = await call(root, 'echo_sandboxed', {});
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('hi\nexit 0 sandboxed true');
    await fiber.dispose();
    expect(text(await call(root, 'echo_sandboxed', {}))).toBe('no sandbox runner');
  });

  it('fails on a bad config, naming the plugin and the option, and installs nothing', async () => {
    const { root } = await boot();
    const outside = join(tempDir('outside'), 'f.txt');
    const configs: Array<[unknown, RegExp]> = [
      [undefined, /got undefined/],
      [{ mode: 'everything' }, /mode/],
      [{ mode: 'workspace-write', roots: ['/'] }, /writable root of "\/"/],
      [{ mode: 'read-only', timeoutMs: -5 }, /timeoutMs/],
    ];
    for (const [config, pattern] of configs) {
      const error = await failure(root.plugin(Sandbox, config as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/^dsh-tools Sandbox plugin: /);
      expect(error.message).toMatch(pattern);
    }
    // The whole message, as the README quotes it.
    expect((await failure(root.plugin(Sandbox, { mode: 'all' } as never))).message).toBe(
      'dsh-tools Sandbox plugin: sandboxInterceptor: option "mode" must be one of "read-only", "workspace-write", "full-access" (got "all"). Fix the config passed to ctx.plugin(Sandbox, config).',
    );
    expect((await call(root, 'write_file', { path: outside, content: 'x' })).isError).toBeFalsy();
  });
});

describe('the Hooks plugin', () => {
  it('runs a real sh hook that exits 2, denies with its stderr, and goes on dispose', async () => {
    const { root, ran } = await boot();
    const script = hookScript('cat > /dev/null\necho "no shell commands today" >&2\nexit 2');
    const runs: HookRunRecord[] = [];
    const fiber = await root.plugin(Hooks, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: script }] }] },
      cwd: tempDir('hooks-cwd'),
      onHookRun: (run) => runs.push(run),
    });
    const denied = await call(root, 'Bash', { command: 'ls' });
    expect(denied.error?.code).toBe('DENIED');
    expect(text(denied)).toContain('no shell commands today');
    expect(ran).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.exitCode).toBe(2);
    // The matcher selects Bash only.
    expect((await call(root, 'echo_sandboxed', {})).isError).toBeFalsy();

    await fiber.dispose();
    expect((await call(root, 'Bash', { command: 'ls' })).isError).toBeFalsy();
    expect(ran).toEqual(['ls']);
    expect(runs).toHaveLength(1);
  });

  it('fails on a bad config, naming the plugin and the entry, and installs nothing', async () => {
    const { root, ran } = await boot();
    const configs: Array<[unknown, RegExp]> = [
      [0, /got number/],
      [{ hooks: 5 }, /hooks/],
      [{ hooks: { PreToolUse: [{ matcher: '(', hooks: [] }] } }, /\(/],
      [
        { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: '5' }] }] } },
        /timeout/,
      ],
    ];
    for (const [config, pattern] of configs) {
      const error = await failure(root.plugin(Hooks, config as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(/^dsh-tools Hooks plugin: /);
      expect(error.message).toMatch(pattern);
    }
    expect((await call(root, 'Bash', { command: 'ls' })).isError).toBeFalsy();
    expect(ran).toEqual(['ls']);
  });
});

describe('the three plugins together', () => {
  it('document an order of hooks outermost, then sandbox, then permission', () => {
    expect(INTERCEPTOR_PRIORITY.hooks).toBeGreaterThan(INTERCEPTOR_PRIORITY.sandbox);
    expect(INTERCEPTOR_PRIORITY.sandbox).toBeGreaterThan(INTERCEPTOR_PRIORITY.permission);
    expect(INTERCEPTOR_PRIORITY.hooks).toBeLessThan(0);
  });

  it('run in that order whatever order they were loaded in', async () => {
    const { root, ran } = await boot();
    const workspace = tempDir('workspace');
    const questions: ApprovalRequest[] = [];
    // Loaded innermost first, so that only the priorities can give the order.
    await root.plugin(Permission, {
      cwd: workspace,
      rules: { allow: ['Bash(echo:*)', 'write_file'], deny: ['Bash(rm:*)'] },
      approve: async (request) => {
        questions.push(request);
        return { kind: 'deny', reason: 'test' };
      },
    });
    await root.plugin(Sandbox, { mode: 'workspace-write', cwd: workspace });
    // The hook rewrites `echo safe` into `rm -rf /`: permission, inside it, judges the rewrite.
    const rewrite = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { command: 'rm -rf /' },
      },
    });
    await root.plugin(Hooks, {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: hookScript(`cat > /dev/null\necho '${rewrite}'`) }],
          },
        ],
      },
      cwd: workspace,
    });
    const rewritten = await call(root, 'Bash', { command: 'echo safe' });
    expect(rewritten.error?.code).toBe('DENIED');
    expect(text(rewritten)).toContain('"Bash(rm:*)"');
    expect(ran).toEqual([]);

    // The sandbox, outside permission, vetoes before permission could ask anyone.
    const outside = join(tempDir('outside'), 'x.txt');
    const vetoed = await call(root, 'write_file', { path: outside, content: 'x' });
    expect(vetoed.error?.code).toBe('SANDBOX_VIOLATION');
    expect(questions).toEqual([]);
    expect(existsSync(outside)).toBe(false);
  });

  it('keep the policies inside tools/execute listeners, which cannot rewrite past them', async () => {
    const { root, ran } = await boot();
    await root.plugin(Permission, {
      cwd: tempDir('permission'),
      rules: { allow: ['Bash(echo:*)'], deny: ['Bash(rm:*)'] },
    });
    await root.plugin({
      name: 'rewriter',
      apply(ctx: Context) {
        ctx.on('tools/execute', (exec, next) =>
          next({ ...exec, arguments: { command: 'rm -rf /' } }),
        );
      },
    });
    const result = await call(root, 'Bash', { command: 'echo safe' });
    expect(result.error?.code).toBe('DENIED');
    expect(ran).toEqual([]);
  });

  it('either load or fail with their own TypeError on any config, never installing on failure', async () => {
    const { root, ran } = await boot();
    const plugins = [
      ['Permission', Permission],
      ['Sandbox', Sandbox],
      ['Hooks', Hooks],
    ] as const;
    // Hostile shapes: anything, and option objects with wrong-typed or huge fields.
    const config = fc.oneof(
      fc.anything(),
      fc.record(
        {
          mode: fc.oneof(fc.string(), fc.constantFrom('plan', 'read-only', 'dontAsk')),
          cwd: fc.oneof(fc.string({ maxLength: 5000 }), fc.integer(), fc.constant(null)),
          hooks: fc.anything(),
          rules: fc.anything(),
          roots: fc.array(fc.string()),
          approve: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...plugins), config, async ([label, plugin], value) => {
        let fiber: Awaited<ReturnType<typeof root.plugin>> | undefined;
        try {
          fiber = await root.plugin(plugin as never, value as never);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect((error as Error).message).toMatch(new RegExp(`^dsh-tools ${label} plugin: `));
          return;
        } finally {
          await fiber?.dispose();
        }
      }),
      { numRuns: 150 },
    );
    // Every plugin that loaded was disposed, every one that failed installed nothing.
    expect(root.get('permission')).toBeUndefined();
    expect((await call(root, 'Bash', { command: 'rm -rf x' })).isError).toBeFalsy();
    expect(ran).toEqual(['rm -rf x']);
  });

  it('are cordis plugins that need the tools service', () => {
    expect(Permission.inject).toEqual(['tools']);
    expect(Sandbox.inject).toEqual(['tools']);
    expect(Hooks.inject).toEqual(['tools']);
    expect(Permission.prototype).toBeInstanceOf(Service);
  });
});
