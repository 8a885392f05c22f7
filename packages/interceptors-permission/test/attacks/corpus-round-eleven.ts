/**
 * An eleventh round, from the fifth mutation run: `[[ -v NAME ]]`, `[ -v NAME ]` and `test -v
 * NAME` evaluate NAME's subscript, and the analyzer checked that only when NAME was written out.
 * A name held in a variable (`x='a[$(…)]'; [[ -v $x ]]`) was read as a line that runs nothing,
 * so it was allowed under any policy, with no rule naming it; and so was an operator held in a
 * variable (`op=-v; [ $op "$x" ]`). Each shape below creates the marker when nothing stops it
 * (bash 5.2 runs the substitution while it looks the name up); no rule allows it, so anything but
 * an allow is a stop.
 */
import { type AttackEntry, entriesOf } from './entry';

const c4 = entriesOf(4);

/** A name whose subscript runs `touch {MARK}` when bash looks it up. */
const X = "x='a[$(touch {MARK})]'";

const SHAPES: readonly [id: string, command: string][] = [
  ['dbracket-v-var', `${X}; [[ -v $x ]]`],
  ['dbracket-v-braced', `${X}; [[ -v \${x} ]]`],
  ['dbracket-v-quoted', `${X}; [[ -v "$x" ]]`],
  ['dbracket-not-v', `${X}; [[ ! -v $x ]]`],
  ['dbracket-v-or', `${X}; [[ -v $x ]] || echo unset`],
  ['dbracket-v-and', `${X}; [[ -v $x && -n 1 ]]`],
  ['dbracket-v-if', `${X}; if [[ -v $x ]]; then echo set; fi`],
  ['bracket-v-var', `${X}; [ -v "$x" ]`],
  ['bracket-not-v', `${X}; [ ! -v "$x" ]`],
  ['test-v-braced', `${X}; test -v "\${x}"`],
  ['dbracket-v-function-local', `f() { local ${X}; [[ -v $x ]]; }; f`],
  ['bracket-op-var', `op=-v; ${X}; [ $op "$x" ]`],
  ['test-op-var', `op=-v; ${X}; test $op "$x"`],
  ['bracket-op-quoted', `op=-v; ${X}; [ "$op" "$x" ]`],
  ['dbracket-v-subshell', `${X}; ( [[ -v $x ]] )`],
  ['dbracket-v-group', `${X}; { [[ -v $x ]]; }`],
  ['dbracket-v-while', `${X}; while [[ -v $x ]]; do break; done`],
  ['dbracket-v-declared', `declare ${X}; [[ -v $x ]]`],
  ['dbracket-v-exported', `export ${X}; [[ -v $x ]]`],
  ['dbracket-v-readonly', `readonly ${X}; [[ -v $x ]]`],
  ['dbracket-v-indirect-name', `${X}; y=x; [[ -v \${!y} ]]`],
];

export const ROUND_ELEVEN: readonly AttackEntry[] = SHAPES.map(([id, command]) =>
  c4(
    `name-not-known-${id}`,
    command,
    'exec',
    'test -v evaluates the subscript of a name known only when the line runs',
  ),
);
