import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTree, type Tree } from '../test/fixtures';
import { compileGlob, parseGlob } from './glob';
import { resolveSandboxOptions } from './options';
import { fileUrlProblem, urlReading } from './path-args';
import { checkAccess, snapshotPolicy } from './policy';
import {
  isInside,
  lexicalAbsolute,
  MAX_SYMLINKS,
  PathResolutionError,
  pathShapeProblem,
  resolveLikeKernel,
  resolveLikeKernelSync,
} from './resolve-path';
import type { SandboxOptions } from './types';

let tree: Tree;
beforeAll(async () => {
  tree = await makeTree();
  const { ws, outside } = tree;
  await mkdir(`${ws}/a/b`, { recursive: true });
  await writeFile(`${ws}/a/b/f`, '');
  await symlink('a/b', `${ws}/lb`);
  await symlink(outside, `${ws}/lo`);
  await symlink('../..', `${ws}/a/b/up2`);
  await symlink('lb', `${ws}/llb`);
  await symlink('missing-target', `${ws}/dangling`);
});
afterAll(() => tree.cleanup());

// Property tests run on a fixed seed (FC_SEED=<n> explores others); a failure names the seed.
const seed = Number(process.env.FC_SEED ?? 21);
console.info(`resolve-path property tests: fast-check seed ${seed}`);

describe('resolveLikeKernel', () => {
  it('agrees with realpath(3) on every existing path built from links, .. and .', async () => {
    // Components that exist in the tree; any sequence of them that exists must resolve exactly
    // as the kernel's realpath does, including `..` taken after a symlinked directory.
    const parts = ['a', 'b', 'f', 'lb', 'lo', 'up2', 'llb', '..', '.', '', 'ws', 'outside', 'dir'];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...parts), { maxLength: 8 }), async (seq) => {
        const path = seq.join('/');
        let expected: string;
        try {
          expected = await realpath(`${tree.ws}/${path}`);
        } catch {
          return; // not an existing path: realpath has no answer to compare with
        }
        expect(await resolveLikeKernel(`${tree.ws}/${path}`, '/')).toBe(expected);
        if (!path.startsWith('/')) expect(await resolveLikeKernel(path, tree.ws)).toBe(expected);
      }),
      { seed, numRuns: 300 },
    );
  });

  it('follows a link before its .. (the text would say otherwise)', async () => {
    expect(lexicalAbsolute('lo/../x', tree.ws)).toBe(`${tree.ws}/x`);
    expect(await resolveLikeKernel('lo/../x', tree.ws)).toBe(`${tree.base}/x`);
  });

  it('follows a dangling link to where it would create its target', async () => {
    expect(await resolveLikeKernel('dangling', tree.ws)).toBe(`${tree.ws}/missing-target`);
    expect(await resolveLikeKernel('lo/new/deeper', tree.ws)).toBe(`${tree.outside}/new/deeper`);
  });

  it('refuses a loop after MAX_SYMLINKS links, like ELOOP', async () => {
    await symlink('loop-b', `${tree.ws}/loop-a`);
    await symlink('loop-a', `${tree.ws}/loop-b`);
    const error = await resolveLikeKernel('loop-a', tree.ws).catch((e) => e);
    expect(error).toBeInstanceOf(PathResolutionError);
    expect(error.code).toBe('ELOOP');
    expect(error.message).toContain(String(MAX_SYMLINKS));
  });

  it.each([
    [42, '/'],
    ['a\0b', '/'],
    ['a', 'relative'],
    ['a', null],
  ])('refuses hostile input %j from %j with a TypeError', async (path, base) => {
    // biome-ignore lint/suspicious/noExplicitAny: hostile input on purpose
    const error = await resolveLikeKernel(path as any, base as any).catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    // Its own words, not a TypeError of something that choked on the value later.
    expect(error.message).toMatch(
      /^resolveLikeKernel: (path|base) must be a string without null bytes$|^resolveLikeKernel: base must be absolute$/,
    );
  });

  it('follows exactly MAX_SYMLINKS links, and refuses one more', async () => {
    expect(MAX_SYMLINKS).toBe(40);
    const dir = `${tree.ws}/chain`;
    await mkdir(dir);
    await writeFile(`${dir}/end`, '');
    await symlink('end', `${dir}/l0`);
    for (let i = 1; i <= MAX_SYMLINKS; i++) await symlink(`l${i - 1}`, `${dir}/l${i}`);
    // l39 is 40 links from the file, l40 41.
    expect(await resolveLikeKernel(`l${MAX_SYMLINKS - 1}`, dir)).toBe(`${dir}/end`);
    const error = await resolveLikeKernel(`l${MAX_SYMLINKS}`, dir).catch((e) => e);
    expect(error).toBeInstanceOf(PathResolutionError);
    expect(error.name).toBe('PathResolutionError');
    expect(error.code).toBe('ELOOP');
  });

  it('reaches / itself: by name, by .., and through a link to /', async () => {
    await symlink('/', `${tree.ws}/to-root`);
    expect(await resolveLikeKernel('/', tree.ws)).toBe('/');
    expect(await resolveLikeKernel('/var/..', '/')).toBe('/');
    expect(await resolveLikeKernel('../../../../../../..', tree.ws)).toBe('/');
    expect(await resolveLikeKernel('to-root', tree.ws)).toBe('/');
    expect(await resolveLikeKernel('to-root/etc', tree.ws)).toBe('/etc');
  });

  it('appends what lies under a regular file (ENOTDIR) as a creating tool would name it', async () => {
    expect(await resolveLikeKernel('a/b/f/x/y', tree.ws)).toBe(`${tree.ws}/a/b/f/x/y`);
  });

  it('refuses a component the file system cannot look up (ENAMETOOLONG), naming it', async () => {
    const long = 'n'.repeat(300);
    const error = await resolveLikeKernel(`a/${long}/x`, tree.ws).catch((e) => e);
    expect(error).toBeInstanceOf(PathResolutionError);
    expect(error.code).toBe('ENAMETOOLONG');
    expect(error.message).toBe(`cannot inspect "${tree.ws}/a/${long}" (ENAMETOOLONG)`);
  });

  it('resolves a 4,000-byte path of dot-dots and names without trouble', async () => {
    const path = `${'x/../'.repeat(799)}file.txt`;
    expect(await resolveLikeKernel(path, tree.ws)).toBe(`${tree.ws}/file.txt`);
  });

  it('resolves /proc/self/root and /proc/self/cwd through their magic links', async () => {
    expect(await resolveLikeKernel(`/proc/self/root${tree.ws}`, '/')).toBe(tree.ws);
    expect(await resolveLikeKernel('/proc/self/cwd', '/')).toBe(await realpath(process.cwd()));
  });
});

describe('pathShapeProblem', () => {
  it.each([
    [42, 'must be a string (got number)'],
    [undefined, 'must be a string (got undefined)'],
    ['', 'is empty'],
    ['a\0b', 'null byte'],
    ['x'.repeat(4096), 'is longer than PATH_MAX (4095 bytes)'],
    ['\u{1F600}'.repeat(1024), 'PATH_MAX'],
    [`a/${'y'.repeat(256)}/b`, 'NAME_MAX'],
  ])('refuses %j', (value, problem) => {
    expect(pathShapeProblem(value)).toContain(problem);
  });

  it('accepts the longest legal shapes', () => {
    expect(pathShapeProblem('x'.repeat(255))).toBeUndefined();
    expect(pathShapeProblem(`${'a/'.repeat(2047)}b`)).toBeUndefined();
  });
});

describe('lexicalAbsolute and isInside', () => {
  it('never climbs above / and never matches a sibling that shares a prefix', () => {
    expect(lexicalAbsolute('../../../..', '/a')).toBe('/');
    expect(isInside('/ws-other/x', '/ws')).toBe(false);
    expect(isInside('/ws', '/ws')).toBe(true);
    expect(isInside('/anything', '/')).toBe(true);
  });

  it('property: the result is absolute, normalised, with no . or .. components', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '..', '.', '', 'c d', '\u00e9'), { maxLength: 12 }),
        (parts) => {
          const out = lexicalAbsolute(parts.join('/'), '/base/dir');
          expect(out.startsWith('/')).toBe(true);
          expect(out.split('/').slice(1)).not.toContain('..');
          expect(out === '/' || !out.endsWith('/')).toBe(true);
          expect(out).not.toMatch(/\/\.(\/|$)|\/\//);
        },
      ),
      { seed },
    );
  });
});

describe('deny globs', () => {
  const cases: readonly [glob: string, path: string, matches: boolean][] = [
    ['**/.env*', '/w/.env', true],
    ['**/.env*', '/w/deep/er/.env.local', true],
    ['**/.env*', '/w/env', false],
    ['**/.env*', '/w/.env/inside', false],
    ['~/.ssh/**', '/home/u/.ssh', true],
    ['~/.ssh/**', '/home/u/.ssh/id_rsa', true],
    ['~/.ssh/**', '/home/u/.sshx/id_rsa', false],
    ['**/.git/hooks/**', '/r/.git/hooks/pre-commit', true],
    ['**/.git/hooks/**', '/r/sub/.git/hooks', true],
    ['**/.git/hooks/**', '/r/.git/hooksx', false],
    ['/proc/*/environ', '/proc/123/environ', true],
    ['/proc/*/environ', '/proc/123/task/1/environ', false],
    ['secrets/?.key', '/cwd/secrets/a.key', true],
    ['secrets/?.key', '/cwd/secrets/ab.key', false],
    ['*.pem', '/cwd/x.pem', true],
    ['*.pem', '/cwd/sub/x.pem', false],
    ['/a+b/(c)', '/a+b/(c)', true],
    ['/a+b/(c)', '/aab/c', false],
  ];
  it.each(cases)('%s against %s: %s', (glob, path, matches) => {
    const parsed = parseGlob(glob, '/cwd', '/home/u');
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(compileGlob(parsed.prefix, parsed.rest).test(path)).toBe(matches);
  });

  it.each([
    ['', 'must not be empty'],
    ['a/[bc]', 'brackets'],
    ['{a,b}', 'braces'],
    ['!x', 'negation'],
    ['a/../b', '".."'],
    ['a**b', 'whole path component'],
    ['a/~/b', '~ is only understood at the start'],
    ['x\0', 'null byte'],
  ])('refuses %j', (glob, problem) => {
    expect(parseGlob(glob, '/cwd', '/home/u')).toContain(problem);
  });

  it('property: a literal glob matches exactly its own path', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[^/*?[\]{}~!\0]{1,8}$/), { minLength: 1, maxLength: 5 }),
        (parts) => {
          fc.pre(parts.every((p) => p !== '.' && p !== '..'));
          const path = `/${parts.join('/')}`;
          const parsed = parseGlob(path, '/cwd', '/home');
          if (typeof parsed === 'string') throw new Error(parsed);
          const re = compileGlob(parsed.prefix, parsed.rest);
          expect(re.test(path)).toBe(true);
          expect(re.test(`${path}x`)).toBe(false);
          expect(re.test(`${path}/x`)).toBe(false);
        },
      ),
      { seed },
    );
  });
});

describe('file: URLs and the URL reading of a path', () => {
  it('property: refused exactly when Node parses the string as a file: URL', () => {
    const pieces = ['file', 'FiLe', 'fi', 'le', ':', '/', '//', ' ', '\t', '\n', '\u0001', 'x'];
    const more = ['%2e', '.', '..', '\\', 'localhost', 'h', 'http', '?', '#', '%2f', '~'];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces, ...more), { minLength: 1, maxLength: 8 }),
        (parts) => {
          const text = parts.join('');
          let isFileUrl = false;
          try {
            isFileUrl = new URL(text).protocol === 'file:';
          } catch {}
          expect(fileUrlProblem(text) !== undefined).toBe(isFileUrl);
        },
      ),
      { seed, numRuns: 3_000 },
    );
  });

  it.each([
    ['file:///x', 'pass the plain path "/x"'],
    ['FILE:///x', 'pass the plain path "/x"'],
    ['file://localhost/x', 'pass the plain path "/x"'],
    ['file:x', 'pass the plain path "/x"'],
    ['file:///w/%2e%2e/x', 'pass the plain path "/x"'],
    [' \tfile:///x', 'pass the plain path "/x"'],
    ['file://host/x', 'its host "host" is not this machine'],
    ['file:///a%2fb', 'does not decode to a path'],
  ])('refuses %j: %s', (text, problem) => {
    expect(fileUrlProblem(text)).toContain(problem);
  });

  it.each(['./file:x', 'x/file:///y', 'http://h/x', 'c:\\x', 'file', '/file:/x'])(
    'takes %j as a path',
    (text) => {
      expect(fileUrlProblem(text)).toBeUndefined();
    },
  );

  it.each([
    ['%2e%2e/x', '/w/x'],
    ['..\\x', '/w/x'],
    ['.\t./x', '/w/x'],
    [' ../x', '/w/x'],
    ['.%65nv', '/w/d/.env'],
    ['/abs', '/abs'],
    ['plain', '/w/d/plain'],
    ['//host/x', undefined],
    ['http://h/x', undefined],
  ])('reads %j as a URL relative to the cwd: %s', (text, expected) => {
    expect(urlReading(text, '/w/d')).toBe(expected);
  });
});

describe('deny globs in a policy snapshot', () => {
  const snapshot = (options: Partial<SandboxOptions>) =>
    snapshotPolicy(
      resolveSandboxOptions({ mode: 'workspace-write', cwd: tree.ws, ...options }, 't'),
    );
  const read = (policy: ReturnType<typeof snapshot>, path: string) =>
    checkAccess(policy, 'read', path, [resolveLikeKernelSync(path, policy.cwd)]);

  it('a glob whose prefix is a symbolic link denies the real name too', async () => {
    // keys -> outside/real-keys: a secret read by its real name must not slip past a glob that
    // names it through the link.
    await mkdir(`${tree.outside}/real-keys`);
    await writeFile(`${tree.outside}/real-keys/id`, 'k');
    await symlink(`${tree.outside}/real-keys`, `${tree.ws}/keys`);
    const policy = snapshot({ denyRead: [`${tree.ws}/keys/**`] });
    for (const path of [`${tree.outside}/real-keys/id`, 'keys/id', `${tree.outside}/real-keys`]) {
      expect(read(policy, path), path).toEqual({
        rule: `denyRead "${tree.ws}/keys/**"`,
        deny: { list: 'denyRead', glob: `${tree.ws}/keys/**` },
      });
    }
    expect(read(policy, `${tree.outside}/real-keys-not/id`)).toBeUndefined();
    expect(read(policy, `${tree.outside}/secret.txt`)).toBeUndefined();
  });

  it('two globs whose components join to the same text stay apart', () => {
    // "/p/*a/b" and "/p/*ab": a cache keyed on the components run together would mix them up.
    const p = `${tree.base}/glob-keys`;
    const policy = snapshot({ denyRead: [`${p}/*a/b`, `${p}/*ab`] });
    const rule = (path: string) => read(policy, path)?.deny?.glob;
    expect(rule(`${p}/xa/b`)).toBe(`${p}/*a/b`);
    expect(rule(`${p}/xab`)).toBe(`${p}/*ab`);
    expect(rule(`${p}/xa/c`)).toBeUndefined();
  });

  it('a write outside several roots names every root', () => {
    const policy = snapshot({ roots: ['.', `${tree.outside}/dir`] });
    const refused = checkAccess(policy, 'write', `${tree.base}/x`, [`${tree.base}/x`]);
    expect(refused?.rule).toBe(
      `mode "workspace-write" permits writes only inside the roots ("${tree.ws}", "${tree.outside}/dir")`,
    );
  });
});
