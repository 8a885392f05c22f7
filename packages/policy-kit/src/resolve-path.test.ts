import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isInside,
  lexicalAbsolute,
  MAX_SYMLINKS,
  PathResolutionError,
  parentOf,
  pathShapeProblem,
  resolvePath,
} from './resolve-path';

// Property tests run on a fixed seed (FC_SEED=<n> explores others); a failure names the seed.
const seed = Number(process.env.FC_SEED ?? 19);
console.info(`policy-kit resolve-path property tests: fast-check seed ${seed}`);

let base: string;
let ws: string;
let outside: string;
beforeAll(() => {
  base = realpathSync(mkdtempSync(`${tmpdir()}/policy-kit-resolve-`));
  ws = `${base}/ws`;
  outside = `${base}/outside`;
  mkdirSync(`${ws}/a/b`, { recursive: true });
  mkdirSync(outside);
  writeFileSync(`${ws}/a/b/f`, '');
  writeFileSync(`${ws}/file.txt`, '');
  symlinkSync('a/b', `${ws}/lb`);
  symlinkSync(outside, `${ws}/lo`);
  symlinkSync('../..', `${ws}/a/b/up2`);
  symlinkSync('lb', `${ws}/llb`);
  symlinkSync(`${outside}/created-through-link`, `${ws}/dangling`);
  symlinkSync('dangling', `${ws}/dangling-chain`);
  symlinkSync('loop-b', `${ws}/loop-a`);
  symlinkSync('loop-a', `${ws}/loop-b`);
  symlinkSync('/proc/self/cwd', `${ws}/to-self-cwd`);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const real = (path: string, cwd = ws) => resolvePath(path, { cwd, mode: 'real' });
const lexical = (path: string, cwd = ws) => resolvePath(path, { cwd, mode: 'lexical' });

describe('resolvePath, real', () => {
  it('property: agrees with realpath(3) on every existing path built from links, .. and .', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'lb', 'llb', 'up2', '..', '.', 'f'), { maxLength: 8 }),
        (parts) => {
          const path = parts.join('/');
          let expected: string;
          try {
            expected = realpathSync.native(`${ws}/${path}`);
          } catch {
            return; // not an existing path: realpath has no answer to compare with
          }
          expect(real(path)).toBe(expected);
          expect(real(`${ws}/${path}`, '/')).toBe(expected);
        },
      ),
      { seed },
    );
  });

  it('follows a dangling link to its target, where open(O_CREAT) would create the file', () => {
    expect(real('dangling')).toBe(`${outside}/created-through-link`);
    expect(real('dangling-chain')).toBe(`${outside}/created-through-link`);
    // The lexical reading keeps the name: a layer that wants it must ask for it.
    expect(lexical('dangling')).toBe(`${ws}/dangling`);
  });

  it('takes .. from the directory a link reached, not from the text', () => {
    expect(real('lo/../x')).toBe(`${base}/x`);
    expect(lexical('lo/../x')).toBe(`${ws}/x`);
  });

  it('keeps following links after a component that does not exist', () => {
    // A body that folds the text first (path.resolve) opens lo/secret: judged as that.
    expect(real('missing/../lo/secret')).toBe(`${outside}/secret`);
  });

  it('appends what does not exist, through a symlinked parent', () => {
    expect(real('lo/new/deeper')).toBe(`${outside}/new/deeper`);
    expect(real('file.txt/x/y')).toBe(`${ws}/file.txt/x/y`);
  });

  it('walks the working directory too: a cwd given through a link is where the link leads', () => {
    expect(real('..', `${ws}/lo`)).toBe(base);
    expect(real('new', `${ws}/lo`)).toBe(`${outside}/new`);
  });

  it('refuses a loop after MAX_SYMLINKS links with ELOOP, naming the link', () => {
    const error = (() => {
      try {
        return real('loop-a');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(PathResolutionError);
    expect(error).toMatchObject({ code: 'ELOOP' });
    expect((error as Error).message).toMatch(
      new RegExp(`^more than ${MAX_SYMLINKS} symbolic links \\(a loop\\?\\) at "${ws}/loop-[ab]"$`),
    );
  });

  it('follows exactly MAX_SYMLINKS links, and refuses one more', () => {
    const dir = `${base}/chain`;
    mkdirSync(dir);
    writeFileSync(`${dir}/end`, '');
    symlinkSync('end', `${dir}/l0`);
    for (let i = 1; i <= MAX_SYMLINKS; i++) symlinkSync(`l${i - 1}`, `${dir}/l${i}`);
    expect(real(`l${MAX_SYMLINKS - 1}`, dir)).toBe(`${dir}/end`);
    expect(() => real(`l${MAX_SYMLINKS}`, dir)).toThrow(PathResolutionError);
  });

  it('refuses a component the file system cannot look up (ENAMETOOLONG), naming it', () => {
    const long = 'n'.repeat(300);
    expect(() => real(`a/${long}/x`)).toThrow(`cannot inspect "${ws}/a/${long}" (ENAMETOOLONG)`);
  });

  it("reads /proc/self/cwd as this process's, unless the opener's directory is given", () => {
    expect(real('/proc/self/cwd')).toBe(realpathSync(process.cwd()));
    expect(real('to-self-cwd/x')).toBe(`${realpathSync(process.cwd())}/x`);
    const opener = { cwd: ws, mode: 'real', processCwd: `${ws}/lb` } as const;
    expect(resolvePath('/proc/self/cwd/f', opener)).toBe(`${ws}/a/b/f`);
    expect(resolvePath('/proc/thread-self/cwd', opener)).toBe(`${ws}/a/b`);
    expect(resolvePath('/proc/1/task/1/cwd/../x', opener)).toBe(`${ws}/a/x`);
    expect(resolvePath('/proc/self/root/etc', opener)).toBe('/etc');
    // Through a link as well as in the text.
    expect(resolvePath('to-self-cwd/f', opener)).toBe(`${ws}/a/b/f`);
  });

  it('refuses what is not a string, holds a null byte, a relative directory or no mode', () => {
    const cases: [unknown, unknown][] = [
      [1, { cwd: '/', mode: 'real' }],
      ['a\0b', { cwd: '/', mode: 'real' }],
      ['a', { cwd: 'rel', mode: 'real' }],
      ['a', { cwd: '/', mode: 'real', processCwd: 'rel' }],
      ['a', { cwd: '/', mode: 'kernel' }],
    ];
    for (const [path, options] of cases) {
      expect(() => resolvePath(path as string, options as never)).toThrow(
        /^resolvePath: (path|cwd|processCwd) must be|^resolvePath: mode must be "lexical" or "real"/,
      );
    }
  });
});

describe('resolvePath, lexical', () => {
  it('property: an absolute, normalised path that never climbs above /', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '..', '.', '', 'c d', '\u00e9'), { maxLength: 12 }),
        (parts) => {
          const out = lexical(parts.join('/'), '/base/dir');
          expect(out).toBe(posix.resolve('/base/dir', parts.join('/')));
          expect(out.split('/').slice(1)).not.toContain('..');
          expect(out).not.toMatch(/\/\.(\/|$)|\/\//);
        },
      ),
      { seed },
    );
  });

  it('touches no file system: a loop is only a name', () => {
    expect(lexical('loop-a/x')).toBe(`${ws}/loop-a/x`);
    expect(lexicalAbsolute('../../..', '/a')).toBe('/');
  });
});

describe('isInside, parentOf, pathShapeProblem', () => {
  it('/ holds everything; a sibling sharing a prefix is outside', () => {
    expect(isInside('/anything', '/')).toBe(true);
    expect(isInside('/ws', '/ws')).toBe(true);
    expect(isInside('/ws/x', '/ws')).toBe(true);
    expect(isInside('/ws-other/x', '/ws')).toBe(false);
    expect(isInside('/ws/x', '/ws/')).toBe(true);
    expect(isInside('/ws-other', '/ws/')).toBe(false);
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/')).toBe('/');
  });

  it('refuses the shapes the kernel refuses, and accepts the longest legal ones', () => {
    expect(pathShapeProblem(null)).toBe('must be a string (got null)');
    expect(pathShapeProblem(['a'])).toBe('must be a string (got array)');
    expect(pathShapeProblem('')).toBe('is empty');
    expect(pathShapeProblem('a\0')).toBe('contains a null byte');
    expect(pathShapeProblem('a'.repeat(4096))).toBe('is longer than PATH_MAX (4095 bytes)');
    expect(pathShapeProblem('é'.repeat(2048))).toBe('is longer than PATH_MAX (4095 bytes)');
    expect(pathShapeProblem(`/${'n'.repeat(256)}`)).toBe(
      'has a component longer than NAME_MAX (255 bytes)',
    );
    expect(pathShapeProblem(`/${'n'.repeat(255)}`)).toBeUndefined();
    expect(pathShapeProblem(`/${'a/'.repeat(2046)}a`)).toBeUndefined();
  });
});
