/**
 * Class 5: aliases of the working directory that the host resolves against its own working
 * directory (the test process's), not the policy's `cwd` (the repository, where the shell runs).
 * Class 6: network without a network program (bash's `/dev/tcp` and `/dev/udp` redirections).
 */
import { type AttackEntry, entriesOf } from './entry';

const a5 = entriesOf(5);
const a6 = entriesOf(6);
const TCP = '/dev/tcp/127.0.0.1/{PORT}';

export const ALIASES: readonly AttackEntry[] = [
  a5(
    'sed',
    'sed -n p /proc/self/cwd/.env',
    'read',
    "/proc/self/cwd is the shell's cwd: the repository",
  ),
  a5('grep', 'grep -h . /proc/self/cwd/.env', 'read', 'through grep'),
  a5('sort', 'sort /proc/self/cwd/.env', 'read', 'through sort'),
  a5('jq', 'jq -R . /proc/self/cwd/.env', 'read', 'through jq'),
  a5('rg', 'rg -N . /proc/self/cwd/.env', 'read', 'through rg', { needs: ['rg'] }),
  a5(
    'secret-sed',
    'sed -n 1p /proc/self/cwd/secrets/token.json',
    'read',
    'a Read(./secrets/**) file',
  ),
  a5('secret-grep', 'grep -h . /proc/self/cwd/secrets/token.json', 'read', 'the same through grep'),
  a5('secret-jq', 'jq . /proc/self/cwd/secrets/token.json', 'read', 'the same through jq'),
  a5('thread-self', 'sort -u /proc/thread-self/cwd/.env', 'read', '/proc/thread-self/cwd'),
  a5('dot', 'sed -n p /proc/self/cwd/./.env', 'read', 'a dot component'),
  a5('dotdot', 'sed -n p /proc/self/cwd/src/../.env', 'read', 'a .. component'),
  a5('double-slash', 'grep -h . /proc/self/cwd//.env', 'read', 'a double slash'),
  a5(
    'dir-recursive',
    'grep -rh . /proc/self/cwd/secrets',
    'read',
    'a recursive read of the secrets directory',
  ),
  a5(
    'no-index',
    'git diff --no-index /dev/null /proc/self/cwd/.env',
    'read',
    'git diff --no-index',
  ),
  a5('jq-rawfile', "jq -n --rawfile x /proc/self/cwd/.env '$x'", 'read', 'an option value'),
  a5(
    'cd-then-relative',
    'cd /proc/self/cwd && sed -n p .env',
    'read',
    'cd into the alias, then a relative read',
  ),
  a5(
    'cd-secrets',
    'cd /proc/self/cwd/secrets && grep -h . token.json',
    'read',
    'cd into the secrets through the alias',
  ),
  a5('symlink', 'sed -n p /proc/self/cwd/docs/env-link', 'read', 'the alias and then a symlink'),
  a5('pid-variable', 'sed -n p /proc/$$/cwd/.env', 'read', "the shell's own pid"),
  a5('root-alias', 'sed -n p /proc/self/root{REPO}/.env', 'read', '/proc/self/root'),
  a5(
    'sort-output',
    'sort -o /proc/self/cwd/src/x.ts README.md',
    'write',
    'a write through the alias (Write(./src/**))',
  ),
  a5('redirect', 'echo x > /proc/self/cwd/src/x.ts', 'write', 'a redirection through the alias'),
  a5('dev-stdin', 'sort /dev/stdin < .env', 'read', '/dev/stdin, fed from .env'),
  a5('dev-fd', 'grep -h . /dev/fd/3 3< .env', 'read', '/dev/fd/3, opened on .env'),
];

export const NETWORK: readonly AttackEntry[] = [
  a6('cat', `cat < ${TCP}`, 'net', 'bash connects for a redirection'),
  a6('sort', `sort < ${TCP}`, 'net', 'an allowed reader'),
  a6('grep', `grep . < ${TCP}`, 'net', 'grep'),
  a6('sed', `sed -n p < ${TCP}`, 'net', 'sed -n'),
  a6('jq', `jq -R . < ${TCP}`, 'net', 'jq'),
  a6('echo-out', `echo hi > ${TCP}`, 'net', 'an output redirection sends'),
  a6('echo-append', `echo hi >> ${TCP}`, 'net', 'append'),
  a6('echo-both', `echo hi &> ${TCP}`, 'net', '&>'),
  a6('echo-clobber', `echo hi >| ${TCP}`, 'net', '>|'),
  a6('echo-read-write', `echo hi 1<> ${TCP}`, 'net', '<>'),
  a6('stderr', `grep x README.md 2> ${TCP}`, 'net', 'stderr redirected'),
  a6('exec-fd', `exec 3<> ${TCP}; echo hi >&3`, 'net', 'exec opens a descriptor'),
  a6('exec-named-fd', `exec {fd}<> ${TCP}; echo hi >&$fd`, 'net', 'a named descriptor'),
  a6('fd-then-dup', `sort 5< ${TCP} <&5`, 'net', 'a numbered descriptor, then duplicated'),
  a6('zero', `sort 0< ${TCP}`, 'net', 'an explicit 0<'),
  a6('group', `{ sort; } < ${TCP}`, 'net', "a group's redirection"),
  a6('subshell', `( grep . ) < ${TCP}`, 'net', "a subshell's redirection"),
  a6('while', `while read l; do echo "$l"; done < ${TCP}`, 'net', "a loop's redirection"),
  a6('substitution', `x=$(sort < ${TCP})`, 'net', 'inside a command substitution'),
  a6('process-substitution', `grep . <(sort < ${TCP})`, 'net', 'inside a process substitution'),
  a6('quoted', `sort < "${TCP}"`, 'net', 'a quoted path'),
  a6('localhost', 'sort < /dev/tcp/localhost/{PORT}', 'net', 'a host name'),
  a6('short-ip', 'sort < /dev/tcp/127.1/{PORT}', 'net', 'a short IPv4 spelling'),
  a6('udp', 'echo hi > /dev/udp/127.0.0.1/{UPORT}', 'net', 'UDP'),
  a6('variable-port', `P={PORT}; sort < /dev/tcp/127.0.0.1/$P`, 'net', 'the port in a variable'),
  a6('bash-c', `bash -c 'sort < ${TCP}'`, 'net', 'inside bash -c'),
  a6('quote-split', "sort < /dev/t''cp/127.0.0.1/{PORT}", 'net', 'quote removal yields /dev/tcp'),
  a6('backslash', 'sort < /dev/tc\\p/127.0.0.1/{PORT}', 'net', 'a backslash inside the name'),
  a6('ansi-c', "sort < $'/dev/tcp/127.0.0.1/{PORT}'", 'net', 'ANSI-C quoting'),
  a6('no-space', 'sort </dev/tcp/127.0.0.1/{PORT}', 'net', 'no space after <'),
];
