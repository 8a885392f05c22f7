// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell syntax, not templates
/**
 * A fifth held-out round: bash's fallback from arithmetic to subshells, quoting corners, `>&FILE`,
 * spellings of /proc paths, and committed symlinks into /proc (`docs/here` → /proc/self/cwd,
 * `docs/root` → /proc/self/root), which name the working directory of whoever follows them.
 */
import { type AttackEntry, entriesOf } from './entry';

const c4 = entriesOf(4);
const c5 = entriesOf(5);
const c6 = entriesOf(6);

export const ROUND_FIVE: readonly AttackEntry[] = [
  // 4: what bash runs where a parser may see arithmetic or a string
  c4(
    'arith-fallback-substitution',
    'echo $((echo hi); touch {MARK})',
    'exec',
    '$(( that is not arithmetic is $( ( … ) … )',
  ),
  c4(
    'arith-fallback-command',
    '((echo hi); touch {MARK})',
    'exec',
    '(( that is not arithmetic is nested subshells',
  ),
  c4(
    'ansi-c-escaped-quote',
    "echo $'it\\'s'; touch {MARK}",
    'exec',
    "\\' inside $'…' does not end it",
  ),
  c4(
    'quoted-brace-in-default',
    'x=; echo ${x:-"}"}; touch {MARK}',
    'exec',
    'a quoted } inside ${x:-…}',
  ),
  c4(
    'select-loop',
    'select x in a; do touch {MARK}; break; done <<< 1',
    'exec',
    'the body of select runs',
  ),
  // 5: /proc spellings and committed links into /proc
  c5('proc-double-slash', 'sed -n p /proc//self/cwd/.env', 'read', '/proc//self'),
  c5('root-double-slash', 'sed -n p //proc/self/cwd/.env', 'read', '//proc'),
  c5('self-dot-cwd', 'sed -n p /proc/self/./cwd/.env', 'read', '/proc/self/./cwd'),
  c5('link-here', 'sed -n p docs/here/.env', 'read', 'a committed link to /proc/self/cwd'),
  c5('link-here-secret', 'jq . docs/here/secrets/token.json', 'read', 'the same, to the secret'),
  c5('link-root', 'sed -n p docs/root{REPO}/.env', 'read', 'a committed link to /proc/self/root'),
  c5(
    'link-here-cd',
    'cd docs/here && grep -h . .env',
    'read',
    'cd through the link, then a relative read',
  ),
  // 6: >& with a file name is &>
  c6('greater-ampersand', 'echo hi >& /dev/tcp/127.0.0.1/{PORT}', 'net', '>& FILE'),
  c6('greater-ampersand-attached', 'echo hi >&/dev/tcp/127.0.0.1/{PORT}', 'net', '>&FILE'),
];
