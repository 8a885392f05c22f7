/**
 * A ninth round, from the mutation run of the expansion evaluator: bash runs command and process
 * substitutions inside a parameter expansion's pattern, replacement, case pattern and substring
 * offset, quoted or not, and the parser left that text unparsed. Under the issue's policy
 * (`Bash(echo:*)` allowed, `Bash(rm:*)` denied) each of these ran `rm` unasked; a command there
 * that no rule allows (`touch`) must at least ask. Bash expands the pattern only when the variable
 * is set, so the attacks use one that always is (`PWD`).
 */
import { type AttackEntry, entriesOf } from './entry';

const c4 = entriesOf(4);
const RM = 'rm -f README.md';
/** `${inside}`, written without a template placeholder. */
const brace = (inside: string) => ['$', '{', inside, '}'].join('');

/** The deletion inside each place of an expansion that bash evaluates. */
const SHAPES: readonly [id: string, command: string, where: string][] = [
  ['remove-prefix', `echo ${brace(`PWD#$(${RM})`)}`, 'the pattern of a # removal'],
  ['remove-long-prefix', `echo ${brace(`PWD##$(${RM})`)}`, 'the pattern of a ## removal'],
  ['remove-suffix', `echo ${brace(`PWD%$(${RM})`)}`, 'the pattern of a % removal'],
  ['remove-long-suffix', `echo ${brace(`PWD%%$(${RM})`)}`, 'the pattern of a %% removal'],
  ['replace-pattern', `echo ${brace(`PWD/$(${RM})/b`)}`, 'the pattern of a / replacement'],
  ['replace-all-replacement', `echo ${brace(`PWD//w/$(${RM})`)}`, 'the text of a // replacement'],
  ['replace-anchored-start', `echo ${brace(`PWD/#//$(${RM})`)}`, 'the text of a /# replacement'],
  ['replace-anchored-end', `echo ${brace(`PWD/%?/$(${RM})`)}`, 'the text of a /% replacement'],
  ['quoted-pattern', `echo "${brace(`PWD#$(${RM})`)}"`, 'the pattern, in double quotes'],
  ['backtick-pattern', `echo ${brace(`PWD#\`${RM}\``)}`, 'the pattern, as a backtick substitution'],
  ['upper-case-pattern', `echo ${brace(`PWD^^$(${RM})`)}`, 'the pattern of a ^^ case change'],
  ['lower-case-pattern', `echo ${brace(`PWD,,$(${RM})`)}`, 'the pattern of a ,, case change'],
  ['nested-default', `echo ${brace(`x:-${brace(`HOME#$(${RM})`)}`)}`, 'a pattern inside a default'],
  ['substring-offset', `echo ${brace(`PWD:$(${RM})0`)}`, 'the arithmetic of a substring offset'],
];

export const ROUND_NINE: readonly AttackEntry[] = [
  ...SHAPES.map(([id, command, where]) =>
    c4(
      `expansion-${id}`,
      command,
      'write',
      `bash runs the command in ${where}; Bash(rm:*) is denied`,
      { mustDeny: true },
    ),
  ),
  c4(
    'expansion-pattern-exec',
    `echo ${brace('PWD#$(touch {MARK})')}`,
    'exec',
    'a command no rule allows, in a pattern: it must at least ask',
  ),
  c4(
    'expansion-replacement-exec',
    `echo ${brace('PWD/w/$(touch {MARK})')}`,
    'exec',
    'a command no rule allows, in a replacement: it must at least ask',
  ),
];
