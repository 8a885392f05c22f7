/**
 * The permission rules' glob dialect (the policy kit's `globMatcher`: picomatch, `dot: true`) and the sandbox's plain dialect
 * (the policy kit's `plainGlobRegExp`) are one dialect where it matters: a rule's glob handed to
 * the sandbox (`toSandboxGlobs`) must cover, on every absolute normalised path, at least what the
 * rule matches, or a misread command could reach in the sandbox what the rule denies.
 */
import { globMatches, parsePlainGlob, plainGlobRegExp } from '@dsh-tools/policy-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toSandboxGlobs } from './narrowing';

const seed = Number(process.env.FC_SEED ?? 29);
console.info(`glob dialects property tests: fast-check seed ${seed}`);

/** Whether the sandbox's globs for `glob` cover `path`; a glob the sandbox refuses covers nothing. */
const sandboxCovers = (glob: string, path: string): boolean =>
  toSandboxGlobs(glob).some((g) => {
    const parsed = parsePlainGlob(g, '/cwd', '/home/u');
    if (typeof parsed === 'string') throw new Error(`${glob} -> ${g} refused: ${parsed}`);
    return plainGlobRegExp(parsed.prefix, parsed.rest).test(path);
  });

const NAMES = [
  ...['a', 'b', 'c', 'ab', '.a', 'a.b', '.env', 'x\u{1F600}', 'a+b', 'a@b'],
  ...['1', '2', '3', '01', '02', 'x1y', 'x2y', 'a1', '{a}', 'a,b'],
  ...['a*b', 'a|b', '(a)', '[a]', 'a]', 'a[', 'a\\b', '!a'],
];
const PATTERNS = [
  ...['*', '?', '**', 'a*', '*.b', '?b', '.*', '*a*', '[ab]', '@(a|b)'],
  // Every kind of brace picomatch reads: a list, nested, with an empty member, a range of
  // numbers or letters (padded, stepped), a lone member, braces inside a name.
  ...['{a,b}', '{a,{b,ab}}', '{,a}', '{1..3}', '{a..c}', '{01..02}', '{1..3..2}', '{a}'],
  ...['x{1..2}y', 'a{1,2}', '{a,b}{1,2}'],
  // Every other kind of picomatch syntax: POSIX classes, groups and their alternation (a `|`
  // outside a group alternates the whole pattern), extglobs, escapes, a bracket left open.
  ...['[[:digit:]]', '[[:alpha:]]*', '[!a]', '[a-c]', '(a|b)', '(a|ab)*', 'a|b', '*(a)', '+(a)'],
  ...['!(a)', '?(a)b', '@(a/b|c)', '(b/a|1)', 'a\\*b', '\\[a\\]', 'a[*]b', 'a[', '!a'],
];

describe('a rule glob and the sandbox globs it becomes', () => {
  it('property: the sandbox covers every path the rule matches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...NAMES, ...PATTERNS), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 5 }),
        (globParts, pathParts) => {
          const glob = `/${globParts.join('/')}`;
          const path = `/${pathParts.join('/')}`;
          if (globMatches(path, glob)) {
            expect(sandboxCovers(glob, path), `${glob} matches ${path}`).toBe(true);
          }
        },
      ),
      { seed, numRuns: 5000 },
    );
  });

  it('the cases a hand-picked list pins', () => {
    for (const [glob, path] of [
      ['/**/.env', '/w/.env'],
      ['/a/*', '/a/.hidden'],
      ['/a/?.b', '/a/\u{1F600}.b'],
      ['/a/{b,.c}/*', '/a/.c/d'],
      ['/a/[bc]', '/a/c'],
    ] as const) {
      expect(sandboxCovers(glob, path), `${glob} ${path}`).toBe(true);
    }
  });
});
