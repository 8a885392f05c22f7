import { envAllowed } from '../names';
import { type ShellWord, syntheticWord } from '../words';
import {
  effectsOf,
  flags,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  type ProgramEffects,
  readOptions,
  values,
} from './model';
import { judgeAwkProgram, judgeJqFilter, judgeSedScript } from './scripts';

type Model = (argv: readonly ShellWord[]) => ProgramEffects;
const opts = (names: string[], kind: OptionKind): Record<string, OptionKind> =>
  Object.fromEntries(names.map((n) => [n, kind]));
const digits = opts('0123456789'.split(''), 'flag');

/** A program that only reads its operands, with these options. */
const reader =
  (program: string, table: OptionTable, firstIsScript = false): Model =>
  (argv) => {
    const fx = effectsOf(program);
    const operands = readOptions(argv, 1, table, fx);
    fx.reads.push(...(firstIsScript ? operands.slice(1) : operands));
    return fx;
  };

const GREP_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-case',
      '--no-ignore-case',
      '--word-regexp',
      '--line-regexp',
      '--count',
      '--files-with-matches',
      '--files-without-match',
      '--line-number',
      '--no-filename',
      '--with-filename',
      '--only-matching',
      '--quiet',
      '--silent',
      '--no-messages',
      '--byte-offset',
      '--extended-regexp',
      '--fixed-strings',
      '--basic-regexp',
      '--perl-regexp',
      '--null',
      '--null-data',
      '--text',
      '--invert-match',
      '--line-buffered',
      '--initial-tab',
      '--binary',
      '--no-ignore-case',
    ),
    ...values(
      '--regexp',
      '--max-count',
      '--after-context',
      '--before-context',
      '--context',
      '--include',
      '--exclude',
      '--exclude-dir',
      '--label',
      '--binary-files',
      '--devices',
    ),
    ...opts(['--color', '--colour'], 'opt'),
    ...opts(['--recursive', '--dereference-recursive'], 'tree'),
    '--file': 'read',
    '--exclude-from': 'read',
    '--directories': (v, fx) => {
      if (v.value === 'recurse') fx.recursive = true;
    },
  },
  short: {
    ...flags(
      'i',
      'y',
      'w',
      'x',
      'c',
      'l',
      'L',
      'n',
      'h',
      'H',
      'o',
      'q',
      's',
      'b',
      'E',
      'F',
      'G',
      'P',
      'z',
      'Z',
      'a',
      'I',
      'U',
      'T',
      'v',
    ),
    ...digits,
    ...values('e', 'm', 'A', 'B', 'C', 'D'),
    r: 'tree',
    R: 'tree',
    f: 'read',
    d: (v, fx) => {
      if (v.value === 'recurse') fx.recursive = true;
    },
  },
};

const grep: Model = (argv) => {
  const fx = effectsOf('grep');
  const operands = readOptions(argv, 1, GREP_TABLE, fx);
  const given = argv.some((w) => w.literal && /^(-[a-zA-Z]*[ef]|--regexp|--file)/.test(w.value));
  const files = given ? operands : operands.slice(1);
  fx.reads.push(...files);
  if (fx.recursive && files.length === 0) fx.reads.push(syntheticWord('.', true));
  return fx;
};

const RG_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-case',
      '--smart-case',
      '--case-sensitive',
      '--word-regexp',
      '--line-regexp',
      '--count',
      '--count-matches',
      '--files-with-matches',
      '--files-without-match',
      '--line-number',
      '--no-line-number',
      '--no-filename',
      '--with-filename',
      '--only-matching',
      '--quiet',
      '--fixed-strings',
      '--invert-match',
      '--hidden',
      '--no-ignore',
      '--no-ignore-vcs',
      '--no-ignore-dot',
      '--no-ignore-parent',
      '--no-ignore-global',
      '--no-ignore-exclude',
      '--no-ignore-files',
      '--follow',
      '--files',
      '--json',
      '--vimgrep',
      '--heading',
      '--no-heading',
      '--column',
      '--no-column',
      '--trim',
      '--multiline',
      '--multiline-dotall',
      '--pcre2',
      '--no-messages',
      '--null',
      '--null-data',
      '--text',
      '--binary',
      '--search-zip',
      '--stats',
      '--type-list',
      '--byte-offset',
      '--crlf',
      '--unrestricted',
      '--sort-files',
      '--no-config',
      '--one-file-system',
      '--passthru',
      '--pretty',
      '--debug',
      '--trace',
      '--line-buffered',
      '--block-buffered',
      '--no-unicode',
      '--glob-case-insensitive',
      '--include-zero',
      '--max-columns-preview',
      '--mmap',
      '--no-mmap',
      '--no-require-git',
      '--auto-hybrid-regex',
      '--no-pcre2-unicode',
      '--no-encoding',
      '--with-filename',
    ),
    ...values(
      '--regexp',
      '--glob',
      '--iglob',
      '--type',
      '--type-not',
      '--type-add',
      '--type-clear',
      '--max-count',
      '--after-context',
      '--before-context',
      '--context',
      '--replace',
      '--encoding',
      '--max-columns',
      '--threads',
      '--sort',
      '--sortr',
      '--color',
      '--colors',
      '--max-depth',
      '--max-filesize',
      '--path-separator',
      '--engine',
      '--field-match-separator',
      '--field-context-separator',
      '--context-separator',
      '--dfa-size-limit',
      '--regex-size-limit',
      '--hostname-bin',
    ),
    '--file': 'read',
    '--ignore-file': 'read',
    '--pre': 'run',
    '--pre-glob': 'value',
  },
  short: {
    ...flags(
      'i',
      'S',
      's',
      'w',
      'x',
      'c',
      'l',
      'n',
      'N',
      'I',
      'H',
      'o',
      'q',
      'F',
      'v',
      'L',
      'U',
      'P',
      'a',
      'z',
      'u',
      'p',
      'b',
      '0',
      'h',
      'V',
    ),
    ...values('e', 'g', 't', 'T', 'm', 'A', 'B', 'C', 'r', 'E', 'j', 'M', 'd'),
    f: 'read',
  },
};

const rg: Model = (argv) => {
  const fx = effectsOf('rg');
  const operands = readOptions(argv, 1, RG_TABLE, fx);
  const given = argv.some(
    (w) => w.literal && /^(-[a-zA-Z]*[ef]|--regexp|--file|--files|--type-list)/.test(w.value),
  );
  const files = given ? operands : operands.slice(1);
  fx.recursive = true;
  fx.reads.push(...files);
  if (files.length === 0) fx.reads.push(syntheticWord('.', true));
  return fx;
};

/** sed: `-e` / `--expression` give scripts (judged), `-f` a script file (not seen: not understood). */
const sed: Model = (argv) => {
  const fx = effectsOf('sed');
  const scripts: ShellWord[] = [];
  let fromFile = false;
  let inPlace = false;
  const script: OptionKind = (v) => {
    scripts.push(v);
  };
  const file: OptionKind = (v, f) => {
    fromFile = true;
    f.reads.push(v);
  };
  const edit: OptionKind = () => {
    inPlace = true;
  };
  const operands = readOptions(
    argv,
    1,
    {
      long: {
        ...flags(
          '--quiet',
          '--silent',
          '--regexp-extended',
          '--separate',
          '--unbuffered',
          '--null-data',
          '--posix',
          '--debug',
          '--sandbox',
          '--follow-symlinks',
          '--binary',
        ),
        '--expression': script,
        '--file': file,
        '--line-length': 'value',
        '--in-place': (v, f, o) => edit(v, f, o),
      },
      short: { ...flags('n', 'E', 'r', 's', 'u', 'z'), e: script, f: file, l: 'value', i: 'opt' },
    },
    fx,
  );
  // `-i` takes its suffix attached only; `--in-place` with or without `=SUFFIX`.
  if (argv.some((w) => w.literal && (/^-[a-zA-Z]*i/.test(w.value) || w.value === '--in-place')))
    inPlace = true;
  const sandbox = argv.some((w) => w.literal && w.value === '--sandbox');
  const given = scripts.length > 0 || fromFile;
  const files = given ? operands : operands.slice(1);
  if (!given && operands[0]) scripts.push(operands[0]);
  if (fromFile) notUnderstood(fx, 'sed -f runs a script from a file the model cannot see');
  for (const s of scripts) {
    if (!s.literal) notUnderstood(fx, `the sed script ${s.text} is not known before it runs`);
    else judgeSedScript(s.value, fx, sandbox);
  }
  fx.reads.push(...files);
  if (inPlace) {
    // Editing in place is not what a rule for a reader means: judged like output redirection.
    for (const f of files) fx.sideWrites.push({ op: 'sed -i', target: f });
    fx.readOnly = false;
  }
  return fx;
};

const awk: Model = (argv) => {
  const program = argv[0]?.value ?? 'awk';
  const fx = effectsOf(program);
  const table: OptionTable = {
    long: {
      '--field-separator': 'value',
      '--assign': 'value',
      '--file': 'read',
      '--source': (v, f) => judgeAwkProgram(v, f),
      '--posix': 'flag',
      '--traditional': 'flag',
      '--characters-as-bytes': 'flag',
      '--sandbox': 'flag',
    },
    short: {
      F: 'value',
      v: 'value',
      f: 'read',
      e: (v, f) => judgeAwkProgram(v, f),
      b: 'flag',
      P: 'flag',
      c: 'flag',
      S: 'flag',
    },
  };
  const operands = readOptions(argv, 1, table, fx);
  const fromFile = argv.some((w) => w.literal && /^(-f|--file)/.test(w.value));
  const given = fromFile || argv.some((w) => w.literal && /^(-e|--source)/.test(w.value));
  if (fromFile) notUnderstood(fx, `${program} -f runs a program from a file the model cannot see`);
  if (!given) {
    if (operands[0]) judgeAwkProgram(operands[0], fx);
  }
  // `var=value` operands assign; the rest are files read.
  fx.reads.push(
    ...(given ? operands : operands.slice(1)).filter(
      (w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value),
    ),
  );
  return fx;
};

const SORT_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-leading-blanks',
      '--dictionary-order',
      '--ignore-case',
      '--general-numeric-sort',
      '--ignore-nonprinting',
      '--month-sort',
      '--human-numeric-sort',
      '--numeric-sort',
      '--random-sort',
      '--reverse',
      '--version-sort',
      '--check',
      '--merge',
      '--stable',
      '--unique',
      '--zero-terminated',
      '--debug',
    ),
    ...values(
      '--key',
      '--field-separator',
      '--buffer-size',
      '--temporary-directory',
      '--parallel',
      '--batch-size',
      '--sort',
    ),
    ...opts(['--check'], 'opt'),
    '--output': 'write',
    '--random-source': 'read',
    '--files0-from': 'read',
    '--compress-program': 'run',
  },
  short: {
    ...flags('b', 'd', 'f', 'g', 'i', 'M', 'h', 'n', 'R', 'r', 'V', 'c', 'C', 'm', 's', 'u', 'z'),
    ...values('k', 't', 'S', 'T'),
    o: 'write',
  },
};

const jq: Model = (argv) => {
  const fx = effectsOf('jq');
  const rest: ShellWord[] = [argv[0] as ShellWord];
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    // Two values: a name and a value or file.
    if (w.literal && (w.value === '--arg' || w.value === '--argjson')) i += 2;
    else if (w.literal && (w.value === '--slurpfile' || w.value === '--rawfile')) {
      const file = argv[i + 2];
      if (file) fx.reads.push(file);
      i += 2;
    } else if (w.literal && (w.value === '--args' || w.value === '--jsonargs')) {
      // Positional arguments after this are values, not files.
      rest.push(w);
      break;
    } else rest.push(w);
  }
  const table: OptionTable = {
    long: {
      ...flags(
        '--null-input',
        '--raw-input',
        '--slurp',
        '--compact-output',
        '--raw-output',
        '--raw-output0',
        '--join-output',
        '--ascii-output',
        '--sort-keys',
        '--color-output',
        '--monochrome-output',
        '--tab',
        '--exit-status',
        '--seq',
        '--stream',
        '--stream-errors',
        '--unbuffered',
        '--args',
        '--jsonargs',
      ),
      '--indent': 'value',
      '--from-file': 'read',
      '--library-path': 'value',
    },
    short: {
      ...flags('n', 'R', 's', 'c', 'r', 'j', 'a', 'S', 'C', 'M', 'e'),
      f: 'read',
      L: 'value',
    },
  };
  const operands = readOptions(rest, 1, table, fx);
  const fromFile = rest.some((w) => w.literal && /^(-f|--from-file)/.test(w.value));
  if (fromFile) notUnderstood(fx, 'jq -f runs a filter from a file the model cannot see');
  const filter = fromFile ? undefined : operands[0];
  if (filter) judgeJqFilter(filter, fx);
  if (!rest.some((w) => w.value === '--args' || w.value === '--jsonargs'))
    fx.reads.push(...(fromFile ? operands : operands.slice(1)));
  return fx;
};

/** find: start paths read recursively; `-exec` and friends run a command, judged on its own. */
const find: Model = (argv) => {
  const fx = effectsOf('find');
  fx.recursive = true;
  const TESTS_WITH_VALUE = new Set([
    '-name',
    '-iname',
    '-path',
    '-ipath',
    '-regex',
    '-iregex',
    '-type',
    '-xtype',
    '-size',
    '-mtime',
    '-mmin',
    '-atime',
    '-amin',
    '-ctime',
    '-cmin',
    '-newer',
    '-anewer',
    '-cnewer',
    '-user',
    '-group',
    '-uid',
    '-gid',
    '-perm',
    '-links',
    '-inum',
    '-samefile',
    '-maxdepth',
    '-mindepth',
    '-lname',
    '-ilname',
    '-wholename',
    '-iwholename',
    '-used',
    '-fstype',
    '-regextype',
    '-printf',
    '-context',
  ]);
  const TESTS = new Set([
    '-empty',
    '-true',
    '-false',
    '-readable',
    '-writable',
    '-executable',
    '-nouser',
    '-nogroup',
    '-prune',
    '-quit',
    '-depth',
    '-d',
    '-mount',
    '-xdev',
    '-noleaf',
    '-follow',
    '-daystart',
    '-print',
    '-print0',
    '-ls',
    '-a',
    '-o',
    '-and',
    '-or',
    '-not',
    '!',
    '(',
    ')',
    ',',
    '-ignore_readdir_race',
    '-noignore_readdir_race',
    '-nowarn',
    '-warn',
  ]);
  let i = 1;
  while (i < argv.length && /^-[HLP]$/.test(argv[i]?.value ?? '')) i++;
  const starts: ShellWord[] = [];
  for (; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    if (w.literal && (w.value.startsWith('-') || w.value === '!' || w.value === '(')) break;
    starts.push(w);
  }
  fx.reads.push(...(starts.length > 0 ? starts : [syntheticWord('.', true)]));
  for (; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    const v = w.value;
    if (!w.literal) {
      notUnderstood(fx, `${w.text} is not known before it runs and could be a find action`);
      continue;
    }
    if (TESTS.has(v)) continue;
    if (TESTS_WITH_VALUE.has(v)) {
      i++;
      continue;
    }
    if (v === '-exec' || v === '-execdir' || v === '-ok' || v === '-okdir') {
      const cmd: ShellWord[] = [];
      for (i++; i < argv.length; i++) {
        const c = argv[i] as ShellWord;
        if (c.value === ';' || c.value === '+') break;
        // `{}` is each file found: not known before it runs.
        cmd.push(c.value.includes('{}') ? syntheticWord(c.text) : c);
      }
      if (cmd.length > 0) fx.runs.push(cmd);
      else notUnderstood(fx, `find ${v} names no command`);
      continue;
    }
    if (v === '-fprint' || v === '-fprint0' || v === '-fls' || v === '-fprintf') {
      const file = argv[i + 1];
      if (file) fx.sideWrites.push({ op: `find ${v}`, target: file });
      fx.readOnly = false;
      i += v === '-fprintf' ? 2 : 1;
      continue;
    }
    if (v === '-files0-from') {
      const file = argv[++i];
      if (file) fx.reads.push(file);
      continue;
    }
    if (v === '-delete') {
      notUnderstood(fx, 'find -delete deletes what it finds');
      continue;
    }
    notUnderstood(fx, `find ${v} is not an expression the model knows`);
  }
  return fx;
};

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
const declare: Model = (argv) => {
  const program = argv[0]?.value ?? 'declare';
  const fx = effectsOf(program);
  let exported = program === 'export';
  let integer = false;
  const names: ShellWord[] = [];
  for (const w of argv.slice(1)) {
    if (w.literal && /^[-+][a-zA-Z]+$/.test(w.value)) {
      const letters = w.value.slice(1);
      if (letters.includes('x')) exported = true;
      if (letters.includes('i')) integer = true;
      if (letters.includes('n'))
        notUnderstood(fx, `${program} -n makes a name refer to another, evaluated later`);
      if (/[^aAfFgilnprtuxI]/.test(letters))
        notUnderstood(fx, `${program} option ${w.value} is not one the model knows`);
      continue;
    }
    names.push(w);
  }
  for (const w of names) {
    judgeAssignedName(w, fx, exported);
    const eq = w.value.indexOf('=');
    if (integer && eq >= 0 && !/^-?[0-9]+$/.test(w.value.slice(eq + 1)))
      notUnderstood(fx, `${program} -i evaluates ${w.text} as arithmetic, which may run commands`);
    if (integer && eq < 0)
      notUnderstood(fx, `${program} -i makes later assignments to ${w.value} arithmetic`);
  }
  return fx;
};

const ARITHMETIC = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** test / `[`: `-v name[subscript]` and arithmetic comparisons of names evaluate code. */
export function judgeTestWords(words: readonly ShellWord[], fx: ProgramEffects): void {
  words.forEach((w, i) => {
    if (w.literal && (w.value === '-v' || w.value === '-R')) {
      const name = words[i + 1];
      if (name && name.value.includes('[') && !/\[[0-9@*]+\]$/.test(name.value))
        notUnderstood(fx, `${w.value} ${name.text} evaluates a subscript, which may run commands`);
    }
    if (w.literal && ARITHMETIC.has(w.value)) {
      for (const side of [words[i - 1], words[i + 1]]) {
        if (side && !(side.literal && /^\s*-?[0-9]+\s*$/.test(side.value)))
          notUnderstood(
            fx,
            `${w.value} evaluates ${side.text} as arithmetic, which may run commands`,
          );
      }
    }
  });
}

const test: Model = (argv) => {
  const fx = effectsOf(argv[0]?.value ?? 'test');
  judgeTestWords(argv.slice(1), fx);
  return fx;
};

/** echo / printf print their words; like any program's literal words they are still checked as written. */
const echo: Model = () => {
  const fx = effectsOf('echo');
  fx.partial = true;
  return fx;
};

const printf: Model = (argv) => {
  const fx = effectsOf('printf');
  fx.partial = true;
  if (argv[1]?.value === '-v') {
    const name = argv[2];
    if (name) judgeAssignedName(name, fx, false);
  }
  return fx;
};

/** node / python / … : code given on the command line is not modelled. */
const interpreter =
  (inline: RegExp): Model =>
  (argv) => {
    const fx = effectsOf(argv[0]?.value ?? '');
    fx.readOnly = false;
    fx.partial = true;
    for (const w of argv.slice(1)) {
      if (!w.literal || !w.value.startsWith('-')) break;
      if (inline.test(w.value)) notUnderstood(fx, `${w.value} runs code given on the command line`);
    }
    if (argv[1]?.value === '-')
      notUnderstood(fx, `${argv[0]?.value} - runs code from its standard input`);
    return fx;
  };

const PACKAGE_OPTIONS: OptionTable = {
  long: {
    ...flags(
      '--silent',
      '--if-present',
      '--workspaces',
      '--include-workspace-root',
      '--no-color',
      '--color',
      '--json',
      '--parseable',
      '--long',
      '--ignore-scripts',
      '--frozen-lockfile',
      '--prefer-offline',
      '--offline',
      '--no-audit',
      '--no-fund',
      '--recursive',
      '--parallel',
      '--stream',
      '--no-bail',
      '--bail',
      '--verbose',
      '--quiet',
      '--production',
      '--dev',
      '--save-dev',
      '--save-exact',
      '--global',
      '--version',
      '--help',
      '--reporter-silent',
      '--aggregate-output',
      '--sequential',
      '--immutable',
      '--no-frozen-lockfile',
      '--prefer-frozen-lockfile',
      '--fail-if-no-match',
    ),
    ...values(
      '--workspace',
      '--filter',
      '--loglevel',
      '--reporter',
      '--dir',
      '--package',
      '--tag',
      '--access',
      '--otp',
      '--cwd',
    ),
    '--node-options': 'run',
    '--script-shell': 'run',
    '--call': 'run',
    '--userconfig': 'run',
    '--globalconfig': 'run',
    '--prefix': 'run',
    '--registry': 'run',
    '--shell': 'run',
  },
  short: {
    ...flags('s', 'r', 'g', 'D', 'E', 'y', 'q', 'v', 'h'),
    w: 'value',
    C: 'value',
    F: 'value',
    c: 'run',
    p: 'value',
  },
};

/** npm / pnpm / yarn / npx: their options before the script's own arguments (`--` and after pass through). */
const packageManager: Model = (argv) => {
  const fx = effectsOf(argv[0]?.value ?? 'npm');
  fx.readOnly = false;
  fx.partial = true;
  const dashdash = argv.findIndex((w) => w.literal && w.value === '--');
  const own = dashdash < 0 ? argv : argv.slice(0, dashdash);
  // After npx / npm exec / pnpm dlx the package's own options follow its name.
  const execAt = own.findIndex(
    (w, i) =>
      i > 0 &&
      w.literal &&
      !w.value.startsWith('-') &&
      (argv[0]?.value === 'npx' || ['exec', 'x', 'dlx'].includes(own[i - 1]?.value ?? '')),
  );
  readOptions(execAt < 0 ? own : own.slice(0, execAt + 1), 1, PACKAGE_OPTIONS, fx);
  return fx;
};

const tee: Model = (argv) => {
  const fx = effectsOf('tee');
  const operands = readOptions(
    argv,
    1,
    {
      long: { ...flags('--append', '--ignore-interrupts'), '--output-error': 'opt' },
      short: flags('a', 'i', 'p'),
    },
    fx,
  );
  fx.writes.push(...operands);
  fx.readOnly = operands.length === 0;
  return fx;
};

const dd: Model = (argv) => {
  const fx = effectsOf('dd');
  for (const w of argv.slice(1)) {
    const eq = w.value.indexOf('=');
    const key = eq < 0 ? w.value : w.value.slice(0, eq);
    const value = syntheticWord(w.value.slice(eq + 1), w.literal);
    if (!w.literal) notUnderstood(fx, `${w.text} is not known before it runs`);
    else if (key === 'if') fx.reads.push(value);
    else if (key === 'of') {
      fx.writes.push(value);
      fx.readOnly = false;
    } else if (
      ![
        'bs',
        'ibs',
        'obs',
        'cbs',
        'count',
        'skip',
        'seek',
        'iseek',
        'oseek',
        'conv',
        'status',
        'iflag',
        'oflag',
      ].includes(key) &&
      w.value !== '--help'
    )
      notUnderstood(fx, `dd operand ${w.value} is not one the model knows`);
  }
  return fx;
};

/** cp / mv / ln / install: the last operand (or `-t DIR`) is written; mv also takes its sources away. */
const copier =
  (program: string): Model =>
  (argv) => {
    const fx = effectsOf(program);
    fx.readOnly = false;
    const table: OptionTable = {
      long: {
        ...flags(
          '--recursive',
          '--archive',
          '--force',
          '--interactive',
          '--no-clobber',
          '--verbose',
          '--link',
          '--symbolic',
          '--update',
          '--dereference',
          '--no-dereference',
          '--no-target-directory',
          '--parents',
          '--relative',
          '--physical',
          '--logical',
          '--one-file-system',
          '--strip-trailing-slashes',
          '--remove-destination',
          '--attributes-only',
          '--debug',
          '--exchange',
          '--no-copy',
        ),
        ...opts(
          ['--backup', '--preserve', '--no-preserve', '--reflink', '--sparse', '--update'],
          'opt',
        ),
        '--suffix': 'value',
        '--target-directory': (v, f) => f.writes.push(v),
        '--mode': 'value',
        '--owner': 'value',
        '--group': 'value',
      },
      short: {
        ...flags(
          'r',
          'R',
          'a',
          'f',
          'i',
          'n',
          'v',
          'p',
          'l',
          's',
          'u',
          'b',
          'L',
          'P',
          'H',
          'T',
          'x',
          'd',
          'F',
          'Z',
          'D',
          'c',
        ),
        S: 'value',
        t: (v, f) => f.writes.push(v),
        m: 'value',
        o: 'value',
        g: 'value',
      },
    };
    const operands = readOptions(argv, 1, table, fx);
    fx.recursive = argv.some(
      (w) =>
        w.literal &&
        (/^-[a-zA-Z]*[rRa]/.test(w.value) || w.value === '--recursive' || w.value === '--archive'),
    );
    const targetGiven = fx.writes.length > 0;
    const sources = targetGiven || operands.length < 2 ? operands : operands.slice(0, -1);
    if (!targetGiven && operands.length >= 2)
      fx.writes.push(operands[operands.length - 1] as ShellWord);
    // mv takes its sources away (a write) and makes their content readable elsewhere (a read);
    // `ln -s` only names them.
    if (program !== 'ln') fx.reads.push(...sources);
    if (program === 'mv') fx.writes.push(...sources);
    return fx;
  };

const tar: Model = (argv) => {
  const fx = effectsOf('tar');
  const words = [...argv];
  if (words[1]?.literal && /^[a-zA-Z]+$/.test(words[1].value))
    words[1] = syntheticWord(`-${words[1].value}`, true);
  const mode =
    words.slice(1).find((w) => w.literal && /^-[a-zA-Z]*[cxtru]/.test(w.value))?.value ?? '';
  const long =
    words.find((w) => /^--(create|extract|get|list|append|update)$/.test(w.value))?.value ?? '';
  const create = /^-[a-zA-Z]*[cru]/.test(mode) || /create|append|update/.test(long);
  const extract = /^-[a-zA-Z]*x/.test(mode) || /extract|get/.test(long);
  const archive: OptionKind = (v, f) => {
    if (create) f.writes.push(v);
    else f.reads.push(v);
  };
  const table: OptionTable = {
    long: {
      ...flags(
        '--create',
        '--extract',
        '--get',
        '--list',
        '--append',
        '--update',
        '--gzip',
        '--bzip2',
        '--xz',
        '--zstd',
        '--lzma',
        '--auto-compress',
        '--verbose',
        '--keep-old-files',
        '--skip-old-files',
        '--no-same-owner',
        '--no-same-permissions',
        '--same-permissions',
        '--preserve-permissions',
        '--numeric-owner',
        '--dereference',
        '--no-recursion',
        '--recursion',
        '--totals',
        '--overwrite',
        '--strip-components',
        '--wildcards',
        '--anchored',
        '--exclude-vcs',
        '--exclude-vcs-ignores',
        '--sort',
        '--full-time',
      ),
      ...values(
        '--exclude',
        '--transform',
        '--owner',
        '--group',
        '--mode',
        '--mtime',
        '--format',
        '--strip-components',
        '--sort',
      ),
      '--file': archive,
      '--directory': 'value',
      '--files-from': 'read',
      '--exclude-from': 'read',
      ...opts(
        [
          '--to-command',
          '--use-compress-program',
          '--checkpoint-action',
          '--info-script',
          '--new-volume-script',
          '--rsh-command',
          '--rmt-command',
        ],
        'run',
      ),
    },
    short: {
      ...flags(
        'c',
        'x',
        't',
        'r',
        'u',
        'z',
        'j',
        'J',
        'a',
        'v',
        'k',
        'p',
        'h',
        'P',
        'O',
        'm',
        'S',
        'W',
      ),
      f: archive,
      C: 'value',
      T: 'read',
      X: 'read',
      I: 'run',
      F: 'run',
    },
  };
  const operands = readOptions(words, 1, table, fx);
  fx.recursive = true;
  if (create) {
    fx.reads.push(...operands);
    fx.readOnly = false;
  } else if (extract)
    notUnderstood(
      fx,
      'tar extracts the file names the archive holds, which are not known before it runs',
    );
  return fx;
};

const curl: Model = (argv) => {
  const fx = effectsOf('curl');
  fx.network = true;
  fx.readOnly = false;
  const data: OptionKind = (v, f) => {
    const at = v.value.indexOf('@');
    if (at >= 0 && (at === 0 || v.value[at - 1] === '='))
      f.reads.push(syntheticWord(v.value.slice(at + 1), v.literal));
    else if (!v.literal) f.reads.push(v);
  };
  readOptions(
    argv,
    1,
    {
      long: {
        ...flags(
          '--silent',
          '--show-error',
          '--fail',
          '--location',
          '--include',
          '--head',
          '--verbose',
          '--insecure',
          '--compressed',
          '--remote-name',
          '--remote-name-all',
          '--get',
          '--http1.1',
          '--http2',
          '--globoff',
          '--no-progress-meter',
          '--fail-with-body',
          '--create-dirs',
          '--remote-header-name',
        ),
        ...values(
          '--request',
          '--header',
          '--user-agent',
          '--max-time',
          '--connect-timeout',
          '--retry',
          '--user',
          '--referer',
          '--write-out',
          '--url',
          '--proxy',
          '--resolve',
          '--range',
          '--max-redirs',
        ),
        '--output': 'write',
        '--dump-header': 'write',
        '--cookie-jar': 'write',
        '--trace': 'write',
        '--trace-ascii': 'write',
        '--stderr': 'write',
        '--output-dir': 'write',
        '--upload-file': 'read',
        '--config': 'read',
        '--netrc-file': 'read',
        '--cert': 'read',
        '--key': 'read',
        '--cookie': data,
        '--data': data,
        '--data-binary': data,
        '--data-raw': 'value',
        '--data-urlencode': data,
        '--form': data,
        '--json': data,
      },
      short: {
        ...flags('s', 'S', 'f', 'L', 'i', 'I', 'v', 'k', 'O', 'G', 'g', 'J', '#'),
        ...values('X', 'H', 'A', 'm', 'u', 'e', 'w', 'x', 'r'),
        o: 'write',
        D: 'write',
        c: 'write',
        T: 'read',
        K: 'read',
        E: 'read',
        b: data,
        d: data,
        F: data,
      },
    },
    fx,
  );
  return fx;
};

const wget: Model = (argv) => {
  const fx = effectsOf('wget');
  fx.network = true;
  fx.readOnly = false;
  readOptions(
    argv,
    1,
    {
      long: {
        ...flags(
          '--quiet',
          '--verbose',
          '--no-verbose',
          '--continue',
          '--timestamping',
          '--no-check-certificate',
          '--server-response',
          '--spider',
          '--no-clobber',
          '--recursive',
          '--no-parent',
          '--mirror',
          '--page-requisites',
          '--convert-links',
        ),
        ...values(
          '--tries',
          '--timeout',
          '--user-agent',
          '--header',
          '--user',
          '--password',
          '--level',
          '--wait',
        ),
        '--output-document': 'write',
        '--output-file': 'write',
        '--append-output': 'write',
        '--directory-prefix': 'write',
        '--input-file': 'read',
        '--post-file': 'read',
        '--body-file': 'read',
        '--load-cookies': 'read',
        '--save-cookies': 'write',
        '--post-data': 'value',
        '--execute': 'run',
      },
      short: {
        ...flags('q', 'v', 'c', 'N', 'S', 'r', 'm', 'p', 'k', 'b', 'x', 'E', 'K', 'H', 'L', 'np'),
        ...values('t', 'T', 'U', 'l', 'w', 'A', 'R', 'D'),
        O: 'write',
        o: 'write',
        a: 'write',
        P: 'write',
        i: 'read',
        e: 'run',
      },
    },
    fx,
  );
  return fx;
};

/** Programs with a model, by base name. */
export const MODELS: Readonly<Record<string, Model>> = {
  grep,
  egrep: grep,
  fgrep: grep,
  rg,
  sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sort: reader('sort', SORT_TABLE),
  jq,
  find,
  declare,
  typeset: declare,
  export: declare,
  local: declare,
  readonly: declare,
  unset: (argv) => {
    const fx = effectsOf('unset');
    for (const w of argv.slice(1)) {
      if (w.literal && w.value.startsWith('-')) continue;
      if (!w.literal || (w.value.includes('[') && !/\[[0-9@*]+\]$/.test(w.value)))
        notUnderstood(fx, `unset ${w.text} evaluates a subscript, which may run commands`);
    }
    return fx;
  },
  test,
  '[': test,
  echo,
  printf,
  node: interpreter(/^(-e|-p|--eval|--print|-[a-zA-Z]*[ep])$/),
  deno: interpreter(/^(eval)$/),
  bun: interpreter(/^(-e|--eval|-p|--print)$/),
  python: interpreter(/^-[a-zA-Z]*c/),
  python3: interpreter(/^-[a-zA-Z]*c/),
  perl: interpreter(/^-[a-zA-Z]*[eE]/),
  ruby: interpreter(/^-[a-zA-Z]*e/),
  npm: packageManager,
  pnpm: packageManager,
  yarn: packageManager,
  npx: packageManager,
  tee,
  dd,
  cp: copier('cp'),
  mv: copier('mv'),
  ln: copier('ln'),
  install: copier('install'),
  tar,
  curl,
  wget,
};
