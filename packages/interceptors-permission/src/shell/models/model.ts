import { expandBraces } from '../braces';
import { isProcessSubstitution, type ShellWord, syntheticWord } from '../words';
import { FOUND } from './found';

/** A file an option writes beside the program's purpose (`sort -o`, `git diff --output`). */
export interface SideWrite {
  /** What writes it, for the trail: `sort -o`, `sed w`. */
  readonly op: string;
  readonly target: ShellWord;
}

/**
 * What one invocation of a modelled program does, as far as its words say. The decision checks
 * `reads` / `writes` against path rules, judges `runs` as commands of their own, treats
 * `sideWrites` like output redirection, and turns an allow into an ask when `unknown` is set.
 */
export interface ProgramEffects {
  /** The program (with its subcommand, once known: `git diff`), as messages name it. */
  program: string;
  readonly reads: ShellWord[];
  /** Files written as the program's purpose (`cp`'s target, `tee`'s files). */
  readonly writes: ShellWord[];
  readonly sideWrites: SideWrite[];
  /** Directory operands are read with everything inside them. */
  recursive: boolean;
  /**
   * The recursive read follows the symbolic links inside the tree (`grep -R`, `rg -L`, `cp -rL`,
   * `tar -h`): each link is judged by where it leads.
   */
  followsLinks?: boolean;
  /**
   * It shows content from the repository's history (`git log -p`, `git diff REV`) without a
   * pathspec: any file ever committed, protected ones too.
   */
  history?: boolean;
  /** It connects to the network. */
  network: boolean;
  /** Commands it runs (`find -exec`, `xargs`), each judged on its own. */
  readonly runs: ShellWord[][];
  /** The first word or construct the model does not understand: an allow becomes an ask. */
  unknown?: string;
  /** Nothing it does changes anything (plan mode runs it). */
  readOnly: boolean;
  /** The words as deny and ask rules should see them (`git -C . push` → `git push`). */
  canonical?: readonly ShellWord[];
  /** Aliases defined on the command line (`git -c alias.p=push p`). */
  aliases?: Record<string, string>;
  /**
   * Only the program's own options were read (a git subcommand with no model): its operands are
   * found as for a program without a model, and an allow rule keeps its prefix meaning.
   */
  partial?: boolean;
}

/** A program's model: what its words do. */
export type Model = (argv: readonly ShellWord[]) => ProgramEffects;

/** Fresh, empty effects for `program`: read-only until a word says otherwise. */
export const effectsOf = (program: string): ProgramEffects => ({
  program,
  reads: [],
  writes: [],
  sideWrites: [],
  recursive: false,
  network: false,
  runs: [],
  readOnly: true,
});

/** Records the first word not understood (later ones add nothing to the question). */
export const notUnderstood = (fx: ProgramEffects, why: string): void => {
  fx.unknown ??= why;
  fx.readOnly = false;
};

/**
 * How an option's value (or the option itself) is judged:
 * - `flag`: no value; `opt`: a value only when attached (`--color=always`, `-u`no);
 * - `value`: a harmless value; `read` / `write`: the value is a file read / written beside the
 *   purpose; `tree`: a flag that makes directory operands read recursively;
 * - `run` / `net` / `change`: runs a program / connects / changes something: never read-only, and
 *   `run` is not understood (ask);
 * - a function: judges the value itself.
 */
export type OptionKind =
  | 'flag'
  | 'opt'
  | 'value'
  | 'read'
  | 'write'
  | 'tree'
  | 'run'
  | 'net'
  | 'change'
  | ((value: ShellWord, fx: ProgramEffects, option: string) => void);

/** A program's options: long ones by full name (`--output`), short ones by letter. */
export interface OptionTable {
  readonly long?: Readonly<Record<string, OptionKind>>;
  readonly short?: Readonly<Record<string, OptionKind>>;
  /** Operands are options no more after the first one (`git log rev -p` still reads `-p`: false). */
  readonly stopAtOperand?: boolean;
  /** Long options may be written with one dash (`find -name`, `-exec`): matched in `long`. */
  readonly singleDashLong?: boolean;
}

const takesValue = (kind: OptionKind): boolean =>
  kind === 'value' || kind === 'read' || kind === 'write' || typeof kind === 'function';

const applyValue = (
  kind: OptionKind,
  option: string,
  value: ShellWord,
  fx: ProgramEffects,
): void => {
  if (typeof kind === 'function') kind(value, fx, option);
  else if (kind === 'read') fx.reads.push(value);
  else if (kind === 'write') {
    fx.sideWrites.push({ op: `${fx.program} ${option}`, target: value });
    fx.readOnly = false;
  }
};

const applyFlag = (kind: OptionKind, option: string, fx: ProgramEffects): void => {
  if (kind === 'tree') fx.recursive = true;
  else if (kind === 'run')
    notUnderstood(fx, `option ${option} of ${fx.program} runs another program`);
  else if (kind === 'net') {
    fx.network = true;
    fx.readOnly = false;
  } else if (kind === 'change') fx.readOnly = false;
};

/** An unquoted glob or expansion: bash may split it into several words, later ones options. */
export const maySplit = (w: ShellWord): boolean =>
  w.glob ||
  (!w.literal && w !== FOUND && !isProcessSubstitution(w) && !/^"(?:[^"\\]|\\.)*"$/.test(w.text));

/**
 * Reads the options and operands of `argv` from `from` by `table`, applying each option's effect
 * to `fx`; returns the operands. An option the table does not know, or a word that is not known
 * before it runs where an option could stand, is recorded as not understood. `given`, if passed,
 * receives the name of each option the table knows as it is read (`--stdout`, `-c`), so a model
 * asks what was given of the one reading, not of a second one of its own.
 */
export function readOptions(
  words: readonly ShellWord[],
  from: number,
  table: OptionTable,
  fx: ProgramEffects,
  given?: Set<string>,
): ShellWord[] {
  const argv = withOptionBraces(words, from);
  const operands: ShellWord[] = [];
  let done = false;
  for (let i = from; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    // `*` may expand to a file named `--compress-program=x`: a glob that can begin with `-`,
    // before `--`, may be an option.
    if (!done && w.glob && /^[*?[{]/.test(w.value)) {
      notUnderstood(
        fx,
        `the glob ${w.text} may expand to a file named like an option (put -- before it, or ./ in front)`,
      );
      operands.push(w);
      continue;
    }
    if (done || (w.literal && (w.value === '-' || !w.value.startsWith('-')))) {
      if (!w.literal && !done && w.value.startsWith('-')) {
        notUnderstood(fx, `${w.text} is not known before it runs and could be an option`);
      }
      operands.push(w);
      if (table.stopAtOperand) done = true;
      continue;
    }
    if (w === FOUND || isProcessSubstitution(w)) {
      operands.push(w);
      continue;
    }
    if (!w.literal) {
      // `"$X"` may expand to `--output=…`: an option the model cannot see.
      notUnderstood(fx, `${w.text} is not known before it runs and could be an option`);
      operands.push(w);
      continue;
    }
    const v = w.value;
    if (v === '--') {
      done = true;
      continue;
    }
    // `-f.e*` is whatever names match: the words the program gets are not this one (braces
    // alone were expanded first; a glob at the start is handled above).
    if (w.glob) {
      notUnderstood(
        fx,
        `the option ${w.text} may expand into other words (it holds an unquoted glob or brace)`,
      );
      continue;
    }
    if (v.startsWith('--') || (table.singleDashLong && table.long?.[v.split('=')[0] as string])) {
      const eq = v.indexOf('=');
      const name = eq < 0 ? v : v.slice(0, eq);
      const kind = table.long && Object.hasOwn(table.long, name) ? table.long[name] : undefined;
      if (kind === undefined) {
        notUnderstood(fx, `${fx.program} option ${name} is not one the model knows`);
        continue;
      }
      given?.add(name);
      if (eq >= 0) {
        if (kind === 'flag' || kind === 'tree' || kind === 'change') {
          notUnderstood(fx, `${fx.program} option ${name} takes no value`);
          continue;
        }
        applyFlag(kind, name, fx);
        applyValue(kind, name, syntheticWord(v.slice(eq + 1), true), fx);
      } else if (takesValue(kind)) {
        const next = argv[i + 1];
        if (next === undefined) notUnderstood(fx, `${fx.program} option ${name} has no value`);
        else {
          if (maySplit(next))
            notUnderstood(fx, `the value ${next.text} of ${name} may split into several words`);
          applyValue(kind, name, next, fx);
        }
        i++;
      } else applyFlag(kind, name, fx);
      continue;
    }
    // Short options, possibly combined (`-abc`), the last one's value attached (`-ofile`).
    for (let j = 1; j < v.length; j++) {
      const letter = v[j] as string;
      const kind =
        table.short && Object.hasOwn(table.short, letter) ? table.short[letter] : undefined;
      if (kind === undefined) {
        notUnderstood(fx, `${fx.program} option -${letter} is not one the model knows`);
        break;
      }
      given?.add(`-${letter}`);
      if (takesValue(kind)) {
        const attached = v.slice(j + 1);
        if (attached !== '') applyValue(kind, `-${letter}`, syntheticWord(attached, true), fx);
        else {
          const next = argv[i + 1];
          if (next === undefined) notUnderstood(fx, `${fx.program} option -${letter} has no value`);
          else {
            if (maySplit(next))
              notUnderstood(
                fx,
                `the value ${next.text} of -${letter} may split into several words`,
              );
            applyValue(kind, `-${letter}`, next, fx);
          }
          i++;
        }
        break;
      }
      if (kind === 'opt') {
        applyValue(kind, `-${letter}`, syntheticWord(v.slice(j + 1), true), fx);
        break;
      }
      applyFlag(kind, `-${letter}`, fx);
    }
  }
  return operands;
}

/**
 * The option words whose braces bash expands, as the words it makes (`-o{a,src/x}` is `-oa
 * -osrc/x` to the program): each is then read as the option it is. A word whose expansion still
 * holds a glob (`-f{a,*}`), or that makes more than 256 words, stays as it is, and is not
 * understood. Words after a `--` are operands, judged by the path rules.
 */
function withOptionBraces(argv: readonly ShellWord[], from: number): readonly ShellWord[] {
  let out: ShellWord[] | undefined;
  for (let i = from; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    if (w.literal && w.value === '--') break;
    if (!(w.glob && w.literal && w.value.startsWith('-') && w.value.includes('{'))) continue;
    const expanded = expandBraces(w.value);
    if (expanded === undefined || expanded.some((value) => /[*?[]/.test(value))) continue;
    if (expanded.length === 1 && expanded[0] === w.value) continue;
    out ??= argv.slice(0, i);
    out.push(
      ...expanded
        .filter((value) => value !== '')
        .map((value) => ({ ...syntheticWord(value, true), text: w.text })),
    );
    // The words after it, as they are (a later brace is expanded by the next turn of the loop).
    const rest = withOptionBraces(argv.slice(i + 1), 0);
    return [...out, ...rest];
  }
  return out ?? argv;
}

/** `kind` for each of the space-separated option names: `opts('--a --b', 'opt')`. */
export const opts = (names: string, kind: OptionKind): Record<string, OptionKind> =>
  Object.fromEntries(
    names
      .split(/\s+/)
      .filter((n) => n !== '')
      .map((n) => [n, kind]),
  );
/** `flag` for each space-separated name: harmless switches. */
export const flags = (names: string): Record<string, OptionKind> => opts(names, 'flag');
/** `value` for each space-separated name: options whose value changes nothing and names no file. */
export const values = (names: string): Record<string, OptionKind> => opts(names, 'value');
