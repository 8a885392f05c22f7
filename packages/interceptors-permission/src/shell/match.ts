import type { ShellSpec } from '../decide/rules';
import { baseName } from './names';
import type { ShellWord } from './words';

/** Whether a rule matches: certainly, possibly (a word the parser cannot know), or not. */
export type Match = 'yes' | 'maybe' | 'no';

/** Characters that render as nothing (zero-width, joiners, direction marks, variation selectors). */
const isInvisible = (code: number): boolean =>
  code === 0xad ||
  code === 0x34f ||
  code === 0x61c ||
  code === 0x115f ||
  code === 0x1160 ||
  code === 0x17b4 ||
  code === 0x17b5 ||
  (code >= 0x180b && code <= 0x180f) ||
  (code >= 0x200b && code <= 0x200f) ||
  (code >= 0x202a && code <= 0x202e) ||
  (code >= 0x2060 && code <= 0x206f) ||
  code === 0x3164 ||
  (code >= 0xfe00 && code <= 0xfe0f) ||
  code === 0xfeff ||
  code === 0xffa0;

/** Latin look-alikes from Cyrillic, Greek and other scripts that NFKC leaves alone. */
const HOMOGLYPHS: Record<string, string> = {
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  һ: 'h',
  і: 'i',
  ј: 'j',
  к: 'k',
  ӏ: 'l',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  г: 'r',
  ѕ: 's',
  т: 't',
  у: 'y',
  х: 'x',
  ԝ: 'w',
  ь: 'b',
  п: 'n',
  л: 'n',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  μ: 'u',
  ɡ: 'g',
  ɑ: 'a',
  ɩ: 'i',
  ո: 'n',
  ս: 'u',
  օ: 'o',
  ᴍ: 'm',
  ʀ: 'r',
  ꜱ: 's',
};

/**
 * What a look-alike name imitates: NFKC (fullwidth `ｒｍ` → `rm`), invisible characters removed,
 * look-alike letters mapped to Latin, lower-cased (case-insensitive file systems run `RM` as `rm`).
 * Used only to catch deny rules, never to allow.
 */
export function foldLookAlike(name: string): string {
  let out = '';
  for (const ch of name.normalize('NFKC').toLowerCase()) {
    if (!isInvisible(ch.codePointAt(0) as number)) out += HOMOGLYPHS[ch] ?? ch;
  }
  return out;
}

/** The first character outside printable ASCII, as `U+0441`, if any. */
export function suspiciousCharacter(name: string): string | undefined {
  for (const ch of name) {
    const code = ch.codePointAt(0) as number;
    if (code < 0x21 || code > 0x7e) return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return undefined;
}

/** `*`-only wildcard match (the marker `\u0000` stands for `*`), linear in practice. */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '\u0000' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '\u0000') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '\u0000') p++;
  return p === pattern.length;
}

/** The names a command may be running, for deny matching: as written, its base name, folded. */
export function denyNames(word: ShellWord): string[] {
  const base = baseName(word.value);
  // Plain lower-case ASCII folds to itself: skip the Unicode work.
  if (/^[a-z0-9._+-]*$/.test(base)) return base === word.value ? [base] : [word.value, base];
  const names = new Set([word.value, base, foldLookAlike(base)]);
  return [...names];
}

/**
 * Matches a shell specifier against one command's words. For `allow`, every word the rule names
 * must be literal and equal (the program exactly as written: `/tmp/x/git` is not `git`); for
 * `deny`, the program's base name and its look-alike folding count too, and a word that is not
 * known before it runs makes the match `maybe`.
 */
export function matchShell(
  spec: ShellSpec,
  argv: readonly ShellWord[],
  purpose: 'allow' | 'deny',
): Match {
  const name = argv[0];
  if (name === undefined) return 'no';
  const allow = purpose === 'allow';
  const unknownWord = argv.some((w) => !w.literal || w.glob);
  if (allow && !name.literal) return 'no';
  const names = allow ? [name.value] : name.literal ? denyNames(name) : [];
  if (spec.form === 'glob') {
    if (unknownWord) {
      if (allow) return 'no';
      if (!name.literal) return 'maybe';
      return spec.first === undefined || names.includes(spec.first) ? 'maybe' : 'no';
    }
    const rest = argv
      .slice(1)
      .map((w) => w.value)
      .join(' ');
    const optionalTail = spec.pattern.endsWith(' \u0000') ? spec.pattern.slice(0, -2) : undefined;
    for (const n of names) {
      const line = rest === '' ? n : `${n} ${rest}`;
      if (wildcardMatch(spec.pattern, line)) return 'yes';
      if (optionalTail !== undefined && wildcardMatch(optionalTail, line)) return 'yes';
    }
    return 'no';
  }
  const words = spec.words;
  let maybe = false;
  if (!name.literal) maybe = true;
  else if (!names.includes(words[0] as string)) return 'no';
  for (let i = 1; i < words.length; i++) {
    const w = argv[i];
    if (w === undefined) return maybe || (!allow && unknownWord) ? 'maybe' : 'no';
    if (!w.literal || w.glob) {
      if (allow) return 'no';
      maybe = true;
      continue;
    }
    if (w.value !== words[i]) return 'no';
  }
  if (spec.form === 'exact' && argv.length !== words.length) {
    if (allow || !unknownWord) return 'no';
    maybe = true;
  }
  return maybe ? (allow ? 'no' : 'maybe') : 'yes';
}
