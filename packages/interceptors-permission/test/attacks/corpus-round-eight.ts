/**
 * An eighth round, from the mutation run of the path decisions: the history a git command shows
 * after a cd to a directory not known before it runs was taken for the history of the working
 * directory's repository, so a rule on a path outside it (another repository) was never met. The
 * issue's own `Read(./.env)` makes the project's history ask anyway, so these run against a policy
 * whose only read rule is on that other repository.
 */
import { type AttackEntry, entriesOf } from './entry';

const c2 = entriesOf(2);
const VAULT = { deny: ['Read(~/vault/**)'] };

export const ROUND_EIGHT: readonly AttackEntry[] = [
  c2(
    'history-after-unknown-cd',
    'cd "$HOME/vault" && git log -p',
    'read',
    'the patches of another repository (~/vault, whose history holds the deleted key), after a cd the policy cannot follow',
    { baseRules: { ...VAULT, allow: ['Bash(cd:*)', 'Bash(git log:*)'] } },
  ),
  c2(
    'history-after-substituted-cd',
    'cd "$(pwd)/../../home/vault" && git show HEAD',
    'read',
    'the same, the directory built by a command substitution: git show HEAD shows the deleting commit',
    { baseRules: { ...VAULT, allow: ['Bash(cd:*)', 'Bash(pwd:*)', 'Bash(git show:*)'] } },
  ),
];
