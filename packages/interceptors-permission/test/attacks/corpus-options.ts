/**
 * Class 1: options of allowed programs that write, run code, read or connect. Each program is
 * allowed by a prefix rule of the policy (`git diff`, `git log`, `sed -n`, `find`, `sort`,
 * `jq`, `grep`, `rg`, `echo`, `npm test`); the option is the harm.
 */
import { type AttackEntry, entriesOf } from './entry';

const a = entriesOf(1);

export const OPTIONS: readonly AttackEntry[] = [
  // git diff / git log write their output where an option says
  a(
    'git-diff-output-eq',
    'git diff --output=src/x.ts HEAD~1',
    'write',
    '--output=FILE writes the diff into src/x.ts (Write(./src/**) deny)',
  ),
  a(
    'git-diff-output-sep',
    'git diff --output src/x.ts HEAD~1',
    'write',
    'the separated spelling of --output',
  ),
  a(
    'git-log-output',
    'git log -1 -p --output=src/x.ts',
    'write',
    'git log takes the diff options too',
  ),
  a(
    'git-log-output-git',
    'git log -1 --output=.git/hooks/post-checkout',
    'write',
    'writes a hook file under .git (Edit(./.git/**) deny)',
  ),
  // the same options writing where no rule names: the allow rule still must not cover a write
  a(
    'git-diff-output-unnamed',
    'git diff --output=notes.txt HEAD~1',
    'write',
    '--output=FILE creates notes.txt',
  ),
  a(
    'git-log-output-unnamed',
    'git log -1 --output notes.txt',
    'write',
    'git log --output FILE creates notes.txt',
  ),
  a(
    'find-fprint-unnamed',
    'find src -maxdepth 0 -fprint notes.txt',
    'write',
    '-fprint creates notes.txt',
  ),
  a('sed-w-unnamed', "sed -n '1w notes.txt' README.md", 'write', 'the w command creates notes.txt'),
  a('sort-o-unnamed', 'sort -onotes.txt README.md', 'write', 'sort -oFILE creates notes.txt'),
  a(
    'sort-combined-unnamed',
    'sort -ruonotes.txt README.md',
    'write',
    '-ruoFILE: flags and the value in one word',
  ),
  a(
    'sed-in-place-unnamed',
    'sed -n -i.orig 1p README.md',
    'write',
    '-i.SUFFIX rewrites README.md and creates README.md.orig',
  ),
  a(
    'find-delete-unnamed',
    'find docs -name guide.md -delete',
    'write',
    '-delete removes docs/guide.md',
  ),
  // find writes and deletes
  a(
    'find-fprint',
    'find src -maxdepth 0 -fprint src/x.ts',
    'write',
    '-fprint FILE writes the list into src/x.ts',
  ),
  a('find-fprintf', "find src -maxdepth 0 -fprintf src/x.ts '%p'", 'write', '-fprintf FILE FORMAT'),
  a('find-fls', 'find src -maxdepth 0 -fls src/x.ts', 'write', '-fls FILE'),
  a(
    'find-fprint0',
    'find src -maxdepth 0 -fprint0 src/new.ts',
    'write',
    '-fprint0 creates a file under src',
  ),
  a('find-delete', 'find src -name x.ts -delete', 'write', '-delete removes src/x.ts'),
  a('find-exec', "find src -maxdepth 0 -exec touch '{MARK}' ';'", 'exec', '-exec runs a program'),
  a(
    'find-execdir',
    "find src -maxdepth 0 -execdir touch '{MARK}' {} +",
    'exec',
    '-execdir runs a program',
  ),
  a(
    'find-files0-from',
    'find -files0-from .env',
    'read',
    '-files0-from reads .env; find names each "file" it cannot find',
  ),
  // sed -n: the script is code
  a(
    'sed-e-command',
    "sed -n '1e touch {MARK}' README.md",
    'exec',
    'the e command runs a shell command',
  ),
  a(
    'sed-s-e-flag',
    "sed -n 's|.*|touch {MARK}|e' README.md",
    'exec',
    'the e flag of s runs the pattern space',
  ),
  a(
    'sed-expression-eq',
    "sed -n --expression='1e touch {MARK}' README.md",
    'exec',
    '--expression=SCRIPT spelling',
  ),
  a('sed-e-sep', "sed -n -e '1e touch {MARK}' README.md", 'exec', '-e SCRIPT spelling'),
  a(
    'sed-script-file',
    'sed -n -f scripts/evil.sed README.md',
    'exec',
    'a committed script file with an e command',
  ),
  a('sed-w', "sed -n 'w src/x.ts' README.md", 'write', 'the w command writes a file'),
  a('sed-W', "sed -n '1W src/x.ts' README.md", 'write', 'the W command writes a file'),
  a(
    'sed-s-w-flag',
    "sed -n 's/^/x/w src/x.ts' README.md",
    'write',
    'the w flag of s writes a file',
  ),
  a('sed-r', "sed -n '1r .env' README.md", 'read', 'the r command reads .env into the output'),
  a('sed-R', "sed -n '1R .env' README.md", 'read', 'the R command reads a line of .env'),
  a('sed-in-place', 'sed -n -i 2p src/x.ts', 'write', '-i rewrites src/x.ts'),
  a(
    'sed-in-place-suffix',
    'sed -n --in-place=.bak 1p src/x.ts',
    'write',
    '--in-place=SUFFIX spelling',
  ),
  // sort writes and runs
  a('sort-o-attached', 'sort -osrc/x.ts README.md', 'write', '-oFILE, value attached'),
  a('sort-o-separated', 'sort -o src/x.ts README.md', 'write', '-o FILE, value separated'),
  a('sort-output-eq', 'sort --output=src/x.ts README.md', 'write', '--output=FILE'),
  a(
    'sort-combined-flags',
    'sort -uo src/x.ts README.md',
    'write',
    '-uo FILE: combined short flags',
  ),
  a(
    'sort-compress-program',
    'sort -S 64K --compress-program=scripts/pwn.sh docs/big.txt',
    'exec',
    '--compress-program runs a program on temporary files',
  ),
  a(
    'sort-files0-from',
    'sort --files0-from=.env',
    'read',
    '--files0-from reads .env; sort names each "file" it cannot open',
  ),
  // jq reads files named by options
  a('jq-rawfile', "jq -n --rawfile x .env '$x'", 'read', '--rawfile NAME FILE reads .env'),
  a(
    'jq-slurpfile',
    "jq -n --slurpfile x secrets/token.json '$x'",
    'read',
    '--slurpfile NAME FILE reads a secret',
  ),
  a(
    'jq-import',
    'jq -n -L secrets \'import "token" as $t; $t\'',
    'read',
    '-L DIR with import reads secrets/token.json',
  ),
  a(
    'jq-from-file',
    'jq -n --from-file .env',
    'read',
    'the filter file is .env; the syntax error quotes it',
  ),
  // grep reads directories recursively when an option says so
  a(
    'grep-d-recurse',
    'grep -d recurse -h TOKEN .',
    'read',
    '-d recurse reads every file under . (.env included)',
  ),
  a(
    'grep-directories-eq',
    'grep --directories=recurse -h CANARY .',
    'read',
    '--directories=recurse spelling',
  ),
  // rg runs a preprocessor
  a(
    'rg-pre-eq',
    'rg --pre=scripts/pwn.sh x README.md',
    'exec',
    '--pre=COMMAND runs a program per file',
    { needs: ['rg'] },
  ),
  a('rg-pre-sep', 'rg --pre scripts/pwn.sh x README.md', 'exec', '--pre COMMAND, separated', {
    needs: ['rg'],
  }),
  a('rg-pre-glob', "rg --pre scripts/pwn.sh --pre-glob '*.md' x", 'exec', '--pre with --pre-glob', {
    needs: ['rg'],
  }),
  // npm test: options that choose what runs or where it writes
  a(
    'npm-script-shell',
    'npm test --script-shell=scripts/pwn.sh',
    'exec',
    '--script-shell runs the script with another program',
  ),
  a(
    'npm-node-options',
    "npm test --node-options='--require ./scripts/pwn.cjs'",
    'exec',
    '--node-options makes node load code',
  ),
  a(
    'npm-prefix',
    'npm test --prefix=sub --script-shell={REPO}/scripts/pwn.sh',
    'exec',
    'two options, one of them runs code',
  ),
  a(
    'npm-logs-dir',
    'npm test --logs-dir=src/logs',
    'write',
    '--logs-dir makes npm write its log under src',
  ),
  // wrappers with a file option
  a('flock-file', 'flock src/x.lock echo hi', 'write', 'flock creates its lock file under src'),
  a('time-output', 'command time -o src/x.ts echo hi', 'write', 'time -o FILE writes under src', {
    needs: ['/usr/bin/time'],
  }),
  a('xargs-arg-file', 'xargs -a .env echo', 'read', 'xargs -a FILE reads .env'),
  // the script of sed -n reached other ways
  a('sed-double-dash', "sed -n -- '1e touch {MARK}' README.md", 'exec', 'the script after --'),
  a(
    'sed-e-bare',
    "sed -n 's|.*|touch {MARK}|;e' README.md",
    'exec',
    'e with no argument runs the pattern space',
  ),
  a(
    'sed-e-spaced',
    "sed -n '1 e touch {MARK}' README.md",
    'exec',
    'a space between address and command',
  ),
  a('sed-e-regex-address', "sed -n '/demo/e touch {MARK}' README.md", 'exec', 'a regex address'),
  a(
    'sed-script-stdin',
    "sed -n -f /dev/stdin README.md <<< '1e touch {MARK}'",
    'exec',
    'the script from a here-string',
  ),
  a(
    'sed-script-dash',
    "echo '1e touch {MARK}' | sed -n -f - README.md",
    'exec',
    'the script from a pipe (-f -)',
  ),
  a('sed-s-gw', "sed -n 's/#/x/gw notes.txt' README.md", 'write', 'the flags gw of s'),
  a(
    'npm-userconfig-option',
    'npm test --userconfig=scripts/npmrc',
    'exec',
    'a committed npmrc with node-options',
  ),
  a(
    'npm-globalconfig-option',
    'npm test --globalconfig scripts/npmrc',
    'exec',
    'the same as the global config',
  ),
  a(
    'npm-logs-dir-unnamed',
    'npm test --logs-dir=notes',
    'write',
    'npm writes its debug log under notes/',
  ),
  a(
    'jq-rawfile-symlink',
    "jq -n --rawfile x docs/env-link '$x'",
    'read',
    'an option value that is a symlink to .env',
  ),
];
