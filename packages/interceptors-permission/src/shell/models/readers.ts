import { isProcessSubstitution, type ShellWord, syntheticWord } from '../words';
import { FOUND } from './found';
import {
  effectsOf,
  flags,
  type Model,
  maySplit,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  opts,
  readOptions,
  values,
} from './model';
import { judgeAwkProgram, judgeSedScript } from './scripts';

// jq's model has a file of its own; programs.ts takes every reader from here.
export { jq } from './jq';

const digits = opts('0 1 2 3 4 5 6 7 8 9', 'flag');

/** A program that only reads its operands, with these options. */
export const reader =
  (program: string, table: OptionTable, firstIsScript = false): Model =>
  (argv) => {
    const fx = effectsOf(program);
    const operands = readOptions(argv, 1, table, fx);
    fx.reads.push(...(firstIsScript ? operands.slice(1) : operands));
    return fx;
  };

/**
 * grep's `-d ACTION`: grep takes any unambiguous beginning of `read`, `recurse` or `skip`
 * (`-d rec` reads the tree), so a value that is not known before it runs may recurse too.
 */
const directories: OptionKind = (v, fx) => {
  if (!v.literal) notUnderstood(fx, `grep -d ${v.text} is not known before it runs`);
  else if (v.value.length >= 3 && 'recurse'.startsWith(v.value)) fx.recursive = true;
};

const GREP_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-case --no-ignore-case --word-regexp --line-regexp --count --files-with-matches --files-without-match --line-number --no-filename --with-filename --only-matching --quiet --silent --no-messages --byte-offset --extended-regexp --fixed-strings --basic-regexp --perl-regexp --null --null-data --text --invert-match --line-buffered --initial-tab --binary --no-ignore-case',
    ),
    ...values(
      '--regexp --max-count --after-context --before-context --context --include --exclude --exclude-dir --label --binary-files --devices',
    ),
    ...opts('--color --colour', 'opt'),
    ...opts('--recursive --dereference-recursive', 'tree'),
    '--file': 'read',
    '--exclude-from': 'read',
    '--directories': directories,
  },
  short: {
    ...flags('i y w x c l L n h H o q s b E F G P z Z a I U T v'),
    ...digits,
    ...values('e m A B C D'),
    r: 'tree',
    R: 'tree',
    f: 'read',
    d: directories,
  },
};

/**
 * A searcher's table with its pattern options (`-e`, `-f`, …) noting that the pattern was given
 * by option, so the first operand is a file: found however the option is spelled (`-5e`, `-ie`).
 */
const patternGiven = (
  table: OptionTable,
  short: readonly string[],
  long: readonly string[],
): { readonly table: OptionTable; readonly given: () => boolean } => {
  let given = false;
  const wrap =
    (kind: OptionKind | undefined): OptionKind =>
    (v, f, option) => {
      given = true;
      if (kind === 'read') f.reads.push(v);
      else if (typeof kind === 'function') kind(v, f, option);
    };
  const longs = { ...table.long };
  const shorts = { ...table.short };
  for (const name of long) longs[name] = wrap(longs[name]);
  for (const letter of short) shorts[letter] = wrap(shorts[letter]);
  return { table: { ...table, long: longs, short: shorts }, given: () => given };
};

export const grep: Model = (argv) => {
  const fx = effectsOf('grep');
  const pattern = patternGiven(GREP_TABLE, ['e', 'f'], ['--regexp', '--file']);
  const operands = readOptions(argv, 1, pattern.table, fx);
  const files = pattern.given() ? operands : operands.slice(1);
  // -R follows the links inside the tree (`src/env-link` → .env), -r does not.
  fx.followsLinks = argv.some(
    (w) => w.literal && (/^-[a-zA-Z0-9]*R/.test(w.value) || w.value === '--dereference-recursive'),
  );
  fx.reads.push(...files);
  if (fx.recursive && files.length === 0) fx.reads.push(syntheticWord('.', true));
  return fx;
};

const RG_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-case --smart-case --case-sensitive --word-regexp --line-regexp --count --count-matches --files-with-matches --files-without-match --line-number --no-line-number --no-filename --with-filename --only-matching --quiet --fixed-strings --invert-match --hidden --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-parent --no-ignore-global --no-ignore-exclude --no-ignore-files --follow --files --json --vimgrep --heading --no-heading --column --no-column --trim --multiline --multiline-dotall --pcre2 --no-messages --null --null-data --text --binary --search-zip --stats --type-list --byte-offset --crlf --unrestricted --sort-files --no-config --one-file-system --passthru --pretty --debug --trace --line-buffered --block-buffered --no-unicode --glob-case-insensitive --include-zero --max-columns-preview --mmap --no-mmap --no-require-git --auto-hybrid-regex --no-pcre2-unicode --no-encoding --with-filename',
    ),
    ...values(
      '--regexp --glob --iglob --type --type-not --type-add --type-clear --max-count --after-context --before-context --context --replace --encoding --max-columns --threads --sort --sortr --color --colors --max-depth --max-filesize --path-separator --engine --field-match-separator --field-context-separator --context-separator --dfa-size-limit --regex-size-limit',
    ),
    '--file': 'read',
    '--ignore-file': 'read',
    '--pre': 'run',
    '--hostname-bin': 'run',
    '--pre-glob': 'value',
  },
  short: {
    ...flags('i S s w x c l n N I H o q F v L U P a z u p b 0 h V'),
    ...values('e g t T m A B C r E j M d'),
    f: 'read',
  },
};

export const rg: Model = (argv) => {
  const fx = effectsOf('rg');
  const pattern = patternGiven(RG_TABLE, ['e', 'f'], ['--regexp', '--file']);
  const operands = readOptions(argv, 1, pattern.table, fx);
  // `--files` and `--type-list` take no pattern either.
  const listing = argv.some(
    (w) => w.literal && (w.value === '--files' || w.value === '--type-list'),
  );
  const files = pattern.given() || listing ? operands : operands.slice(1);
  fx.recursive = true;
  // -L / --follow follows the links inside the tree.
  fx.followsLinks = argv.some(
    (w) => w.literal && (/^-[a-zA-Z0-9]*L/.test(w.value) || w.value === '--follow'),
  );
  fx.reads.push(...files);
  if (files.length === 0) fx.reads.push(syntheticWord('.', true));
  return fx;
};

/** sed: `-e` / `--expression` give scripts (judged), `-f` a script file (not seen: not understood). */
export const sed: Model = (argv) => {
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
  const _edit: OptionKind = () => {
    inPlace = true;
  };
  const operands = readOptions(
    argv,
    1,
    {
      long: {
        ...flags(
          '--quiet --silent --regexp-extended --separate --unbuffered --null-data --posix --debug --sandbox --follow-symlinks --binary',
        ),
        '--expression': script,
        '--file': file,
        '--line-length': 'value',
        '--in-place': 'opt',
      },
      short: { ...flags('n E r s u z'), e: script, f: file, l: 'value', i: 'opt' },
    },
    fx,
  );
  // `-i` takes its suffix attached only (`-ni.bak`: `.bak`); `--in-place` with or without
  // `=SUFFIX`. The suffix names a backup of each file, which sed writes.
  const suffixes = argv.flatMap((w) => {
    const m = w.literal ? /^-[a-zA-Z]*?i(.*)|^--in-place(?:=(.*)|$)/.exec(w.value) : null;
    return m ? [m[1] ?? m[2] ?? ''] : [];
  });
  if (suffixes.length > 0) inPlace = true;
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
    for (const f of files) {
      fx.sideWrites.push({ op: 'sed -i', target: f });
      for (const suffix of suffixes.filter((x) => x !== '')) {
        // A `/` puts the backup elsewhere (`-i'src/*'` writes src/FILE), a `*` is the file's name.
        if (/[/*]/.test(suffix))
          notUnderstood(fx, `sed -i${suffix} writes each backup where its suffix says`);
        else
          fx.sideWrites.push({
            op: 'sed -i',
            target: syntheticWord(`${f.value}${suffix}`, f.literal),
          });
      }
    }
    fx.readOnly = false;
  }
  return fx;
};

export const awk: Model = (argv) => {
  const program = argv[0]?.value ?? 'awk';
  const fx = effectsOf(program);
  let fromFile = false;
  let given = false;
  // Found however the option is spelled (`-bf prog`, `--file=prog`).
  const file: OptionKind = (v, f) => {
    fromFile = true;
    given = true;
    f.reads.push(v);
  };
  const source: OptionKind = (v, f) => {
    given = true;
    judgeAwkProgram(v, f);
  };
  const table: OptionTable = {
    long: {
      ...values('--field-separator --assign'),
      ...flags('--posix --traditional --characters-as-bytes --sandbox'),
      '--file': file,
      '--source': source,
    },
    short: { ...values('F v'), ...flags('b P c S'), f: file, e: source },
    // awk reads no option after its first operand: `awk 1 -F .env` reads the files -F and .env.
    stopAtOperand: true,
  };
  const operands = readOptions(argv, 1, table, fx);
  if (fromFile) notUnderstood(fx, `${program} -f runs a program from a file the model cannot see`);
  if (!given && operands[0]) judgeAwkProgram(operands[0], fx);
  // `var=value` operands assign; the rest are files read.
  fx.reads.push(
    ...(given ? operands : operands.slice(1)).filter(
      (w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value),
    ),
  );
  return fx;
};

export const SORT_TABLE: OptionTable = {
  long: {
    ...flags(
      '--ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --check --merge --stable --unique --zero-terminated --debug',
    ),
    ...values(
      '--key --field-separator --buffer-size --temporary-directory --parallel --batch-size --sort',
    ),
    ...opts('--check', 'opt'),
    '--output': 'write',
    '--random-source': 'read',
    '--files0-from': 'read',
    '--compress-program': 'run',
  },
  short: {
    ...flags('b d f g i M h n R r V c C m s u z'),
    ...values('k t S T'),
    o: 'write',
  },
};

/** find: start paths read recursively; `-exec` and friends run a command, judged on its own. */
export const find: Model = (argv) => {
  const fx = effectsOf('find');
  // find lists names and reads no content: its start paths are checked as paths, not as trees
  // (what -exec runs on each file is judged on its own).
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
  // Global options stand before the start paths: -H / -L / -P, -D with its value in the next word,
  // -O with its level attached (`-Dtree` and `-HL` are predicates find does not know).
  // (A word not known before it runs holds its source text, `$x` or `~u`, which matches none.)
  let i = 1;
  for (; i < argv.length; i++) {
    const v = (argv[i] as ShellWord).value;
    const next = argv[i + 1];
    if (/^-([HLP]|O\d+)$/.test(v)) continue;
    if (v === '-D' && next?.literal && !next.glob) i++;
    else break;
  }
  const starts: ShellWord[] = [];
  for (; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    if (w.literal && (w.value.startsWith('-') || w.value === '!' || w.value === '(')) break;
    // `find *` may expand to a file named `-delete`.
    if (w.glob && /^[*?[{]/.test(w.value))
      notUnderstood(fx, `the glob ${w.text} may expand to a file named like a find action`);
    starts.push(w);
  }
  fx.reads.push(...(starts.length > 0 ? starts : [syntheticWord('.', true)]));
  // With -files0-from the start paths come from a file, and `{}` may be any of them (`-rf`).
  const safeFound =
    starts.every((w) => w.literal && !w.value.startsWith('-')) &&
    !argv.some((w) => w.value === '-files0-from');
  for (; i < argv.length; i++) {
    const w = argv[i] as ShellWord;
    const v = w.value;
    // An unquoted glob expands to as many words as it matches, each of which may be an action.
    if (!w.literal || w.glob) {
      notUnderstood(fx, `${w.text} is not known before it runs and could be a find action`);
      continue;
    }
    if (TESTS.has(v)) continue;
    if (TESTS_WITH_VALUE.has(v)) {
      // An unquoted glob or expansion may split into several words, the later ones actions.
      const value = argv[++i];
      if (value && maySplit(value))
        notUnderstood(
          fx,
          `the value ${value.text} of find ${v} may split into several words (quote it)`,
        );
      continue;
    }
    if (v === '-exec' || v === '-execdir' || v === '-ok' || v === '-okdir') {
      // find ends the command at `;`, and -exec / -execdir also at a `+` right after `{}`: any
      // other `+` is an argument (`-exec grep -- x + -o -name .env -exec echo {} +` reads .env).
      const plus = v === '-exec' || v === '-execdir';
      const cmd: ShellWord[] = [];
      let stray = -1;
      for (i++; i < argv.length; i++) {
        const c = argv[i] as ShellWord;
        if (
          c.value === ';' ||
          (plus && c.value === '+' && (argv[i - 1] as ShellWord).value === '{}')
        )
          break;
        if (c.value === '+' && stray < 0) stray = i;
        // A word not known before it runs may be `;` (`$(echo ';')`, a file named `;`): the
        // command would end there, and the words after it be find's (`-delete`).
        if ((!c.literal || c.glob) && !isProcessSubstitution(c))
          notUnderstood(fx, `${c.text} in find ${v}'s command could end it and begin an action`);
        // `{}` is each file found: not known before it runs.
        cmd.push(
          c.value === '{}' && safeFound
            ? FOUND
            : c.value.includes('{}')
              ? syntheticWord(c.text)
              : c,
        );
      }
      if (cmd.length > 0) fx.runs.push(cmd);
      else notUnderstood(fx, `find ${v} names no command`);
      // The words after such a `+` are read as find's too, as a find that ended there would: a
      // second reading that only adds what it judges (`-exec grep x + -exec rm x ;` asks of rm).
      if (stray >= 0) i = stray;
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
