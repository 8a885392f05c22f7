/**
 * Mutation round eight, the readers' models (readers.ts) and the table of models (programs.ts,
 * index.ts): each case fails under a change the mutation run (`pnpm mutate:permission`) found
 * surviving, or under the old code of a fix made in that round. Test names hold no `*`, `(` or
 * `[`, which Stryker's test filter reads specially.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
const READERS = ['grep', 'egrep', 'fgrep', 'rg', 'sed', 'awk', 'gawk', 'jq', 'sort', 'find'];
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: READERS.map((p) => `Bash(${p}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Bash(rm:*)'],
  },
});
const has = (program: string) => spawnSync(program, ['--version']).status === 0;

/** Runs `line` with bash in a fresh project (with `secrets/data.json`); returns stdout. */
const runFor = (line: string): string => {
  const dir = makeProject().root;
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  writeFileSync(join(dir, 'secrets', 'data.json'), '{"key":"s3cret"}\n');
  const r = spawnSync('bash', ['-c', line], {
    cwd: dir,
    encoding: 'utf8',
    input: '',
    timeout: 10_000,
  });
  return r.stdout;
};

describe('jq reads its words in one pass (round eight; each ran for real)', () => {
  // Before, each was allowed under Bash(jq:*): the model took --arg, --args or --rawfile out of
  // the words before reading the options, so a word that jq reads as the value of -L or --indent,
  // or as a positional word after `--`, was taken for an option, and the file after it was not
  // seen. jq printed the protected file.
  const lines = [
    'jq -L --arg . secrets/data.json',
    'jq --indent --arg . secrets/data.json README.md',
    'jq -L --args . secrets/data.json',
    'jq . -- --args secrets/data.json',
    'jq . -- --arg a secrets/data.json',
  ];
  it.each(lines)('%s prints the protected file', (line) => {
    if (!has('jq')) return;
    expect(runFor(line)).toContain('s3cret');
  });
  it.each(lines)('%s: denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain('Read(./secrets/**)');
  });
  // The option's value is still skipped, and --args still makes the words after it values.
  it.each([
    'jq -L x --args . secrets/data.json',
    'jq -Lx --args . secrets/data.json',
    'jq --indent 2 --args . secrets/data.json',
    'jq . README.md --args secrets/data.json',
    'jq . README.md --jsonargs secrets/data.json',
    'jq --arg a b --args . secrets/data.json',
    'jq --argjson a 1 --args . secrets/data.json',
    // The first --args counts: a later --jsonargs makes no word before it a file.
    'jq --args . secrets/data.json --jsonargs 1',
    'jq -n --rawfile a README.md --args . secrets/data.json',
    // --slurpfile and --rawfile are options jq knows, their file read (README.md may be).
    'jq -n --slurpfile a README.md .',
    'jq -n --rawfile a README.md .',
    // With its file missing (jq refuses the line), --rawfile names nothing.
    'jq -n . --rawfile a',
    'jq -n . --slurpfile a',
    // The value of --indent, --library-path or -L is no filter and no file.
    'jq --indent secrets/data.json . README.md',
    'jq --library-path secrets/data.json . README.md',
    'jq -L secrets/data.json . README.md',
    'jq -Lx . README.md',
    // The filter .env is a field, not a file: were the value of --indent, --library-path or the
    // name of --rawfile taken for the filter, .env would be a file read.
    'jq -n --indent 1 .env',
    'jq -n --library-path x .env',
    'jq -n --rawfile a README.md .env',
    // Only an option is read for its value: --args after a word that merely ends like one, or
    // after --indent=2, still makes the words after it values.
    'jq . x--indent --args secrets/data.json',
    'jq . x-L --args secrets/data.json',
    'jq --indent=2 --args . secrets/data.json',
  ])('%s: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
  // --slurpfile and --rawfile read the file after the name; --arg and --argjson read nothing,
  // and the filter comes after them.
  it.each([
    'jq --slurpfile a secrets/data.json . README.md',
    'jq --rawfile a secrets/data.json . README.md',
    'jq -n --rawfile a secrets/data.json --args .',
    'jq --arg a b . secrets/data.json',
    'jq --argjson a 1 . secrets/data.json',
    'jq -L x . secrets/data.json',
    'jq --indent 1 . secrets/data.json',
    'jq --library-path x . secrets/data.json',
    'jq -nL x . secrets/data.json',
    // -nL takes the next word as its value, --args too.
    'jq -nL --args . secrets/data.json',
    // The -f file is read, its value attached too.
    'jq -fsecrets/data.json README.md',
    'jq --from-file=secrets/data.json README.md',
  ])('%s: denied, the file is read', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });
  // With -f the filter is that file, and every operand is a file read.
  it.each(['jq -f x.jq secrets/data.json', 'jq --from-file x.jq secrets/data.json'])(
    '%s: denied, the operand is a file',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );
  it.each(['jq -nf x.jq', 'jq --from-file x.jq README.md'])(
    '%s: asked, the filter is a file not seen',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('ask');
      expect(d.reason).toContain('jq -f runs a filter from a file the model cannot see');
    },
  );
  it('jq -L x --args . secrets/data.json does not print it', () => {
    if (!has('jq')) return;
    expect(runFor('jq -L x --args . secrets/data.json')).not.toContain('s3cret');
  });
});

describe('grep and rg (round eight survivors)', () => {
  // Each is allowed: were it read otherwise, a file or the working directory would be read, or a
  // link followed, and the line denied or asked.
  it.each([
    // -d skip / --directories=skip is no recursion: grep reads its input, not `.`.
    'grep -d skip x',
    'grep --directories=skip x',
    // A pattern holding -R or -L is no option: src/env-link is not followed.
    'grep -r x-R src',
    'rg x-L src',
    // grep's long flags and rg's short flags are known.
    'grep --ignore-case --count x README.md',
    'rg -i -w x README.md',
    // --pre-glob takes a value: the pattern comes after it.
    'rg --pre-glob x .env README.md',
  ])('%s: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  // Each reads .env: by name, or through src/env-link when -R or -L is in a cluster.
  it.each([
    'grep -e x .env',
    'grep -ie x .env',
    'grep --regexp x .env',
    'grep --regexp=x .env',
    'egrep -e x .env',
    'fgrep --regexp x .env',
    'grep -f README.md .env',
    'grep --file README.md .env',
    'grep -iR TOKEN src',
    'grep -nR TOKEN src',
    'rg -e x .env',
    'rg --regexp x .env',
    'rg -f README.md .env',
    'rg --file README.md .env',
    'rg -iL TOKEN src',
  ])('%s: denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  // The program's name in the reason: egrep and fgrep are grep's model, named grep.
  it.each([
    ['grep -u x README.md', 'grep option -u is not one the model knows'],
    ['egrep -u x README.md', 'grep option -u is not one the model knows'],
    ['rg --nope x README.md', 'rg option --nope is not one the model knows'],
  ])('%s: asked, %s', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  // With no file, a recursive search reads the working directory, named `.` in the reason.
  it.each(['grep -r x', 'grep -R x', 'rg x', 'rg --files'])(
    '%s: asked, the working directory holds .env',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('ask');
      expect(d.reason).toMatch(/^\. is a directory read recursively that holds paths rule/);
    },
  );
});

describe('sed and awk (round eight survivors)', () => {
  const plan = filePolicy({ cwd: root, home, mode: 'plan' });
  it.each([
    // --line-length and -l take a value: .env is no file here.
    'sed -e p --line-length .env README.md',
    'sed -e p -l .env README.md',
    // With a script given by -e, the first operand is a file, not a script (e.txt would run a
    // command).
    'sed -e p e.txt',
    'sed --expression=p e.txt',
    // With the program given by -e, the first operand is a file named getline, not a program.
    "awk -e '{ print }' getline",
    "awk --source '{ print }' getline",
    // sort's long flags are known.
    'sort --reverse --unique --numeric-sort README.md',
  ])('%s: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    // --in-place with no suffix edits the file too.
    'sed --in-place p src/a.ts',
    'sed --in-place -n p src/a.ts',
    // The -f program is a file read; the first operand is then a file too.
    'awk -f prog.awk .env',
    'awk --file=prog.awk .env',
    'gawk -f prog.awk .env',
  ])('%s: denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  it.each([
    ['sed -x p README.md', 'sed option -x is not one the model knows'],
    ['jq -z . README.md', 'jq option -z is not one the model knows'],
    ['sort --nope README.md', 'sort option --nope is not one the model knows'],
    // sed refuses r and w under --sandbox; without it, .env would be read and the line denied.
    ["sed --sandbox -n '1r .env' README.md", 'is refused under --sandbox'],
    ['gawk -f prog.awk README.md', 'gawk -f runs a program from a file the model cannot see'],
  ])('%s: asked, %s', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  // awk reads `NAME=VALUE` as an assignment when NAME is a name, and any other operand as a file:
  // here every file whose name holds `=` is protected.
  const assigns = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(awk:*)'], deny: ['Read(./*=*)'] },
  });
  it.each([
    ["awk '{ print }' v=1 README.md", 'allow'],
    ["awk '{ print }' ab=1 README.md", 'allow'],
    ["awk '{ print }' _a1=1 README.md", 'allow'],
    ["awk '{ print }' 1v=1 README.md", 'deny'],
    ["awk '{ print }' a-b=1 README.md", 'deny'],
    ["awk -e '{ print }' v=1 a-b=1", 'deny'],
  ])('%s: %s, a name assigned or a file read', async (line, behavior) => {
    const d = await assigns.explain(line);
    expect(d.behavior, d.reason).toBe(behavior);
  });

  // -i's suffix is attached: `.bak` is no option letter (were it read as letters, -. would be
  // an option not known, and the line would ask).
  const edits = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(sed:*)', 'Edit(./README.md)', 'Edit(./README.md.bak)'] },
  });
  it.each(['sed -i.bak -n p README.md', 'sed -ni.bak p README.md'])(
    '%s: allowed where README.md and its backup may be edited',
    async (line) => {
      const d = await edits.explain(line);
      expect(d.behavior, d.reason).toBe('allow');
    },
  );

  // Plan mode runs what reads only: a word that merely holds --in-place is no option, and sed -i
  // edits even with no file named.
  it.each(["sed -n 'p;#--in-place' README.md", "sed -n 'p;#x--in-place=y' README.md"])(
    '%s runs in plan mode',
    async (line) => {
      const d = await plan.explain(line);
      expect(d.behavior, d.reason).toBe('allow');
    },
  );
  it.each(['sed -i p', 'sed --in-place p', 'sed -i.bak p README.md'])(
    '%s is refused in plan mode',
    async (line) => {
      const d = await plan.explain(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );
});

/** A test name without the characters Stryker's test filter reads specially. */
const named = (lines: readonly string[]): [string, string][] =>
  lines.map((line) => [line.replace(/[[\]()*]/g, '_'), line]);

describe('find: each test and operator it knows (round eight)', () => {
  // Each is allowed: were one missing from find's tables, it would be an expression the model
  // does not know, and the line would ask; a test's value is no expression.
  it.each(
    named([
      ...'-empty -true -false -readable -writable -executable -nouser -nogroup -prune -quit'
        .split(' ')
        .map((t) => `find src ${t}`),
      ...'-depth -d -mount -xdev -noleaf -follow -daystart -print -print0 -ls'
        .split(' ')
        .map((t) => `find src ${t}`),
      ...'-ignore_readdir_race -noignore_readdir_race -nowarn -warn'
        .split(' ')
        .map((t) => `find src ${t}`),
      'find src -name a -a -name b',
      'find src -name a -o -name b',
      'find src -name a -and -name b',
      'find src -name a -or -name b',
      'find src -not -name a',
      'find src ! -name a',
      "find src '(' -name a ')'",
      'find src -name a , -name b',
      ...'-name -iname -path -ipath -regex -iregex -type -xtype -size -mtime -mmin -atime -amin'
        .split(' ')
        .map((t) => `find src ${t} -delete`),
      ...'-ctime -cmin -newer -anewer -cnewer -user -group -uid -gid -perm -links -inum'
        .split(' ')
        .map((t) => `find src ${t} -delete`),
      ...'-samefile -maxdepth -mindepth -lname -ilname -wholename -iwholename -used -fstype'
        .split(' ')
        .map((t) => `find src ${t} -delete`),
      ...'-regextype -printf -context'.split(' ').map((t) => `find src ${t} -delete`),
    ]),
  )('%s: allowed', async (_name, line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
});

describe('find: its start paths, -exec and the files it writes (round eight)', () => {
  // No path rule here, so a file find finds (`{}`) may be read by the command -exec runs.
  const plain = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(find:*)', 'Bash(grep:*)'], deny: ['Bash(rm:*)'] },
  });
  it.each([
    'find src -exec grep x {} \\;',
    'find src -exec grep x {} +',
    'find src -execdir grep x {} +',
    'find src -ok grep x {} \\;',
    'find src -okdir grep x {} \\;',
    'find src -exec grep x {} \\; -name x',
    'find -L src -exec grep x {} +',
    'find -H -P src -exec grep x {} +',
    'find src- -exec grep x {} +',
    // A glob is a start path unless it may begin like an action.
    'find sr? -name y',
    'find src/sub/? -name y',
    // A -fprint or -files0-from with no file after it (find refuses it) names nothing.
    'find src -fprint',
    'find src -files0-from',
  ])('%s: allowed', async (line) => {
    const d = await plain.explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    // A word holding {} is not known before it runs; nor is {} when a start path is not.
    ['find src -exec grep x a{}b \\;', 'a{}b is not known before it runs'],
    ['find "$d" -exec grep x {} \\;', '{} is not known before it runs'],
    ['find src -exec grep x {} \\; -delete', 'find -delete deletes what it finds'],
    ['find src -fprint out.txt', 'find -fprint writes the file out.txt'],
    ['find src -fprint0 out.txt', 'find -fprint0 writes the file out.txt'],
    ['find src -fls out.txt', 'find -fls writes the file out.txt'],
    ['find src -fprintf out.txt %p', 'find -fprintf writes the file out.txt'],
    // -fprintf takes a file and a format, the others a file only.
    ['find src -fprintf out.txt -delete', 'find -fprintf writes the file out.txt'],
    ['find src -fprint out.txt -delete', 'find -delete deletes what it finds'],
    ['find src -exec', 'find -exec names no command'],
    ['find src -okdir', 'find -okdir names no command'],
    ['find src -nope', 'find -nope is not an expression the model knows'],
    ['find src -name x $y', '$y is not known before it runs and could be a find action'],
    // -H, -L and -P are whole words: -Lx is no option, and an expression find does not know.
    ['find -Lx src -name y', 'find -Lx is not an expression the model knows'],
    // `!` and `(` end the start paths: the word after them is an expression.
    ['find ! x', 'find x is not an expression the model knows'],
    ["find '(' x", 'find x is not an expression the model knows'],
    // Every start path must be known for {} to be a file found.
    ['find src "$d" -exec grep x {} \\;', '{} is not known before it runs'],
  ])('%s: asked, %s', async (line, why) => {
    const d = await plain.explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
    if (line.endsWith('out.txt -delete') && line.includes('-fprintf'))
      expect(d.reason).not.toContain('-delete deletes');
  });

  // A start path ending in -L is a path (secrets/x-L is protected), not the option -L.
  const secrets = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(find:*)'], deny: ['Read(./secrets/**)'] },
  });
  it('find secrets/x-L -name y: denied', async () => {
    const d = await secrets.explain('find secrets/x-L -name y');
    expect(d.behavior, d.reason).toBe('deny');
  });

  // With no start path find searches `.`: in /tmp, outside the working directory. A -fprint is
  // no read-only expression, its file named or not.
  const findPlan = filePolicy({ cwd: root, home, mode: 'plan' });
  it.each(['cd /tmp && find -name x', 'cd /tmp && find', 'find src -fprint'])(
    '%s is refused in plan mode',
    async (line) => {
      const d = await findPlan.explain(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );

  // Parsing goes on after each action, so a later -exec is still judged.
  it.each([
    'find src -exec grep x {} \\; -exec rm x \\;',
    'find src -exec grep x + -exec rm x \\;',
    'find src -fprintf out.txt %p -exec rm x \\;',
    'find src -fprint out.txt -exec rm x \\;',
    'find src -name x -exec rm x \\;',
    'find src -files0-from x -exec rm x \\;',
    'find src -empty -exec rm x \\;',
  ])('%s: denied', async (line) => {
    const d = await plain.explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  // A glob that may begin with -, !, ( or the like may expand to a find action.
  it.each(named(['find *.md -name x', 'find ?x', 'find [a]x', 'find {a,b}']))(
    '%s: asked',
    async (_name, line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('ask');
      expect(d.reason).toContain('may expand to a file named like a find action');
    },
  );
});

describe('the interpreters of programs.ts: which option runs code given inline (round eight)', () => {
  const runners = filePolicy({
    cwd: root,
    home,
    rules: {
      allow: ['node', 'deno', 'bun', 'python', 'python3', 'perl', 'ruby'].map(
        (p) => `Bash(${p}:*)`,
      ),
    },
  });
  // Each asks: the option gives code on the command line, which the rule for the program does not
  // read.
  it.each([
    'node -e x',
    'node -p x',
    'node --eval x',
    'node --print x',
    'node -pe x',
    'node -ipe x',
    'node --no-warnings -e x',
    'deno eval x',
    'bun -e x',
    'bun --eval x',
    'bun -p x',
    'bun --print x',
    'python -c x',
    'python -Ic x',
    'python3 -c x',
    'python3 -Ic x',
    'python3 -IBc x',
    'perl -e x',
    'perl -E x',
    'perl -ne x',
    'perl -lE x',
    'ruby -e x',
    'ruby -ne x',
  ])('%s: asked', async (line) => {
    const d = await runners.explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain('runs code given on the command line');
  });
  // cp and install are copier's models, named by their own names.
  const copiers = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(cp:*)', 'Bash(install:*)'] },
  });
  it.each([
    ['cp --nope a b', 'cp option --nope is not one the model knows'],
    ['install --nope a b', 'install option --nope is not one the model knows'],
  ])('%s: asked, %s', async (line, why) => {
    const d = await copiers.explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  // Each is allowed: a script file, or a word that only holds such an option's letters.
  it.each([
    'node app.js',
    'node run-e',
    'node -ex',
    'deno run x.ts',
    'deno evalx',
    'deno xeval',
    'bun -ex',
    'bun run-e',
    'python x.py',
    'python run-c',
    'python3 x.py',
    'python3 run-c',
    'perl x.pl',
    'perl run-e',
    'ruby x.rb',
    'ruby run-e',
  ])('%s: allowed', async (line) => {
    const d = await runners.explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
});

describe('plan mode and the programs without a model (index.ts, round eight)', () => {
  const plan = filePolicy({ cwd: root, home, mode: 'plan' });
  // Each runs in plan mode: read-only whatever its words. Were it missing from READ_ONLY, plan
  // mode would refuse it.
  it.each([
    ...'cat head tail wc pwd stat file du df nl cut tr basename dirname realpath readlink'.split(
      ' ',
    ),
    ...'whoami id uname which printenv diff cmp comm tac rev md5sum sha1sum sha256sum'.split(' '),
    ...'sha512sum cksum type seq expr date uptime nproc strings od hexdump xxd base64'.split(' '),
    ...'column fold fmt paste join'.split(' '),
    'date +%s',
    'date -u +%s',
    'date -R',
    'date -Iseconds',
    'date -d yesterday +%F',
    'date -ud @0',
    'date --date yesterday',
    'date --date=yesterday',
    'date -r README.md',
    'date -f README.md',
    'date --reference README.md',
    'date --file README.md',
    'date -- +%s',
    'date +x-s',
    'xxd README.md',
    'xxd -p README.md',
    'xxd -p -- README.md',
  ])('%s runs', async (line) => {
    const d = await plan.explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  // Each may set the clock or write a file. Before, the four date lines with -us, -Rs, --s= and
  // --se, and xxd with `-` for its input, ran in plan mode (checked by hand as nobody: date
  // answered "cannot set date", so it tried; xxd wrote out.hex).
  it.each([
    'date -s 2020-01-01',
    'date --set=2020-01-01',
    'date -us 2020-01-01',
    'date -Rs 2020-01-01',
    'date --s=2020-01-01',
    'date --se 2020-01-01',
    'date -u -s 2020-01-01',
    'date +%s -s 2020-01-01',
    'date 0101000020',
    'date -u 0101000020',
    'date -d yesterday 0101000020',
    'date -- 0101000020',
    'date -- -s',
    // After `--` every word is an operand, -d too; a value is skipped only after -d, -f or -r
    // written whole; -s is found in any cluster of -R and -u.
    'date -- -d 0101000020',
    'date -- -x',
    'date -dyesterday 0101000020',
    'date +x-d 0101000020',
    "date -uRs '+1 day'",
    // A program named by a word not known before it runs is none plan mode knows.
    '$HOME/bin/cat README.md',
    'xxd README.md out.hex',
    'xxd - out.hex',
    'xxd -r - out.hex',
    'xxd -p README.md out.hex',
  ])('%s is refused', async (line) => {
    const d = await plan.explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  // A program named like a property of every object has no model: its operands are still read.
  const any = filePolicy({ cwd: root, home, rules: { allow: ['Bash'], deny: ['Read(./.env)'] } });
  it.each(['toString .env', 'valueOf .env', 'hasOwnProperty .env', 'isPrototypeOf .env'])(
    '%s: denied',
    async (line) => {
      const d = await any.explain(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );

  it('xxd - out.hex writes out.hex (run for real)', () => {
    if (!has('xxd')) return;
    const dir = makeProject().root;
    spawnSync('bash', ['-c', 'echo hi | xxd - out.hex'], { cwd: dir });
    expect(existsSync(join(dir, 'out.hex'))).toBe(true);
  });
});
