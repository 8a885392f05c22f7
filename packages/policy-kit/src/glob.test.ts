import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';
import { GLOB_CHARS, globMatcher, globMatches, negatedClasses } from './glob';

describe('the glob dialect', () => {
  it('is picomatch with wildcards matching dotfiles, any of several globs', () => {
    const test = globMatcher(['/p/secrets/*', '/p/**/*.{pem,key}']);
    expect(test('/p/secrets/.hidden')).toBe(true);
    expect(test('/p/a/b/x.key')).toBe(true);
    expect(test('/p/a/b/x.txt')).toBe(false);
    expect(globMatches('.env.local', '.env*')).toBe(true);
    expect(globMatches('a', '[bc]')).toBe(false);
    expect(GLOB_CHARS.test('a[b]')).toBe(true);
    expect(GLOB_CHARS.test('plain.txt')).toBe(false);
  });

  it('importing the kit does not load picomatch; the first glob compiled does', () => {
    const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
    const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;
    const [imported, compiled] = loadsOfFreshProcess(
      packageDir,
      `const kit = await import(${JSON.stringify(entry)});
mark('imported');
mark('compiled: ' + kit.globMatcher('/a/*')('/a/b'));`,
    );
    const picomatch = (l: string) => /[\\/]picomatch[\\/]/.test(l);
    expect(imported?.loads.some((l) => l.includes('/policy-kit/src/index.ts'))).toBe(true);
    expect(imported?.loads.filter(picomatch)).toEqual([]);
    expect(compiled?.label).toBe('compiled: true');
    expect(compiled?.loads.some(picomatch)).toBe(true);
  });
});

describe('a bracket class, as bash reads it', () => {
  it('[!…] is negated as [^…] is (picomatch alone read the ! as a member)', () => {
    expect(globMatches('.env', '.[!x]nv')).toBe(true);
    expect(globMatches('.xnv', '.[!x]nv')).toBe(false);
    expect(globMatches('b', '[!a]')).toBe(true);
    expect(globMatches('!', '[!a]')).toBe(true);
    expect(globMatches('a', '[!a]')).toBe(false);
    expect(globMatcher(['/p/secrets/[!R]*'])('/p/secrets/key')).toBe(true);
    // Escaped, or inside another class, the `[!` is no negation.
    expect(negatedClasses('\\[!a]')).toBe('\\[!a]');
    expect(negatedClasses('[a[!b]')).toBe('[a[!b]');
    expect(negatedClasses('[!]a]x[![:digit:]]')).toBe('[^]a]x[^[:digit:]]');
  });

  it('a class ends where bash ends it, so a later [! is a negation only outside one', () => {
    // A `]` first (after a negation or not) is a member; the class goes on past it.
    expect(negatedClasses('[][!a]')).toBe('[][!a]');
    expect(negatedClasses('[^][!a]')).toBe('[^][!a]');
    expect(negatedClasses('[!][!a]')).toBe('[^][!a]');
    // A POSIX class closes with `:]`, not the class around it; an escaped `]` closes nothing.
    expect(negatedClasses('[[:alpha:]][!a]')).toBe('[[:alpha:]][^a]');
    expect(negatedClasses('[[:digit:][!]')).toBe('[[:digit:][!]');
    expect(negatedClasses('[!\\]][!a]')).toBe('[^\\]][^a]');
    expect(negatedClasses('[[:alpha:][:digit:]][!a]')).toBe('[[:alpha:][:digit:]][^a]');
    // A `[:` left open runs to the end; text and other classes are copied as they are.
    expect(negatedClasses('[!a][[:x')).toBe('[^a][[:x');
    expect(negatedClasses('a:[!x]')).toBe('a:[^x]');
    expect(negatedClasses('[ab:][!x]')).toBe('[ab:][^x]');
    // And matching follows: `[][!a]` is one class of `]`, `[`, `!` and `a`.
    expect(globMatches('[', '[][!a]')).toBe(true);
    expect(globMatches('b', '[][!a]')).toBe(false);
    expect(globMatches('b', '[[:alpha:]][!a]')).toBe(false);
    expect(globMatches('bb', '[[:alpha:]][!a]')).toBe(true);
    expect(globMatches('bb', '[ab][!a]')).toBe(true);
    expect(globMatches('a:b', 'a:[!x]')).toBe(true);
  });

  it('globMatcher takes one glob or several, each read the same way', () => {
    expect(globMatcher('[!a]')('b')).toBe(true);
    expect(globMatcher('[!a]')('a')).toBe(false);
    expect(globMatcher(['x', '[!a]'])('b')).toBe(true);
    expect(globMatcher(['x', '[!a]'])('a')).toBe(false);
  });

  it('property: a glob of classes, wildcards and text matches a name exactly when bash says so', () => {
    const PIECES = ['a', 'b', '!', '^', '[ab]', '[!a]', '[^a]', '[!ab]', '[a-c]', '[!a-c]'];
    const more = ['[]a]', '[!]a]', '[![:alpha:]]', '[[:alpha:]]', '?', '*'];
    // Where a class ends is what decides whether a later `[!` opens a class or is a member: a `]`
    // first, a negation before it, a POSIX class, a `[` or an escaped `]` inside.
    const ends = ['[]!]', '[][!]', '[^]a]', '[![!a]', '[a[!b]', '[[:alpha:]!]', '[][!a]', '[!][!]'];
    const inside = ['[^][!a]', '[[:digit:][!]', '[[]', '[!\\]]', '\\[!a]', '[[:alpha:]][!a]'];
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`bracket classes against bash: fast-check seed ${seed} (FC_SEED=${seed} replays)`);
    const pairs = fc
      .sample(
        fc.tuple(
          fc.array(fc.constantFrom(...PIECES, ...more, ...ends, ...inside), {
            minLength: 1,
            maxLength: 3,
          }),
          fc.array(fc.constantFrom('a', 'b', 'c', 'x', '!', '^', ']', '[', '1', '\\'), {
            minLength: 1,
            maxLength: 3,
          }),
        ),
        { seed, numRuns: 1500 },
      )
      .map(([g, n]) => [g.join(''), n.join('')] as const);
    // One bash for every pair: `[[ name == glob ]]` is bash's own pattern matching.
    const script = pairs
      .map(([g, n]) => `[[ ${JSON.stringify(n)} == ${g} ]] && echo 1 || echo 0`)
      .join('\n');
    const answers = execFileSync('bash', [], { input: script, encoding: 'utf8' })
      .trim()
      .split('\n');
    const differ = pairs.filter(([g, n], i) => globMatches(n, g) !== (answers[i] === '1'));
    expect(differ).toEqual([]);
  });
});
