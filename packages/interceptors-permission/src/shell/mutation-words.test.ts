/**
 * Quote removal (words.ts): what a word's value is after bash removes quotes and escapes, and
 * whether it is known before it runs. Each test fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving or without coverage in shell/words.ts. Values are
 * bash's (`printf '%s' WORD`), except where the analyzer is deliberately more careful (marked).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, parseShell, type ShellNode } from './parser';
import { decodeAnsiC, evalWord, isProcessSubstitution, type ShellWord } from './words';

beforeAll(() => loadShellParser());

/** The first argument of the command `echo WORD`, read by `evalWord` on the raw source. */
const word = (text: string): ShellWord => {
  const parsed = parseShell(`echo ${text}`);
  if ('error' in parsed) throw new Error(parsed.error);
  const find = (n: ShellNode): ShellNode | undefined => {
    if (n.type === 'command') return n.children.find((c) => c.field === 'argument');
    for (const c of n.children) {
      const hit = find(c);
      if (hit) return hit;
    }
    return undefined;
  };
  const node = find(parsed.root);
  if (node === undefined) throw new Error(`no argument in echo ${text}`);
  return evalWord(node, parsed.source);
};
const known = (text: string) => {
  const w = word(text);
  return { value: w.value, literal: w.literal, glob: w.glob };
};

describe('unquoted words', () => {
  it('~+ is the working directory, written as .', () => {
    expect(known('~+')).toEqual({ value: '.', literal: true, glob: false });
    expect(known('~+/src')).toEqual({ value: './src', literal: true, glob: false });
  });

  it('~user depends on the password database, ~ and ~/x do not', () => {
    expect(known('~u').literal).toBe(false);
    expect(known('~user/x').literal).toBe(false);
    expect(known('~').literal).toBe(true);
    expect(known('~/x').literal).toBe(true);
    // Not at the start, or escaped, it is a plain character.
    expect(known('x~u').literal).toBe(true);
    expect(known('\\~u')).toEqual({ value: '~u', literal: true, glob: false });
  });

  it('a backslash keeps the next character, and a trailing one or a newline adds nothing', () => {
    expect(known('r\\m').value).toBe('rm');
    expect(known('a\\ b').value).toBe('a b');
    // The analyzer joins backslash-newline before parsing; the word reader drops it too.
    expect(known('a\\\nb').value).toBe('a');
  });

  it('?, [ and * make a glob', () => {
    expect(known('a?b').glob).toBe(true);
    expect(known('a[b]').glob).toBe(true);
    expect(known('a*').glob).toBe(true);
    expect(known('a\\?b')).toEqual({ value: 'a?b', literal: true, glob: false });
  });

  it('a $ the parser leaves in a word is not known (careful: bash keeps a trailing $)', () => {
    expect(known('a$')).toEqual({ value: 'a$', literal: false, glob: false });
  });

  it('braces with a comma or a range expand; other braces are plain', () => {
    expect(known('{a,b}').glob).toBe(true);
    expect(known('{1..3}').glob).toBe(true);
    expect(known('a{b}').glob).toBe(false);
    expect(known('"{a,b}"').glob).toBe(false);
    expect(known('{a,}').glob).toBe(true);
    // A brace pattern is known text: the names it makes are literal, only several.
    expect(known('{a,b}')).toEqual({ value: '{a,b}', literal: true, glob: true });
  });

  it('an expansion is not known, alone or inside a word', () => {
    expect(known('$x')).toEqual({ value: '$x', literal: false, glob: false });
    expect(known('a$x')).toEqual({ value: 'a$x', literal: false, glob: false });
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell words, not templates
    expect(known('${x}').literal).toBe(false);
    expect(known('$(ls)').literal).toBe(false);
    expect(known('$((1))').literal).toBe(false);
    // `$"…"` (translated text) is read as `$` then a string: not known (careful).
    expect(known('a$"bc"')).toEqual({ value: 'a$bc', literal: false, glob: false });
  });

  it('~user counts only at the start of the whole word', () => {
    expect(known('~u"x"').literal).toBe(false);
    expect(known('"x"~u')).toEqual({ value: 'x~u', literal: true, glob: false });
    expect(known('~+"x"').value).toBe('.x');
  });
});

describe('double quotes', () => {
  it('a backslash escapes only $ ` " \\ and newline', () => {
    expect(known('"a\\$b"')).toEqual({ value: 'a$b', literal: true, glob: false });
    expect(known('"a\\"b\\\\c\\`d\\ne"')).toEqual({
      value: 'a"b\\c`d\\ne',
      literal: true,
      glob: false,
    });
    expect(known('"a\\b"').value).toBe('a\\b');
    expect(known('"\\$"')).toEqual({ value: '$', literal: true, glob: false });
    expect(known('"a\\\nb"').value).toBe('ab');
  });

  it('$ or a backtick inside is not known', () => {
    expect(known('"a$"').literal).toBe(false);
    expect(known('"$"').literal).toBe(false);
    expect(known('"a`ls`"').literal).toBe(false);
  });

  it('text between and around expansions is kept, newlines too', () => {
    expect(known('"a\nb$x\nc"')).toEqual({ value: 'a\nb$x\nc', literal: false, glob: false });
    expect(known('"$x"y').value).toBe('$xy');
    expect(known('"a$(ls)b"').value).toBe('a$(ls)b');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell words, not templates
    expect(known('"${x}"').value).toBe('${x}');
    expect(known('"ab"c').value).toBe('abc');
    expect(known('"$x\n"').value).toBe('$x\n');
    // An expansion keeps its source text: its escapes are not removed as the string's are.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell words, not templates
    expect(known('"a${x:-\\"b\\"}c"').value).toBe('a${x:-\\"b\\"}c');
    expect(known('"\\"$x\\" d"').value).toBe('"$x" d');
  });
});

describe("$'…' (ANSI-C quoting)", () => {
  it('decodes the simple escapes', () => {
    expect(decodeAnsiC('a\\tb')).toBe('a\tb');
    expect(decodeAnsiC('\\\\\\"\\?\\e\\E\\a\\b\\f\\n\\r\\v\\\'')).toBe(
      '\\"?\x1b\x1b\x07\b\f\n\r\v\'',
    );
    expect(known("$'a\\tb'")).toEqual({ value: 'a\tb', literal: true, glob: false });
  });

  it('octal takes at most three digits, from 0 to 7', () => {
    expect(decodeAnsiC('\\101\\1011')).toBe('AA1');
    expect(decodeAnsiC('\\0z\\7')).toBe('\x00z\x07');
    expect(decodeAnsiC('\\08')).toBe('\x008');
    expect(decodeAnsiC('\\8')).toBe('\\8');
    expect(decodeAnsiC('\\-')).toBe('\\-');
    expect(decodeAnsiC('\\1')).toBe('\x01');
  });

  it('hexadecimal and unicode take at most 2, 4 and 8 digits', () => {
    expect(decodeAnsiC('\\x41\\x414')).toBe('AA4');
    expect(decodeAnsiC('\\x4')).toBe('\x04');
    expect(decodeAnsiC('\\u00e9\\u00e9')).toBe('éé');
    expect(decodeAnsiC('\\u00e91')).toBe('é1');
    expect(decodeAnsiC('\\U0001F600')).toBe('😀');
    expect(decodeAnsiC('\\U0001F6001')).toBe('😀1');
    expect(decodeAnsiC('\\U0010FFFF')).toBe('\u{10ffff}');
    expect(decodeAnsiC('\\uzz')).toBeUndefined();
  });

  it('\\cX is a control character; an unknown escape is kept as written', () => {
    expect(decodeAnsiC('\\cA\\q')).toBe('\x01\\q');
    expect(decodeAnsiC('\\c')).toBeUndefined();
    expect(decodeAnsiC('x\\')).toBeUndefined();
  });

  it('what it cannot decode is not known', () => {
    expect(decodeAnsiC('\\xZ')).toBeUndefined();
    expect(decodeAnsiC('\\U00110000')).toBeUndefined();
    expect(known("$'\\xZ'")).toEqual({ value: "$'\\xZ'", literal: false, glob: false });
    expect(known("$'\\c'").literal).toBe(false);
  });
});

describe('other words', () => {
  it('a process substitution is one whole word', () => {
    expect(isProcessSubstitution(word('<(ls)'))).toBe(true);
    expect(isProcessSubstitution(word('>(ls)'))).toBe(true);
    expect(isProcessSubstitution(word('a<(ls)'))).toBe(false);
    expect(isProcessSubstitution(word('<(ls)b'))).toBe(false);
    expect(
      isProcessSubstitution({ value: '<(ls)', literal: true, glob: false, text: '<(ls)' }),
    ).toBe(false);
  });
});
