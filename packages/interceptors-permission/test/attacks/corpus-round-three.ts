/**
 * A third held-out round: options placed after operands (GNU permutes them), quoted option words,
 * descriptors opened on directories, aliases nested in /proc, object names and alias chains.
 */
import { type AttackEntry, entriesOf } from './entry';

const c1 = entriesOf(1);
const c2 = entriesOf(2);
const c5 = entriesOf(5);
const c7 = entriesOf(7);

export const ROUND_THREE: readonly AttackEntry[] = [
  // 1: options after the operands
  c1(
    'late-sort-output',
    'sort README.md -o notes.txt',
    'write',
    'sort permutes: -o after the operand',
  ),
  c1('late-sed-in-place', 'sed -n 1p README.md -i', 'write', '-i after the operands'),
  c1(
    'late-sed-expression',
    "sed -n README.md -e '1e touch {MARK}'",
    'exec',
    'the script after the file',
  ),
  c1('late-grep-recurse', 'grep -h TOKEN . -d recurse', 'read', '-d recurse after the operands'),
  c1(
    'late-git-output',
    'git diff HEAD~1 --output=notes.txt',
    'write',
    'git takes options after revisions',
  ),
  c1('late-jq-rawfile', "jq -n '$x' --rawfile x .env", 'read', '--rawfile after the filter'),
  // 1: quoted option words
  c1(
    'quoted-sort-output',
    "sort -o''notes.txt README.md",
    'write',
    'quote removal joins -o and the file',
  ),
  c1(
    'quoted-long-output',
    'sort "--output=notes.txt" README.md',
    'write',
    'a double-quoted long option',
  ),
  c1(
    'quoted-sed-script',
    "sed -n '-e1e touch {MARK}' README.md",
    'exec',
    'one quoted word: -e and its script',
  ),
  c1('quoted-git-output', "git diff '--output=notes.txt' HEAD~1", 'write', 'a quoted git option'),
  c1(
    'quoted-find-primary',
    "find src -maxdepth 0 '-fprint' notes.txt",
    'write',
    'a quoted find primary',
  ),
  c1(
    'short-equals',
    'sort -o=notes.txt README.md',
    'write',
    '-o=FILE writes a file named =notes.txt',
  ),
  // 2: object names and peeled revisions
  c2(
    'peeled-tree',
    'git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD~1^{tree}',
    'read',
    'REV^{tree}',
  ),
  c2(
    'reflog-path',
    'git diff main@{1}:secrets/key HEAD:README.md',
    'read',
    'a reflog entry with a path',
  ),
  // 5: descriptors on directories, nested aliases
  c5(
    'dev-fd-dir',
    'exec 3< .; sed -n p /dev/fd/3/.env',
    'read',
    'a descriptor opened on the project',
  ),
  c5(
    'proc-fd-dir',
    'exec 4< src; sed -n p /proc/self/fd/4/../.env',
    'read',
    'a descriptor on src, then ..',
  ),
  c5('root-dot-cwd', 'sed -n p /proc/self/root/./proc/self/cwd/.env', 'read', 'nested, with a dot'),
  c5(
    'thread-root-cwd',
    'grep -h . /proc/thread-self/root/proc/self/cwd/.env',
    'read',
    'nested through thread-self',
  ),
  c5(
    'root-cwd-secret',
    'jq . /proc/self/root/proc/thread-self/cwd/secrets/token.json',
    'read',
    'nested, to the secret',
  ),
  c5(
    'cd-alias-dotdot',
    'cd /proc/self/cwd/src && sed -n p ../.env',
    'read',
    'cd through the alias, then ..',
  ),
  // 7: alias chains
  c7('alias-chain', 'git -c alias.q=push -c alias.p=q p', 'write', 'an alias of an alias of push', {
    mustDeny: true,
  }),
  c7('alias-with-args', "git -c alias.p='push origin main' p", 'write', 'an alias with arguments', {
    mustDeny: true,
  }),
];
