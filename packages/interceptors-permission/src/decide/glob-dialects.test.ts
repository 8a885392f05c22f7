/**
 * The permission rules' glob dialect (the policy kit's `globMatcher`: picomatch, `dot: true`) and the sandbox's plain dialect
 * (the policy kit's `plainGlobRegExp`) are one dialect where it matters: a rule's glob handed to
 * the sandbox (`toSandboxGlobs`) must cover, on every absolute normalised path, at least what the
 * rule matches, or a misread command could reach in the sandbox what the rule denies.
 */
import { globMatches, parsePlainGlob, plainGlobRegExp } from '@dsh-tools/policy-kit';
import fc from 'fast-check';
import picomatch from 'picomatch';
import RandExp from 'randexp';
import { describe, expect, it } from 'vitest';
import { sandboxNarrowing, toSandboxGlobs } from './narrowing';
import { readOptions } from './options';
import { patternsOf } from './policy-index';

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

/**
 * The pieces a rule is made of: text, every kind of picomatch syntax (braces of every shape,
 * brackets with POSIX classes and `/`, groups and extglobs, `|`, quantifiers after a group,
 * escapes, quotes), and what the sandbox's own dialect refuses (`~` at a component's start).
 */
const RULE_PIECES = [
  ...['a', 'b', 'ab', '.a', 'a b', 'é', '😀', '~x', 'a.b', '-', ',', '@', '+', '$', '='],
  ...['*', '?', '**', '??', 'a*', '*a', 'a**', '***', '*.pem'],
  ...['[ab]', '[!a]', '[^a]', '[]a]', '[a-c]', '[+-0]', '[a/]', '[\\W]', '[[:punct:]]'],
  ...['[^[:alpha:]]', '[[:digit:]]', '[a', 'a]'],
  ...['{a,b}', '{a,{b,c}}', '{,a}', '{a}', '{1..3}', '{a..c}', '{01..09}', '{1..3,w}'],
  ...['{a|b,c}', '{(a,b),c}', '{a\\,b,c}', '{a/b,c}', '{.,a}', '{a,b', 'a}', '{a,b}+'],
  ...['(a|b)', '(ab)?', '(ab)+', '[0-9]+', '(a/b)', '(**)', '(a', 'a)'],
  ...['@(a|b)', '!(a)', '+(a)', '*(a)', '?(a)', '@(a/b|c)', '@(a)?'],
  ...['|', '|*/**', '|**/x', '\\/', '\\*', '\\d', '\\.', '"a b"', '"a'],
];
const PATH_ALPHABET = [...'ab/.-0123,{}[]()|!\\"~ xyz_+@*?$:', 'é', '😀'];

/** The policy of one deny rule (cwd /w, home /h), or `undefined` when the rule is refused. */
const policyOf = (rule: string) => {
  try {
    return readOptions({ cwd: '/w', home: '/h', rules: { deny: [rule] } }).policy;
  } catch {
    return undefined;
  }
};

/** A normalised absolute path, as the kernel and the permission layer see one. */
const normalised = (p: string): boolean =>
  p.startsWith('/') &&
  p.length > 1 &&
  !p.endsWith('/') &&
  !p.includes('//') &&
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(p) &&
  !p.split('/').some((c) => c === '.' || c === '..');

describe('a rule glob and the sandbox globs it becomes', () => {
  it('property: the sandbox covers every path a deny rule denies, whatever its syntax', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('./', '', '~/', '//w/', '/', '**/'),
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom(...RULE_PIECES)), {
          minLength: 1,
          maxLength: 3,
        }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        (start, pieces, sampling) => {
          const spec =
            start + pieces.map(([slash, p], i) => (i > 0 && slash ? `/${p}` : p)).join('');
          const rule = `Read(${spec})`;
          const policy = policyOf(rule);
          // A rule the policy refuses denies nothing.
          if (policy === undefined) return;
          const [parsed] = policy.rules;
          // A rule on the whole tool (`Read(*)`) is no path rule: the sandbox cannot hold it.
          if (parsed?.specifier === undefined) return;
          const patterns = patternsOf(parsed, '/h');
          const held = sandboxNarrowing(policy).denyRead ?? [];
          const covers = held.map((g) => {
            const plain = parsePlainGlob(g, '/w', '/h');
            if (typeof plain === 'string') throw new Error(`${rule} -> ${g} refused: ${plain}`);
            return plainGlobRegExp(plain.prefix, plain.rest);
          });
          // Candidate paths: each glob's own text, and strings its picomatch expression accepts
          // (lookarounds aside: the pattern's own test decides), drawn by randexp.
          let state = sampling;
          const random = (a: number, b: number): number => {
            state = (state * 1103515245 + 12345) % 2 ** 31;
            return a + (state % (b - a + 1));
          };
          const paths = new Set<string>();
          for (const { glob } of patterns) {
            for (const g of [glob, `${glob}/**`]) {
              paths.add(g);
              const sampler = new RandExp(picomatch.makeRe(g, { dot: true }));
              sampler.max = 3;
              sampler.randInt = random;
              sampler.defaultRange.subtract(0, 0x10ffff);
              for (const ch of PATH_ALPHABET) sampler.defaultRange.add(ch.codePointAt(0)!);
              for (let i = 0; i < 12; i++) paths.add(sampler.gen());
            }
          }
          for (const path of paths) {
            if (!normalised(path) || !patterns.some((p) => p.test(path))) continue;
            expect(
              covers.some((re) => re.test(path)),
              `${rule} denies ${path}; the sandbox holds ${JSON.stringify(held)}`,
            ).toBe(true);
          }
        },
      ),
      { seed, numRuns: 3000 },
    );
  });

  it('property: the sandbox covers every path a glob matches below its literal prefix', () => {
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
