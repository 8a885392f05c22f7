/**
 * Every spelling of an option, predicate or script command of the reading programs (find, awk,
 * sed, grep, rg, jq, sort) that writes, reads a file, runs code or deletes is judged as what it
 * does, under a policy that allows each program by prefix: attached, separated, `--opt=value`,
 * unique long prefixes, optional values (`-o[FILE]`), clusters after a harmless flag, find's
 * predicates after `(`, `!`, `-not`, `-o`, `,` and its global options, sed's script commands in
 * every carrier. Seeded; the seed is printed. Each shape this file found allowed was run for real
 * in a temp dir first (changesets `perm-find-exec-end`, `perm-awk-operands`,
 * `perm-grep-directories`, `perm-jq-modulemeta`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allowedAmong,
  filePolicy,
  makeProject,
  neverAllowed,
  notAllowedAmong,
  optionSpellings,
  type RiskyOption,
} from '../../../test/helpers';

const AWKS = ['awk', 'gawk', 'mawk', 'nawk'];
const GREPS = ['grep', 'egrep', 'fgrep'];
const PROGRAMS = ['find', ...AWKS, 'sed', ...GREPS, 'rg', 'jq', 'sort'];
const { root, home } = makeProject();
/**
 * The policy, made once for each describe: a policy remembers its decisions, so a line judged in
 * one test is not judged again in a later one (and Stryker would take only the first for it).
 */
const readerPolicy = () =>
  filePolicy({
    cwd: root,
    home,
    rules: {
      allow: [...PROGRAMS.map((p) => `Bash(${p}:*)`), 'Bash(echo:*)'],
      deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
    },
  });

/** A program and the words after its name: one risky invocation. */
interface Risky {
  readonly program: string;
  readonly rest: string;
}

const spelled = (spec: RiskyOption): Risky[] =>
  optionSpellings(spec).map((s) => ({
    program: spec.program,
    rest: `${s} ${spec.after}`.trim(),
  }));

/** gawk's options with an optional value: `-o`, `-oFILE`, `--pretty-print[=FILE]`, `-bo`. */
const optional = (short: string, long: string, file: string): string[] => [
  `-${short}`,
  `-${short}${file}`,
  `-b${short}`,
  `-b${short}${file}`,
  `--${long}`,
  `--${long}=${file}`,
  `--${long.slice(0, 4)}=${file}`,
];

// find: each predicate that deletes, runs, writes or reads, in every place find reads one.
const FIND_ACTIONS = [
  '-delete',
  '-exec touch src/x \\;',
  '-exec touch src/x {} +',
  '-execdir touch src/x \\;',
  '-execdir touch src/x {} +',
  '-ok touch src/x \\;',
  '-okdir touch src/x \\;',
  '-fprint src/x',
  '-fprint0 src/x',
  '-fprintf src/x %p',
  '-fls src/x',
  '-files0-from .env',
  '-exec grep -- TOKEN + -o -name .env -exec echo {} +',
  '-execdir grep -- TOKEN + -o -name .env -exec echo {} +',
  "-exec echo $(echo ';') -delete -name \\;",
  '-exec echo "$X" -delete -name \\;',
  '-exec echo $X -delete -name \\;',
  '-exec echo `echo +` -delete -name \\;',
  '-ok echo {} + -name .env \\;',
  '-okdir echo {} + -name .env \\;',
];
const FIND_PLACES = [
  (a: string) => `. ${a}`,
  (a: string) => a,
  (a: string) => `src . ${a}`,
  (a: string) => `. \\( ${a} \\)`,
  (a: string) => `. ! ${a}`,
  (a: string) => `. -not ${a}`,
  (a: string) => `. -name x -o ${a}`,
  (a: string) => `. -name x -or ${a}`,
  (a: string) => `. -name x -a ${a}`,
  (a: string) => `. -name x -and ${a}`,
  (a: string) => `. -name x , ${a}`,
  (a: string) => `. \\( -name x \\) , ${a}`,
  (a: string) => `-L . ${a}`,
  (a: string) => `-H . ${a}`,
  (a: string) => `-P . ${a}`,
  (a: string) => `-D exec . ${a}`,
  (a: string) => `-O3 . ${a}`,
  (a: string) => `-L -D tree -O1 ${a}`,
  (a: string) => `. -maxdepth 1 ${a}`,
  (a: string) => `. -name '*.ts' -print ${a}`,
];
const FIND: Risky[] = FIND_ACTIONS.flatMap((a) =>
  FIND_PLACES.map((place) => ({ program: 'find', rest: place(a) })),
);

// awk: options that run a program from a file, load code, or write a file; then programs that
// reach beyond their input; then words after the program, which awk reads as files.
const AWK_OPTIONS: string[] = [
  ...optionSpellings({
    program: 'awk',
    long: 'file',
    short: 'f',
    flag: 'b',
    value: 'p.awk',
    after: '',
  }),
  ...optionSpellings({
    program: 'awk',
    long: 'include',
    short: 'i',
    flag: 'b',
    value: 'p.awk',
    after: '',
  }),
  ...optionSpellings({
    program: 'awk',
    long: 'load',
    short: 'l',
    flag: 'b',
    value: 'ext',
    after: '',
  }),
  ...optionSpellings({
    program: 'awk',
    long: 'exec',
    short: 'E',
    flag: 'b',
    value: 'p.awk',
    after: '',
  }),
  ...optional('o', 'pretty-print', 'src/x'),
  ...optional('p', 'profile', 'src/x'),
  ...optional('d', 'dump-variables', 'src/x'),
  ...optional('D', 'debug', 'cmds'),
  '-W exec p.awk',
  '-Wexec p.awk',
  '-We p.awk',
  '-W exec=p.awk',
  '-W file=p.awk',
  '-Wfile=p.awk',
  '-Wsource=\'BEGIN{system("touch src/x")}\'',
  '-W dump',
  '--fi=p.awk',
  '--so=1',
].map((o) => `${o} README.md`);
const AWK_REACH = [
  'BEGIN{system("touch src/x")}',
  'BEGIN { n = "AR" "GV"; SYMTAB[n][1] = ".env" } 1',
  'BEGIN { n = "ENVI" "RON"; print SYMTAB[n]["TOKEN"] }',
  'BEGIN { while ((getline l < ".env") > 0) print l }',
  '{ print > "src/x" }',
  'BEGIN { ARGV[1] = ".env" } 1',
];
const AWK_CARRIERS = [
  (p: string) => `'${p}' README.md`,
  (p: string) => `-e '${p}' README.md`,
  (p: string) => `-e'${p}' README.md`,
  (p: string) => `--source='${p}' README.md`,
  (p: string) => `--source '${p}' README.md`,
  (p: string) => `-be '${p}' README.md`,
  (p: string) => `-v x=1 '${p}' README.md`,
  (p: string) => `-vx=1 '${p}' README.md`,
  (p: string) => `--assign=x=1 '${p}' README.md`,
  (p: string) => `-F: '${p}' README.md`,
  (p: string) => `-F : '${p}' README.md`,
  (p: string) => `-- '${p}' README.md`,
];
const AWK_AFTER = [
  '-F .env',
  '-v .env',
  '-f .env',
  '-e .env',
  '-- .env',
  '-b .env',
  '-vx=1 .env',
].map((w) => `1 ${w}`);
const AWK: Risky[] = AWKS.flatMap((program) =>
  [
    ...AWK_OPTIONS,
    ...AWK_REACH.flatMap((p) => AWK_CARRIERS.map((carry) => carry(p))),
    ...AWK_AFTER,
  ].map((rest) => ({ program, rest })),
);

// sed: in place in every spelling, script files, and each script command that writes, reads or
// runs, in each carrier.
const SED_IN_PLACE = [
  '-i',
  '-i.bak',
  '-ni',
  '-si',
  '-Ei',
  '-zi',
  '-ie',
  '-ni.bak',
  '-i -n',
  '-s -i',
  '--in-place',
  '--in-place=.bak',
  '--in-place=',
  '--in-p',
  '--in-p=.bak',
  '-u -i',
  '--follow-symlinks -i',
  '-E --in-place',
].map((o) => `${o} p src/a.ts`);
const SED_FILE = optionSpellings({
  program: 'sed',
  long: 'file',
  short: 'f',
  flag: 'n',
  value: 'p.sed',
  after: '',
}).map((o) => `${o} README.md`);
const SED_COMMANDS = [
  'w src/x',
  'wsrc/x',
  '1w src/x',
  '$w src/x',
  '/a/w src/x',
  '\\,a,w src/x',
  '1!w src/x',
  '1,2w src/x',
  '1,+2w src/x',
  '0~2w src/x',
  'W src/x',
  'p;w src/x',
  ':a;w src/x',
  'b;w src/x',
  'y/a/b/;w src/x',
  'r .env',
  'r.env',
  '1r .env',
  'R .env',
  '$R .env',
  'r secrets/key',
  'e touch src/x',
  'e',
  '1e',
  '1!e',
  's/a/b/w src/x',
  's/a/b/gw src/x',
  's/a/b/3w src/x',
  's|a|b|w src/x',
  's/a/b/e',
  's/a/b/pe',
  's/a/b/ge',
  's/[/]/b/e',
];
const SED_CARRIERS = [
  (c: string) => `'${c}' README.md`,
  (c: string) => `-n '${c}' README.md`,
  (c: string) => `-e '${c}' README.md`,
  (c: string) => `-e'${c}' README.md`,
  (c: string) => `--expression='${c}' README.md`,
  (c: string) => `--expression '${c}' README.md`,
  (c: string) => `-ne '${c}' README.md`,
  (c: string) => `-n -e p -e '${c}' README.md`,
  (c: string) => `-e p --expression='${c}' README.md`,
  (c: string) => `$'#n\\n${c}' README.md`,
  (c: string) => `-s '${c}' README.md`,
  (c: string) => `-E '${c}' README.md`,
  (c: string) => `-z '${c}' README.md`,
  (c: string) => `-u '${c}' README.md`,
  (c: string) => `-l 5 '${c}' README.md`,
  (c: string) => `-l5 '${c}' README.md`,
  (c: string) => `--debug '${c}' README.md`,
  (c: string) => `--posix '${c}' README.md`,
  (c: string) => `--follow-symlinks '${c}' README.md`,
  (c: string) => `--sandbox '${c}' README.md`,
  (c: string) => `-e '1{' -e '${c}' -e '}' README.md`,
];
const SED: Risky[] = [
  ...SED_IN_PLACE,
  ...SED_FILE,
  ...SED_COMMANDS.flatMap((c) => SED_CARRIERS.map((carry) => carry(c))),
].map((rest) => ({ program: 'sed', rest }));

// grep: files of patterns, and every way of reading a tree that holds .env and secrets/.
const GREP_TREES = [
  '-r',
  '-R',
  '-ir',
  '-ri',
  '-nR',
  '--recursive',
  '--dereference-recursive',
  '-d recurse',
  '-drecurse',
  '-d rec',
  '-drec',
  '-d recu',
  '-id rec',
  '--directories=recurse',
  '--directories recurse',
  '--directories=rec',
  '-d "$M"',
  '-r --include=.env',
  '-r --exclude=x',
].map((o) => `${o} TOKEN .`);
const GREP: Risky[] = GREPS.flatMap((program) => [
  ...spelled({ program, long: 'file', short: 'f', flag: 'i', value: '.env', after: 'README.md' }),
  ...spelled({
    program,
    long: 'file',
    short: 'f',
    flag: '5',
    value: 'secrets/key',
    after: 'README.md',
  }),
  ...spelled({ program, long: 'exclude-from', value: '.env', after: '-r x src' }),
  ...GREP_TREES.map((rest) => ({ program, rest })),
  ...['-R TOKEN src', '-iR TOKEN src', '--dereference-recursive TOKEN src', '-r TOKEN secrets'].map(
    (rest) => ({ program, rest }),
  ),
]);

// rg: files read, programs run, links followed.
const RG: Risky[] = [
  ...spelled({ program: 'rg', long: 'file', short: 'f', flag: 'i', value: '.env', after: 'src' }),
  ...spelled({ program: 'rg', long: 'ignore-file', value: '.env', after: 'x src' }),
  ...spelled({ program: 'rg', long: 'pre', value: 'cat', after: 'x src' }),
  ...spelled({ program: 'rg', long: 'hostname-bin', value: 'cat', after: 'x src' }),
  ...[
    '-L x src',
    '-iL x src',
    '--follow x src',
    '--pre-glob "*" --pre cat x src',
    'x secrets',
    'x',
    '-z x',
  ].map((rest) => ({ program: 'rg', rest })),
];

// jq: filters from a file, files read into variables, modules, and files before --args.
const JQ: Risky[] = [
  '-f .env',
  '-f.env',
  '-nf .env',
  '-rnf .env',
  '--from-file .env',
  '--from-file=.env',
  '-n -f .env .',
  '--rawfile a .env -n .',
  '-n --rawfile a .env .',
  '--slurpfile a .env -n .',
  '-n --slurpfile a secrets/key .',
  '. .env',
  '-r . .env',
  '-R . .env --args x',
  '-R . .env --jsonargs 1',
  '. -- .env',
  '-n \'import "secrets/key" as k; .\'',
  '-n -L . \'import "secrets/key" as k; .\'',
  '-n -L. \'include "secrets/key"; .\'',
  '-n --library-path . \'include "x"; .\'',
  '-n \'"secrets/key" | modulemeta\'',
  '-L --args . .env',
].map((rest) => ({ program: 'jq', rest }));

const SORT: Risky[] = [
  ...spelled({
    program: 'sort',
    long: 'output',
    short: 'o',
    flag: 'n',
    value: 'src/x',
    after: 'README.md',
  }),
  ...spelled({ program: 'sort', long: 'files0-from', value: '.env', after: '' }),
  ...spelled({ program: 'sort', long: 'random-source', value: '.env', after: '-R README.md' }),
  ...spelled({ program: 'sort', long: 'compress-program', value: 'sh', after: 'README.md' }),
  ...[
    '-uo src/x README.md',
    '-k1 -o src/x README.md',
    '-t: -osrc/x README.md',
    '.env',
    '-- .env',
  ].map((rest) => ({ program: 'sort', rest })),
];

const RISKY: readonly Risky[] = [...FIND, ...AWK, ...SED, ...GREP, ...RG, ...JQ, ...SORT];

/** Harmless words each program takes before the risky ones, for the property to mix in. */
const HARMLESS: Readonly<Record<string, readonly string[]>> = {
  find: ['-L', '-H', '-P'],
  awk: ['-F:', '-v y=2'],
  gawk: ['-F:', '--posix'],
  mawk: ['-F:'],
  nawk: ['-F:'],
  sed: ['-n', '-E', '--posix'],
  grep: ['-i', '-n', '-E'],
  egrep: ['-i', '-c'],
  fgrep: ['-i', '-l'],
  rg: ['-i', '-n', '--hidden'],
  jq: ['-c', '-r', '-S'],
  sort: ['-n', '-r', '-u'],
};

const line = (r: Risky, pad = ''): string =>
  `${r.program} ${pad} ${r.rest}`.replace(/ +/g, ' ').trim();

/** Everyday invocations of the same programs: they must stay allowed. */
const BENIGN = [
  "find . -name '*.ts'",
  'find src -type f -print',
  'find . -maxdepth 2 -name x -o -name y',
  'find -L . -name x',
  'find -D exec -O3 . -name x',
  'find . -exec echo {} +',
  'find . -name x -exec echo found \\;',
  'find . -newer README.md -print0',
  "awk '{print $1}' README.md",
  "awk -F: '{print $1}' README.md",
  "gawk -v x=1 'BEGIN{print x}'",
  "mawk 'NR==1' README.md",
  "awk -- '{print}' README.md",
  "sed -n '1,5p' README.md",
  "sed -e 's/a/b/' README.md",
  "sed -E 's/(a)/\\1/g' README.md",
  'sed -n -e p -e = README.md',
  'sed --posix -n p README.md',
  'grep -n TODO README.md',
  'grep -rn TODO src/sub',
  'grep -i -e x README.md',
  "egrep 'a|b' README.md",
  'grep -d skip x README.md',
  'grep -d read x README.md',
  "grep --include='*.ts' -rn x src/sub",
  'rg TODO src/sub',
  'rg -n -i x src/sub',
  'rg --files src/sub',
  "rg -g '*.ts' x src/sub",
  'jq -r .name README.md',
  "jq -n '1+1'",
  "jq --arg a b -n '$a'",
  "jq -n --args '$ARGS' a .env",
  'sort README.md',
  'sort -n -k2 README.md',
  'sort -u -t: -k1,1 README.md',
];

describe('option spellings of the reading programs (property)', () => {
  const { explain } = readerPolicy();
  it('no spelling of a writing, reading or running option, predicate or command is allowed', async () => {
    const cases = fc
      .constantFrom(...RISKY)
      .chain((r) =>
        fc.record({ r: fc.constant(r), pad: fc.constantFrom('', ...(HARMLESS[r.program] ?? [])) }),
      );
    await neverAllowed('reader spellings', explain, cases, ({ r, pad }) => line(r, pad), 500);
  });

  it('every spelling of every case, once', async () => {
    expect(
      await allowedAmong(
        explain,
        RISKY.map((r) => line(r)),
      ),
    ).toEqual([]);
  });

  it('everyday invocations stay allowed', async () => {
    expect(await notAllowedAmong(explain, BENIGN)).toEqual([]);
  });
});

/** A test name Stryker's test filter reads as written (it does not escape `*`, `(`, `[`). */
const named = (line: string): string => line.replace(/[*()[\]\n]/g, '_');

describe('the ninth round: shapes that were allowed, each run for real first', () => {
  const { explain } = readerPolicy();
  it.each(
    [
      // find ran `grep -- TOKEN + -o -name .env -exec echo ./…`: a `+` not after `{}` is an argument.
      ['find . -maxdepth 0 -exec grep -- TOKEN + -o -name .env -exec echo {} +', 'deny'],
      ['find . -ok echo {} + -name .env \\;', 'deny'],
      ['find . -okdir echo {} + -name .env \\;', 'deny'],
      // `$(echo ';')` ended the command: find deleted the tree.
      ["find . -exec echo $(echo ';') -delete -name \\;", 'ask'],
      ['find . -exec echo "$X" -delete -name \\;', 'ask'],
      ['find . -exec echo * -delete -name \\;', 'ask'],
      // awk reads every word after its program as a file (`-F` existed, then .env was printed).
      ['awk 1 -F .env', 'deny'],
      ['mawk 1 -v .env', 'deny'],
      ['gawk 1 -e .env', 'deny'],
      // gawk's SYMTAB reached ARGV (printed .env) and ENVIRON by a name built at run time.
      ['awk \'BEGIN { n = "AR" "GV"; SYMTAB[n][1] = ".env" } 1\' README.md', 'ask'],
      // grep takes `rec` for `recurse`: it printed .env from the tree (a tree holding it asks).
      ['grep -d rec TOKEN .', 'ask'],
      ['grep --directories=recu TOKEN .', 'ask'],
      ['egrep -drec TOKEN .', 'ask'],
      ['grep -d recurse TOKEN .', 'ask'],
      ['grep -d "$M" TOKEN .', 'ask'],
      // modulemeta reads the module file from the search path.
      ['jq -n -L . \'"secrets/key" | modulemeta\'', 'ask'],
      // What follows `{} +` is find's again (-exec and -execdir).
      ['find src -exec echo {} + -fprint src/x', 'deny'],
      ['find src -execdir echo {} + -fprint src/x', 'deny'],
      // Global options: -D takes the next word unless it is not known or a glob; -O a number.
      ['find -D', 'ask'],
      ['find -D "$X" . -name x', 'ask'],
      ['find -D * . -name x', 'ask'],
      ['find -O . -name x', 'ask'],
      ['find -Lx . -name y', 'ask'],
      // A `+` not after `{}` is an argument, and what follows it is read as find's too.
      ['find src -exec grep x + -exec rm x \\;', 'ask'],
      ['find . -exec echo + x \\;', 'ask'],
      ['find . -exec echo + -fprint src/x \\;', 'deny'],
      ['find . -exec echo + -fprint src/x + \\;', 'deny'],
    ].map(([line, behavior]) => [named(`${line} ${behavior}`), line, behavior]),
  )('%s', async (_name, line, behavior) => {
    expect((await explain(line as string)).behavior).toBe(behavior);
  });
});

describe('the ninth round: what the questions name', () => {
  const { explain } = readerPolicy();
  it('names what it does not understand', async () => {
    expect((await explain("find . -exec echo $(echo ';') -delete -name \\;")).reason).toContain(
      "$(echo ';') in find -exec's command could end it and begin an action",
    );
    expect((await explain('grep -d "$M" TOKEN .')).reason).toContain(
      'grep -d "$M" is not known before it runs',
    );
    expect(
      (await explain('awk \'BEGIN { n = "ENVI" "RON"; print SYMTAB[n]["T"] }\'')).reason,
    ).toContain('SYMTAB');
    expect((await explain('jq -n \'"m" | modulemeta\'')).reason).toContain('imports a module');
  });
});

describe('the ninth round: everyday shapes', () => {
  const { explain } = readerPolicy();
  it.each(
    [
      'find -L',
      'find -L -D exec -O3 . -name x',
      'find -O10 . -name x',
      'find -D tree . -name x',
      'find . -exec echo {} +',
      "find . -exec echo '{}' '+'",
      'find . -exec echo {} \\; -exec echo {} +',
      // What follows `{} +` is find's, not the command's (echo would check .env as written).
      'find . -exec echo {} + -name .env',
      'find . -execdir echo {} + -name .env',
      'find . -exec echo {} x \\;',
      'find . -maxdepth 0 -exec echo <(echo a) \\;',
      'grep -d skip x .',
      'grep -d read x README.md',
      'grep -d re x .',
      "awk -- '{print}' README.md",
      "awk '{print}' README.md x=1",
      "awk 'BEGIN { XSYMTAB = 1; SYMTABS = 2 }'",
      "jq -n '{amodulemeta: 1, modulemetas: 2}'",
    ].map((line) => [named(line), line]),
  )('%s stays allowed', async (_name, line) => {
    const decision = await explain(line as string);
    expect(decision.behavior, decision.reason).toBe('allow');
  });
});

describe('the ninth round, under other policies', () => {
  // No path rule: a file find finds (`{}`) may be read, so `{}` counts only when it is one.
  const plain = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(find:*)', 'Bash(grep:*)'] },
  });
  const marked = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(find:*)'], deny: ['Read(./x-L)'] },
  });

  it('takes {} for a file found unless -files0-from names the start paths', async () => {
    expect((await plain.explain('find src -exec grep x {} +')).behavior).toBe('allow');
    const d = await plain.explain('find src -files0-from list -exec grep x {} +');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('{} is not known before it runs');
  });

  it('reads a start path that ends like a global option', async () => {
    expect((await marked.explain('find x-L -name y')).behavior).toBe('deny');
  });
});
