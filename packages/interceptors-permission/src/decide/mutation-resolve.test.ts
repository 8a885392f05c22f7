/**
 * Where paths lead and what a path rule covers (resolve.ts, proc-alias.ts), and what the rules
 * take away from the sandbox (narrowing.ts). Each test fails under a one-line change the mutation
 * run (`pnpm mutate:permission`) found surviving or uncovered in those files.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { InterceptedExecution, ToolSource } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { bash, call, edit, makeProject, read } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import { unaliasProc } from '../shell/proc-alias';
import type { PermissionDecision } from '../types';
import { narrowableSandbox, sandboxNarrowing, toSandboxGlobs } from './narrowing';
import { readOptions } from './options';
import { analyzeCached, valuesAt } from './policy';

const { root, home } = makeProject();
const decideIn = async (
  rules: PermissionRules,
  exec: InterceptedExecution,
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode: 'default' });
  await policy.ready;
  return policy.explain(exec);
};

describe('a rule written on a directory ("./secrets/")', () => {
  it('covers what is inside it, and nothing beside it', async () => {
    const rules = { allow: ['Read(./**)'], deny: ['Read(./secrets/)'] };
    expect((await decideIn(rules, read('secrets/key'))).behavior).toBe('deny');
    expect((await decideIn(rules, read('README.md'))).behavior).toBe('allow');
    expect((await decideIn(rules, read('.env'))).behavior).toBe('allow');
  });
});

describe('what a path rule covers', () => {
  it('a rule on a directory written without a slash covers what is inside it', async () => {
    const rules = { allow: ['Read(./**)'], deny: ['Read(./secrets)'] };
    expect((await decideIn(rules, read('secrets/key'))).behavior).toBe('deny');
  });

  it('a wildcard directory stays where it is written when the rule is resolved through links', async () => {
    // `./*/secrets` is a file named secrets one level down, never what is inside ./secrets.
    const rules = { allow: ['Edit(./*/secrets)'] };
    expect((await decideIn(rules, edit('secrets/key'))).behavior).toBe('ask');
    expect((await decideIn(rules, edit('src/secrets'))).behavior).toBe('allow');
  });

  it.each([
    ['Read(~/.ssh/**)', () => `${home}/.ssh/id_rsa`, 'src/a.ts'],
    ['Read(~)', () => `${home}/.ssh/id_rsa`, 'src/a.ts'],
    ['Read(/secrets/**)', () => 'secrets/key', 'src/a.ts'],
    ['Read(.)', () => '.', `${home}/.ssh/id_rsa`],
    ['Read(//etc/**)', () => '/etc/hostname', 'src/a.ts'],
  ])(
    "%s resolves against home, the rules' directory, the project or the root",
    async (rule, path, other) => {
      const rules = { allow: ['Read(//**)'], deny: [rule] };
      expect((await decideIn(rules, read(path()))).behavior).toBe('deny');
      expect((await decideIn(rules, read(other))).behavior).toBe('allow');
    },
  );

  it("a rule starting with one slash is relative to its settings file's directory", async () => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      mode: 'default',
      rules: [
        { source: 'options', allow: ['Read(//**)'] },
        { source: 'user settings', settingsDir: `${root}/secrets`, deny: ['Read(/key)'] },
      ],
    });
    await policy.ready;
    expect((await policy.explain(read('secrets/key'))).behavior).toBe('deny');
    expect((await policy.explain(read('key'))).behavior).toBe('allow');
  });

  it('a relative rule with a slash is anchored at the project, not at any depth', async () => {
    const rules = { allow: ['Edit(src/a.ts)'] };
    expect((await decideIn(rules, edit('src/a.ts'))).behavior).toBe('allow');
    expect((await decideIn(rules, edit('x/src/a.ts'))).behavior).toBe('ask');
  });

  it('a rule whose glob starts at the root matches anywhere', async () => {
    const rules = { allow: ['Read(//**)'], deny: ['Read(//**/id_rsa)'] };
    expect((await decideIn(rules, read(`${home}/.ssh/id_rsa`))).behavior).toBe('deny');
    expect((await decideIn(rules, read('README.md'))).behavior).toBe('allow');
  });

  it('a relative path through /proc/self/cwd is judged by the name it reaches, as a deny on the name wants', async () => {
    // src/env-link → .env: the deny names the link, the allow covers where it leads.
    const rules = { allow: ['Read(./**)'], deny: ['Read(./src/*-link)'] };
    const up = '../'.repeat(root.split('/').length - 1);
    const d = await decideIn(rules, read(`${up}proc/self/cwd/src/env-link`));
    expect(d.behavior).toBe('deny');
  });
});

describe('a glob operand checked against the path rules', () => {
  it('two wildcard segments may name the same file', async () => {
    // `s*/*` can expand to secrets/x.key; the rule's `*.key` and the operand's `*` may meet.
    const rules = { allow: ['Bash(cat:*)'], deny: ['Read(./secrets/*.key)'] };
    expect((await decideIn(rules, bash('cat s*/*'))).behavior).not.toBe('allow');
    expect((await decideIn(rules, bash('cat sr*/*'))).behavior).toBe('allow');
  });

  it('a glob in the first segment of an absolute path is checked from the root', async () => {
    const rules = { allow: ['Bash(cat:*)'], deny: ['Read(//etc/hostname)'] };
    expect((await decideIn(rules, bash('cat /e*/hostname'))).behavior).not.toBe('allow');
    expect((await decideIn(rules, bash('cat /e*/passwd'))).behavior).toBe('allow');
  });
});

describe('the home directory and descriptors', () => {
  it('~ alone is the home directory', async () => {
    const rules = { allow: ['Read(//**)'], deny: ['Read(~)'] };
    expect((await decideIn(rules, read('~'))).behavior).toBe('deny');
  });

  it('only /dev/fd and /proc/…/fd at the root are descriptors: a project directory named dev/fd is followed', async () => {
    const { root: r, home: h } = makeProject();
    mkdirSync(join(r, 'dev', 'fd'), { recursive: true });
    symlinkSync(join(r, '.env'), join(r, 'dev', 'fd', 'x'));
    const policy = permissionInterceptor({
      cwd: r,
      home: h,
      mode: 'default',
      rules: { allow: ['Read(./**)', 'Bash(cat:*)'], deny: ['Read(./.env)'] },
    });
    await policy.ready;
    expect((await policy.explain(read('dev/fd/x'))).behavior).toBe('deny');
    expect((await policy.explain(bash('cat dev/fd/x'))).behavior).toBe('deny');
  });
});

describe('a glob operand against a glob rule', () => {
  it.each([
    ['cat s*/key.pem', 'Read(./secrets/*.pem)'],
    ['cat secrets/k*', 'Read(./secrets/*y)'],
    ['cat s*', 'Read(./secrets/**)'],
    ['cat src/sub/k*', 'Read(./**/key)'],
  ])('%s may read what %s denies: not allowed', async (line, deny) => {
    const rules = { allow: ['Bash(cat:*)'], deny: [deny] };
    expect((await decideIn(rules, bash(line))).behavior).not.toBe('allow');
  });

  it.each([
    ['cat src/*.ts', 'Read(./secrets/**)'],
    ['cat src/*.ts', 'Read(./**/key)'],
  ])('%s cannot reach what %s denies: allowed', async (line, deny) => {
    const rules = { allow: ['Bash(cat:*)'], deny: [deny] };
    expect((await decideIn(rules, bash(line))).behavior).toBe('allow');
  });
});

describe('/proc aliases', () => {
  it('/proc/self/root is the root, /proc/self/cwd the working directory', () => {
    expect(unaliasProc('/proc/self/root', '/w')).toBe('/');
    expect(unaliasProc('/proc/self/root/', '/w')).toBe('/');
    expect(unaliasProc('/proc/self/root/etc', '/w')).toBe('/etc');
    expect(unaliasProc('/proc/self/cwd', '/w')).toBe('/w');
    expect(unaliasProc('/proc/thread-self/task/12/cwd/x', '/w')).toBe('/w/x');
    expect(unaliasProc('/proc/self/cwd/123', '/w')).toBe('/w/123');
    // Not an alias of a directory: left for the host to read as what it is.
    expect(unaliasProc('/proc/self/environ', '/w')).toBe('/proc/self/environ');
    expect(unaliasProc('/proc/self/fd/3', '/w')).toBe('/proc/self/fd/3');
    expect(unaliasProc('/proc/self/root/proc/self/cwd/x', '/w')).toBe('/w/x');
  });

  it.each(['cat /proc/./self/cwd/.e*', 'cat /proc/self/./cwd/.e*', 'cat /proc/123/cwd/.e*'])(
    '%s is a glob in the working directory, where the deny is',
    async (line) => {
      const rules = { allow: ['Bash(cat:*)'], deny: ['Read(./.env)'] };
      expect((await decideIn(rules, bash(line))).behavior).not.toBe('allow');
    },
  );
});

const policyOf = (rules: PermissionRules) => readOptions({ cwd: '/w', home: '/h', rules }).policy;

describe('sandboxNarrowing', () => {
  it('a deny of a whole tool (no path) takes no path away from the sandbox', () => {
    const n = sandboxNarrowing(policyOf({ deny: ['Read', 'Edit', 'Write'] }));
    expect(n.denyRead).toEqual([]);
    expect(n.denyWrite).toEqual([]);
  });

  it('an allow in the glob form naming a network program keeps the network', () => {
    expect(sandboxNarrowing(policyOf({ allow: ['Bash(curl *)'] })).network).toBeUndefined();
    expect(sandboxNarrowing(policyOf({ allow: ['Bash(cat *)'] })).network).toBe(false);
  });

  it('a rule on a directory reaches the sandbox as one clean glob of what is inside', () => {
    // The sandbox refuses globs it cannot enforce, which denies every call: no `//`, no duplicate.
    const n = sandboxNarrowing(policyOf({ deny: ['Read(./secrets/)', 'Edit(//tmp/out/)'] }));
    expect(n.denyRead).toEqual(['/w/secrets/**']);
    expect(n.denyWrite).toEqual(['/tmp/out/**']);
  });

  it('an allow that names no program (a leading wildcard) keeps no network; npx any script does', () => {
    expect(sandboxNarrowing(policyOf({ allow: ['Bash(*)'] })).network).toBe(false);
    expect(sandboxNarrowing(policyOf({ allow: ['Bash(* --version)'] })).network).toBe(false);
    expect(sandboxNarrowing(policyOf({ allow: ['Bash(npx prettier:*)'] })).network).toBeUndefined();
  });

  it('a call whose sandbox is null has no sandbox to narrow (and does not throw)', () => {
    expect(narrowableSandbox({ sandbox: null })).toBeUndefined();
    expect(narrowableSandbox({ sandbox: 'bwrap' })).toBeUndefined();
  });

  it('every tool of the Edit family narrows writes', () => {
    const n = sandboxNarrowing(
      policyOf({ deny: ['Write(./a)', 'MultiEdit(./b)', 'NotebookEdit(./c)', 'Edit(./d)'] }),
    );
    expect(n.denyWrite).toEqual([
      '/w/a',
      '/w/a/**',
      '/w/b',
      '/w/b/**',
      '/w/c',
      '/w/c/**',
      '/w/d',
      '/w/d/**',
    ]);
    expect(n.denyRead).toEqual([]);
  });

  it.each([
    ...['curl', 'wget', 'nc', 'ncat', 'netcat', 'ssh', 'scp', 'sftp', 'rsync', 'telnet', 'ftp'].map(
      (p) => `Bash(${p}:*)`,
    ),
    ...['gh', 'pip', 'pip3'].map((p) => `Bash(${p}:*)`),
    ...['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule'].map((s) => `Bash(git ${s}:*)`),
    ...['install', 'i', 'ci', 'add', 'update', 'publish', 'view', 'exec', 'x'].map(
      (s) => `Bash(npm ${s}:*)`,
    ),
    ...['install', 'i', 'add', 'update', 'dlx', 'publish'].map((s) => `Bash(pnpm ${s}:*)`),
    ...['install', 'add', 'upgrade', 'dlx', 'npm'].map((s) => `Bash(yarn ${s}:*)`),
    'Bash(npx cowsay:*)',
    'WebFetch',
    'WebSearch',
  ])('an allow of %s keeps the network', (rule) => {
    expect(sandboxNarrowing(policyOf({ allow: [rule] })).network).toBeUndefined();
  });

  it.each([
    'Bash(git status:*)',
    'Bash(npm test:*)',
    'Bash(pnpm test:*)',
    'Bash(yarn test:*)',
    'Read',
  ])('an allow of %s takes the network away', (rule) => {
    expect(sandboxNarrowing(policyOf({ allow: [rule] })).network).toBe(false);
  });

  it('says it comes from the permission rules', () => {
    expect(sandboxNarrowing(policyOf({})).by).toBe('permission rules');
  });

  it('a brace or parenthesis left over widens to a wildcard, never drops out', () => {
    // picomatch reads an unbalanced `{` or `)` as itself: the sandbox glob must still cover it.
    expect(toSandboxGlobs('/w/a{b')).toEqual(['/w/**']);
    expect(toSandboxGlobs('/w/a)b')).toEqual(['/w/**']);
  });

  it('is computed once per policy', () => {
    const policy = policyOf({ deny: ['Read(./.env)'] });
    expect(sandboxNarrowing(policy)).toBe(sandboxNarrowing(policy));
  });
});

describe('values at a hint path', () => {
  it('steps into objects and, for *, into every element; never into a primitive or null', () => {
    expect(valuesAt({ e: [{ p: 1 }, { p: 2 }] }, 'e.*.p')).toEqual([1, 2]);
    expect(valuesAt({ e: { a: { p: 1 }, b: { p: 2 } } }, 'e.*.p')).toEqual([1, 2]);
    expect(valuesAt({ a: null }, 'a.b')).toEqual([]);
    expect(valuesAt({ a: 's' }, 'a.length')).toEqual([]);
    expect(valuesAt({ a: { '*': 1, b: 2 } }, 'a.b')).toEqual([2]);
    // Only own keys: a missing or inherited one gives nothing.
    expect(valuesAt({ a: 1 }, 'b')).toEqual([]);
    expect(valuesAt({}, 'toString')).toEqual([]);
  });

  it('a shell tool whose command sits deeper in its arguments is judged by that command', async () => {
    const tool = call('Shell', { input: { cmd: 'rm -rf src' } }, { command: 'input.cmd' });
    expect((await decideIn({ deny: ['Bash(rm:*)'] }, tool)).behavior).toBe('deny');
  });
});

describe('the working directories', () => {
  it('are their real paths: acceptEdits accepts a write named through the real path of a linked cwd', async () => {
    const linked = `${root}/escape/project`;
    const policy = permissionInterceptor({ cwd: linked, home, mode: 'acceptEdits', rules: {} });
    await policy.ready;
    expect((await policy.explain(edit(`${root}/src/new.ts`))).behavior).toBe('allow');
  });

  it('a rule of another tool never names this one', async () => {
    expect((await decideIn({ deny: ['WebFetch'] }, read('README.md'))).behavior).toBe('allow');
    expect((await decideIn({ deny: ['WebFetch'] }, bash('echo hi'))).behavior).not.toBe('deny');
  });
});

describe('the analysis cache', () => {
  it('a line analysed before is answered from the cache, unless the cache is off or the line long', () => {
    const cached = readOptions({ cwd: '/w', home: '/h', rules: {} }).policy;
    expect(analyzeCached(cached, 'git status')).toBe(analyzeCached(cached, 'git status'));
    const longest = `echo ${'x'.repeat(4091)}`;
    expect(longest.length).toBe(4096);
    expect(analyzeCached(cached, longest)).toBe(analyzeCached(cached, longest));
    const long = `${longest}x`;
    expect(analyzeCached(cached, long)).not.toBe(analyzeCached(cached, long));
    const off = readOptions({ cwd: '/w', home: '/h', rules: {}, parseCacheSize: 0 }).policy;
    expect(analyzeCached(off, 'git status')).not.toBe(analyzeCached(off, 'git status'));
    expect(analyzeCached(off, 'git status')).toEqual(analyzeCached(cached, 'git status'));
  });

  it('keeps the most recent lines up to its size, dropping the oldest', () => {
    const policy = readOptions({ cwd: '/w', home: '/h', rules: {}, parseCacheSize: 2 }).policy;
    const a = analyzeCached(policy, 'ls a');
    const b = analyzeCached(policy, 'ls b');
    expect(analyzeCached(policy, 'ls a')).toBe(a);
    analyzeCached(policy, 'ls c');
    expect(analyzeCached(policy, 'ls a')).toBe(a);
    expect(analyzeCached(policy, 'ls b')).not.toBe(b);
  });
});

describe('a rule naming a whole MCP server', () => {
  const tool = (name: string, source: ToolSource) => call(name, {}, {}, source);
  it("covers the server's tools whatever the registry named them, and tools named after it", async () => {
    const rules = { deny: ['mcp__github'] };
    const mcp = { kind: 'mcp', server: 'github', tool: 'create_issue' } as const;
    expect((await decideIn(rules, tool('gh_create_issue', mcp))).behavior).toBe('deny');
    expect(
      (await decideIn(rules, tool('mcp__github__create_issue', { kind: 'local' }))).behavior,
    ).toBe('deny');
    const other = { kind: 'mcp', server: 'gitlab', tool: 'x' } as const;
    expect((await decideIn(rules, tool('x_mcp__github__', other))).behavior).toBe('ask');
  });
});
