import type { InterceptedExecution } from '@dsh-tools/protocol';
import type { Match } from '../shell/match';
import type { PermissionMode, TrailEntry } from '../types';
import type { ActiveGrant, Policy } from './policy';
import type { ParsedRule } from './rules';

/** How strongly one part of a call holds the call back; the worst part decides. */
export type Severity = 'deny' | 'unknown' | 'maybe' | 'ask' | 'none' | 'allow';
/** Severities in order: a part of higher rank outweighs one of lower rank. */
export const RANK: Record<Severity, number> = {
  deny: 5,
  unknown: 4,
  maybe: 3,
  ask: 2,
  none: 1,
  allow: 0,
};

/** One judged part of a call: a command, a redirection, a path argument, or the tool itself. */
export interface Part {
  severity: Severity;
  subject: string;
  reason: string;
  rule?: ParsedRule;
  grant?: ActiveGrant;
  /** An ask that `bypassPermissions` skips (ask rules, output redirection). */
  soft?: boolean;
  /** Allowed by a rule naming the whole tool (output redirection stays allowed). */
  wholeTool?: boolean;
}

/** The decision trail: what one decision reads and the steps it records, shared by the functions that judge its parts. */
export interface DecisionTrail {
  readonly policy: Policy;
  readonly exec: InterceptedExecution;
  readonly mode: PermissionMode;
  readonly grants: readonly ActiveGrant[];
  /** The trail entries, in the order the steps were taken. */
  readonly entries: TrailEntry[];
  /** Set by the shell judge: every part of the command line is proven read-only (plan mode runs it). */
  shellReadOnly?: boolean;
}

/** Records a rule checked, and whether it matched, in the decision's trail. */
export function record(
  trail: DecisionTrail,
  rule: ParsedRule,
  matched: Match | boolean,
  subject?: string,
  note?: string,
): void {
  trail.entries.push({
    kind: 'rule',
    rule: rule.text,
    origin: rule.origin,
    matched: matched === 'yes' ? true : matched === 'no' ? false : matched,
    ...(subject !== undefined && { subject }),
    ...(note !== undefined && { note }),
  });
}
