import { envOption, shellQuote } from './env-options';
import { baseName, envAllowed, SHELLS, VALUE_OPTS } from './names';
import { type ShellWord, syntheticWord } from './words';

/** A file a wrapper opens itself (`time -o`, `xargs -a`, `flock FILE`). */
export interface WrapperFile {
  readonly op: string;
  readonly target: ShellWord;
  readonly access: 'read' | 'write';
}

/** What a wrapper turned into, with the files the wrappers on the way open. */
export type Unwrapped = (
  | { readonly kind: 'run'; readonly argv: readonly ShellWord[]; readonly via: readonly string[] }
  | { readonly kind: 'script'; readonly script: ShellWord; readonly via: readonly string[] }
  | {
      readonly kind: 'unknown';
      readonly reason: string;
      readonly argv: readonly ShellWord[];
      readonly via: readonly string[];
    }
) & {
  readonly files?: readonly WrapperFile[];
  /** What a wrapper does that is not understood, though what it runs still is (`env X=… cmd`). */
  readonly doubts?: readonly { readonly word: ShellWord; readonly reason: string }[];
};

/**
 * The value of `option` (`-o FILE`, `-oFILE`, `--output=FILE`, and in a cluster of short options,
 * `-po FILE`, `-raFILE`) among a wrapper's options, if given. Read as getopt reads them: the
 * values of the wrapper's other options (`values`) are skipped, not taken for its command.
 */
const optionValue = (
  argv: readonly ShellWord[],
  short: string,
  long: string,
  values: ReadonlySet<string>,
): ShellWord | undefined => {
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    if (!w.value.startsWith('-') || w.value === '-' || w.value === '--') return undefined;
    if (w.value.startsWith('--')) {
      const eq = w.value.indexOf('=');
      const name = eq < 0 ? w.value : w.value.slice(0, eq);
      // getopt takes a unique prefix of a long name (`--arg-f=FILE`): any prefix is read as the
      // option (where it is ambiguous, getopt refuses the line and nothing runs).
      if (name.length > 2 && long.startsWith(name)) {
        return eq < 0 ? argv[i + 1] : syntheticWord(w.value.slice(eq + 1), w.literal);
      }
      if (values.has(name) && eq < 0) i++;
      continue;
    }
    const at = valueLetterAt(w.value, (option) => option === short || values.has(option));
    if (at < 0) continue;
    const rest = w.value.slice(at + 1);
    if (`-${w.value[at]}` === short)
      return rest === '' ? argv[i + 1] : syntheticWord(rest, w.literal);
    // Another option's value: the rest of the word, or the next word.
    if (rest === '') i++;
  }
  return undefined;
};

/**
 * Short options given together (`-raFILE`, `-ra FILE`): getopt reads the letters as flags up to
 * the first that takes a value, which takes the rest of the word or else the next word. Answers
 * that letter's index in `word`, or -1 when every letter is a flag.
 */
const valueLetterAt = (word: string, takesValue: (option: string) => boolean): number => {
  for (let at = 1; at < word.length; at++) if (takesValue(`-${word[at]}`)) return at;
  return -1;
};

const withFiles = (result: Unwrapped, files: readonly WrapperFile[]): Unwrapped =>
  files.length === 0 ? result : { ...result, files: [...files, ...(result.files ?? [])] };

const withDoubt = (result: Unwrapped, word: ShellWord, reason: string): Unwrapped => ({
  ...result,
  doubts: [{ word, reason }, ...(result.doubts ?? [])],
});

/**
 * Sees through one wrapper (`env`, `timeout`, `sudo`, `bash -c`, `eval`, ...), returning what it
 * runs and the files the wrappers themselves open (`time -o` writes, `xargs -a` reads).
 */
export function unwrap(argv: readonly ShellWord[], via: readonly string[]): Unwrapped {
  const base = argv[0]?.literal ? baseName(argv[0].value) : '';
  const files: WrapperFile[] = [];
  if (base === 'time') {
    const out = optionValue(argv, '-o', '--output', VALUE_OPTS.time as ReadonlySet<string>);
    if (out) files.push({ op: 'time -o', target: out, access: 'write' });
  } else if (base === 'xargs') {
    const input = optionValue(argv, '-a', '--arg-file', VALUE_OPTS.xargs as ReadonlySet<string>);
    if (input) files.push({ op: 'xargs -a', target: input, access: 'read' });
  } else if (base === 'flock') {
    const at = skipOptions(argv, 1, VALUE_OPTS.flock as ReadonlySet<string>);
    const lock = typeof at === 'number' ? argv[at] : undefined;
    // flock opens (and creates) its lock file; a number is a file descriptor.
    if (lock && !/^[0-9]+$/.test(lock.value))
      files.push({ op: 'flock', target: lock, access: 'write' });
  }
  return withFiles(unwrapOne(argv, via), files);
}

/** Skips a wrapper's options from `i`; returns the index of its first operand, or an error. */
const skipOptions = (
  argv: readonly ShellWord[],
  i: number,
  values: ReadonlySet<string>,
): number | string => {
  while (i < argv.length) {
    const w = argv[i] as ShellWord;
    if (!w.literal) return `an option of ${argv[0]?.value} is not a literal word (${w.text})`;
    if (w.value === '--') return i + 1;
    if (!w.value.startsWith('-') || w.value === '-') return i;
    // `-a{x,.env}` is `-ax -a.env` to the wrapper: what it opens is not this word's text.
    if (w.glob)
      return `an option of ${argv[0]?.value} may expand into other words (${w.text} holds an unquoted glob or brace)`;
    if (w.value.startsWith('--')) {
      const eq = w.value.indexOf('=');
      i += values.has(w.value) && eq < 0 ? 2 : 1;
      continue;
    }
    // A value option last in a cluster (`-ra FILE`) takes the next word too.
    i += valueLetterAt(w.value, (option) => values.has(option)) === w.value.length - 1 ? 2 : 1;
  }
  return i;
};

const notLiteral = (argv: readonly ShellWord[]): ShellWord | undefined =>
  argv.find((w) => !w.literal);

function unwrapOne(argv: readonly ShellWord[], via: readonly string[]): Unwrapped {
  const name = argv[0];
  if (name === undefined) return { kind: 'run', argv, via };
  if (!name.literal) {
    return {
      kind: 'unknown',
      reason: `the command name ${name.text} is not known before it runs (expansion or substitution)`,
      argv,
      via,
    };
  }
  const base = baseName(name.value);
  const here = [...via, base];
  const rest = (from: number | string): Unwrapped => {
    if (typeof from === 'string') return { kind: 'unknown', reason: from, argv, via };
    if (from >= argv.length) return { kind: 'run', argv, via };
    return unwrap(argv.slice(from), here);
  };
  /** eval and watch run their words joined by spaces as a script, judged like any other. */
  const joined = (program: string, words: readonly ShellWord[]): Unwrapped => {
    const bad = notLiteral(words);
    if (bad) {
      return {
        kind: 'unknown',
        reason: `${program} runs ${bad.text}, which is not known before it runs`,
        argv,
        via,
      };
    }
    if (words.length === 0) return { kind: 'run', argv, via };
    return {
      kind: 'script',
      script: syntheticWord(words.map((w) => w.value).join(' '), true),
      via: here,
    };
  };
  if (SHELLS.has(base)) return unwrapShell(argv, via, here);
  switch (base) {
    case 'let':
      return {
        kind: 'unknown',
        reason: 'let evaluates its arguments as arithmetic, which may run commands',
        argv,
        via,
      };
    case 'eval':
      return joined('eval', argv.slice(1));
    case 'env': {
      let i = 1;
      const doubts: ShellWord[] = [];
      while (i < argv.length) {
        const w = argv[i] as ShellWord;
        if (!w.literal)
          return {
            kind: 'unknown',
            reason: `env gets ${w.text}, which is not known before it runs`,
            argv,
            via,
          };
        if (w.value === '--') {
          i++;
          break;
        }
        const option = envOption(w.value);
        if (option === 'unknown') {
          // Read as a flag, so that what env runs is still judged (a deny on it holds); the
          // option makes it ask.
          doubts.push(w);
          i++;
          continue;
        }
        if (option?.split) {
          // `env -S STRING WORDS…` runs STRING split into words, followed by WORDS (GNU env appends
          // them: `env -S cat .env` prints .env): the command is the string and those words.
          const value = option.value ?? argv[i + 1];
          const restAt = option.value === undefined ? i + 2 : i + 1;
          const rest = argv.slice(restAt);
          if (value === undefined || !value.literal || rest.some((r) => !r.literal)) {
            return {
              kind: 'unknown',
              reason: 'env -S splits a string that is not known before it runs',
              argv,
              via,
            };
          }
          const line = [value.value, ...rest.map((r) => shellQuote(r.value))].join(' ');
          return { kind: 'script', script: syntheticWord(line, true), via: here };
        }
        if (option?.chdir) {
          return {
            kind: 'unknown',
            reason: 'env -C runs the command in another directory',
            argv,
            via,
          };
        }
        if (option !== undefined) {
          i += option.takesNext ? 2 : 1;
          continue;
        }
        const eq = w.value.indexOf('=');
        if (eq > 0) {
          const variable = w.value.slice(0, eq);
          if (!envAllowed(variable, true)) {
            // What env runs is still judged (a deny on it holds); the variable makes it ask.
            doubts.push(w);
          }
          i++;
          continue;
        }
        break;
      }
      return doubts.reduceRight(
        (result, w) =>
          withDoubt(
            result,
            w,
            w.value.startsWith('-')
              ? `env option ${w.value} is not one the model knows`
              : `env sets ${w.value.split('=')[0]}, which may change what the command runs or loads`,
          ),
        rest(i),
      );
    }
    case 'timeout': {
      const at = skipOptions(argv, 1, VALUE_OPTS.timeout as ReadonlySet<string>);
      return rest(typeof at === 'number' ? at + 1 : at);
    }
    case 'nice':
      // `nice -5 cmd` reads as an option, as it should.
      return rest(skipOptions(argv, 1, VALUE_OPTS.nice as ReadonlySet<string>));
    case 'command': {
      // `command -v x` only looks a name up. Only command's own options count, those before the
      // name it runs: in `command rm -v -rf src` the `-v` is rm's, and rm runs.
      const own: ShellWord[] = [];
      for (const w of argv.slice(1)) {
        if (w.value === '--' || !w.value.startsWith('-')) break;
        own.push(w);
      }
      if (own.some((w) => /^-[^-]*[vV]/.test(w.value))) return { kind: 'run', argv, via };
      return rest(skipOptions(argv, 1, VALUE_OPTS.command as ReadonlySet<string>));
    }
    case 'coproc': {
      // `coproc NAME { …; }` and `coproc NAME ( … )`: NAME names the coprocess, it does not run.
      const second = argv[2]?.value;
      const named =
        argv[1]?.literal &&
        /^[A-Za-z_][A-Za-z0-9_]*$/.test(argv[1].value) &&
        (second === '{' || second === '(');
      const from = named ? 3 : argv[1]?.value === '{' || argv[1]?.value === '(' ? 2 : 1;
      return rest(from);
    }
    case 'exec':
    case 'nohup':
    case 'setsid':
    case 'builtin':
    case 'stdbuf':
    case 'ionice':
    case 'time':
    case 'unbuffer':
    case 'doas':
      return rest(skipOptions(argv, 1, VALUE_OPTS[base] as ReadonlySet<string>));
    case 'chrt':
    case 'taskset': {
      // `chrt [opts] prio cmd`, `taskset [opts] mask cmd`: one operand before the command.
      const at = skipOptions(argv, 1, VALUE_OPTS[base] as ReadonlySet<string>);
      return rest(typeof at === 'number' ? at + 1 : at);
    }
    case 'chroot': {
      const at = skipOptions(argv, 1, VALUE_OPTS.chroot as ReadonlySet<string>);
      if (typeof at === 'string') return rest(at);
      return {
        kind: 'unknown',
        reason: `chroot runs its command under another root (${argv[at]?.text ?? '?'})`,
        argv,
        via,
      };
    }
    case 'sudo': {
      const at = skipOptions(argv, 1, VALUE_OPTS.sudo as ReadonlySet<string>);
      if (typeof at === 'number' && at >= argv.length) {
        const shell = argv
          .slice(1)
          .some(
            (w) => /^-[^-]*[si]/.test(w.value) || w.value === '--shell' || w.value === '--login',
          );
        if (shell)
          return { kind: 'unknown', reason: 'sudo -s / -i starts an interactive shell', argv, via };
      }
      return rest(at);
    }
    case 'xargs': {
      const at = skipOptions(argv, 1, VALUE_OPTS.xargs as ReadonlySet<string>);
      if (typeof at === 'string') return rest(at);
      const inner = at >= argv.length ? [syntheticWord('echo', true)] : argv.slice(at);
      // What xargs appends comes from its input: unknown before it runs.
      return unwrap([...inner, syntheticWord('{xargs input}')], here);
    }
    case 'flock': {
      const c = argv.findIndex((w) => w.value === '-c' || w.value === '--command');
      if (c >= 0) {
        const script = argv[c + 1];
        if (script === undefined || !script.literal) {
          return {
            kind: 'unknown',
            reason: 'flock -c runs a string that is not known before it runs',
            argv,
            via,
          };
        }
        return { kind: 'script', script, via: here };
      }
      const at = skipOptions(argv, 1, VALUE_OPTS.flock as ReadonlySet<string>);
      return rest(typeof at === 'number' ? at + 1 : at);
    }
    case 'watch': {
      const at = skipOptions(argv, 1, VALUE_OPTS.watch as ReadonlySet<string>);
      if (typeof at === 'string') return rest(at);
      // watch passes its arguments to `sh -c` joined by spaces.
      return joined('watch', argv.slice(at));
    }
    default:
      return { kind: 'run', argv, via };
  }
}

function unwrapShell(
  argv: readonly ShellWord[],
  via: readonly string[],
  here: readonly string[],
): Unwrapped {
  let i = 1;
  let command = false;
  let stdin = false;
  while (i < argv.length) {
    const w = argv[i] as ShellWord;
    if (!w.literal)
      return {
        kind: 'unknown',
        reason: `${argv[0]?.value} gets ${w.text}, which is not known before it runs`,
        argv,
        via,
      };
    if (w.value === '--' || w.value === '-') {
      i++;
      break;
    }
    if (w.value.startsWith('--')) {
      i += w.value === '--rcfile' || w.value === '--init-file' ? 2 : 1;
      continue;
    }
    if (w.value.startsWith('-') || w.value.startsWith('+')) {
      const letters = w.value.slice(1);
      if (w.value.startsWith('-') && letters.includes('c')) command = true;
      if (letters.includes('s') || letters.includes('i')) stdin = true;
      i += letters.includes('o') || letters.includes('O') ? 2 : 1;
      continue;
    }
    break;
  }
  if (command) {
    const script = argv[i];
    if (script === undefined)
      return { kind: 'unknown', reason: `${argv[0]?.value} -c has no command string`, argv, via };
    if (!script.literal) {
      return {
        kind: 'unknown',
        reason: `${argv[0]?.value} -c runs ${script.text}, which is not known before it runs`,
        argv,
        via,
      };
    }
    return { kind: 'script', script, via: here };
  }
  if (stdin || i >= argv.length) {
    return {
      kind: 'unknown',
      reason: `${argv[0]?.value} reads the commands it runs from its standard input, which cannot be checked`,
      argv,
      via,
    };
  }
  // `bash script.sh`: a script file; the rules judge it as written, and it counts as read.
  return { kind: 'run', argv, via };
}
