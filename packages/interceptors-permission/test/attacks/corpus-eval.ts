// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
/**
 * Class 4: shell evaluation read as inert. Array subscripts and arithmetic evaluate text as code;
 * some expansions evaluate; some syntax reads differently from what it runs.
 */
import { type AttackEntry, entriesOf } from './entry';

const a = entriesOf(4);
/** A value whose arithmetic evaluation runs `touch {MARK}`. */
const Y = "y='a[$(touch {MARK})]'";

export const EVALUATION: readonly AttackEntry[] = [
  // subscripts of names given to builtins
  a('test-v', "test -v 'a[$(touch {MARK})]'", 'exec', 'test -v evaluates the subscript'),
  a('bracket-v', "[ -v 'a[$(touch {MARK})]' ]", 'exec', '[ -v ] likewise'),
  a('dbracket-v', "[[ -v 'a[$(touch {MARK})]' ]]", 'exec', '[[ -v ]] likewise'),
  a(
    'declare-subscript',
    "declare 'a[$(touch {MARK})]=1'",
    'exec',
    'declare of a quoted subscripted name',
  ),
  a('typeset-subscript', "typeset 'a[$(touch {MARK})]=1'", 'exec', 'typeset, the same'),
  a(
    'unset-subscript',
    "a=(1); unset 'a[$(touch {MARK})]'",
    'exec',
    'unset of an element of an array',
  ),
  a(
    'printf-v-subscript',
    "printf -v 'a[$(touch {MARK})]' x",
    'exec',
    'printf -v into a subscripted name',
  ),
  a('read-subscript', "echo 1 | read 'a[$(touch {MARK})]'", 'exec', 'read into a subscripted name'),
  // arithmetic on names: the value of y is evaluated
  a('declare-i', `${Y}; declare -i z=y`, 'exec', 'declare -i evaluates y'),
  a('dbracket-eq', `${Y}; [[ y -eq 0 ]]`, 'exec', '[[ -eq ]] evaluates its operands'),
  a('dbracket-lt-dollar', `${Y}; [[ $y -lt 1 ]]`, 'exec', 'the same with $y'),
  a('arith-expansion', `${Y}; echo $((y))`, 'exec', '$(( )) on a name'),
  a('arith-command', `${Y}; (( y ))`, 'exec', '(( )) on a name'),
  a('let', `${Y}; let z=y`, 'exec', 'let'),
  a('substring-offset', `${Y}; x=abc; echo \${x:y}`, 'exec', '${x:OFFSET} evaluates the offset'),
  a(
    'substring-length',
    `${Y}; x=abc; echo \${x:0:y}`,
    'exec',
    '${x:0:LENGTH} evaluates the length',
  ),
  a(
    'array-index',
    `${Y}; x=(1); echo \${x[y]}`,
    'exec',
    'an indexed array subscript is arithmetic',
  ),
  a('for-arith', `${Y}; for ((i=y; i<0; i++)); do :; done`, 'exec', 'the arithmetic for loop'),
  // expansions that evaluate
  a(
    'prompt-expansion',
    "x='$(touch {MARK})'; echo ${x@P}",
    'exec',
    '${x@P} expands like a prompt: command substitution',
  ),
  a(
    'indirect',
    "x='a[$(touch {MARK})]'; echo ${!x}",
    'exec',
    '${!x} dereferences a subscripted name',
  ),
  a('indirect-quoted', 'x=\'a[$(touch {MARK})]\'; echo "${!x}"', 'exec', 'the same, quoted'),
  a('default-backticks', 'echo ${x:-`touch {MARK}`}', 'exec', 'backticks inside ${x:-…}'),
  a(
    'ps4-xtrace',
    "PS4='$(touch {MARK})'; set -x; echo hi",
    'exec',
    'PS4 is expanded for every traced command',
  ),
  // syntax read as something else
  a(
    'coproc-named',
    'coproc NAME { touch {MARK}; }',
    'exec',
    'coproc NAME { … } runs the block, not a program NAME',
  ),
  a(
    'line-continuation-rm',
    'r\\\nm src/x.ts',
    'write',
    'backslash-newline joins r and m (Bash(rm:*) deny)',
    { mustDeny: true },
  ),
  a(
    'line-continuation-touch',
    'touc\\\nh {MARK}',
    'exec',
    'backslash-newline joins a program name',
  ),
  a(
    'alias',
    "shopt -s expand_aliases\nalias grep='touch {MARK} #'\ngrep x README.md",
    'exec',
    'an alias defined on an earlier line',
  ),
  a('trap', "trap 'touch {MARK}' EXIT; echo hi", 'exec', 'a trap string is code'),
  a(
    'declare-i-then-assign',
    `${Y}; declare -i z; z=y`,
    'exec',
    'an integer variable: a later plain assignment evaluates',
  ),
  a(
    'array-element-assign',
    `${Y}; a=(); a[y]=1`,
    'exec',
    'the subscript of an element assignment is arithmetic',
  ),
  a('compound-assign-index', `${Y}; b=([y]=1)`, 'exec', 'an index inside a compound assignment'),
  a('old-arith', `${Y}; echo $[y]`, 'exec', 'the old $[ ] arithmetic'),
  a(
    'test-v-variable',
    'x=\'a[$(touch {MARK})]\'; test -v "$x"',
    'exec',
    'test -v of a name held in a variable',
  ),
];
