import { fileOperands } from '../operands';
import type { ShellWord } from '../words';
import { effectsOf, type Model, notUnderstood, type ProgramEffects } from './model';

/**
 * How an interpreter's option is judged. Running code is the interpreter's purpose only when the
 * code is a file the path rules can see (the script operand, a `-r` module); code written on the
 * command line, read from standard input or loaded from a place the words do not name asks.
 * - `flag`: harmless; `attached`: harmless, with an optional value attached only (perl's `-l0`);
 * - `value`: a harmless value, attached or the next word; `read`: the value is a file loaded;
 * - `write`: the value is a file written; `inPlace`: files operands are rewritten (perl's
 *   `-i[.bak]`), the value attached only;
 * - `code`: the value is code; `module`: the value names a module run in place of a script (the
 *   options end there); `stdin`: code is read from standard input; `info`: prints and exits;
 * - `{ asks }`: the option does what `asks` says, and asks; `value` says whether it takes one.
 */
type InterpreterOption =
  | 'flag'
  | 'attached'
  | 'value'
  | 'read'
  | 'write'
  | 'inPlace'
  | 'code'
  | 'module'
  | 'stdin'
  | 'info'
  | { readonly asks: string; readonly value?: 'attached' | 'value' };

interface InterpreterTable {
  readonly short: Readonly<Record<string, InterpreterOption>>;
  readonly long: Readonly<Record<string, InterpreterOption>>;
  /** Short options combine (`-Ic`, `-lne`): node's do not (`-pe` is its one alias). */
  readonly clusters: boolean;
  /** Short options whose attached value is only what the pattern takes (perl's `-0777`, `-l0`). */
  readonly takes?: Readonly<Record<string, RegExp>>;
  /** A value each option of this kind must match, or the option asks (python's `-W`, `-X`). */
  readonly check?: (option: string, value: string, fx: ProgramEffects) => void;
}

const kinds = (names: string, kind: InterpreterOption): Record<string, InterpreterOption> =>
  Object.fromEntries(names.split(' ').map((n) => [n, kind]));

const CHDIR = { asks: 'changes directory, so its files are not the ones named' } as const;

/** python 3's options (`python3 --help-all`); -W and -X values are checked by `pythonValue`. */
const PYTHON: InterpreterTable = {
  clusters: true,
  short: {
    ...kinds('b B d E I O P q R s S u v x', 'flag'),
    ...kinds('h ? V', 'info'),
    c: 'code',
    m: 'module',
    W: 'value',
    X: 'value',
    i: 'stdin',
  },
  long: {
    ...kinds('--help --help-env --help-xoptions --help-all --version', 'info'),
    '--check-hash-based-pycs': 'value',
  },
  check: (option, value, fx) => pythonValue(option, value, fx),
};

/** `-X` values that change nothing outside the process. */
const PYTHON_X =
  /^(dev|utf8(=[01])?|importtime|tracemalloc(=\d+)?|faulthandler|showrefcount|warn_default_encoding|no_debug_ranges|frozen_modules=(on|off)|int_max_str_digits=\d+|perf)$/;

const pythonValue = (option: string, value: string, fx: ProgramEffects): void => {
  // -W's category (`action:message:category:…`) with a dot is imported: `-W error::m.Warning` runs m.
  if (option === '-W' && (value.split(':')[2] ?? '').includes('.'))
    notUnderstood(fx, `${fx.program} -W ${value} imports the module of its warning category`);
  if (option === '-X' && !PYTHON_X.test(value))
    notUnderstood(fx, `${fx.program} -X ${value} is not one the model knows`);
};

/** perl's switches (`perlrun`): -M / -m load a module by name, anything else there is code. */
const PERL: InterpreterTable = {
  clusters: true,
  short: {
    ...kinds('a c f n p s t T U w W X', 'flag'),
    ...kinds('0 l C', 'attached'),
    D: { asks: 'sets debugging flags, which the model does not read' },
    ...kinds('h v V', 'info'),
    e: 'code',
    E: 'code',
    I: 'value',
    i: 'inPlace',
    ...kinds('M m F x', 'attached'),
    d: {
      asks: 'runs the debugger, which takes commands from its standard input',
      value: 'attached',
    },
    S: { asks: 'runs a script found on PATH' },
    u: { asks: 'dumps core' },
  },
  long: {},
  takes: { '0': /^(x[\da-fA-F]*|[0-7]*)/, l: /^[0-7]*/, C: /^(\d+|[IOEioSDALa]*)/ },
  check: (option, value, fx) => perlValue(option, value, fx),
};

/** `-M` / `-m` with a module name and arguments only: `use MODULE split(…)`, no code of its own. */
const PERL_MODULE = /^-?[A-Za-z_][\w:]*(=[\w,:.-]*)?$/;

const perlValue = (option: string, value: string, fx: ProgramEffects): void => {
  // `-M'x;system …'` is written into the program as `use x;system …;`.
  if (/^-[Mm]$/.test(option) && !PERL_MODULE.test(value))
    notUnderstood(fx, `${fx.program} ${option}${value} runs code given on the command line`);
  // A pattern in slashes or quotes is written into the program as it is (`-F'/(?{…})/'`).
  if (option === '-F' && /^[/'"]/.test(value))
    notUnderstood(fx, `${fx.program} -F${value} runs code given on the command line`);
  chdirValue(option, value, fx);
};

/** perl's and ruby's `-xDIR` change directory before the script runs. */
const chdirValue = (option: string, value: string, fx: ProgramEffects): void => {
  if (option === '-x' && value !== '') notUnderstood(fx, `${fx.program} -x${value} ${CHDIR.asks}`);
};

/** ruby's options (`ruby --help`). */
const RUBY: InterpreterTable = {
  clusters: true,
  short: {
    ...kinds('a c d l n p s v w y', 'flag'),
    ...kinds('0 W F', 'attached'),
    h: 'info',
    e: 'code',
    E: 'value',
    I: 'value',
    r: 'read',
    i: 'inPlace',
    C: { ...CHDIR, value: 'value' },
    x: 'attached',
    S: { asks: 'runs a script found on PATH' },
  },
  takes: { '0': /^[0-7]*/, W: /^(\d|:[\w-]+)?/ },
  check: (option, value, fx) => chdirValue(option, value, fx),
  long: {
    ...kinds('--verbose --debug --yjit --jit --disable-gems --disable-did_you_mean', 'flag'),
    ...kinds('--version --help --copyright', 'info'),
    ...kinds('--encoding --external-encoding --internal-encoding --enable --disable', 'value'),
  },
};

/** node's options (`node --help`; no abbreviations, no clusters). */
const NODE: InterpreterTable = {
  clusters: false,
  check: (option, value, fx) => {
    // The debugger's port runs whatever a client sends: on the loopback only (the default).
    if (option.startsWith('--inspect') && !/^((127\.0\.0\.1|localhost):)?\d*$/.test(value))
      notUnderstood(fx, `node ${option}=${value} opens a debugger port beyond this machine`);
  },
  short: {
    e: 'code',
    p: 'code',
    r: 'read',
    c: 'flag',
    C: 'value',
    i: 'stdin',
    v: 'info',
    h: 'info',
  },
  long: {
    ...kinds(
      '--no-warnings --no-deprecation --trace-warnings --trace-deprecation --trace-uncaught --throw-deprecation --pending-deprecation --enable-source-maps --experimental-vm-modules --experimental-strip-types --experimental-transform-types --experimental-detect-module --no-experimental-detect-module --experimental-require-module --experimental-websocket --expose-gc --preserve-symlinks --preserve-symlinks-main --check --test --test-only --watch --watch-preserve-output --abort-on-uncaught-exception --frozen-intrinsics --jitless --zero-fill-buffers',
      'flag',
    ),
    ...kinds(
      '--input-type --experimental-default-type --experimental-specifier-resolution --max-old-space-size --max-semi-space-size --stack-size --stack-trace-limit --unhandled-rejections --conditions --title --test-name-pattern --test-concurrency --test-timeout --disable-proto --run',
      'value',
    ),
    ...kinds('--version --help --v8-options', 'info'),
    ...kinds('--eval --print', 'code'),
    ...kinds(
      '--require --import --loader --experimental-loader --env-file --env-file-if-exists --test-reporter --watch-path',
      'read',
    ),
    ...kinds('--redirect-warnings --test-reporter-destination', 'write'),
    '--interactive': 'stdin',
    ...kinds('--inspect --inspect-brk --inspect-wait --inspect-port', 'attached'),
  },
};

interface RunnerState {
  /** A script's place taken by code or a module (`-c`, `-m`): the options end. */
  script: 'none' | 'given';
  /** `--version`, `--help` (or an option node refuses): prints and exits. */
  info: boolean;
  /** `node --test` / `--run NAME`: runs the project's own files (no script, no standard input). */
  ownFiles: boolean;
  inPlace: boolean;
}

/** Reads one option word (or cluster) at `argv[i]`; returns how many extra words it took. */
function readOption(
  table: InterpreterTable,
  argv: readonly ShellWord[],
  i: number,
  fx: ProgramEffects,
  state: RunnerState,
): number {
  const v = (argv[i] as ShellWord).value;
  const long = v.startsWith('--');
  const eq = long ? v.indexOf('=') : -1;
  // node's one cluster: `-pe CODE`.
  const names = long
    ? [eq < 0 ? v : v.slice(0, eq)]
    : table.clusters
      ? [...v.slice(1)].map((c) => `-${c}`)
      : v === '-pe'
        ? ['-p', '-e']
        : [v];
  for (let k = 0; k < names.length; k++) {
    const name = names[k] as string;
    const key = long ? name : name.slice(1);
    const known = long ? table.long : table.short;
    const kind = key.length > 0 && Object.hasOwn(known, key) ? known[key] : undefined;
    if (kind === undefined) {
      // node refuses a short option it does not know (`-ex`: "bad option") and runs nothing; one
      // that reads like `-e` / `-p` given together with others (`-ipe`) is asked as code.
      if (!table.clusters && !long) {
        if (/^-[a-zA-Z]*[ep]$/.test(v))
          notUnderstood(fx, `${fx.program} ${v} runs code given on the command line`);
        state.info = true;
      } else notUnderstood(fx, `${fx.program} option ${name} is not one the model knows`);
      return 0;
    }
    const rest = long ? (eq < 0 ? '' : v.slice(eq + 1)) : table.clusters ? v.slice(k + 2) : '';
    // perl's `-0777ne`, `-l0e`: the value is only the digits, and the cluster goes on after them.
    const part = long ? undefined : table.takes?.[key]?.exec(rest)?.[0];
    if (part !== undefined) {
      table.check?.(name, part, fx);
      k += part.length;
      continue;
    }
    const shape = typeof kind === 'string' ? kind : (kind.value ?? 'flag');
    if (typeof kind !== 'string') notUnderstood(fx, `${fx.program} ${name} ${kind.asks}`);
    // `node --test` and `node --run NAME` run the project's own files, not standard input.
    if (name === '--test' || name === '--run') state.ownFiles = true;
    if (kind === 'info') state.info = true;
    else if (kind === 'stdin')
      notUnderstood(fx, `${fx.program} ${name} runs code from its standard input`);
    if (shape === 'flag' || shape === 'info' || shape === 'stdin') {
      if (long && eq >= 0) notUnderstood(fx, `${fx.program} option ${name} takes no value`);
      continue;
    }
    if (shape === 'attached' || shape === 'inPlace') {
      if (kind === 'inPlace') state.inPlace = true;
      // `-i'bak/*'` writes each file's backup under bak/ (`*` is the file's name); a plain suffix
      // (`-i.bak`) writes it beside the file, which is judged as written already.
      if (kind === 'inPlace' && /[/*]/.test(rest))
        notUnderstood(
          fx,
          `${fx.program} -i${rest} writes backups under names the model does not follow`,
        );
      table.check?.(name, rest, fx);
      return 0;
    }
    // A value: the rest of the word, or else the next word.
    const given = rest !== '' || (long && eq >= 0);
    const word = given ? { ...(argv[i] as ShellWord), value: rest, text: rest } : argv[i + 1];
    if (word === undefined) {
      notUnderstood(fx, `${fx.program} option ${name} has no value`);
      return 0;
    }
    if (!word.literal || word.glob)
      notUnderstood(
        fx,
        `the value ${word.text} of ${fx.program} ${name} is not known before it runs`,
      );
    if (kind === 'code' || kind === 'module') {
      // The code or the module takes the script's place: the options end here.
      state.script = 'given';
      if (kind === 'code')
        notUnderstood(fx, `${fx.program} ${name} runs code given on the command line`);
    } else if (kind === 'read') fx.reads.push(word);
    else if (kind === 'write') fx.sideWrites.push({ op: `${fx.program} ${name}`, target: word });
    else table.check?.(name, word.value, fx);
    return given ? 0 : 1;
  }
  return 0;
}

/**
 * node / python / perl / ruby: the options before the script, in every spelling the interpreter
 * reads; the script (read, and run as the program's purpose) and its arguments (checked as files
 * read, written too under `-i`). Code on the command line or from standard input, and an option
 * the model does not know, ask.
 */
export const scriptRunner =
  (table: InterpreterTable): Model =>
  (argv) => {
    const fx = effectsOf(argv[0]?.value ?? '');
    fx.readOnly = false;
    const state: RunnerState = { script: 'none', info: false, ownFiles: false, inPlace: false };
    let i = 1;
    for (; i < argv.length && state.script === 'none'; i++) {
      const w = argv[i] as ShellWord;
      // `"$X"`, or a glob that may expand to a file named like an option (`*`): not known.
      if (!w.literal || (w.glob && (/^[*?[{]/.test(w.value) || w.value.startsWith('-')))) {
        notUnderstood(fx, `${w.text} is not known before it runs and could be an option`);
        break;
      }
      if (w.value === '--') {
        i++;
        break;
      }
      if (w.value === '-' || !w.value.startsWith('-')) break;
      i += readOption(table, argv, i, fx, state);
    }
    const script = state.script === 'none' ? argv[i] : undefined;
    const ownCode = state.info || state.ownFiles;
    // The bare name (`node`, `echo … | python3`) reads its code from standard input too: as much
    // code on the command line as `-e`, and a terminal there is no agent's.
    const fromStdin = script === undefined || script.value === '-';
    if (state.script === 'none' && !ownCode && fromStdin)
      notUnderstood(fx, `${fx.program} without a script runs code from its standard input`);
    // The script's words, read as a program's operands are: each literal one may be a file.
    const rest = argv.slice(script === undefined ? i : i + 1);
    const operands = fileOperands([argv[0] as ShellWord, ...rest]).reads;
    if (script !== undefined && script.value !== '-') fx.reads.push(script);
    fx.reads.push(...operands);
    if (state.inPlace) fx.writes.push(...operands);
    if (state.info && argv.length === 2) fx.readOnly = true;
    return fx;
  };

export const python = scriptRunner(PYTHON);
export const perl = scriptRunner(PERL);
export const ruby = scriptRunner(RUBY);
export const node = scriptRunner(NODE);
