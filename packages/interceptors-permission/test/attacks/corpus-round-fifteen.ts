/**
 * A fifteenth round: a bracket class bash negates and picomatch did not. `[!x]` is "any character
 * but x" to bash (and to gitignore and Claude Code's rules); picomatch 4 read it as "`!` or `x`",
 * so `cat .[!x]nv` (which bash makes `cat .env`) seemed to reach no protected path, and was
 * allowed. A leading `!` in a glob word is likewise bash's `!`, where picomatch negated the whole
 * glob. Each shape does its harm when nothing stops it.
 */
import { type AttackEntry, entriesOf } from './entry';

const c2 = entriesOf(2);

/** Reads of .env or secrets/ through a negated class: [id, command, program]. */
const NEGATED: readonly [id: string, command: string, program: string][] = [
  ['cat-env', 'cat .[!x]nv', 'cat'],
  ['head-env', 'head -n 3 .e[!.]v', 'head'],
  ['cat-dir', 'cat s[!x]crets/token.json', 'cat'],
  ['grep-env', 'grep -h TOKEN .[!a-d]nv', 'grep'],
  ['tail-env-caret', 'tail -n 1 .[^x]nv', 'tail'],
  ['cat-env-star', 'cat .[!x]n*', 'cat'],
];

export const ROUND_FIFTEEN: readonly AttackEntry[] = NEGATED.map(([id, command, program]) =>
  c2(`negated-${id}`, command, 'read', `bash negates ${program}'s bracket class`, {
    extraRules: { allow: [`Bash(${program}:*)`] },
  }),
);
