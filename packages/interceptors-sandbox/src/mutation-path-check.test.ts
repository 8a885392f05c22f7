/**
 * The interceptor's path check in the corners a mutation run of sandbox-interceptor.ts found no
 * test for: the command argument it vets, its own paths that stop resolving, a failure inside it,
 * the details and messages of a veto, a leading `~`, a file with one name, and the runner it hands
 * on. No bubblewrap needed: nothing here runs a command.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import type {
  InterceptedExecution,
  ToolExecutionResult,
  ToolPathHint,
  ToolView,
} from '@dsh-tools/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUpAfterTests,
  makeTree,
  outcome,
  sandboxedRegistry,
  type Tree,
} from '../test/fixtures';
import {
  type SandboxOptions,
  type SandboxRunner,
  type SandboxViolationDetails,
  sandboxInterceptor,
} from './index';

cleanUpAfterTests();

let t: Tree;
beforeAll(async () => {
  t = await makeTree();
  await mkdir(`${t.outside}/dir`, { recursive: true });
  await symlink(`${t.outside}/dir`, `${t.ws}/away`);
});
afterAll(() => t.cleanup());

interface Call {
  readonly args: unknown;
  readonly hints?: Record<string, unknown>;
  readonly signal?: AbortSignal;
}

/**
 * Calls the interceptor directly (arguments the registry would never let through reach it this
 * way) and records whether the body ran and what it was handed.
 */
async function intercept(options: SandboxOptions, call: Call) {
  const interceptor = sandboxInterceptor(options);
  const tool = { name: 'tool_x', description: 'd', hints: call.hints ?? {} } as unknown as ToolView;
  let handed: (InterceptedExecution & { sandbox?: SandboxRunner }) | undefined;
  const result = await interceptor(
    {
      callId: 'c1',
      name: 'tool_x',
      arguments: call.args,
      tool,
      ...(call.signal && { signal: call.signal }),
    } as InterceptedExecution,
    async (exec) => {
      handed = exec;
      return { callId: 'c1', content: [], isError: false };
    },
  );
  return { result, handed, details: result.error?.details as SandboxViolationDetails | undefined };
}

const ws = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  mode: 'workspace-write',
  cwd: t.ws,
  ...extra,
});

describe('the command argument (hints.command)', () => {
  const hints = { command: 'command' };

  it.each([
    ['a null byte in it', 'ls\0-la'],
    ['a number', 42],
    ['an object', { toString: () => 'ls' }],
  ])('is refused with %s, naming the tool and the argument', async (_, command) => {
    const { result, handed, details } = await intercept(ws(), { args: { command }, hints });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toBe(
      'Tool "tool_x": argument "command" must be a command line without null bytes.',
    );
    expect(details).toMatchObject({
      interceptor: 'sandbox',
      tool: 'tool_x',
      rule: 'hints.command',
    });
    expect(handed).toBeUndefined();
  });

  it('a plain command line, or none at all, goes on to the tool', async () => {
    for (const args of [{ command: 'ls -la' }, {}, { command: undefined }]) {
      const { result, handed } = await intercept(ws(), { args, hints });
      expect(outcome(result)).toBe('ok');
      expect(handed).toBeDefined();
    }
  });

  it('a command argument the hints do not name is not vetted as one', async () => {
    const { result } = await intercept(ws(), { args: { command: 'a\0b' }, hints: {} });
    expect(outcome(result)).toBe('ok');
  });
});

describe('the sandbox cannot resolve its own paths at the call', () => {
  it('a writable root that became a symlink loop vetoes the call as a configuration problem', async () => {
    const root = `${t.base}/later-loop`;
    await mkdir(root);
    const options = ws({ roots: [t.ws, root] });
    const fine = await intercept(options, { args: {} });
    expect(outcome(fine.result)).toBe('ok');
    await rm(root, { recursive: true });
    await symlink('later-loop', root);
    const { result, details, handed } = await intercept(options, { args: {} });
    expect(outcome(result)).toBe('SANDBOX_VIOLATION');
    expect(result.error?.message).toMatch(
      /^Tool "tool_x": the sandbox cannot resolve its own paths: more than 40 symbolic links \(a loop\?\) at ".*later-loop"\. Fix the sandbox's cwd, roots or deny globs\.$/,
    );
    expect(details?.rule).toBe('configuration');
    expect(handed).toBeUndefined();
    await rm(root);
  });
});

describe('a failure inside the check is a result, never a throw, and never runs the tool', () => {
  /** Arguments whose hinted path throws when read: only a hostile caller builds these. */
  const throwing = (thrown: unknown) => ({
    get path(): string {
      throw thrown;
    },
  });
  const hints = { paths: [{ arg: 'path', access: 'read' }] satisfies ToolPathHint[] };

  it.each([
    ['an Error, by its message', new Error('getter broke'), '(getter broke)'],
    ['a string, as it is', 'plain words', '(plain words)'],
    ['undefined, in words', undefined, '(undefined)'],
  ])('%s', async (_, thrown, shown) => {
    const { result, handed } = await intercept(ws(), { args: throwing(thrown), hints });
    expect(result.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(result.error?.message).toBe(
      `Tool "tool_x": the sandbox interceptor failed ${shown}; the call did not run.`,
    );
    expect(handed).toBeUndefined();
  });
});

describe('what a veto says', () => {
  const loose = (access: 'read' | 'write') => ({ paths: [{ arg: 'path', access }] });

  it.each([
    [42, '<number>'],
    [null, '<null>'],
    [true, '<boolean>'],
  ])(
    'a path that is not a string (%j) is shown as its kind, never converted',
    async (path, shown) => {
      const { details, result } = await intercept(ws(), { args: { path }, hints: loose('read') });
      expect(details?.violation?.path).toBe(shown);
      // Nothing was resolved, so the message claims no resolution.
      expect(result.error?.message).not.toContain('resolves to');
      expect(result.error?.message).toContain(`= "${shown}" may not be read:`);
    },
  );

  it('says "written" for a write and "read" for a read', async () => {
    const write = await intercept(ws(), { args: { path: '.env' }, hints: loose('write') });
    expect(write.result.error?.message).toContain(
      `(resolves to "${t.ws}/.env") may not be written:`,
    );
    const read = await intercept(ws(), { args: { path: '.env' }, hints: loose('read') });
    expect(read.result.error?.message).toContain(`(resolves to "${t.ws}/.env") may not be read:`);
  });

  it('a path with two readings that land apart names both', async () => {
    // away -> outside/dir: the kernel takes "away/.." to outside, the text to the workspace.
    const { details } = await intercept(ws(), {
      args: { path: 'away/../new.txt' },
      hints: loose('write'),
    });
    expect(details?.violation?.resolved).toBe(`${t.outside}/new.txt" or "${t.ws}/new.txt`);
  });

  it('a tool refused by the mode and malformed hints name their rule', async () => {
    const mode = await intercept({ mode: 'read-only', cwd: t.ws }, { args: {}, hints: {} });
    expect(mode.details?.rule).toBe('mode "read-only" permits only tools with hints.readOnly');
    const hints = await intercept(ws(), { args: { path: 'x' }, hints: { paths: [{ arg: 1 }] } });
    expect(hints.details?.rule).toBe('hints.paths');
  });
});

describe('a leading ~ is also read as the home directory', () => {
  // The kernel does not expand "~", a tool might: in workspace-write both readings must be inside,
  // and the home (this process's, outside the scratch tree) is not.
  it.each(['~', '~/new.txt'])(
    'writing "%s" is refused: the home is outside the roots',
    async (p) => {
      const { result, details } = await intercept(ws(), {
        args: { path: p },
        hints: { paths: [{ arg: 'path', access: 'write' }] },
      });
      expect(outcome(result)).toBe('SANDBOX_VIOLATION');
      expect(details?.violation?.rule).toMatch(
        /^mode "workspace-write" permits writes only inside/,
      );
    },
  );

  it.each(['./~', '~x', 'a/~'])('control: "%s" is a plain name in the workspace', async (p) => {
    const { result } = await intercept(ws(), {
      args: { path: p },
      hints: { paths: [{ arg: 'path', access: 'write' }] },
    });
    expect(outcome(result)).toBe('ok');
  });
});

describe('hard links', () => {
  it('an existing file with one name is written (only a second name refuses it)', async () => {
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: t.ws });
    await writeFile(`${t.ws}/one-name.txt`, 'before\n');
    const result: ToolExecutionResult = await call('write_file', {
      path: 'one-name.txt',
      content: 'after\n',
    });
    expect(outcome(result)).toBe('ok');
  });
});

describe('the runner it hands on belongs to the call', () => {
  // Unconfined and already aborted: the runner answers without starting anything.
  const unconfined = () => ws({ allowUnsandboxed: true, bwrapPath: '/nonexistent/bwrap' });

  it("names the tool in the runner's errors", async () => {
    const { handed } = await intercept(unconfined(), { args: {} });
    await expect(handed!.sandbox!.run([])).rejects.toThrow(/^Tool "tool_x": /);
  });

  it("follows the call's signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const { handed } = await intercept(unconfined(), { args: {}, signal: controller.signal });
    const run = await handed!.sandbox!.run(['true']);
    expect(run).toMatchObject({ aborted: true, exitCode: null });
  });
});
