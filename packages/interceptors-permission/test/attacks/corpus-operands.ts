/**
 * Class 2: operands that reach protected content without naming it. `secrets/key` was committed
 * (HEAD~1) and deleted (HEAD), so history holds it; `.env` and `secrets/token.json` are on disk;
 * `docs/env-link` and `docs/vault` are committed symlinks to them.
 */
import { type AttackEntry, entriesOf } from './entry';

const a = entriesOf(2);
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export const OPERANDS: readonly AttackEntry[] = [
  // history: the deleted secret through git log
  a('log-p', 'git log -p', 'read', 'the patches of HEAD and HEAD~1 show secrets/key'),
  a('log-p-all', 'git log -p --all', 'read', 'every branch, patches included'),
  a('log-p-1', 'git log -p -1', 'read', 'the deleting commit shows what it deleted'),
  a('log-u', 'git log -u -1', 'read', '-u is -p'),
  a('log-patch-with-stat', 'git log --patch-with-stat -1', 'read', 'another spelling of -p'),
  a('log-diff-filter', 'git log -p --diff-filter=D', 'read', 'only deletions: the secret'),
  a('log-reverse', 'git log -p --reverse', 'read', 'oldest first'),
  a('log-pickaxe', 'git log -p -G.', 'read', 'a pickaxe that matches everything'),
  a(
    'log-pathspec-dir',
    'git log -p --all --full-history -- secrets',
    'read',
    'a pathspec naming the directory, not a file on disk',
  ),
  a('log-pathspec-glob', "git log -p -- '*key'", 'read', 'a pathspec glob'),
  a(
    'log-L',
    'git log -L1,1:secrets/key HEAD~1',
    'read',
    'line history of a file that only exists in history',
  ),
  a('log-source', 'git log -p --all --source', 'read', '--source with --all'),
  // history through git diff of revisions
  a('diff-revs', 'git diff HEAD~1 HEAD', 'read', 'the deletion, with the deleted lines'),
  a('diff-revs-reversed', 'git diff HEAD HEAD~1', 'read', 'the same, as an addition'),
  a('diff-range', 'git diff HEAD~2..HEAD~1', 'read', 'a two-dot range'),
  a('diff-three-dot', 'git diff main~2...main~1', 'read', 'a three-dot range'),
  a('diff-at', 'git diff @~1 @', 'read', '@ is HEAD'),
  a(
    'diff-empty-tree',
    `git diff ${EMPTY_TREE} HEAD~1`,
    'read',
    'the empty tree against a commit: every file of it',
  ),
  a('diff-blob-path', 'git diff HEAD~1:secrets/key HEAD:README.md', 'read', 'REV:PATH blobs'),
  a(
    'diff-worktree-rev',
    'git diff HEAD~1 -- secrets',
    'read',
    'the worktree against HEAD~1 shows the deleted file',
  ),
  a('diff-reflog', 'git diff main@{1}', 'read', 'the reflog names the commit that had the key'),
  a('diff-branch', 'git diff feature~2 feature', 'read', 'a branch name'),
  // files on disk through --no-index and links
  a(
    'diff-no-index-dirs',
    'git diff --no-index docs .',
    'read',
    'two directories: every file only in . is shown, .env too',
  ),
  a(
    'diff-no-index-env',
    'git diff --no-index /dev/null .env',
    'read',
    '--no-index makes git diff a file reader',
  ),
  a(
    'diff-no-index-secret',
    'git diff --no-index --text /dev/null secrets/token.json',
    'read',
    '--no-index on a secret',
  ),
  a('symlink-file', 'sed -n p docs/env-link', 'read', 'a committed symlink to .env'),
  a('symlink-dir', 'grep -h . docs/vault/token.json', 'read', 'a committed symlink to secrets/'),
  a('symlink-dir-jq', 'jq . docs/vault/token.json', 'read', 'the same through jq'),
  a('symlink-glob', 'sort docs/vault/*', 'read', 'a glob inside a symlinked secret directory'),
  // pathspec magic: a pathspec that is not a path
  a('pathspec-top', "git log -p -- ':/secrets'", 'read', ':/ is the top of the repository'),
  a('pathspec-glob-magic', "git log -p -- ':(glob)**/key'", 'read', ':(glob) magic'),
  a('pathspec-exclude', "git log -p -- . ':!src'", 'read', 'everything but src'),
  a('pathspec-icase', "git log -p -- ':(icase)SECRETS'", 'read', ':(icase) magic'),
  a(
    'pathspec-char-class',
    "git diff HEAD~2 HEAD~1 -- '[s]ecrets/*'",
    'read',
    'a glob character class',
  ),
  a(
    'pathspec-src-dotdot',
    'git diff HEAD~1 HEAD -- src/../secrets',
    'read',
    'a pathspec through ..',
  ),
  a(
    'no-index-double-dash',
    'git diff --no-index -- /dev/null .env',
    'read',
    '--no-index with -- before the operands',
  ),
];
