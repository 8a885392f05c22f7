import { type ShellWord, syntheticWord } from './shell-words';

/** The program name without its directory: `/bin/rm` and `./rm` are `rm`. */
export const baseName = (name: string): string => {
  const slash = name.lastIndexOf('/');
  return slash < 0 ? name : name.slice(slash + 1);
};

/**
 * Environment variables that change what a command runs or loads (`PATH=/tmp/x git status` runs
 * another git). A command that sets one is never auto-allowed.
 */
export const DANGEROUS_ENV = new Set([
  'PATH',
  'LD_PRELOAD',
  'LD_LIBRARY_PATH',
  'LD_AUDIT',
  'DYLD_INSERT_LIBRARIES',
  'DYLD_LIBRARY_PATH',
  'BASH_ENV',
  'ENV',
  'IFS',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'PROMPT_COMMAND',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'RUBYOPT',
  'RUBYLIB',
  'GIT_SSH_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_CONFIG_GLOBAL',
  'GIT_EDITOR',
  'GIT_PAGER',
  'PAGER',
  'EDITOR',
  'VISUAL',
  'GCONV_PATH',
  'HOME',
]);

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

const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'mksh',
  'ash',
  'fish',
  'yash',
  'posh',
  'rbash',
]);

/** Options (per wrapper) that take the next word as their value. */
const VALUE_OPTS: Record<string, ReadonlySet<string>> = {
  env: new Set(['-u', '--unset', '-C', '--chdir']),
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  nice: new Set(['-n', '--adjustment']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
  ionice: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']),
  time: new Set(['-f', '-o', '--format', '--output']),
  exec: new Set(['-a']),
  sudo: new Set([
    '-u',
    '-g',
    '-h',
    '-p',
    '-C',
    '-D',
    '-r',
    '-t',
    '-U',
    '-T',
    '--user',
    '--group',
    '--host',
    '--prompt',
    '--chdir',
    '--role',
    '--type',
    '--other-user',
    '--close-from',
    '--command-timeout',
  ]),
  doas: new Set(['-u', '-C']),
  xargs: new Set([
    '-a',
    '-d',
    '-E',
    '-I',
    '-L',
    '-n',
    '-P',
    '-s',
    '--arg-file',
    '--delimiter',
    '--eof',
    '--replace',
    '--max-lines',
    '--max-args',
    '--max-procs',
    '--max-chars',
    '--process-slot-var',
  ]),
  chroot: new Set(['--userspec', '--groups']),
  flock: new Set(['-w', '--timeout', '-E', '--conflict-exit-code']),
  watch: new Set(['-n', '--interval', '-d', '--differences', '-q', '--equexit']),
  setsid: new Set<string>(),
  nohup: new Set<string>(),
  command: new Set<string>(),
  builtin: new Set<string>(),
  coproc: new Set<string>(),
  unbuffer: new Set<string>(),
  chrt: new Set<string>(),
  taskset: new Set<string>(),
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
  if (SHELLS.has(base)) return unwrapShell(argv, via, here);
  switch (base) {
    case 'let':
      return {
        kind: 'unknown',
        reason: 'let evaluates its arguments as arithmetic, which may run commands',
        argv,
        via,
      };
    case 'eval': {
      const words = argv.slice(1);
      const bad = notLiteral(words);
      if (bad)
        return {
          kind: 'unknown',
          reason: `eval runs ${bad.text}, which is not known before it runs`,
          argv,
          via,
        };
      if (words.length === 0) return { kind: 'run', argv, via };
      const text = words.map((w) => w.value).join(' ');
      return { kind: 'script', script: syntheticWord(text, true), via: here };
    }
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
      const words = argv.slice(at);
      const bad = notLiteral(words);
      if (bad)
        return {
          kind: 'unknown',
          reason: `watch runs ${bad.text}, which is not known before it runs`,
          argv,
          via,
        };
      if (words.length === 0) return { kind: 'run', argv, via };
      // watch passes its arguments to `sh -c` joined by spaces.
      return {
        kind: 'script',
        script: syntheticWord(words.map((w) => w.value).join(' '), true),
        via: here,
      };
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

interface OperandSpec {
  /** The first operand is a script or pattern, not a file (unless one of `scriptOpts` is given). */
  readonly script?: boolean;
  readonly scriptOpts?: readonly string[];
  /** Options whose value is not a file. */
  readonly values?: readonly string[];
  /** Options whose value is a file read. */
  readonly readOpts?: readonly string[];
  /** Options whose value is a file written. */
  readonly writeOpts?: readonly string[];
  /** Operands: all read (default), all written, or all read but the last written. */
  readonly operands?: 'read' | 'write' | 'lastWrite' | 'skipFirstWrite' | 'none';
  /** `-i` makes the files written too (sed). */
  readonly inPlace?: boolean;
  readonly dd?: boolean;
}

const R: OperandSpec = {};
const TEXT_VALUES = ['-n', '-c', '--lines', '--bytes', '-s', '--pid', '--sleep-interval'];
const GREP_VALUES = [
  '-m',
  '-A',
  '-B',
  '-C',
  '-d',
  '-D',
  '--max-count',
  '--context',
  '--after-context',
  '--before-context',
  '--include',
  '--exclude',
  '--exclude-dir',
  '--color',
  '--colour',
  '--label',
];

/**
 * Programs whose operands name files they read or write. A `Read(...)` deny covers what these read
 * inside a shell command; an `Edit(...)` deny what they write.
 */
export const FILE_PROGRAMS: Record<string, OperandSpec> = {
  cat: R,
  tac: R,
  nl: R,
  wc: R,
  uniq: R,
  paste: R,
  rev: R,
  fold: R,
  fmt: R,
  column: R,
  expand: R,
  unexpand: R,
  strings: R,
  file: R,
  stat: R,
  diff: R,
  cmp: R,
  comm: R,
  look: R,
  less: R,
  more: R,
  most: R,
  bat: R,
  batcat: R,
  view: R,
  zcat: R,
  bzcat: R,
  xzcat: R,
  zless: R,
  zmore: R,
  zgrep: { script: true, values: GREP_VALUES },
  md5sum: R,
  sha1sum: R,
  sha224sum: R,
  sha256sum: R,
  sha384sum: R,
  sha512sum: R,
  b2sum: R,
  cksum: R,
  sum: R,
  hexdump: { values: ['-n', '-s', '-e', '-f'] },
  hd: R,
  head: { values: TEXT_VALUES },
  tail: { values: TEXT_VALUES },
  base64: { values: ['-w', '--wrap'] },
  base32: { values: ['-w', '--wrap'] },
  basenc: { values: ['-w', '--wrap'] },
  xxd: {
    values: ['-l', '-s', '-c', '-g', '-o', '-n', '-len', '-seek', '-cols', '-groupsize'],
    operands: 'lastWrite',
  },
  od: {
    values: [
      '-A',
      '-t',
      '-N',
      '-j',
      '-w',
      '--address-radix',
      '--format',
      '--read-bytes',
      '--skip-bytes',
      '--width',
    ],
  },
  cut: { values: ['-d', '-f', '-b', '-c', '--delimiter', '--fields', '--bytes', '--characters'] },
  sort: {
    values: ['-k', '-t', '-S', '-T', '--key', '--field-separator', '--buffer-size'],
    writeOpts: ['-o', '--output'],
  },
  iconv: { values: ['-f', '-t', '--from-code', '--to-code'], writeOpts: ['-o', '--output'] },
  grep: {
    script: true,
    scriptOpts: ['-e', '-f', '--regexp', '--file'],
    values: GREP_VALUES,
    readOpts: ['-f', '--file'],
  },
  egrep: { script: true, scriptOpts: ['-e', '-f'], values: GREP_VALUES, readOpts: ['-f'] },
  fgrep: { script: true, scriptOpts: ['-e', '-f'], values: GREP_VALUES, readOpts: ['-f'] },
  rg: {
    script: true,
    scriptOpts: ['-e', '-f', '--regexp', '--file', '--files'],
    values: [
      '-g',
      '-t',
      '-T',
      '-m',
      '-A',
      '-B',
      '-C',
      '-j',
      '-M',
      '-E',
      '-r',
      '--glob',
      '--type',
      '--type-not',
      '--max-count',
      '--context',
      '--replace',
      '--encoding',
      '--max-columns',
      '--threads',
      '--sort',
      '--sortr',
      '--color',
      '--colors',
    ],
    readOpts: ['-f', '--file', '--ignore-file'],
  },
  ag: { script: true, values: ['-G', '-m', '-A', '-B', '-C', '--ignore'] },
  ack: { script: true, values: ['-m', '-A', '-B', '-C', '--type'] },
  sed: {
    script: true,
    scriptOpts: ['-e', '-f', '--expression', '--file'],
    values: ['-l', '--line-length'],
    readOpts: ['-f', '--file'],
    inPlace: true,
  },
  awk: {
    script: true,
    scriptOpts: ['-f', '--file'],
    values: ['-v', '-F', '--assign', '--field-separator'],
    readOpts: ['-f', '--file'],
  },
  gawk: {
    script: true,
    scriptOpts: ['-f', '--file'],
    values: ['-v', '-F', '--assign', '--field-separator'],
    readOpts: ['-f', '--file'],
  },
  mawk: { script: true, scriptOpts: ['-f'], values: ['-v', '-F'], readOpts: ['-f'] },
  nawk: { script: true, scriptOpts: ['-f'], values: ['-v', '-F'], readOpts: ['-f'] },
  jq: {
    script: true,
    values: ['--arg', '--argjson', '--indent', '--tab'],
    readOpts: ['--slurpfile', '--rawfile', '--from-file', '-f'],
  },
  yq: { script: true, values: ['--arg', '-o', '--output-format', '-p', '--input-format'] },
  source: R,
  '.': R,
  sh: R,
  bash: R,
  zsh: R,
  dash: R,
  ksh: R,
  cp: {
    values: ['-S', '--suffix'],
    writeOpts: ['-t', '--target-directory'],
    operands: 'lastWrite',
  },
  mv: { values: ['-S', '--suffix'], writeOpts: ['-t', '--target-directory'], operands: 'write' },
  install: {
    values: ['-m', '-o', '-g', '--mode', '--owner', '--group'],
    writeOpts: ['-t', '--target-directory'],
    operands: 'lastWrite',
  },
  ln: { writeOpts: ['-t', '--target-directory'], operands: 'lastWrite' },
  rsync: {
    values: ['-e', '--rsh', '--exclude', '--include', '--filter', '--chmod'],
    operands: 'lastWrite',
  },
  scp: {
    values: ['-P', '-i', '-o', '-F', '-c', '-l'],
    readOpts: ['-i', '-F'],
    operands: 'lastWrite',
  },
  tee: { operands: 'write' },
  rm: { operands: 'write' },
  rmdir: { operands: 'write' },
  unlink: { operands: 'write' },
  touch: { values: ['-d', '-t', '-r', '--date', '--reference'], operands: 'write' },
  mkdir: { values: ['-m', '--mode'], operands: 'write' },
  truncate: { values: ['-s', '--size', '-r', '--reference'], operands: 'write' },
  shred: { values: ['-n', '-s', '--iterations', '--size'], operands: 'write' },
  chmod: { operands: 'skipFirstWrite', values: ['--reference'] },
  chown: { operands: 'skipFirstWrite', values: ['--reference', '--from'] },
  chgrp: { operands: 'skipFirstWrite', values: ['--reference'] },
  dd: { dd: true, operands: 'none' },
  tar: {
    values: ['-C', '--directory', '--exclude', '-T', '--files-from'],
    readOpts: ['-T', '--files-from'],
    writeOpts: ['-f', '--file'],
  },
  zip: { operands: 'skipFirstWrite' },
  vim: R,
  vi: R,
  nvim: R,
  nano: R,
  emacs: R,
  ed: R,
};

const RECURSIVE_BY_DEFAULT = new Set(['rg', 'ag', 'ack']);

/** Files a command reads and writes, as far as its program is known. */
export interface Operands {
  readonly reads: ShellWord[];
  readonly writes: ShellWord[];
  /** Whether the program is one of {@link FILE_PROGRAMS} (its unknown operands may be files). */
  readonly known: boolean;
  /** Whether directory operands are read with everything inside them (`grep -r`, `cp -r`, `tar`). */
  readonly recursive: boolean;
}

/**
 * The file operands of one command. Over-approximates on purpose: a word that might be a file is
 * treated as one (checking a non-file against a deny rule costs nothing; missing a file would let a
 * read through). For programs not in the table, literal operands are still returned as reads.
 */
export function fileOperands(argv: readonly ShellWord[]): Operands {
  const program = baseName(argv[0]?.value ?? '');
  const spec = FILE_PROGRAMS[program];
  const reads: ShellWord[] = [];
  const writes: ShellWord[] = [];
  const operands: ShellWord[] = [];
  const values = new Set(spec?.values ?? []);
  const readOpts = new Set(spec?.readOpts ?? []);
  const writeOpts = new Set(spec?.writeOpts ?? []);
  const scriptOpts = new Set(spec?.scriptOpts ?? []);
  let scriptGiven = false;
  let inPlace = false;
  let optionsDone = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    const v = w.value;
    if (!optionsDone && w.literal && v === '--') {
      optionsDone = true;
      continue;
    }
    if (!optionsDone && w.literal && v.startsWith('-') && v !== '-') {
      const eq = v.indexOf('=');
      const opt = eq < 0 ? v : v.slice(0, eq);
      if (scriptOpts.has(opt)) scriptGiven = true;
      if (
        spec?.inPlace &&
        (opt === '-i' || opt.startsWith('--in-place') || /^-[a-zA-Z]*i/.test(opt))
      )
        inPlace = true;
      const target = writeOpts.has(opt) ? writes : readOpts.has(opt) ? reads : undefined;
      if (eq >= 0) {
        const value = syntheticWord(v.slice(eq + 1), true);
        (target ?? (values.has(opt) ? undefined : reads))?.push(value);
        continue;
      }
      if (values.has(opt) || target) {
        const next = argv[i + 1];
        if (next !== undefined) {
          if (target) target.push(next);
          // `-e PATTERN`: a pattern, not a file.
          i++;
        }
        continue;
      }
      // `-fFILE` for options that read a file: the value attached.
      for (const short of readOpts) {
        if (short.length === 2 && v.startsWith(short) && v.length > 2)
          reads.push(syntheticWord(v.slice(2), true));
      }
      continue;
    }
    if (spec?.dd && w.literal) {
      if (v.startsWith('if=')) reads.push(syntheticWord(v.slice(3), true));
      else if (v.startsWith('of=')) writes.push(syntheticWord(v.slice(3), true));
      continue;
    }
    operands.push(w);
  }
  if (spec?.script && !scriptGiven) operands.shift();
  // Recursive searchers with no path search the working directory.
  const recursive =
    RECURSIVE_BY_DEFAULT.has(program) ||
    argv.some((w) => /^-[a-zA-Z]*[rR]/.test(w.value) || w.value === '--recursive');
  if (operands.length === 0 && recursive && spec?.script) operands.push(syntheticWord('.', true));
  const mode = spec?.operands ?? 'read';
  if (mode === 'read') reads.push(...operands);
  else if (mode === 'write') writes.push(...operands);
  else if (mode === 'lastWrite') {
    // With one operand there is no destination (`xxd file`): it is read.
    const last = operands.length > 1 ? operands.pop() : undefined;
    reads.push(...operands);
    if (last) writes.push(last);
  } else if (mode === 'skipFirstWrite') writes.push(...operands.slice(1));
  if (inPlace) writes.push(...operands);
  // mv also reads what it moves.
  if (program === 'mv') reads.push(...operands.slice(0, -1));
  return {
    reads,
    writes,
    known: spec !== undefined,
    recursive:
      spec !== undefined &&
      (recursive ||
        program === 'tar' ||
        program === 'zip' ||
        program === 'rsync' ||
        program === 'scp'),
  };
}
