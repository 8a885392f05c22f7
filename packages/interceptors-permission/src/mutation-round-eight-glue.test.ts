/**
 * The interceptor's glue (interceptor.ts): how a decision is applied around `next()`, what a
 * failure denies, and how a shared grant store's answers are read. Each case fails under a change
 * the eighth mutation round (`pnpm mutate:permission`) found surviving in that file.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ApprovalDecision,
  InterceptedExecution,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { bash, makeProject } from '../test/helpers';
import {
  analyzeShellCommand,
  createMemorySharedGrantStore,
  createPermissionGrant,
  exampleExecution,
  loadClaudeSettings,
  type PermissionInterceptor,
  type PermissionOptions,
  PermissionRuleError,
  permissionInterceptor,
  type SharedGrantStore,
} from './index';

const { root, home } = makeProject();

const policyWith = (options: PermissionOptions = {}) =>
  permissionInterceptor({ cwd: root, home, ...options });

/** Runs `exec` through `policy` with a body that records whether it ran. */
async function run(policy: PermissionInterceptor, exec: InterceptedExecution) {
  const next = vi.fn(
    async (e?: InterceptedExecution): Promise<ToolExecutionResult> => ({
      callId: (e ?? exec).callId,
      content: [],
      isError: false,
    }),
  );
  const result = await policy(exec, next);
  return { result, ran: next.mock.calls.length > 0 };
}

const allowOnce = (): ApprovalDecision => ({ kind: 'allow' });

describe('failures deny, and say why', () => {
  it('a policy whose examples fail denies every call, naming the failed example', async () => {
    // Without the error's text in the message (`message` returning nothing), the denial says
    // "(undefined)" and the host cannot tell which example or rule to fix.
    const policy = policyWith({
      rules: { allow: ['Bash(echo:*)'] },
      examples: { deny: ['Bash(echo hi)'] },
    });
    await expect(policy.ready).rejects.toThrow('should be deny but is allow');
    const { result, ran } = await run(policy, bash('echo hi'));
    expect(ran).toBe(false);
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('the permission policy failed to load');
    expect(result.error?.message).toContain('should be deny but is allow');
  });

  it('a call whose check throws is denied, failing closed, with the cause', async () => {
    // Without the catch around the decision, the interceptor rejects instead of denying, and
    // a host that treats a rejected interceptor as "no opinion" runs the call.
    const policy = policyWith({ rules: { allow: ['Bash(echo:*)'] } });
    await policy.ready;
    const exec = {
      ...bash('echo hi'),
      get arguments(): Record<string, unknown> {
        throw new Error('arguments unreadable');
      },
    } as InterceptedExecution;
    const { result, ran } = await run(policy, exec);
    expect(ran).toBe(false);
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('the permission check failed (arguments unreadable)');
    expect(result.error?.message).toContain('fail closed');
  });
});

describe('an ask that ends without an allow never runs the call', () => {
  it('a call aborted before it is asked returns ABORTED and does not run', async () => {
    // Without the aborted branch, an aborted ask falls through to next(): the call runs
    // although nobody allowed it (the real registry checks the signal again, a bare host may not).
    const approve = vi.fn(allowOnce);
    const policy = policyWith({ approve });
    await policy.ready;
    const controller = new AbortController();
    controller.abort();
    const { result, ran } = await run(policy, { ...bash('echo hi'), signal: controller.signal });
    expect(ran).toBe(false);
    expect(approve).not.toHaveBeenCalled();
    expect(result.error?.code).toBe('ABORTED');
    expect(result.error?.message).toBe('Tool "Bash" was aborted while waiting for approval.');
  });

  it('an allow without a grant runs the call once and reports no error', async () => {
    // Without the check for a grant, an allow-once answer is handed on as a grant of nothing,
    // which throws inside keepApprovedGrant and reaches onError as a false alarm.
    const onError = vi.fn();
    const approve = vi.fn(allowOnce);
    const policy = policyWith({ approve, onError });
    await policy.ready;
    const { ran } = await run(policy, bash('echo hi'));
    expect(ran).toBe(true);
    expect(onError).not.toHaveBeenCalled();
    expect(await policy.listGrants()).toEqual([]);
  });
});

describe('a shared grant store', () => {
  const withGrants = async (...rules: string[]) => {
    const base = createMemorySharedGrantStore();
    for (const rule of rules) await base.add(createPermissionGrant({ rule, by: 'test', uses: 3 }));
    return base;
  };

  it('that cannot spend leaves the call to be asked, not failed', async () => {
    // Without reading `unavailable`, the answer is read as a refusal list it is not: the check
    // throws and the call is denied as a failure, although a person would have allowed it.
    const base = await withGrants('Bash(npm test)');
    const errors: unknown[] = [];
    const store: SharedGrantStore = {
      list: () => base.list(),
      add: (g) => base.add(g),
      spend: async () => {
        throw new Error('connection refused');
      },
      revoke: (id) => base.revoke(id),
    };
    const approve = vi.fn(allowOnce);
    const policy = policyWith({ grants: store, approve, onError: (e) => errors.push(e) });
    await policy.ready;
    const { result, ran } = await run(policy, bash('npm test'));
    expect(result.error).toBeUndefined();
    expect(ran).toBe(true);
    expect(approve).toHaveBeenCalledTimes(1);
    expect(String(errors[0])).toContain('could not spend a use');
  });

  it('that refuses one grant lets another grant that covers the call allow it', async () => {
    // Without keeping the grants that were not refused, one refusal drops them all and the call
    // is asked (here: denied, no approver) although a grant in force covers it.
    const base = await withGrants('Bash(npm test)', 'Bash(npm:*)');
    const refusedOnce: string[] = [];
    const store: SharedGrantStore = {
      list: () => base.list(),
      add: (g) => base.add(g),
      spend: async (ids) => {
        if (refusedOnce.length === 0) {
          refusedOnce.push(...ids);
          return { spent: false, refused: [ids[0] as string] };
        }
        return base.spend(ids);
      },
      revoke: (id) => base.revoke(id),
    };
    const policy = policyWith({ grants: store });
    await policy.ready;
    const { result, ran } = await run(policy, bash('npm test'));
    expect(result.error).toBeUndefined();
    expect(ran).toBe(true);
    expect(refusedOnce).toHaveLength(1);
  });

  it('that cannot be read while loading is asked again later: listGrants works once it answers', async () => {
    // Without `!book.shared`, the first failure of a shared store is kept, and listGrants
    // rejects for ever although the store answers again.
    const base = await withGrants('Bash(npm test)');
    let down = true;
    const store: SharedGrantStore = {
      list: () => (down ? Promise.reject(new Error('timed out')) : base.list()),
      add: (g) => base.add(g),
      spend: (ids) => base.spend(ids),
      revoke: (id) => base.revoke(id),
    };
    const policy = policyWith({ grants: store, onError: () => undefined });
    await policy.ready;
    down = false;
    expect((await policy.listGrants()).map((g) => g.rule)).toEqual(['Bash(npm test)']);
  });
});

/** A home and a project with empty `.claude` folders; `write` puts JSON (or text) in a file. */
const layout = () => {
  const base = mkdtempSync(join(tmpdir(), 'settings-glue-'));
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(project, '.claude'), { recursive: true });
  const write = (file: string, data: unknown) => {
    writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
    return file;
  };
  const load = (extra: Parameters<typeof loadClaudeSettings>[0] = {}) =>
    loadClaudeSettings({ projectDir: project, home, ...extra });
  return {
    base,
    home,
    project,
    shared: join(project, '.claude', 'settings.json'),
    local: join(project, '.claude', 'settings.local.json'),
    write,
    load,
  };
};

/** The error `promise` rejects with (a PermissionRuleError is expected). */
const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PermissionRuleError);
  return (error as Error).message;
};

describe('loadClaudeSettings: which files, and what a block may hold', () => {
  it('reads the project and local settings from the paths given, not the default ones', async () => {
    // Without passing projectSettings and localSettings on, the default files are read and the
    // deny rules of the files the host named are silently missing.
    const l = layout();
    l.write(l.shared, { permissions: { allow: ['Bash(rm:*)'] } });
    l.write(l.local, { permissions: { allow: ['Bash(rm:*)'] } });
    const project = l.write(join(l.base, 'team.json'), { permissions: { deny: ['Bash(rm:*)'] } });
    const local = l.write(join(l.base, 'mine.json'), { permissions: { ask: ['Bash(git:*)'] } });
    const settings = await l.load({ projectSettings: project, localSettings: local });
    expect(settings.files).toEqual([
      { scope: 'user', file: join(l.home, '.claude', 'settings.json'), found: false },
      { scope: 'project', file: project, found: true },
      { scope: 'local', file: local, found: true },
    ]);
    expect(settings.rules.map((r) => [r.file, r.allow, r.ask, r.deny])).toEqual([
      [project, undefined, undefined, ['Bash(rm:*)']],
      [local, undefined, ['Bash(git:*)'], undefined],
    ]);
    // A list the file does not have is left out, not set to undefined.
    expect(Object.keys(settings.rules[1] as object).sort()).toEqual([
      'ask',
      'file',
      'root',
      'settingsDir',
      'source',
    ]);
  });

  it('a file without a permissions block, or with only a mode, adds no rule set and no empty keys', async () => {
    // Without skipping a file that has no block, `{}` fails as "permissions must be an object";
    // without the check for rules, a mode-only file adds an empty rule set; an absent list or
    // mode must not appear as a key set to undefined in what is spread into the options.
    const l = layout();
    l.write(l.shared, { model: 'x' });
    l.write(l.local, { permissions: { defaultMode: 'plan' } });
    expect(await l.load()).toStrictEqual({
      rules: [],
      mode: 'plan',
      additionalDirectories: [],
      files: [
        { scope: 'user', file: join(l.home, '.claude', 'settings.json'), found: false },
        { scope: 'project', file: l.shared, found: true },
        { scope: 'local', file: l.local, found: true },
      ],
    });
    l.write(l.local, { permissions: { deny: ['Read(./.env)'] } });
    const settings = await l.load();
    expect(settings).not.toHaveProperty('mode');
    expect(settings.rules).toHaveLength(1);
    expect(Object.keys(settings.rules[0] as object).sort()).toEqual([
      'deny',
      'file',
      'root',
      'settingsDir',
      'source',
    ]);
  });

  it.each([
    ['null', null],
    ['a string', 'Bash'],
  ])('a permissions block that is %s fails loading, naming the file', async (_, permissions) => {
    // Without the null and non-object checks, null fails with a TypeError that names no file, and
    // a string is read as a block with no rules (the file's intent silently dropped).
    const l = layout();
    l.write(l.shared, { permissions });
    const message = await failure(l.load());
    expect(message).toBe(
      `Claude Code project settings ${l.shared}: "permissions" must be an object.`,
    );
  });

  it('an unknown mode is refused with the modes listed, comma-separated', async () => {
    // Without the separator, the list of modes the message offers runs together.
    const l = layout();
    l.write(l.shared, { permissions: { defaultMode: 'yolo' } });
    expect(await failure(l.load())).toContain('is not one of default, acceptEdits, plan');
  });

  it.each([
    ['an empty path', ['']],
    ['a path and a number', ['notes', 1]],
  ])('additionalDirectories with %s fails loading', async (_, dirs) => {
    // Without refusing "" it becomes the project itself; with `every` for `some`, one bad entry
    // among good ones gets through and fails later without naming the file.
    const l = layout();
    l.write(l.shared, { permissions: { additionalDirectories: dirs } });
    expect(await failure(l.load())).toBe(
      `Claude Code project settings ${l.shared}: "additionalDirectories" must be an array of paths.`,
    );
  });

  it('a directory two files name is listed once', async () => {
    // Without the check, the same directory is added twice.
    const l = layout();
    l.write(l.shared, { permissions: { additionalDirectories: ['../shared'] } });
    l.write(l.local, { permissions: { additionalDirectories: ['../shared', '~/notes'] } });
    expect((await l.load()).additionalDirectories).toEqual([
      join(l.base, 'shared'),
      join(l.home, 'notes'),
    ]);
  });

  it('a settings file that cannot be read, or is not an object, fails loading with its own message', async () => {
    // Without these branches, an unreadable file or a JSON array is reported as something else
    // (or with an empty message), and the host is told the wrong thing to fix.
    const l = layout();
    const plain = l.write(join(l.base, 'plain.txt'), 'x');
    const unreadable = join(plain, 'settings.json');
    expect(await failure(l.load({ localSettings: unreadable }))).toMatch(
      new RegExp(`^Claude Code local settings ${unreadable} cannot be read: ENOTDIR`),
    );
    // Without its own branch, malformed JSON gets the kit's wording, not this package's.
    l.write(l.shared, '{"permissions":');
    expect(await failure(l.load())).toMatch(
      new RegExp(`^Claude Code project settings ${l.shared} is not valid JSON: `),
    );
    l.write(l.shared, '[1]');
    expect(await failure(l.load())).toBe(
      `Claude Code project settings ${l.shared} is not a JSON object.`,
    );
  });
});

describe('examples: the execution an example describes', () => {
  it.each([
    ['mcp__github__create_issue', { kind: 'mcp', server: 'github', tool: 'create_issue' }],
    ['mcp__a__b__c', { kind: 'mcp', server: 'a', tool: 'b__c' }],
    ['xmcp__github__create_issue', { kind: 'local' }],
    ['mcp___x__y', { kind: 'local' }],
    ['Bash', { kind: 'local' }],
  ])('%s comes from the source its name says', (name, source) => {
    // Without the anchored, lazy pattern, a server name swallows "__" or a local tool is taken
    // for an MCP server's, and an example is decided for another tool than the one it names.
    expect(exampleExecution(name).tool.source).toEqual(source);
  });

  it('a name alone is the whole name with no arguments; a tool with an argument fills the hinted one', () => {
    // Without `open < 0`, "WebFetch" loses its last letter (and "(x" at index 0 is read as a name).
    expect(exampleExecution('WebFetch')).toStrictEqual({
      callId: 'policy-example',
      name: 'WebFetch',
      arguments: {},
      tool: {
        name: 'WebFetch',
        description: '',
        parameters: { type: 'object' },
        hints: { readOnly: true, openWorld: true },
        source: { kind: 'local' },
      },
    });
    // Without both checks, a name alone gets a `command` (or "undefined") key set to undefined.
    expect(exampleExecution('Bash').arguments).toStrictEqual({});
    expect(exampleExecution('Read(src/a.ts)')).toMatchObject({
      name: 'Read',
      arguments: { file_path: 'src/a.ts' },
    });
    expect(exampleExecution('Bash()').arguments).toEqual({ command: '' });
    expect(() => exampleExecution('(x)')).toThrow('has no command or path argument');
    // Without `open < 0` before `endsWith(')')`, a name with no "(" but ending in ")" is cut
    // into a name and an argument it does not have.
    expect(exampleExecution('Bash)')).toMatchObject({ name: 'Bash)', arguments: {} });
  });

  it.each([
    ['an unclosed argument', 'Bash(ls', 'opens "(" but does not end with ")"'],
    ['an unclosed argument and no name', '(ls', 'opens "(" but does not end with ")"'],
    ['null', null, 'is neither "Tool(argument)" nor { tool, args }'],
    ['a tool that is not a string', { tool: 1 }, 'is neither "Tool(argument)" nor { tool, args }'],
  ])('a malformed example fails loading, named: %s', async (_, example, text) => {
    // Without these messages the policy fails to load with an empty or wrong reason.
    const policy = policyWith({ examples: { allow: [example as never] } });
    const error = await policy.ready.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect((error as Error).message).toContain(`${JSON.stringify(example)}: `);
    expect((error as Error).message).toContain(text);
  });

  it('every failing example is listed, one a line', async () => {
    // Without the separator, two failures run together on one line.
    const policy = policyWith({
      rules: { deny: ['Bash(rm:*)'] },
      examples: { allow: ['Bash(rm -rf x)', 'Bash(rm y)'] },
    });
    await expect(policy.ready).rejects.toThrow(
      /:\n- "Bash\(rm -rf x\)" should be allow but is deny: .*\n- "Bash\(rm y\)" should be allow/,
    );
  });

  it('an examples list that is not an array fails loading', async () => {
    // Without this check a string's characters would be read as examples, one letter each.
    const policy = policyWith({ examples: { ask: 'Bash(ls)' as never } });
    await expect(policy.ready).rejects.toThrow('examples.ask must be an array');
  });
});

describe("examples: Claude Code's own tools", () => {
  it.each([
    ['Read', 'file_path', 'allow'],
    ['Glob', 'path', 'allow'],
    ['Grep', 'path', 'allow'],
    ['LS', 'path', 'allow'],
    ['Edit', 'file_path', 'ask'],
    ['MultiEdit', 'file_path', 'ask'],
    ['Write', 'file_path', 'ask'],
    ['NotebookEdit', 'notebook_path', 'ask'],
  ])(
    '%s with a path fills %s, is %s on a project file and denied on a denied one',
    async (tool, arg, onProject) => {
      // Without each stock entry (its argument, its access, readOnly), an example such as
      // "Edit(.env)" names no path, or a read, and a policy's examples pass or fail wrongly.
      const policy = policyWith({ rules: { deny: ['Read(./.env)', 'Edit(./.env)'] } });
      await policy.ready;
      const project = exampleExecution(`${tool}(src/a.ts)`);
      expect(project.arguments).toStrictEqual({ [arg]: 'src/a.ts' });
      expect((await policy.explain(project)).behavior).toBe(onProject);
      const secret = await policy.explain(exampleExecution(`${tool}(.env)`));
      expect(secret.behavior).toBe('deny');
      expect(secret.reason).toContain(onProject === 'allow' ? 'Read(./.env)' : 'Edit(./.env)');
    },
  );

  it('WebSearch is read-only and open-world, like WebFetch', () => {
    // Without its stock entry, WebSearch in an example would be judged as a tool that may change things.
    expect(exampleExecution('WebSearch').tool.hints).toStrictEqual({
      readOnly: true,
      openWorld: true,
    });
    expect(exampleExecution('Bash(ls)').tool.hints).toStrictEqual({ command: 'command' });
  });
});

describe('analyzeShellCommand: what a line runs, as the policy judges it', () => {
  it('gives each word, redirection and problem, and `unknown` only where a command is not known', async () => {
    // Without each field copied (and `unknown` only when set), a CLI's `check` shows another
    // command line than the one the policy judged.
    expect(await analyzeShellCommand('cat ~/x > out < in')).toStrictEqual({
      commands: [
        {
          argv: [
            { value: 'cat', literal: true, glob: false },
            { value: '~/x', literal: true, glob: false },
          ],
          via: [],
        },
      ],
      redirects: [
        { op: '>', target: 'out', access: 'write' },
        { op: '<', target: 'in', access: 'read' },
      ],
      problems: [],
    });
    const unknown = await analyzeShellCommand('env $X ls *.ts', { cwd: root, home });
    expect(unknown.commands).toStrictEqual([
      {
        argv: [
          { value: 'env', literal: true, glob: false },
          { value: '$X', literal: false, glob: false },
          { value: 'ls', literal: true, glob: false },
          { value: '*.ts', literal: true, glob: true },
        ],
        via: [],
        unknown: 'env gets $X, which is not known before it runs',
      },
    ]);
  });
});
