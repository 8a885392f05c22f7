import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertySeed } from '../../test/helpers';
import { expandBraces } from './braces';

/**
 * The words bash itself makes of a word, one per line, empty ones left out (bash drops an unquoted
 * empty word: `{,}` makes none).
 */
const bash = (word: string): string[] =>
  execFileSync('bash', ['-c', `printf '%s\\n' ${word}`], { encoding: 'utf8' })
    .split('\n')
    .filter((w) => w !== '');
const ours = (word: string): string[] | undefined => expandBraces(word)?.filter((w) => w !== '');

describe('expandBraces: the words bash makes of braces', () => {
  it.each([
    'x',
    '{x,secrets/key}',
    'a{b,c}d',
    '{a,b}{c,d}',
    '{a,{b,c}}',
    'x{,/../secrets/key}',
    '{1..3}',
    '{3..1}',
    '{a..e..2}',
    '{0..10..5}',
    '{01..10..3}',
    '{-2..2}',
    '{x}',
    '{}',
    'a{b}c{d,e}',
    '{a..c}/../secrets/key',
    '-f{x,.env}',
    '{,}',
    '{a,b',
    'a}b{c,d}',
    '{..{1..3}}',
    '{x{1..2}}',
    '{a}b,c}',
    '{{a}b,c}',
    '{a{b}c,d}',
    'x{a}y{1..2}',
    '{..a}{1..3}',
    '{{1..3}..}',
    '{},}',
    '{},{}',
    '{{},a}',
    '{a,}}',
    '{..a}x,y}',
    'x{},y}',
    '{..a}}{b,c}',
    'a{b,c}{..x}d{1,2}',
    '{1..10..3}',
    '{10..1..4}',
    '{-3..-1}',
    '{-1..01}',
    '{z..w}',
    '{a..c..2}',
    '{05..1..2}',
    '{x1..3}',
    '{1..3x}',
    '{1..20..10}',
    '{xa..c}',
    '{a..cx}',
    '{a..z..10}',
    '{100..98}',
    '{1..100}',
  ])('%s as bash expands it', (word) => {
    expect(ours(word)).toEqual(bash(word));
  });

  it('leaves an open brace after a blank (a quoted one) as it is', () => {
    expect(expandBraces('x {}')).toEqual(['x {}']);
    expect(expandBraces('x { },{a,b}')).toEqual(['x { },a', 'x { },b']);
  });

  it('answers undefined past the limit, however the words are made', () => {
    expect(expandBraces('{a,b}{1..100000}')).toBeUndefined();
    expect(expandBraces('{a,{1..100000}}')).toBeUndefined();
    expect(expandBraces('{1..256}')).toHaveLength(256);
    expect(expandBraces('{1..257}')).toBeUndefined();
    expect(expandBraces('{1..5000}', 5000)).toHaveLength(5000);
    expect(expandBraces('{1..1000000000}', 5000)).toBeUndefined();
    expect(expandBraces('{1..100000}')).toBeUndefined();
    expect(expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toBeUndefined();
    expect(expandBraces('{a,b}{a,b}', 3)).toBeUndefined();
    expect(expandBraces('{a,b}{a,b}', 4)).toHaveLength(4);
  });

  it('agrees with bash on words of letters, commas, braces, dots and slashes (property)', () => {
    const seed = propertySeed('expandBraces');
    const word = fc
      .array(fc.constantFrom('a', 'z', '/', '.', ',', '{', '}', '1', '0', '-', '..', '{1..3}'), {
        maxLength: 10,
      })
      .map((parts) => parts.join(''))
      .filter((w) => w !== '');
    fc.assert(
      fc.property(word, (w) => {
        expect(ours(w), w).toEqual(bash(w));
      }),
      { seed, numRuns: 200 },
    );
  });
});
