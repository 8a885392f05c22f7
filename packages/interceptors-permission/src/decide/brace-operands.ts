import { expandBraces } from '../shell/braces';
import type { ShellWord } from '../shell/words';
import { type Part, RANK } from './parts';

/** More words than this from one operand are not judged one by one: the operand asks. */
const MAX_BRACE_WORDS = 256;

/**
 * A file operand with braces judged as the words bash gives the program (`cat {x,secrets/key}`
 * reads `x` and `secrets/key`: as one glob the word names neither, its `/` being inside the
 * braces): each word by `judge`, the worst verdict kept, a deny at once. `undefined` when no brace
 * of the word expands (the caller judges it as it is).
 */
export function judgeBraceWords(
  word: ShellWord,
  subject: string,
  judge: (each: ShellWord) => Part | undefined,
): Part | undefined | 'as is' {
  if (!word.glob || !word.value.includes('{')) return 'as is';
  const words = expandBraces(word.value, MAX_BRACE_WORDS);
  if (words === undefined) {
    return {
      severity: 'maybe',
      subject,
      reason: `the braces of ${word.text} make more than ${MAX_BRACE_WORDS} words, too many to judge each against the path rules`,
    };
  }
  if (words.length === 1 && words[0] === word.value) return 'as is';
  let worst: Part | undefined;
  for (const value of words) {
    // bash drops an empty word (`x{,}` is `x` once).
    if (value === '') continue;
    const part = judge({ value, literal: true, glob: /[*?[]/.test(value), text: word.text });
    if (part?.severity === 'deny') return part;
    if (part && (!worst || RANK[part.severity] > RANK[worst.severity])) worst = part;
  }
  return worst;
}
