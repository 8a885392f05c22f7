import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSchema } from './index';
import { linearFormats } from './schema-formats';
import { linearPattern, PatternRefusal, translatePattern } from './schema-regex';

/** Patterns that take exponential time on a backtracking engine, as a class. */
const catastrophic = [
  '^(a+)+$',
  '^(a|a)+$',
  '^(a|aa)+$',
  '^(a*)*$',
  '^(\\w+\\s?)+$',
  '^([a-zA-Z0-9]+)*@$',
  '(x+x+)+y',
  '^(.*a){20}$',
  '^(a?){30}a{30}$',
];

describe('patterns run on the linear-time engine', () => {
  it('answers catastrophic patterns against hostile 10 KB strings (a backtracking engine would never return)', () => {
    for (const pattern of catastrophic) {
      const check = compileSchema({ type: 'string', pattern });
      for (const input of [
        `${'a'.repeat(10_000)}!`,
        `${'x'.repeat(10_000)}!`,
        `${'a '.repeat(5_000)}!`,
      ]) {
        expect(check.validate(input)).toMatch(/must match pattern/);
      }
    }
    expect(compileSchema({ pattern: '^(a+)+$' }).validate('a'.repeat(10_000))).toBeUndefined();
  });

  it('runs patternProperties on it too', () => {
    const check = compileSchema({
      type: 'object',
      patternProperties: { '^(a+)+$': { type: 'number' } },
      additionalProperties: false,
    });
    expect(check.validate({ [`${'a'.repeat(5_000)}!`]: 1 })).toMatch(
      /must NOT have additional properties/,
    );
    expect(check.validate({ aaa: 'x' })).toMatch(/"\/aaa" must be number/);
    expect(check.validate({ aaa: 1 })).toBeUndefined();
  });

  it('refuses, as a class, what RE2 cannot run: backreferences and lookaround', () => {
    for (const pattern of [
      '(a)\\1',
      '(?<x>a)\\k<x>',
      '(a+)+\\1$',
      'a(?=b)',
      'a(?!b)',
      '(?<=a)b',
      '(?<!a)b',
    ]) {
      expect(() => linearPattern(pattern)).toThrow(PatternRefusal);
      expect(() => compileSchema({ pattern })).toThrow(/at "\/pattern": the pattern .* is refused/);
    }
  });

  it('keeps ECMAScript meaning where RE2 syntax differs', () => {
    const same = (pattern: string, inputs: string[]) => {
      const js = new RegExp(pattern, 'u');
      const re2 = linearPattern(pattern);
      for (const input of inputs)
        expect([pattern, input, re2.test(input)]).toEqual([pattern, input, js.test(input)]);
    };
    const odd = [
      '',
      'a',
      '\n',
      '\r',
      '\u2028',
      '\u00a0',
      '\u3000',
      '\v',
      ' ',
      'ab',
      '[:',
      '😀',
      ']',
      'a]',
    ];
    for (const pattern of [
      '^.$',
      '^\\s$',
      '^\\S$',
      '^[\\s]$',
      '^[^]$',
      '[]',
      '^[[:]+$',
      '^[^a]$',
      '^\\u{1F600}$',
      '^\\uD83D\\uDE00$',
      '^(?<n>a)b$',
      '^\\x61$',
      '^\\u0061$',
      '\\/',
      '^[\\b]$',
      '^\\cJ$',
      '^\\0$',
      '^[a\\-z]+$',
      '^\\p{L}+$',
      '^\\p{Script=Latin}$',
      '^a[]$',
    ]) {
      same(pattern, odd);
    }
    expect(translatePattern('(?<name>x)')).toBe('(x)');
  });

  it('agrees with ECMAScript on generated patterns and strings', () => {
    const atom = fc.constantFrom(
      'a',
      'b',
      '.',
      '\\s',
      '\\S',
      '\\d',
      '\\w',
      '[ab]',
      '[^a]',
      '\\n',
      ' ',
      '(?:a|b)',
      '[\\s\\d]',
      '\\u00a0',
    );
    const piece = fc
      .tuple(atom, fc.constantFrom('', '*', '+', '?', '{1,2}', '*?'))
      .map(([a, q]) => a + q);
    const pattern = fc
      .tuple(
        fc.boolean(),
        fc.array(piece, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
      )
      .map(
        ([start, pieces, alt, end]) =>
          `${start ? '^' : ''}${pieces.join(alt ? '|' : '')}${end ? '$' : ''}`,
      );
    const text = fc.string({
      unit: fc.constantFrom('a', 'b', '1', ' ', '\n', '\u2028', '\u00a0', '\t', '😀', '_'),
      maxLength: 8,
    });
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 5 }), (p, inputs) => {
        const js = new RegExp(p, 'u');
        const re2 = linearPattern(p);
        for (const input of inputs) if (js.test(input) !== re2.test(input)) return false;
        return true;
      }),
      { numRuns: 500 },
    );
  });

  it('checks formats with linear patterns, the lookahead ones rewritten with the same meaning', () => {
    const formats = linearFormats();
    const check = (name: string, value: string) =>
      (formats.get(name) as { validate: (v: string) => boolean }).validate(value);
    expect(check('duration', 'P1DT2H')).toBe(true);
    expect(check('duration', 'P')).toBe(false);
    expect(check('duration', 'P1DT')).toBe(false);
    expect(check('duration', 'PT1S')).toBe(true);
    expect(check('hostname', 'example.com')).toBe(true);
    expect(check('hostname', `${'a.'.repeat(126)}a`)).toBe(true);
    expect(check('hostname', `${'a.'.repeat(127)}a`)).toBe(false);
    expect(check('hostname', '-x.com')).toBe(false);
    expect(check('email', 'a@b.co')).toBe(true);
    expect(check('date-time', '2024-01-02T03:04:05Z')).toBe(true);
    expect(check('date-time', '2024-01-02 03:04:05')).toBe(false);
    expect(check('byte', 'aGVsbG8=')).toBe(true);
    expect(check('ipv4', '256.1.1.1')).toBe(false);
    expect(formats.has('url')).toBe(false);
  });
});
