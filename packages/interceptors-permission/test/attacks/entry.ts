/**
 * The shape of an attack entry and the policy of issue 20 that every attack runs against.
 */
import type { PermissionMode, PermissionRules } from '@dsh-tools/interceptors-permission';

/** The issue's classes (1–8), the behaviours no test pinned (9), and plan mode. */
export type AttackClass = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 'plan';

/**
 * What the attack does when nothing stops it: `read` a protected file's canary shows in the
 * result, `write` a file of the repository (or the remote's refs) changes, `exec` the injected
 * code creates the marker, `net` the loopback listener sees a connection.
 */
export type Effect = 'read' | 'write' | 'exec' | 'net';

export interface AttackEntry {
  readonly id: string;
  readonly class: AttackClass;
  /** A `Bash` command line; `{REPO}`, `{MARK}`, `{PORT}`, `{UPORT}`, `{REMOTE}`, `{KEYBLOB}` (the deleted key's blob) are filled in. */
  readonly command?: string;
  /** Another tool (`Grep`, `Deploy`) with its arguments, instead of a command. */
  readonly tool?: string;
  readonly args?: Record<string, unknown>;
  readonly effect: Effect;
  /** Why it does harm and which rule it should meet. */
  readonly note: string;
  /** A deny rule covers the effect: an ask (which a person may answer "allow") is a bypass too. */
  readonly mustDeny?: boolean;
  /** Rules added to the issue's policy for this entry (so that only the pinned check stands). */
  readonly extraRules?: PermissionRules;
  /**
   * The policy the entry runs against instead of the issue's, `extraRules` added: for a slip the
   * issue's own rules mask (its `Read(./.env)` makes any history of the project ask anyway).
   */
  readonly baseRules?: PermissionRules;
  /** A grant of this rule is added, and the clock set to the grant's exact expiry. */
  readonly grantAtExpiry?: string;
  /** The mode the guarded run is in; default `default`. */
  readonly mode?: PermissionMode;
  /** Programs that must be on PATH for the attack to do anything here. */
  readonly needs?: readonly string[];
}

/** The realistic Claude Code policy of issue 20. */
export const ISSUE_RULES: PermissionRules = {
  allow: [
    'Bash(git diff:*)',
    'Bash(git log:*)',
    'Bash(sed -n:*)',
    'Bash(find:*)',
    'Bash(sort:*)',
    'Bash(jq:*)',
    'Bash(grep:*)',
    'Bash(rg:*)',
    'Bash(echo:*)',
    'Bash(npm test:*)',
    'Read(./**)',
  ],
  deny: [
    'Bash(rm:*)',
    'Bash(curl:*)',
    'Bash(git push:*)',
    'Read(./.env)',
    'Read(./secrets/**)',
    'Write(./src/**)',
    'Edit(./.git/**)',
  ],
};

/** An entry maker for one class: ids get the class as prefix. */
export function entriesOf(cls: AttackClass) {
  return (
    id: string,
    command: string,
    effect: Effect,
    note: string,
    more: Partial<AttackEntry> = {},
  ): AttackEntry => ({ id: `c${cls}-${id}`, class: cls, command, effect, note, ...more });
}
