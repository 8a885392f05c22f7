import { envAllowed } from '../names';
import { type ShellWord, syntheticWord } from '../words';
import {
  effectsOf,
  flags,
  type Model,
  notUnderstood,
  type OptionTable,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

/** Names a declaration or `printf -v` assigns: a subscript evaluates code, and exports need the allowlist. */
export function judgeAssignedName(raw: ShellWord, fx: ProgramEffects, exported: boolean): void {
  const eq = raw.value.indexOf('=');
  const name = eq < 0 ? raw.value : raw.value.slice(0, eq);
  if (!raw.literal && (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))) {
    notUnderstood(fx, `${raw.text} is not known before it runs`);
    return;
  }
  const bracket = name.indexOf('[');
  if (bracket >= 0 && !/^[A-Za-z_][A-Za-z0-9_]*\[[0-9]+\]$/.test(name)) {
    notUnderstood(
      fx,
      `the subscript of ${name} is evaluated as arithmetic, which may run commands`,
    );
    return;
  }
  const base = bracket < 0 ? name : name.slice(0, bracket);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(base)) {
    notUnderstood(fx, `${name} is not a variable name`);
    return;
  }
  if (!envAllowed(base, exported)) {
    notUnderstood(fx, `it sets ${base}, which may change what later commands run or load`);
  }
}

/** declare / typeset / export / local / readonly. */
export const declare: Model = (argv) => {
  const program = argv[0]?.value ?? 'declare';
  const fx = effectsOf(program);
  let exported = program === 'export';
  let integer = false;
  let array = false;
  const names: ShellWord[] = [];
  for (const w of argv.slice(1)) {
    if (w.literal && /^[-+][a-zA-Z]+$/.test(w.value)) {
      const letters = w.value.slice(1);
      if (letters.includes('x')) exported = true;
      if (letters.includes('i')) integer = true;
      if (/[aA]/.test(letters)) array = true;
      if (letters.includes('n'))
        notUnderstood(fx, `${program} -n makes a name refer to another, evaluated later`);
      if (/[^aAfFgilnprtuxI]/.test(letters))
        notUnderstood(fx, `${program} option ${w.value} is not one the model knows`);
      continue;
    }
    names.push(w);
  }
  // declare, typeset and local assign `(…)` to an array (given -a / -A, or one already) as a
  // compound assignment, export and readonly only given -a / -A; its subscripts are evaluated as
  // arithmetic: `declare -a a='([$(cmd)]=1)'` runs cmd, and so does `a="$v"` with v='([$(cmd)]=1)'.
  const compound = array || (program !== 'export' && program !== 'readonly');
  for (const w of names) {
    judgeAssignedName(w, fx, exported);
    const eq = w.value.indexOf('=');
    if (
      compound &&
      eq >= 0 &&
      (w.literal ? w.value[eq + 1] === '(' : !/^[^=]*=["']?[^"'$`(\\]/.test(w.text))
    )
      notUnderstood(
        fx,
        `${program} ${w.text} may assign a list whose subscripts are evaluated as arithmetic, which may run commands`,
      );
    if (integer && eq >= 0 && !/^-?[0-9]+$/.test(w.value.slice(eq + 1)))
      notUnderstood(fx, `${program} -i evaluates ${w.text} as arithmetic, which may run commands`);
    if (integer && eq < 0)
      notUnderstood(fx, `${program} -i makes later assignments to ${w.value} arithmetic`);
  }
  return fx;
};

/** Parameters whose value is always a number (`$#`, `$?`, `${#x}`): comparing them runs nothing. */
const NUMERIC_PARAMETER = /^"?(\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*\})"?$/;
const ARITHMETIC = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Words after which test and `[` read a unary operator (`[` itself when the parser keeps it). */
const UNARY_POSITION = new Set(['[', '!', '-a', '-o', '(']);
/** test's binary operators: a word before one is its left operand, never an operator. */
const BINARY = new Set([...ARITHMETIC, '=', '==', '!=', '<', '>', '-nt', '-ot', '-ef', '-a', '-o']);
/** test / `[`: `-v name[subscript]` and arithmetic comparisons of names evaluate code. */
export function judgeTestWords(
  words: readonly ShellWord[],
  fx: ProgramEffects,
  arithmetic: boolean,
): void {
  // `[ … ]` ends with `]`, which is no operand.
  const end = words.at(-1)?.value === ']' ? words.length - 1 : words.length;
  words.forEach((w, i) => {
    if (w.literal && (w.value === '-v' || w.value === '-R')) {
      const name = words[i + 1];
      // A name not known before it runs may be one with a subscript: `x='a[$(rm …)]'; [[ -v $x ]]`.
      if (name && !name.literal)
        notUnderstood(
          fx,
          `${w.value} ${name.text} names a variable not known before it runs, whose subscript may run commands`,
        );
      else if (name?.value.includes('[') && !/\[[0-9@*]+\]$/.test(name.value))
        notUnderstood(fx, `${w.value} ${name.text} evaluates a subscript, which may run commands`);
    }
    // test and `[` take their operators from the words as they expand: `[ $op "$x" ]` with
    // op=-v is `-v` on a name not known either.
    if (
      !arithmetic &&
      !w.literal &&
      (i === 0 || UNARY_POSITION.has((words[i - 1] as ShellWord).value)) &&
      i + 1 < end &&
      !BINARY.has((words[i + 1] as ShellWord).value)
    )
      notUnderstood(fx, `${w.text} may be the operator -v, which evaluates a subscript`);
    // `[[ a -eq b ]]` evaluates both sides as arithmetic; `test` and `[` only compare integers.
    if (arithmetic && w.literal && ARITHMETIC.has(w.value)) {
      for (const side of [words[i - 1], words[i + 1]]) {
        if (
          side &&
          !(side.literal && /^\s*-?[0-9]+\s*$/.test(side.value)) &&
          !NUMERIC_PARAMETER.test(side.value)
        )
          notUnderstood(
            fx,
            `${w.value} evaluates ${side.text} as arithmetic, which may run commands`,
          );
      }
    }
  });
}

export const test: Model = (argv) => {
  const fx = effectsOf(argv[0]?.value ?? 'test');
  judgeTestWords(argv.slice(1), fx, false);
  return fx;
};

/** echo / printf print their words; like any program's literal words they are still checked as written. */
export const echo: Model = () => {
  const fx = effectsOf('echo');
  fx.partial = true;
  return fx;
};

export const printf: Model = (argv) => {
  const fx = effectsOf('printf');
  fx.partial = true;
  const first = argv[1];
  if (first === undefined) return fx;
  // bash reads `-vNAME` as `-v NAME`, and takes its options from the words as they expand:
  // `printf "$f" y` with f='-va[$(cmd)]' runs cmd.
  if (!first.literal && !/^["']?[^-"'$`\\]/.test(first.text))
    notUnderstood(fx, `${first.text} may be the option -v, which assigns to a name`);
  else if (first.value === '-v') {
    const name = argv[2];
    if (name) judgeAssignedName(name, fx, false);
  } else if (first.literal && first.value.startsWith('-v'))
    judgeAssignedName(syntheticWord(first.value.slice(2), true), fx, false);
  return fx;
};

/** unset: a subscript (`unset 'a[$(…)]'`) is evaluated as arithmetic. */
export const unset: Model = (argv) => {
  const fx = effectsOf('unset');
  for (const w of argv.slice(1)) {
    if (w.literal && w.value.startsWith('-')) continue;
    if (!w.literal || (w.value.includes('[') && !/\[[0-9@*]+\]$/.test(w.value)))
      notUnderstood(fx, `unset ${w.text} evaluates a subscript, which may run commands`);
  }
  return fx;
};

/**
 * ls lists names and reads no content, and none of its options writes or runs anything: a literal
 * operand is still checked as a path (as for any program), a glob is only a list of names. With
 * `-R` it lists every directory below (the working directory's without an operand), a protected
 * one's names too, so it reads them as `grep -r` does; with `-L` through symbolic links.
 */
export const ls: Model = (argv) => {
  const fx = effectsOf('ls');
  // An option is read from its first letters, quoted or not (`-R"$x"` is `-R` when x is empty).
  const words = argv.slice(1);
  fx.recursive = words.some((w) => /^-[^-]*R/.test(w.value) || /^--rec/.test(w.value));
  if (words.some((w) => /^-[^-]*L/.test(w.value) || w.value === '--dereference'))
    fx.followsLinks = true;
  for (const w of words) {
    // A name not known is listed as a name (`ls "$d"`), but its tree is read by `ls -R "$d"`.
    if (w.literal ? !w.value.startsWith('-') && (!w.glob || fx.recursive) : fx.recursive)
      fx.reads.push(w);
  }
  if (fx.recursive && fx.reads.length === 0) fx.reads.push(syntheticWord('.', true));
  return fx;
};

/** The name `read -a NAME` or `mapfile NAME` assigns, judged as a declaration's. */
const assigned = (v: ShellWord, f: ProgramEffects): void => judgeAssignedName(v, f, false);

const READ_OPTIONS: OptionTable = {
  short: { ...flags('e r s'), ...values('d i n N p t u'), a: assigned },
};

/**
 * read assigns each NAME (and `-a NAME`) what it reads: a subscript in a name is evaluated as
 * arithmetic (`read 'a[$(cmd)]' <<< x` runs cmd), and a name such as PATH changes what later
 * commands run, so each is judged as a declaration's name.
 */
export const read: Model = (argv) => {
  const fx = effectsOf('read');
  for (const name of readOptions(argv, 1, READ_OPTIONS, fx)) assigned(name, fx);
  return fx;
};

const MAPFILE_OPTIONS: OptionTable = {
  short: { t: 'flag', ...values('d n O s u c'), C: 'run' },
};

/** mapfile / readarray: the array name is judged; `-C CALLBACK` evaluates CALLBACK as code. */
export const mapfile: Model = (argv) => {
  const fx = effectsOf(argv[0]?.value ?? 'mapfile');
  for (const name of readOptions(argv, 1, MAPFILE_OPTIONS, fx)) assigned(name, fx);
  return fx;
};
