/**
 * Every spelling of a git option that writes, reads a file or runs a program (attached,
 * separated, `--opt=value`, a unique prefix, in a cluster after a harmless flag), for each
 * subcommand git's model reads, and git's global options before a subcommand. Under a policy that
 * allows each subcommand by prefix, none may be allowed. Seeded; the seed is printed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  allowedAmong,
  filePolicy,
  makeProject,
  noSpellingAllowed,
  optionSpellings,
  type RiskyOption,
  spelledLine,
} from '../../../test/helpers';

const SUBCOMMANDS = [
  'diff',
  'log',
  'show',
  'whatchanged',
  'reflog',
  'grep',
  'status',
  'branch',
  'rev-parse',
  'ls-files',
  'blame',
  'cat-file',
  'describe',
  'shortlog',
  'tag',
  'remote',
  'config',
  'stash',
];
const { root, home } = makeProject();
// History is read as the whole repository only where there is one.
execFileSync('git', ['init', '-q'], { cwd: root });
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: SUBCOMMANDS.map((s) => `Bash(git ${s}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Edit(./.git/**)'],
  },
});

const DIFFS = ['diff', 'log', 'show', 'whatchanged', 'reflog'];
const RISKY: readonly RiskyOption[] = [
  // Global options take their value separated or after `=`, never attached or abbreviated.
  { program: 'git', short: 'C', value: 'src', after: 'log', exact: true },
  { program: 'git', short: 'c', value: 'core.pager=./x', after: 'log', exact: true },
  { program: 'git', long: 'git-dir', value: '/tmp', after: 'log', exact: true },
  { program: 'git', long: 'work-tree', value: '/tmp', after: 'log', exact: true },
  { program: 'git', long: 'config-env', value: 'core.pager=X', after: 'log', exact: true },
  { program: 'git', long: 'exec-path', value: '/tmp', after: 'log', exact: true },
  ...DIFFS.flatMap((sub): RiskyOption[] => [
    { program: `git ${sub}`, long: 'output', value: 'src/x', after: '' },
    { program: `git ${sub}`, long: 'orderfile', short: 'O', flag: 'p', value: '.env', after: '' },
  ]),
  { program: 'git grep', long: 'file', short: 'f', flag: 'n', value: '.env', after: '' },
  {
    program: 'git grep',
    long: 'open-files-in-pager',
    short: 'O',
    flag: 'i',
    value: './x',
    after: 'TOKEN',
  },
  { program: 'git blame', long: 'contents', value: '.env', after: 'README.md' },
  { program: 'git blame', long: 'ignore-revs-file', value: '.env', after: 'README.md' },
  { program: 'git blame', short: 'S', flag: 'l', value: '.env', after: 'README.md' },
  {
    program: 'git ls-files',
    long: 'exclude-from',
    short: 'X',
    flag: 'o',
    value: '.env',
    after: '',
  },
  { program: 'git config', long: 'file', short: 'f', flag: 'l', value: '.env', after: '--list' },
  { program: 'git config', long: 'blob', value: 'HEAD:.env', after: '--list' },
  { program: 'git tag', long: 'file', short: 'F', flag: 'a', value: '.env', after: 'v9' },
  { program: 'git cat-file', long: 'path', value: '.env', after: '--filters HEAD' },
];

/** Flags that reach a denied file, run a program or widen what is read, in each spelling. */
const FLAGS: readonly string[] = [
  ...DIFFS.flatMap((sub) => [`git ${sub} --ext-diff`, `git ${sub} --ext-d`]),
  'git grep --no-index TOKEN',
  'git grep --no-in TOKEN',
  'git grep --untracked --no-exclude-standard TOKEN',
  'git grep --untr --no-exclude TOKEN',
  'git grep -n --no-index TOKEN',
  'git log -p',
  'git log -up',
  'git log --pat',
  'git log -U3',
  'git log --word-d',
  'git log -W',
  'git show HEAD~1',
  'git show -s --format=%B -p HEAD',
  'git stash show -p',
  'git stash show -up',
  'git stash list --patch',
  'git stash list --pat',
  'git cat-file -p HEAD:.env',
  'git cat-file --batch-all-objects --batch',
  'git cat-file --batch-all --batch',
];

describe('git option spellings (property)', () => {
  it('no spelling of a writing, reading or running git option is allowed', async () => {
    await noSpellingAllowed('git option spellings', explain, RISKY, 300);
  });

  it('every spelling of every option, and every flag, once', async () => {
    const lines = [
      ...RISKY.flatMap((spec) => optionSpellings(spec).map((s) => spelledLine(spec, s))),
      ...FLAGS,
    ];
    expect(await allowedAmong(explain, lines)).toEqual([]);
  });

  it.each([
    'git log --oneline -5',
    'git diff --stat',
    'git diff HEAD -- src/a.ts',
    'git show --stat HEAD',
    'git status -sb',
    'git branch -a',
    'git ls-files -o --exclude-standard',
    'git blame -L 1,2 README.md',
    'git config --get user.name',
    'git tag -l',
    'git remote -v',
    'git grep -n TOKEN -- README.md',
    'git rev-parse --show-toplevel',
    'git describe --tags --always',
    'git shortlog -sn',
  ])('%s stays allowed', async (line) => {
    const decision = await explain(line);
    expect(decision.behavior, decision.reason).toBe('allow');
  });
});
