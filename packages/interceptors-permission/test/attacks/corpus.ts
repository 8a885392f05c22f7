/**
 * The attack corpus of issue 20, by class, and what today's code lets through (measured).
 */
import { ENVIRONMENT } from './corpus-env';
import { EVALUATION } from './corpus-eval';
import { DIRECTORY_READERS, GLOBAL_OPTIONS } from './corpus-globals-dirs';
import { OPERANDS } from './corpus-operands';
import { OPTIONS } from './corpus-options';
import { ALIASES, NETWORK } from './corpus-paths-net';
import { PINS, PLAN_REFUSE } from './corpus-pins';
import type { AttackEntry } from './entry';

export { PLAN_RUN } from './corpus-pins';
export { type AttackClass, type AttackEntry, type Effect, ISSUE_RULES } from './entry';

export const ATTACKS: readonly AttackEntry[] = [
  ...OPTIONS,
  ...OPERANDS,
  ...ENVIRONMENT,
  ...EVALUATION,
  ...ALIASES,
  ...NETWORK,
  ...GLOBAL_OPTIONS,
  ...DIRECTORY_READERS,
  ...PINS,
  ...PLAN_REFUSE,
];

/** Why an id may still be a bypass. */
export const NOT_FIXED = 'issue 20: not fixed yet';

/**
 * Attacks that get through today (allowed with no question, or asked where a deny rule applies),
 * by id. The attack test fails on any other bypass, and on an id here that no longer gets through,
 * so this list only shrinks.
 */
export const KNOWN_BYPASSES: Readonly<Record<string, typeof NOT_FIXED>> = {
  'c1-sed-in-place-unnamed': NOT_FIXED,
  'c4-bracket-v': NOT_FIXED,
  'c4-dbracket-v': NOT_FIXED,
  'c4-unset-subscript': NOT_FIXED,
  'c4-dbracket-eq': NOT_FIXED,
  'c5-sed': NOT_FIXED,
  'c5-grep': NOT_FIXED,
  'c5-sort': NOT_FIXED,
  'c5-jq': NOT_FIXED,
  'c5-rg': NOT_FIXED,
  'c5-secret-sed': NOT_FIXED,
  'c5-secret-grep': NOT_FIXED,
  'c5-secret-jq': NOT_FIXED,
  'c5-thread-self': NOT_FIXED,
  'c5-dot': NOT_FIXED,
  'c5-dotdot': NOT_FIXED,
  'c5-double-slash': NOT_FIXED,
  'c5-dir-recursive': NOT_FIXED,
  'c5-no-index': NOT_FIXED,
  'c5-jq-rawfile': NOT_FIXED,
  'c5-cd-secrets': NOT_FIXED,
  'c5-symlink': NOT_FIXED,
  'c6-sort': NOT_FIXED,
  'c6-grep': NOT_FIXED,
  'c6-sed': NOT_FIXED,
  'c6-jq': NOT_FIXED,
  'c6-fd-then-dup': NOT_FIXED,
  'c6-zero': NOT_FIXED,
  'c6-group': NOT_FIXED,
  'c6-subshell': NOT_FIXED,
  'c6-substitution': NOT_FIXED,
  'c6-quoted': NOT_FIXED,
  'c6-localhost': NOT_FIXED,
  'c6-short-ip': NOT_FIXED,
  'c6-bash-c': NOT_FIXED,
  'c8-tool-dot': NOT_FIXED,
  'c8-tool-dot-slash': NOT_FIXED,
  'c8-tool-no-path': NOT_FIXED,
  'c8-tool-src-dotdot': NOT_FIXED,
  'c8-tool-docs-dotdot': NOT_FIXED,
  'c8-tool-absolute': NOT_FIXED,
  'c8-tool-absolute-slash': NOT_FIXED,
  'c8-tool-abs-secrets-dotdot': NOT_FIXED,
  'c8-tool-glob-env': NOT_FIXED,
  'c8-tool-glob-json': NOT_FIXED,
  'c8-tool-ignore-case': NOT_FIXED,
  'c8-tool-match-all': NOT_FIXED,
};

/** Read-only commands that plan mode refuses today although it should run them. */
export const KNOWN_PLAN_GAPS: Readonly<Record<string, typeof NOT_FIXED>> = {
  'git status': NOT_FIXED,
  'ls -la': NOT_FIXED,
  'cat README.md': NOT_FIXED,
  'git log --oneline -3': NOT_FIXED,
  'git diff HEAD~1 --stat': NOT_FIXED,
  'grep -n TODO src/util.ts': NOT_FIXED,
  'wc -l README.md': NOT_FIXED,
  'head -n 3 docs/guide.md': NOT_FIXED,
};
