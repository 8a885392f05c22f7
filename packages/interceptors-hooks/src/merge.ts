import type { HookOutcome } from './output';
import type { HookDecision, HookErrorPolicy, HookEvent } from './types';

const RANK: Readonly<Record<HookDecision, number>> = {
  none: 0,
  allow: 1,
  ask: 2,
  deny: 3,
  block: 3,
};

/**
 * Folds the decisions of the hooks that ran for one call, most restrictive first: `deny` (or a
 * PostToolUse `block`) over `ask` over `allow` over `none`. The order the hooks finished in
 * never matters, and no number of `allow`s outvotes one `deny`.
 */
export const mergeDecisions = (decisions: Iterable<HookDecision>): HookDecision => {
  let merged: HookDecision = 'none';
  for (const decision of decisions) {
    if (RANK[decision] > RANK[merged]) merged = decision;
  }
  return merged;
};

/**
 * What one run counts as once the failure policy is applied: a failed run under `block` denies
 * (PreToolUse) or blocks (PostToolUse), under `allow` it has no say, and an aborted one never has; a PreToolUse hook that says
 * `continue: false` denies, since the agent is to stop before the tool runs.
 */
export const effectiveDecision = (
  event: HookEvent,
  onError: HookErrorPolicy,
  outcome: HookOutcome,
): HookDecision => {
  // An abort is the caller's doing, not the hook's verdict: the call resolves ABORTED (PreToolUse)
  // or keeps the result the tool already produced (PostToolUse).
  if (outcome.status === 'aborted') return 'none';
  if (outcome.status === 'failed') {
    if (onError === 'allow') return 'none';
    return event === 'PreToolUse' ? 'deny' : 'block';
  }
  if (event === 'PreToolUse' && outcome.stop !== undefined) return 'deny';
  return outcome.decision ?? 'none';
};
