import { baseName, DANGEROUS_ENV, SHELLS, VALUE_OPTS } from './names';
import { type ShellWord, syntheticWord } from './words';

/** What a wrapper turned into. */
export type Unwrapped =
  | { readonly kind: 'run'; readonly argv: readonly ShellWord[]; readonly via: readonly string[] }
  | { readonly kind: 'script'; readonly script: ShellWord; readonly via: readonly string[] }
  | {
      readonly kind: 'unknown';
      readonly reason: string;
      readonly argv: readonly ShellWord[];
      readonly via: readonly string[];
    };

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
    const eq = w.value.indexOf('=');
    const opt = eq < 0 ? w.value : w.value.slice(0, eq);
    i += values.has(opt) && eq < 0 ? 2 : 1;
  }
  return i;
};

const notLiteral = (argv: readonly ShellWord[]): ShellWord | undefined =>
  argv.find((w) => !w.literal);

/**
 * Sees through one wrapper (`env`, `timeout`, `sudo`, `bash -c`, `eval`, ...), returning what it runs.
 * `find -exec` is not a wrapper (find runs too) and is handled by {@link findExecs}.
 */
export function unwrap(argv: readonly ShellWord[], via: readonly string[]): Unwrapped {
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
        if (w.value === '-S' || w.value.startsWith('--split-string')) {
          const eq = w.value.indexOf('=');
          const script = eq >= 0 ? syntheticWord(w.value.slice(eq + 1), true) : argv[i + 1];
          if (script === undefined || !script.literal) {
            return {
              kind: 'unknown',
              reason: 'env -S splits a string that is not known before it runs',
              argv,
              via,
            };
          }
          return { kind: 'script', script, via: here };
        }
        if (w.value === '-C' || w.value === '--chdir' || w.value.startsWith('--chdir=')) {
          return {
            kind: 'unknown',
            reason: 'env -C runs the command in another directory',
            argv,
            via,
          };
        }
        if (w.value.startsWith('-')) {
          i += VALUE_OPTS.env?.has(w.value) ? 2 : 1;
          continue;
        }
        const eq = w.value.indexOf('=');
        if (eq > 0) {
          const variable = w.value.slice(0, eq);
          if (DANGEROUS_ENV.has(variable)) {
            return {
              kind: 'unknown',
              reason: `env sets ${variable}, which changes what the command runs`,
              argv,
              via,
            };
          }
          i++;
          continue;
        }
        break;
      }
      return rest(i);
    }
    case 'timeout': {
      const at = skipOptions(argv, 1, VALUE_OPTS.timeout as ReadonlySet<string>);
      return rest(typeof at === 'number' ? at + 1 : at);
    }
    case 'nice':
      // `nice -5 cmd` reads as an option, as it should.
      return rest(skipOptions(argv, 1, VALUE_OPTS.nice as ReadonlySet<string>));
    case 'command': {
      const flags = argv.slice(1).filter((w) => w.value.startsWith('-'));
      // `command -v x` only looks a name up.
      if (flags.some((w) => /^-[^-]*[vV]/.test(w.value))) return { kind: 'run', argv, via };
      return rest(skipOptions(argv, 1, VALUE_OPTS.command as ReadonlySet<string>));
    }
    case 'exec':
    case 'nohup':
    case 'setsid':
    case 'builtin':
    case 'stdbuf':
    case 'ionice':
    case 'time':
    case 'coproc':
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

/** The commands `find ... -exec cmd {} ;` runs, each as its own command. */
export function findExecs(argv: readonly ShellWord[]): ShellWord[][] {
  const out: ShellWord[][] = [];
  if (baseName(argv[0]?.value ?? '') !== 'find') return out;
  for (let i = 1; i < argv.length; i++) {
    const v = argv[i]?.value;
    if (v === '-exec' || v === '-execdir' || v === '-ok' || v === '-okdir') {
      const cmd: ShellWord[] = [];
      for (i++; i < argv.length; i++) {
        const w = argv[i] as ShellWord;
        if (w.value === ';' || w.value === '+') break;
        cmd.push(w.value.includes('{}') ? syntheticWord(w.text) : w);
      }
      if (cmd.length > 0) out.push(cmd);
    }
  }
  return out;
}
