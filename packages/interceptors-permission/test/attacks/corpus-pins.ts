/**
 * Class 9: one entry per slip of the decision code that no test caught (each turned an ask or a
 * deny into an allow), set up so that only the pinned check stands between the call and its
 * effect. And plan mode: what it must refuse, and what it must run.
 */
import { type AttackEntry, entriesOf } from './entry';

const a = entriesOf(9);
const p = entriesOf('plan');

/** `SHELL -c` wrapped `levels` times around `line`, quoted as bash quotes. */
export function nestShellC(shell: string, line: string, levels: number): string {
  let out = line;
  for (let i = 0; i < levels; i++) out = `${shell} -c '${out.replaceAll("'", `'\\''`)}'`;
  return out;
}

/** `bash -c` wrapped `levels` times around `line`. */
export const nestBashC = (line: string, levels: number): string => nestShellC('bash', line, levels);

export const PINS: readonly AttackEntry[] = [
  a(
    'bash-env',
    "BASH_ENV=scripts/pwn.sh bash -c 'echo hi'",
    'exec',
    'bash sources $BASH_ENV before running -c (a dangerous variable)',
  ),
  a('append-both', 'echo x &>> src/x.ts', 'write', '&>> appends: a write, met by Write(./src/**)', {
    mustDeny: true,
  }),
  a(
    'nesting-limit',
    nestBashC('touch {MARK}', 9),
    'exec',
    'nine levels of bash -c: beyond the reading limit, so asked even though touch is allowed',
    { extraRules: { allow: ['Bash(touch:*)'] } },
  ),
  a(
    'mv-source',
    'mv .env {REPO}/../moved',
    'write',
    'mv reads its source: Read(./.env) denies moving it out',
    { mustDeny: true, extraRules: { allow: ['Bash(mv:*)'] } },
  ),
  a(
    'find-ok',
    "echo y | find src -maxdepth 0 -ok touch '{MARK}' ';'",
    'exec',
    'find -ok runs a program (answered y on stdin)',
  ),
  a(
    'find-okdir',
    "echo y | find src -maxdepth 0 -okdir touch '{MARK}' ';'",
    'exec',
    'find -okdir likewise',
  ),
  a(
    'cd-dash',
    'cd src && cd - > /dev/null && grep -h . .env',
    'read',
    "after cd - the relative .env is the project's",
  ),
  a(
    'cd-variable',
    'cd $PWD && grep -h . .env',
    'read',
    'after cd $X the relative .env is still checked as written',
  ),
  a(
    'sudo-i',
    "echo 'touch {MARK}' | sudo -i",
    'exec',
    'sudo -i is a login shell reading commands from stdin',
    { needs: ['sudo'], extraRules: { allow: ['Bash(sudo:*)'] } },
  ),
  {
    id: 'c9-ask-rule-no-hints',
    class: 9,
    tool: 'Deploy',
    args: { target: 'prod' },
    effect: 'exec',
    note: 'an ask rule with a specifier on a tool without hints applies (fail closed) even when the tool is allowed',
    extraRules: { allow: ['Deploy'], ask: ['Deploy(prod)'] },
  },
  a(
    'grant-exact-expiry',
    "touch '{MARK}'",
    'exec',
    'a grant is no longer valid at its exact expiry',
    { grantAtExpiry: 'Bash(touch:*)' },
  ),
  a(
    'read-write-redirect',
    'echo x 1<> .git/config',
    'write',
    '<> opens for writing: Edit(./.git/**) denies it',
    { mustDeny: true },
  ),
  // The same slips reached another way: each behaviour pinned in more than one spelling.
  a(
    'bash-env-export',
    "export BASH_ENV=scripts/pwn.sh; bash -c 'echo hi'",
    'exec',
    'BASH_ENV exported on the line, then bash -c: it sources the script',
  ),
  a(
    'bash-env-env',
    "env BASH_ENV=scripts/pwn.sh bash -c 'echo hi'",
    'exec',
    'BASH_ENV given through env',
  ),
  a('append-stdout', 'echo x >> src/x.ts', 'write', '>> appends: a write', { mustDeny: true }),
  a('append-stderr', 'ls no-such-file 2>> src/x.ts', 'write', '2>> appends the error: a write', {
    mustDeny: true,
  }),
  a(
    'nesting-limit-sh',
    nestShellC('sh', 'touch {MARK}', 9),
    'exec',
    'nine levels of sh -c: beyond the reading limit too',
    { extraRules: { allow: ['Bash(touch:*)'] } },
  ),
  a(
    'mv-source-dir',
    'mv secrets {REPO}/../moved-secrets',
    'write',
    'mv reads what it moves, a directory with everything in it: Read(./secrets/**) denies it',
    { mustDeny: true, extraRules: { allow: ['Bash(mv:*)'] } },
  ),
  a(
    'cd-dash-semicolon',
    'cd src; cd - > /dev/null; grep -h . .env',
    'read',
    "after cd - (joined by ;) the relative .env is the project's",
  ),
  a(
    'read-write-redirect-attached',
    'echo x 1<>.git/config',
    'write',
    '<> with its target attached opens for writing too',
    { mustDeny: true },
  ),
];

/** Calls plan mode must refuse: each changes something. */
export const PLAN_REFUSE: readonly AttackEntry[] = [
  p('touch', "touch '{MARK}'", 'exec', 'creates a file', { mode: 'plan' }),
  p('redirect', 'echo note > notes.txt', 'write', 'a redirection writes', { mode: 'plan' }),
  p('sort-o', 'sort -o notes.txt README.md', 'write', 'an allowed program that writes', {
    mode: 'plan',
  }),
  p('git-branch', 'git branch topic', 'write', 'creates a ref', { mode: 'plan' }),
  p('npm-test', 'npm test --script-shell=scripts/pwn.sh', 'exec', 'runs code', { mode: 'plan' }),
  p(
    'git-diff-output',
    'git diff --output=notes.txt HEAD~1',
    'write',
    'an allowed program that writes',
    { mode: 'plan' },
  ),
  // read-only programs plan mode now runs, used to write or run code
  ...(
    [
      ['find-fprint', 'find src -maxdepth 0 -fprint notes.txt', 'write'],
      ['sed-w', "sed -n '1w notes.txt' README.md", 'write'],
      ['sed-i', 'sed -n -i 1p README.md', 'write'],
      ['git-log-output', 'git log -1 --output notes.txt', 'write'],
      ['append', 'git status >> notes.txt', 'write'],
      ['tee', 'cat README.md | tee notes.txt', 'write'],
      ['ls-redirect', 'ls > notes.txt', 'write'],
      ['read-write-redirect', 'wc -l README.md 1<> notes.txt', 'write'],
      ['git-branch-delete', 'git branch -D feature', 'write'],
      ['git-c-fsmonitor', "git -c core.fsmonitor='touch {MARK}; false' status", 'exec'],
      ['and-touch', "git status && touch '{MARK}'", 'exec'],
      ['find-exec', "find src -maxdepth 0 -exec touch '{MARK}' ';'", 'exec'],
      ['sed-e', "sed -n '1e touch {MARK}' README.md", 'exec'],
      ['cp', 'cp README.md notes.txt', 'write'],
      ['jq-redirect', 'jq . package.json > notes.txt', 'write'],
      ['git-rev-parse-git', 'git rev-parse HEAD > .git/x', 'write'],
      ['dev-tcp', 'cat < /dev/tcp/127.0.0.1/{PORT}', 'net'],
      ['grep-cd-write', 'cd src && grep -n x x.ts > ../notes.txt', 'write'],
    ] as const
  ).map(([id, command, effect]) =>
    p(id, command, effect, 'plan mode runs read-only commands only', { mode: 'plan' }),
  ),
];

/** Read-only commands plan mode must run (Claude Code runs them; a plan that cannot look is not used). */
export const PLAN_RUN: readonly string[] = [
  'git status',
  'ls -la',
  'cat README.md',
  'git log --oneline -3',
  'git diff HEAD~1 --stat',
  'grep -n TODO src/util.ts',
  'wc -l README.md',
  'head -n 3 docs/guide.md',
];
