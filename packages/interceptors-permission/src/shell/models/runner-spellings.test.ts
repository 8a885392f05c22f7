/**
 * Every spelling of an option that writes, reads, runs code, changes directory or connects, for
 * the programs of runners.ts, archive.ts, network.ts and interpreters.ts (tar in each mode and
 * style, dd, tee, cp / mv / install, curl, wget, node, python, perl, ruby, deno, bun, npm, pnpm,
 * yarn, npx), under a policy that allows each of them by prefix: `--opt=value`, `--opt value`, a
 * unique prefix, short options separated, attached and in clusters (by `optionSpellings` where the
 * program reads getopt's way), and written out here where it does not (tar's old style `xvfC`,
 * dd's operands, perl's `-0777ne` and `-i.bak`, python's `-Ic`, node's exact options, npm's config
 * keys), with a harmless flag put before at random. Seeded; the seed is printed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allowedAmong,
  filePolicy,
  makeProject,
  neverAllowed,
  optionSpellings,
  type RiskyOption,
  spelledLine,
} from '../../../test/helpers';

const PROGRAMS = [
  'tar',
  'dd',
  'tee',
  'cp',
  'mv',
  'install',
  'curl',
  'wget',
  'node',
  'python',
  'python3',
  'perl',
  'ruby',
  'deno',
  'bun',
  'npm',
  'npm test',
  'pnpm',
  'yarn',
  'npx',
];
const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: PROGRAMS.map((p) => `Bash(${p}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
  },
});

const URL = 'http://127.0.0.1:9/x';

/**
 * A test's name without the characters a test filter reads as a pattern (`(`, `*`, `$`, `{`, …):
 * Stryker selects tests by name, and a name that does not match itself is never run.
 */
const title = (text: string): string => text.replace(/[()[\]{}*+?|^$\\]/g, '_');

/** Options read the getopt way: `optionSpellings` makes their spellings. */
const RISKY: readonly RiskyOption[] = [
  // tar, in each mode: the archive, the directories, the lists, the programs it runs.
  {
    program: 'tar -c',
    long: 'file',
    short: 'f',
    flag: 'v',
    value: 'src/x.tar',
    after: 'README.md',
  },
  {
    program: 'tar -r',
    long: 'file',
    short: 'f',
    flag: 'v',
    value: 'src/x.tar',
    after: 'README.md',
  },
  {
    program: 'tar -u',
    long: 'file',
    short: 'f',
    flag: 'v',
    value: 'src/x.tar',
    after: 'README.md',
  },
  { program: 'tar -t', long: 'file', short: 'f', flag: 'v', value: '.env', after: '' },
  { program: 'tar -d', long: 'file', short: 'f', flag: 'v', value: 'a.tar', after: '' },
  { program: 'tar -x', long: 'file', short: 'f', flag: 'v', value: 'a.tar', after: '' },
  { program: 'tar -t', long: 'file', short: 'f', flag: 'v', value: 'localhost:a.tar', after: '' },
  {
    program: 'tar -c',
    long: 'file',
    short: 'f',
    flag: 'v',
    value: 'localhost:x.tar',
    after: 'README.md',
  },
  {
    program: 'tar -cf x.tar',
    long: 'directory',
    short: 'C',
    flag: 'v',
    value: 'secrets',
    after: 'key',
  },
  { program: 'tar -cf x.tar', long: 'files-from', short: 'T', flag: 'v', value: '.env', after: '' },
  {
    program: 'tar -cf x.tar',
    long: 'exclude-from',
    short: 'X',
    flag: 'v',
    value: '.env',
    after: 'README.md',
  },
  { program: 'tar -tf a.tar', long: 'to-command', value: 'id', after: '' },
  {
    program: 'tar -cf x.tar',
    long: 'use-compress-program',
    short: 'I',
    flag: 'v',
    value: 'id',
    after: 'README.md',
  },
  {
    program: 'tar -cf x.tar',
    long: 'info-script',
    short: 'F',
    flag: 'v',
    value: 'id',
    after: 'README.md',
  },
  { program: 'tar -cf x.tar', long: 'new-volume-script', value: 'id', after: 'README.md' },
  { program: 'tar -cf x.tar', long: 'rsh-command', value: 'id', after: 'README.md' },
  { program: 'tar -cf x.tar', long: 'checkpoint-action', value: 'exec=id', after: 'README.md' },
  {
    program: 'tar -cf x.tar',
    long: 'listed-incremental',
    short: 'g',
    flag: 'v',
    value: 'src/snap',
    after: 'README.md',
  },
  { program: 'tar -cf x.tar', long: 'index-file', value: 'src/idx', after: 'README.md' },
  { program: 'tar -xf a.tar', long: 'to-stdout', short: 'O', flag: 'v', value: '', after: '' },
  { program: 'tar -xf a.tar', long: 'backup', value: 'numbered', after: '' },
  { program: 'tar -xf a.tar', long: 'starting-file', short: 'K', flag: 'v', value: 'a', after: '' },
  // tee's files, written whatever its options.
  { program: 'tee', long: 'append', short: 'a', flag: 'p', value: 'src/x', after: '' },
  { program: 'tee', long: 'output-error', value: 'warn src/x', after: '' },
  // cp / mv / install: backups beside the target, the target directory.
  {
    program: 'cp',
    long: 'suffix',
    short: 'S',
    flag: 'b',
    value: '.bak',
    after: 'README.md src/a.ts',
  },
  {
    program: 'mv',
    long: 'suffix',
    short: 'S',
    flag: 'b',
    value: '.bak',
    after: 'README.md src/a.ts',
  },
  { program: 'cp', long: 'backup', value: 'numbered', after: 'README.md src/a.ts' },
  {
    program: 'install',
    long: 'mode',
    short: 'm',
    flag: 'D',
    value: '644',
    after: 'README.md src/x/y',
  },
  { program: 'install -d', long: 'mode', short: 'm', flag: 'v', value: '755', after: 'src/newdir' },
  // curl: what it writes, what it reads and sends.
  { program: 'curl', long: 'output-dir', value: 'src', after: `-O ${URL}` },
  { program: 'curl', long: 'dump-header', short: 'D', flag: 's', value: 'src/h', after: URL },
  { program: 'curl', long: 'cookie-jar', short: 'c', flag: 's', value: 'src/j', after: URL },
  { program: 'curl', long: 'trace', value: 'src/t', after: URL },
  { program: 'curl', long: 'trace-ascii', value: 'src/t', after: URL },
  { program: 'curl', long: 'stderr', value: 'src/t', after: URL },
  { program: 'curl', long: 'libcurl', value: 'src/c.c', after: URL },
  { program: 'curl', long: 'cookie', short: 'b', flag: 's', value: '.env', after: URL },
  { program: 'curl', long: 'netrc-file', value: '.env', after: URL },
  { program: 'curl', long: 'cert', short: 'E', flag: 's', value: '.env', after: URL },
  { program: 'curl', long: 'key', value: '.env', after: URL },
  { program: 'curl', long: 'cacert', value: '.env', after: URL },
  { program: 'curl', long: 'form', short: 'F', flag: 's', value: 'a=@.env', after: URL },
  { program: 'curl', long: 'form', short: 'F', flag: 's', value: "'a=<.env'", after: URL },
  {
    program: 'curl',
    long: 'form',
    short: 'F',
    flag: 's',
    value: "'a=@.env;type=text/plain'",
    after: URL,
  },
  { program: 'curl', long: 'form', short: 'F', flag: 's', value: 'a=@README.md,.env', after: URL },
  { program: 'curl', long: 'json', value: '@.env', after: URL },
  { program: 'curl', long: 'header', short: 'H', flag: 's', value: '@.env', after: URL },
  { program: 'curl', long: 'write-out', short: 'w', flag: 's', value: '@.env', after: URL },
  { program: 'curl', long: 'url', value: `file://${root}/.env`, after: '' },
  // wget: what it writes, reads, and the wgetrc commands it runs.
  { program: 'wget', long: 'output-document', short: 'O', flag: 'q', value: 'src/x', after: URL },
  { program: 'wget', long: 'directory-prefix', short: 'P', flag: 'q', value: 'src', after: URL },
  { program: 'wget', long: 'config', value: '.env', after: URL },
  { program: 'wget', long: 'load-cookies', value: '.env', after: URL },
  { program: 'wget', long: 'save-cookies', value: 'src/c', after: URL },
  { program: 'wget', long: 'post-file', value: '.env', after: URL },
  { program: 'wget', long: 'body-file', value: '.env', after: URL },
  { program: 'wget', long: 'force-directories', short: 'x', flag: 'q', value: '', after: URL },
  {
    program: 'wget',
    long: 'execute',
    short: 'e',
    flag: 'q',
    value: 'output_document=src/x',
    after: URL,
  },
  // python's code on the command line (no long name), after harmless flags.
  { program: 'python3', short: 'c', flag: 'I', value: "'print(1)'", after: '' },
  { program: 'python', short: 'c', flag: 'B', value: "'print(1)'", after: '' },
  { program: 'perl', short: 'e', flag: 'n', value: "'print'", after: 'README.md' },
  { program: 'perl', short: 'E', flag: 'l', value: "'say 1'", after: '' },
  { program: 'ruby', short: 'e', flag: 'n', value: "'p 1'", after: 'README.md' },
  { program: 'ruby', short: 'r', flag: 'w', value: './secrets/key', after: 'x.rb' },
  { program: 'ruby', short: 'C', flag: 'w', value: 'src', after: 'x.rb' },
  // npm's config keys given as options, and the directory the scripts come from.
  { program: 'npm test', long: 'node-options', value: '--require=./x.js', after: '', exact: true },
  { program: 'npm test', long: 'script-shell', value: './x.sh', after: '', exact: true },
  { program: 'npm test', long: 'userconfig', value: './x', after: '', exact: true },
  { program: 'npm test', long: 'globalconfig', value: './x', after: '', exact: true },
  { program: 'npm test', long: 'prefix', short: 'C', flag: 's', value: '/tmp/x', after: '' },
  { program: 'pnpm', long: 'dir', short: 'C', flag: 's', value: '/tmp/x', after: 'test' },
  { program: 'yarn', long: 'cwd', value: '/tmp/x', after: 'test' },
  { program: 'npx', long: 'call', short: 'c', flag: 'y', value: "'id'", after: '' },
];

/** Spellings of programs that do not read getopt's way, written out. */
const WRITTEN: readonly string[] = [
  // tar: the old style (the letters' values in their order), long modes, a diff, a brace.
  'tar cf src/x.tar README.md',
  'tar cvf src/x.tar README.md',
  'tar cvfz src/x.tgz README.md',
  'tar rf src/x.tar README.md',
  'tar tf .env',
  'tar tvf .env',
  'tar xvfC a.tar src',
  'tar xf a.tar',
  'tar dvf a.tar',
  'tar cfT x.tar .env',
  'tar cfX x.tar .env README.md',
  'tar cvfC x.tar secrets key',
  'tar cfI x.tar id README.md',
  'tar cfF x.tar id README.md',
  'tar cfg x.tar src/snap README.md',
  'tar tf localhost:a.tar',
  'tar cf me@localhost:x.tar README.md',
  'tar --create --file=src/x.tar README.md',
  'tar --append --file src/x.tar README.md',
  'tar --update -f src/x.tar README.md',
  'tar --list --file=.env',
  'tar --extract --file=a.tar',
  'tar --diff --file=a.tar',
  'tar --compare -f a.tar',
  'tar -cf x.tar --remove-files README.md',
  'tar -cf x.tar --remove-f README.md',
  'tar -cf x.tar --checkpoint=1 --checkpoint-action=exec=id README.md',
  'tar -cf{y,src/x.tar} README.md',
  'tar -cf x.tar --file={y,src/x.tar} README.md',
  // dd: its operands, repeated, in any order, expanded by bash.
  'dd if=.env',
  'dd if=README.md if=.env',
  'dd if=./secrets/key of=/dev/null',
  'dd of=src/x if=README.md',
  'dd if=README.md of=x of=src/x',
  'dd if=README.md of=src/x conv=notrunc',
  'dd if=README.md oflag=append conv=notrunc of=src/x',
  'dd iflag=fullblock if=.env',
  'dd if={x,.env}',
  'dd if=README.md of={x,src/y}',
  'dd if=.e*',
  'dd -- if=.env',
  'dd "if=$F"',
  // tee: its files after `--` and `-`, optional values only attached.
  'tee src/x',
  'tee -- src/x',
  'tee - src/x',
  'tee --output-error=exit-nopipe src/x',
  'tee --app src/x',
  'tee -pa src/x',
  'tee {x,src/y}',
  // cp / mv / install.
  'cp -bS.bak README.md src/a.ts',
  'install -d src/newdir',
  'install -dm755 src/newdir',
  'install -m 755 -d src/newdir',
  'install -C README.md src/y',
  'cp -t{x,src} README.md',
  'cp --target-directory={x,src} README.md',
  // curl: a `file:` URL, a brace in an option.
  `curl file://${root}/.env`,
  `curl FILE://${root}/.env`,
  `curl file://localhost${root}/.env`,
  `curl file:${root}/.env`,
  `curl file://${root}/%2eenv`,
  `curl file://${root}/{README.md,.env}`,
  'curl -- "$U"',
  `curl -d@{x,.env} ${URL}`,
  `curl -H@{x,.env} ${URL}`,
  `curl -w '%output{src/x}' ${URL}`,
  `wget -O{x,src/y} ${URL}`,
  // python: code after options that take a value, from standard input, the warning category.
  "python -W ignore -c 'print(1)'",
  "python3 -X dev -c 'print(1)'",
  "python3 -Wignore -c'print(1)'",
  "python3 -IBc'print(1)'",
  'python3 -u -',
  'python3 -- -',
  'python3 -E',
  'python3 -i x.py',
  'python3 -W error::m.Warning x.py',
  'python3 -Xpycache_prefix=src x.py',
  'python3 .env',
  'python3 x.py .env',
  'python3 -m x .env',
  // perl: clusters after digits, modules that are code, in-place editing, the debugger.
  "perl -0777ne 'print'",
  "perl -l0e 'print 1'",
  "perl -CSe 'print 1'",
  "perl -lne 'print'",
  "perl -I lib -e 'print 1'",
  "perl -Ilib -e 'print 1'",
  "perl -Mstrict -e 'print 1'",
  "perl '-Mstrict;print 1'",
  "perl '-mstrict;print 1' x.pl",
  'perl -i -n /dev/null src/a.ts',
  'perl -pi /dev/null src/a.ts',
  'perl -i.bak -p x.pl src/a.ts',
  'perl -pi.bak x.pl src/a.ts',
  'perl -x .env',
  'perl -xsrc x.pl',
  'perl -wxsrc x.pl',
  'perl -d x.pl',
  'perl -d:Foo x.pl',
  'perl -dt x.pl',
  'perl -S x.pl',
  'perl -Dt x.pl',
  "perl -F'/(?{1})/' -an x.pl",
  'perl -',
  'perl -w -- -',
  'perl -w',
  // ruby.
  'ruby -W0e 1',
  'ruby -0777ne 1',
  'ruby -I lib -e 1',
  'ruby -C src x.rb',
  'ruby -xsrc x.rb',
  'ruby -i -n /dev/null src/a.ts',
  'ruby -pi.bak x.rb src/a.ts',
  'ruby -S x.rb',
  'ruby -',
  'ruby -w',
  // node: exact options only, files it loads or writes, standard input.
  "node -pe '1'",
  "node --print='1'",
  "node --eval='1'",
  "node -ipe '1'",
  'node -r ./secrets/key x.js',
  'node --require=./secrets/key x.js',
  'node --import ./secrets/key x.js',
  'node --loader=./secrets/key x.js',
  'node --experimental-loader ./secrets/key x.js',
  'node --env-file=.env x.js',
  'node --env-file .env x.js',
  'node --env-file-if-exists=.env x.js',
  'node --env_file=.env x.js',
  'node --redirect-warnings=src/x x.js',
  'node --redirect-warnings src/x x.js',
  'node --test-reporter-destination=src/x --test',
  'node --cpu-prof x.js',
  'node --prof x.js',
  'node --heap-prof-dir=src x.js',
  'node --diagnostic-dir=src x.js',
  'node --trace-event-file-pattern=src/x x.js',
  'node --inspect=0.0.0.0:9229 x.js',
  'node -i',
  'node --interactive',
  'node -',
  'node -- -',
  'node --no-warnings -',
  'node --no-warnings',
  // deno / bun.
  'deno eval 1',
  'deno repl',
  'deno run -',
  'deno run -A -',
  'bun -e 1',
  'bun --eval=1',
  'bun run -',
  // npm and friends: config keys, abbreviated, and the directory.
  'npm test --node-options ./x',
  'npm test --node-opt=./x',
  'npm test --script-she=./x',
  'npm test --init-module=./x',
  'npm test --git=./x',
  'npm test --shell=./x',
  'npm test --registry=http://127.0.0.1:9/',
  'npm test -C/tmp/x',
  'npm test -sC /tmp/x',
  'npm -C /tmp/x test',
  'npm --prefix /tmp/x test',
  'pnpm --dir=/tmp/x test',
  'yarn --cwd=/tmp/x test',
  'npm exec -c id',
  'npm test --script-shell={x,./y}',
];

/** Harmless flags a spelling may follow, by program (its first word). */
const HARMLESS: Readonly<Record<string, string>> = {
  tar: '--verbose',
  dd: 'status=none',
  tee: '-i',
  cp: '-v',
  mv: '-v',
  install: '-v',
  curl: '-s',
  wget: '-q',
  node: '--no-warnings',
  python: '-u',
  python3: '-u',
  perl: '-w',
  ruby: '-w',
  npm: '--silent',
  pnpm: '--silent',
  yarn: '--silent',
  npx: '--yes',
};

/** Every line: the risky options in each spelling, and the ones written out. */
const LINES: readonly string[] = [
  ...RISKY.flatMap((spec) => optionSpellings(spec).map((spelling) => spelledLine(spec, spelling))),
  ...WRITTEN,
];

/** `line` with a harmless flag after its program name (node, perl, … read options before the script). */
const withHarmless = (line: string): string => {
  const space = line.indexOf(' ');
  const program = space < 0 ? line : line.slice(0, space);
  const flag = HARMLESS[program];
  if (flag === undefined || space < 0) return line;
  // tar's old style is its first word only, and dd has no options: the flag goes last.
  return program === 'tar' || program === 'dd'
    ? `${line} ${flag}`
    : `${program} ${flag}${line.slice(space)}`;
};

describe('option spellings of the runners, archives, downloaders and interpreters, a property', () => {
  it('no spelling of a writing, reading, running or connecting option is allowed', async () => {
    const cases = fc.record({ line: fc.constantFrom(...LINES), harmless: fc.boolean() });
    await neverAllowed(
      'runner option spellings',
      explain,
      cases,
      ({ line, harmless }) => (harmless ? withHarmless(line) : line),
      400,
    );
  });

  it('every spelling of every case, once, bare and after a harmless flag', async () => {
    const spelled = new Set(LINES.flatMap((line) => [line, withHarmless(line)]));
    expect(await allowedAmong(explain, spelled)).toEqual([]);
  });

  for (const line of [
    'tar -cf out.tar README.md',
    'tar -czf out.tgz README.md',
    'tar cvf out.tar README.md',
    'tar -tf a.tar',
    'tar tvf a.tar',
    'tar -tzf a.tgz',
    'dd if=README.md of=out.bin bs=1M count=1 status=none',
    'dd if=/dev/zero of=out.bin bs=1 count=1 conv=notrunc',
    'tee out.log',
    'tee -a out.log',
    'tee --output-error=warn out.log',
    'cp README.md out.md',
    'cp -b README.md out.md',
    'cp --backup=numbered -S .orig README.md out.md',
    'install -m 644 README.md out/x',
    'install -d out',
    'python3 x.py',
    'python3 -m pytest -q',
    'python3 -W ignore x.py',
    'python3 -X dev x.py',
    'python3 --version',
    'perl x.pl README.md',
    'perl -w x.pl',
    'perl -Mstrict x.pl',
    'perl -i.bak -p x.pl README.md',
    'perl -0777 -n x.pl README.md',
    'ruby x.rb',
    'ruby -rjson x.rb',
    'node x.js',
    'node --no-warnings x.js',
    'node --test',
    'node -r ./setup.js x.js',
    'node --inspect x.js',
    'node --version',
    'npm test',
    'npm test --silent',
    'npm run build',
    'npm test -- --node-options=x',
    'pnpm test',
    'npx vitest run',
    `curl -sSL ${URL}`,
    `curl -o - ${URL}`,
    `curl -H 'Accept: text/plain' ${URL}`,
    `curl -w '%{http_code}' ${URL}`,
    `curl -F a=@README.md ${URL}`,
    `curl file://${root}/README.md`,
    `wget -q -O- ${URL}`,
    `wget -O - ${URL}`,
  ])
    it(title(`${line}: the everyday spelling stays allowed`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('allow');
    });
});

/** What the property found allowed before this round: each asks or is denied now. */
describe('the bypasses found by the runner spellings, round nine', () => {
  for (const [line, why] of [
    // python read options up to the first word that was no option: `ignore` ended them.
    ["python -W ignore -c 'print(1)'", 'python -c runs code given on the command line'],
    ["python3 -X dev -c 'print(1)'", 'python3 -c runs code given on the command line'],
    ['python3 -u -', 'python3 without a script runs code from its standard input'],
    ['node -- -', 'node without a script runs code from its standard input'],
    ['deno run -A -', 'deno - runs code from its standard input'],
    // perl's `-0777` and `-l0` take digits only: the `e` after them is `-e`.
    ["perl -0777ne 'print'", 'perl -e runs code given on the command line'],
    ["perl -l0e 'print 1'", 'perl -e runs code given on the command line'],
    ['perl -I lib -e 1', 'perl -e runs code given on the command line'],
    ["perl '-Mstrict;print 1'", 'perl -Mstrict;print 1 runs code given on the command line'],
    ['ruby -I lib -e 1', 'ruby -e runs code given on the command line'],
    ['ruby -C src x.rb', 'ruby -C changes directory'],
    ['npm test -C /tmp/x', 'option -C of npm runs another program'],
    ['pnpm --dir /tmp/x test', 'option --dir of pnpm runs another program'],
    ['yarn --cwd /tmp/x test', 'option --cwd of yarn runs another program'],
    ['dd if={x,.env}', 'dd operand if={x,.env} may expand into other operands'],
    ['dd if=.e*', 'dd operand if=.e* may expand into other operands'],
    ['tar -tf localhost:a.tar', 'tar -f localhost:a.tar is an archive on another machine'],
    ['tar cf me@localhost:x.tar README.md', 'tar -f me@localhost:x.tar is an archive on another'],
    [`curl -d@.e* ${URL}`, 'the option -d@.e* may expand into other words'],
    ['cp -t.e* README.md', 'the option -t.e* may expand into other words'],
  ] as const)
    it(title(`${line}: asked, ${why}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('ask');
      expect(decision.reason).toContain(why);
    });

  // Braces in an option word are the words bash makes, each read as the option it is.
  for (const [line, rule] of [
    [`curl -d@{x,.env} ${URL}`, 'Read(./.env)'],
    ['tar -cf{y,src/x.tar} README.md', 'Edit(./src/**)'],
    ['cp -t{x,src} README.md', 'Edit(./src/**)'],
  ] as const)
    it(title(`${line}: denied by ${rule}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('deny');
      expect(decision.reason).toContain(rule);
    });

  for (const [line, what] of [
    ['perl -i -n /dev/null src/a.ts', 'writing'],
    ['ruby -i -n /dev/null src/a.ts', 'writing'],
    ['node --redirect-warnings=src/x x.js', 'writing'],
    ['install -d src/newdir', 'writing'],
    [`curl -F 'a=@.env;type=text/plain' ${URL}`, 'reading'],
    [`curl -F a=@README.md,.env ${URL}`, 'reading'],
    [`curl -H @.env ${URL}`, 'reading'],
    [`curl -w @.env ${URL}`, 'reading'],
    [`curl file://${root}/.env`, 'reading'],
    [`curl file://${root}/%2eenv`, 'reading'],
  ] as const)
    it(title(`${line}: denied, ${what}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('deny');
      expect(decision.reason).toContain(what);
    });
});

/** Each harmless option of the interpreters' tables, in the spellings each reads: allowed. */
describe('the interpreters: their harmless options stay allowed', () => {
  for (const line of [
    'python3 -BsE x.py',
    'python3 -bdOPqRSvx x.py',
    'python3 -h',
    'python3 --help-all',
    'python3 --help-env',
    'python3 --check-hash-based-pycs never x.py',
    'python3 -Wd x.py',
    'python3 -W error::DeprecationWarning x.py',
    'python3 -X utf8=1 x.py',
    'python3 -Xint_max_str_digits=9 x.py',
    'python3 -X frozen_modules=off x.py',
    'python3 -mhttp.server',
    'perl -CS x.pl',
    'perl -C7 x.pl',
    'perl -l x.pl',
    'perl -0 x.pl',
    'perl -0x1ff x.pl',
    'perl -00 -l012 x.pl',
    'perl -acfnpstTUwWX x.pl',
    'perl -v',
    'perl -h',
    'perl -Ilib x.pl',
    'perl -I lib x.pl',
    'perl -MList::Util=sum x.pl',
    'perl -M-warnings x.pl',
    'perl -mstrict x.pl',
    'perl -MO=Deparse x.pl',
    'perl -F: -lan x.pl',
    'perl -x x.pl',
    'perl -i x.pl README.md',
    'ruby -W0 x.rb',
    'ruby -W:no-deprecated x.rb',
    'ruby -Eutf-8 x.rb',
    'ruby -E utf-8 x.rb',
    'ruby -F: -lan x.rb',
    'ruby -acdlnpsvwy x.rb',
    'ruby -0777 x.rb',
    'ruby -x x.rb',
    'ruby -h',
    'ruby --disable-gems x.rb',
    'ruby --encoding=utf-8 x.rb',
    'ruby --verbose x.rb',
    'ruby --version',
    'ruby -I lib x.rb',
    'node -C x x.js',
    'node --stack-size=900 x.js',
    'node --max-old-space-size 4096 x.js',
    'node -c x.js',
    'node --check x.js',
    'node -v',
    'node -h',
    'node --help',
    'node --v8-options',
    'node --run build',
    'node --env-file=README.md x.js',
    'node --inspect=9229 x.js',
    'node --inspect-brk=127.0.0.1:9229 x.js',
    'node --inspect-port=localhost:9229 x.js',
    'node --watch --watch-path=lib x.js',
    'node --import ./setup.mjs x.js',
    'node --enable-source-maps --trace-warnings x.js',
    'node -ex',
    'node -q x.js',
    'deno run x.ts',
    'bun run x.ts',
  ])
    it(title(`${line}: allowed`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe('allow');
    });

  for (const [line, why] of [
    ['python3 -W error::m.Warning x.py', 'python3 -W error::m.Warning imports the module'],
    ['python3 -Xpycache_prefix=src x.py', 'python3 -X pycache_prefix=src is not one'],
    ['python3 -Xdev2 x.py', 'python3 -X dev2 is not one'],
    ['node --redirect-warnings=src/x x.js', 'node --redirect-warnings src/x'],
    ['python3 -X a:b:c.d x.py', 'python3 -X a:b:c.d is not one the model knows'],
    ["perl -i'src/*' -p x.pl README.md", 'perl -isrc/* writes backups under names'],
    ['python3 --check-hash-based-pycs', 'python3 option --check-hash-based-pycs has no value'],
    ['python3 --version=1', 'python3 option --version takes no value'],
    ['python3 --nope x.py', 'python3 option --nope is not one the model knows'],
    ['python3 -j x.py', 'python3 option -j is not one the model knows'],
    ['python3 -W "$W" x.py', 'the value "$W" of python3 -W is not known before it runs'],
    ['python3 "$O" x.py', '"$O" is not known before it runs'],
    ['python3 -i x.py', 'python3 -i runs code from its standard input'],
    ["perl -F'/x/' -an x.pl", 'perl -F/x/ runs code given on the command line'],
    ['perl -F\'"x"\' -an x.pl', 'perl -F"x" runs code given on the command line'],
    ['perl -xsrc x.pl', 'perl -xsrc changes directory'],
    ['perl -d x.pl', 'perl -d runs the debugger'],
    ['perl -u x.pl', 'perl -u dumps core'],
    ['ruby -xsrc x.rb', 'ruby -xsrc changes directory'],
    ['node --inspect=0.0.0.0:9229 x.js', 'node --inspect=0.0.0.0:9229 opens a debugger port'],
    ['node --interactive', 'node --interactive runs code from its standard input'],
    ['node --eval=1', 'node --eval runs code given on the command line'],
    ['node -pe 1', 'node -p runs code given on the command line'],
    ['node -ipe 1', 'node -ipe runs code given on the command line'],
    ['node -r', 'node option -r has no value'],
    ['node --test-reporter-destination=src/x --test', 'writing'],
    [`curl -F 'a=@"x;y"' ${URL}`, 'names its file in quotes'],
    [`curl -w '%output{x}' ${URL}`, 'writes to a file its format names'],
    [`curl file://${root}/%zz`, 'may name a local file'],
    [`curl file://${root}/[a-b]`, 'may name a local file'],
    [`curl -s -- "$U"`, 'is not known before it runs'],
  ] as const)
    it(title(`${line}: asked or denied, ${why}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).not.toBe('allow');
      expect(decision.reason).toContain(why);
    });

  for (const [line, behavior] of [
    [`curl -H @- ${URL}`, 'allow'],
    [`curl -b 'a=1' ${URL}`, 'allow'],
    [`curl --data-urlencode 'a@.env' ${URL}`, 'deny'],
    [`curl -F 'a=<.env;type=x' ${URL}`, 'deny'],
    [`curl -d @.env ${URL}`, 'deny'],
    [`curl http://127.0.0.1:9/file:.env`, 'allow'],
    [`curl file://localhost${root}/secrets/key`, 'deny'],
    [`curl file:${root}/.env`, 'deny'],
    ['tar -cf ./a:b.tar README.md', 'allow'],
    ['tar -tf ./a:b.tar', 'allow'],
    ['tee -- -a', 'allow'],
    ['npm test -- -C{x,y}', 'allow'],
    // After the module, its own words: `-i` is the module's, not python's.
    ['python3 -m mod -i', 'allow'],
    // A glob that cannot begin with `-` is a script's name; one that can may be an option.
    ['python3 x*.py', 'allow'],
    ['python3 *.py', 'ask'],
    ['node -- *.js', 'allow'],
    // python's -X values, each spelling of the allowlist.
    ['python3 -X utf8 -X utf8=0 -X tracemalloc -X tracemalloc=10 x.py', 'allow'],
    ['python3 -X importtime -X faulthandler -X showrefcount -X perf x.py', 'allow'],
    ['python3 -X warn_default_encoding -X no_debug_ranges -X frozen_modules=on x.py', 'allow'],
    ['python3 -X int_max_str_digits=4300 x.py', 'allow'],
    ['python3 -X nodev x.py', 'ask'],
    ['python3 -X dev=1 x.py', 'ask'],
    ['python3 -X utf8=2 x.py', 'ask'],
    ['python3 -X frozen_modules=x x.py', 'ask'],
    // curl's harmless values, long and short.
    [
      `curl --request POST --user-agent x --max-time 1 --connect-timeout 1 --retry 1 --user a:b --referer x --proxy ${URL} --resolve a:1:b --range 0-1 --max-redirs 1 ${URL}`,
      'allow',
    ],
    [`curl -X POST -A x -m 1 -u a:b -e x -x ${URL} -r 0-1 ${URL}`, 'allow'],
    // curl reads `@FILE` where its options take one, and not in data that only holds an `@`.
    [`curl -d 'a=@x,.env' ${URL}`, 'allow'],
    [`curl -d 'x@.env' ${URL}`, 'allow'],
    [`curl -H x.env ${URL}`, 'allow'],
    [`curl -s .env`, 'allow'],
    [`curl -F 'a=b=@.env' ${URL}`, 'deny'],
    [`curl -F 'file=@.env;type=text/plain' ${URL}`, 'deny'],
    [`curl -F 'a=@"x";type=a' ${URL}`, 'ask'],
    // After `--` a word is an operand, braces and all; `cp -d` keeps links, it makes no directory.
    ['tee -- -a{x,y}', 'allow'],
    ['cp -d .env out', 'deny'],
    ['perl -I/usr/lib x.pl', 'allow'],
    ['perl -Fx/ -an x.pl', 'allow'],
    ['perl -Mstrict x.pl src/a.ts', 'allow'],
    ['perl -S .env', 'deny'],
    ['perl -d .env', 'deny'],
    ['python3 -i .env', 'deny'],
    ['python3 --check-hash-based-pycs= x.py', 'allow'],
    ['ruby -C .env x.rb', 'ask'],
    ['node -constructor x.js', 'allow'],
    ['node -x-e', 'allow'],
    ['node --inspect-brk=0.0.0.0:9229 x.js', 'ask'],
    ["perl -i'src/*' -p x.pl README.md", 'ask'],
    ['perl -pi/x x.pl README.md', 'ask'],
    // The package's own words after its name: bash expands them for it.
    ['npx -y cowsay -C{x,y}', 'allow'],
    ['npx -yC{x,y} cowsay', 'ask'],
  ] as const)
    it(title(`${line}: ${behavior}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe(behavior);
    });
});

describe('plan mode: an interpreter that only prints its version is read-only', () => {
  const plan = filePolicy({ cwd: root, home, mode: 'plan', rules: {} });
  for (const line of ['python3 --version', 'node -v', 'perl -v', 'ruby --version', 'node -ex'])
    it(title(`${line}: runs`), async () => {
      expect(await plan.behaviorOf(line)).toBe('allow');
    });
  for (const line of ['python3 --version x.py', 'python3 x.py', 'node -v x.js', 'perl -v -w'])
    it(title(`${line}: refused`), async () => {
      expect(await plan.behaviorOf(line)).not.toBe('allow');
    });
});

/** A remote archive is asked, never read or written as a local file of that name. */
describe('tar -f HOST:FILE under a rule that names such a file', () => {
  const remote = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(tar:*)'], deny: ['Edit(./x:*)', 'Read(./x:*)'] },
  });
  for (const line of ['tar -cf x:y.tar README.md', 'tar -tf x:y.tar'])
    it(title(`${line}: asked`), async () => {
      expect(await remote.behaviorOf(line)).toBe('ask');
    });
});

/** With no path rule to check first, the question names what the model did not read. */
describe('the reasons, under a policy with no path rules', () => {
  const bare = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(python3:*)', 'Bash(curl:*)'] },
  });
  for (const [line, why] of [
    ['python3 *.py', '*.py is not known before it runs and could be an option'],
    ['python3 "$X"', '"$X" is not known before it runs and could be an option'],
    ['curl -s -- "$U"', 'curl "$U" may name a local file'],
  ] as const)
    it(title(`${line}: asked, ${why}`), async () => {
      const decision = await bare.explain(line);
      expect(decision.behavior).toBe('ask');
      expect(decision.reason).toContain(why);
    });
});

/**
 * What the ninth round's mutants of interpreters.ts, runners.ts, network.ts and programs.ts
 * changed and no test saw: each line is decided as the model reads it.
 */
describe('the runners, decided word by word, round nine', () => {
  for (const [line, behavior] of [
    // A harmless option's value in every length the table takes, and the option alone.
    ['python3 -X utf8 x.py', 'allow'],
    ['python3 -X tracemalloc x.py', 'allow'],
    ['python3 -X tracemalloc=25 x.py', 'allow'],
    ['python3 -X int_max_str_digits=4300 x.py', 'allow'],
    ['python3 -X nodev x.py', 'ask'],
    ['perl -0x1ab x.pl', 'allow'],
    ['perl -C24 x.pl', 'allow'],
    ['perl -CSDA x.pl', 'allow'],
    ["perl '-Mstrict;exit' x.pl", 'ask'],
    ['ruby -F x.rb', 'allow'],
    ['ruby -F/,/ x.rb', 'allow'],
    // perl -i's backup suffix: a plain one is written beside the file, a / or * names another.
    ['perl -i.bak x.pl README.md', 'allow'],
    // node refuses a short option it does not know, an own property of no object among them.
    ['node -constructor x.js', 'allow'],
    ['node -__proto__ x.js', 'allow'],
    ['node -1-e x.js', 'allow'],
    // Options end at the module and at --: what follows is the module's or the script's.
    ['python3 -m http.server --bind 127.0.0.1', 'allow'],
    ['python3 -- x.py', 'allow'],
    ['python3 -- -x.py', 'allow'],
    // A glob or a bracket at the script's place: an option only when it may begin with -.
    ['python3 x*.py', 'allow'],
    ["python3 '[x].py'", 'allow'],
    ['node -e* x.js', 'ask'],
    ['node -{e,p} 1 x.js', 'ask'],
    // The script's arguments are read, and written only under -i: never the script itself.
    ['python3 x.py src/a.ts', 'allow'],
    ['perl -l x.pl src/a.ts', 'allow'],
    ['perl -i src/x.pl README.md', 'allow'],
    // An option that asks still takes no value: the next word is the script.
    ['perl -S .env', 'deny'],
    ['perl -d .env', 'deny'],
    ['python3 -i .env', 'deny'],
    ['python3 --check-hash-based-pycs= .env', 'deny'],
    ['python3 -m mod --in=secrets/a', 'deny'],
    // Code on the command line or from standard input, with a script after it.
    ['perl -E 1 x.pl', 'ask'],
    ['node -e 1 x.js', 'ask'],
    ['node -i 1 x.js', 'ask'],
    ['ruby -We 1 x.rb', 'ask'],
    // deno and bun: their code options exactly, in each spelling.
    ['deno noeval', 'allow'],
    ['deno evaluate.ts', 'allow'],
    ['bun ./run-e', 'allow'],
    ['bun --evaluate x.ts', 'allow'],
    ['bun --eval 1', 'ask'],
    ['bun --eval=1+1', 'ask'],
    ['bun --print 1', 'ask'],
    ['bun --print=1+1', 'ask'],
    // curl: only -F reads a form field from a file, only --data-urlencode a NAME@FILE.
    [`curl -d 'a=<.env' ${URL}`, 'allow'],
    [`curl -d 'x@.env' ${URL}`, 'allow'],
    [`curl -F 'file=<.env' ${URL}`, 'deny'],
    [`curl -F 'a=b=@.env' ${URL}`, 'deny'],
    [`curl --data-urlencode name@.env ${URL}`, 'deny'],
    [`curl -F 'a=@"x";type=text/plain' ${URL}`, 'ask'],
    [`curl -w x.env ${URL}`, 'allow'],
    [`curl --max-time 5 ${URL}`, 'allow'],
    [`curl -X POST ${URL}`, 'allow'],
    // A URL is a local file only with the file: scheme at its start.
    ['curl .env', 'allow'],
    ["curl '127.0.0.1:9/file:[1-2]'", 'allow'],
    ["curl 'http://127.0.0.1:9/x[1-2]'", 'allow'],
    [`curl file://${root}/README.md`, 'allow'],
    ['curl file:///x%E0', 'ask'],
    // A glob word is expanded by bash: an option only when it begins with -, and not after --.
    ['cp -- -{a,b} /tmp/x', 'allow'],
    ['cp ./*.md /tmp/x', 'allow'],
    // install -d makes directories; cp -d copies, reading its sources.
    ['cp -d .env /tmp/x', 'deny'],
  ] as const)
    it(title(`${line}: ${behavior}`), async () => {
      const decision = await explain(line);
      expect(decision.behavior, decision.reason).toBe(behavior);
    });

  for (const [line, why] of [
    ['perl -D x.pl', 'perl -D sets debugging flags, which the model does not read'],
    ['perl -S x.pl', 'perl -S runs a script found on PATH'],
    ['ruby -S x.rb', 'ruby -S runs a script found on PATH'],
    ['perl -E 1 x.pl', 'perl -E runs code given on the command line'],
    ['node -e 1 x.js', 'node -e runs code given on the command line'],
    ['node -i 1 x.js', 'node -i runs code from its standard input'],
    ['node --redirect-warnings=src/x x.js', '"node --redirect-warnings src/x"'],
    ["perl -pi'src/*' x.pl README.md", 'perl -isrc/* writes backups under names the model'],
    // A URL not known before it runs is read as written: file: inside it is no scheme.
    ['curl -s -- "$U/file://x/y"', 'the file operand $U/file://x/y is not known before it runs'],
  ] as const)
    it(title(`${line}: the reason names it, ${why}`), async () => {
      const decision = await explain(line);
      expect(decision.reason).toContain(why);
    });
});

/** `-` is standard input and `a=x@y` literal data: neither names a file, even one a rule denies. */
describe('words that name no file, under rules that deny reading files of those names', () => {
  const named = filePolicy({
    cwd: root,
    home,
    rules: { allow: ['Bash(curl:*)', 'Bash(node:*)'], deny: ['Read(./-)', 'Read(./x@y)'] },
  });
  for (const line of [
    `curl -H @- ${URL}`,
    `curl -w @- ${URL}`,
    `curl --data-urlencode a=x@y ${URL}`,
    'node --test -',
  ])
    it(title(`${line}: allowed`), async () => {
      expect(await named.behaviorOf(line)).toBe('allow');
    });
});
