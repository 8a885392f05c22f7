/**
 * How a shell rule's specifier meets a command's words (match.ts): the glob form with words not
 * known before they run, the optional trailing wildcard, the prefix and exact forms when words
 * are missing or extra. Each test fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found without coverage in shell/match.ts.
 */
import { describe, expect, it } from 'vitest';
import { parseRule, type ShellSpec } from '../decide/rules';
import { foldLookAlike, matchShell, suspiciousCharacter, wildcardMatch } from './match';
import type { ShellWord } from './words';

const spec = (text: string): ShellSpec => {
  const rule = parseRule(
    `Bash(${text})`,
    'deny',
    { list: 'deny', index: 0, source: 't' },
    '/',
    '/',
  );
  if (rule.shell === undefined) throw new Error(`no shell form for ${text}`);
  return rule.shell;
};
const w = (value: string): ShellWord => ({ value, literal: true, glob: false, text: value });
const unknown = (text: string): ShellWord => ({ value: text, literal: false, glob: false, text });
const globbed = (text: string): ShellWord => ({ value: text, literal: true, glob: true, text });

describe('look-alike folding', () => {
  const INVISIBLE = [
    0xad, 0x34f, 0x61c, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180b, 0x180f, 0x200b, 0x200f, 0x202a,
    0x202e, 0x2060, 0x206f, 0x3164, 0xfe00, 0xfe0f, 0xfeff, 0xffa0,
  ];
  it.each(INVISIBLE.map((c) => [c.toString(16), c]))('U+%s is removed', (_, code) => {
    expect(foldLookAlike(`r${String.fromCodePoint(code as number)}m`)).toBe('rm');
  });

  // Each is left alone by NFKC, so only the ranges decide.
  it.each([0x180a, 0x1810, 0x2010, 0x2029, 0x2030, 0x2072, 0xfe1a])(
    'U+%s just outside is kept',
    (code) => {
      expect(String.fromCodePoint(code).normalize('NFKC').codePointAt(0)).toBe(code);
      expect(foldLookAlike(`r${String.fromCodePoint(code)}m`)).not.toBe('rm');
    },
  );
});

describe('names', () => {
  it('the first character outside printable ASCII, by its code point', () => {
    expect(suspiciousCharacter('r m')).toBe('U+0020');
    expect(suspiciousCharacter('r\u0000')).toBe('U+0000');
    expect(suspiciousCharacter('a!~')).toBeUndefined();
    expect(suspiciousCharacter('\u00e9')).toBe('U+00E9');
  });

  it('a deny rule on a full path matches that path as written', () => {
    expect(matchShell(spec('/bin/rm:*'), [w('/bin/rm'), w('x')], 'deny')).toBe('yes');
    expect(matchShell(spec('rm:*'), [w('/bin/rm'), w('x')], 'deny')).toBe('yes');
  });
});

describe('wildcards', () => {
  it('a star backtracks, trailing stars match nothing, a mismatch without one fails', () => {
    expect(wildcardMatch('\u0000bc', 'abxbc')).toBe(true);
    expect(wildcardMatch('a\u0000c', 'abbc')).toBe(true);
    expect(wildcardMatch('a\u0000b\u0000c', 'axbyc')).toBe(true);
    expect(wildcardMatch('a\u0000\u0000', 'a')).toBe(true);
    expect(wildcardMatch('a\u0000c', 'abd')).toBe(false);
    expect(wildcardMatch('ab', 'ac')).toBe(false);
    expect(wildcardMatch('ab', 'abc')).toBe(false);
    expect(wildcardMatch('abc', 'ab')).toBe(false);
  });
});

describe('the glob form', () => {
  it('with a word not known before it runs: maybe for a deny, no for an allow', () => {
    expect(matchShell(spec('rm *'), [w('rm'), unknown('$x')], 'deny')).toBe('maybe');
    expect(matchShell(spec('rm *'), [w('rm'), globbed('*.ts')], 'deny')).toBe('maybe');
    expect(matchShell(spec('rm *'), [w('rm'), unknown('$x')], 'allow')).toBe('no');
    expect(matchShell(spec('rm *'), [w('ls'), unknown('$x')], 'deny')).toBe('no');
    expect(matchShell(spec('rm *'), [unknown('$p'), w('x')], 'deny')).toBe('maybe');
    expect(matchShell(spec('* --force'), [w('ls'), unknown('$x')], 'deny')).toBe('maybe');
  });

  it('a trailing " *" also matches nothing; other globs must match the whole line', () => {
    expect(matchShell(spec('ls *'), [w('ls')], 'allow')).toBe('yes');
    expect(matchShell(spec('ls *'), [w('lsx')], 'allow')).toBe('no');
    expect(matchShell(spec('git * main'), [w('git'), w('push'), w('dev')], 'deny')).toBe('no');
    expect(matchShell(spec('git * main'), [w('/usr/bin/git'), w('push'), w('main')], 'deny')).toBe(
      'yes',
    );
  });
});

describe('the prefix and exact forms', () => {
  it('no words at all match nothing', () => {
    expect(matchShell(spec('rm:*'), [], 'deny')).toBe('no');
  });

  it('a program name not known before it runs: never for an allow, maybe for a deny', () => {
    expect(matchShell(spec('git push:*'), [unknown('$g'), w('push')], 'allow')).toBe('no');
    expect(matchShell(spec('git push:*'), [unknown('$g')], 'deny')).toBe('maybe');
  });

  it('a word not known where the rule names one', () => {
    expect(matchShell(spec('git push:*'), [w('git'), unknown('$s')], 'allow')).toBe('no');
    expect(matchShell(spec('git push:*'), [w('git'), unknown('$s')], 'deny')).toBe('maybe');
    expect(matchShell(spec('git push:*'), [w('git')], 'deny')).toBe('no');
  });

  it('an exact rule with more words: maybe only when one is not known', () => {
    expect(matchShell(spec('git status'), [w('git'), w('status'), unknown('$x')], 'deny')).toBe(
      'maybe',
    );
    expect(matchShell(spec('git status'), [w('git'), w('status'), w('x')], 'deny')).toBe('no');
    expect(matchShell(spec('git status'), [w('git'), w('status'), unknown('$x')], 'allow')).toBe(
      'no',
    );
    expect(matchShell(spec('git status'), [w('git'), w('status')], 'allow')).toBe('yes');
  });
});
