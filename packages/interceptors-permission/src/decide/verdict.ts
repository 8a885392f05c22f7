import type { DecidedBy, PermissionDecision, RuleBehavior } from '../types';
import { type DecisionTrail, type Part, RANK, type Severity } from './parts';
import type { ActiveGrant } from './policy';
import { describeOrigin, type ParsedRule } from './rules';

/** Turns the parts of a call into one decision: the worst part wins, and what no rule decides falls to the mode. */
export function finish(trail: DecisionTrail, parts: Part[], shell: boolean): PermissionDecision {
  const { exec, mode } = trail;
  const tool = exec.tool;
  const writes = (tool.hints.paths ?? []).some((p) => p.access === 'write');
  // Plan mode runs a shell command its models prove read-only, as it runs read-only tools.
  const readOnly =
    (tool.hints.readOnly === true && !writes) ||
    (shell && mode === 'plan' && trail.shellReadOnly === true);
  const bypassed = mode === 'bypassPermissions';
  // bypassPermissions skips ask rules and redirect asks, nothing else.
  const effective = (p: Part): Severity =>
    bypassed && p.soft && p.severity === 'ask' ? 'allow' : p.severity;
  let worst = parts[0] as Part;
  for (const p of parts) if (RANK[effective(p)] > RANK[effective(worst)]) worst = p;
  const grants = [
    ...new Set(
      parts
        .filter((p) => p.grant && p.severity === 'allow')
        .map((p) => (p.grant as ActiveGrant).grant),
    ),
  ];
  const make = (
    behavior: RuleBehavior,
    reason: string,
    decidedBy: DecidedBy,
  ): PermissionDecision => ({
    behavior,
    reason,
    decidedBy,
    mode,
    grants: behavior === 'allow' ? grants : [],
    trail: trail.entries,
  });
  const ruleBy = (p: Part): DecidedBy =>
    p.rule
      ? { kind: 'rule', rule: p.rule.text, origin: p.rule.origin }
      : p.grant
        ? { kind: 'grant', grant: p.grant.grant }
        : { kind: 'policy', reason: p.reason };
  const w = worst;
  if (w.severity === 'deny') {
    return make(
      'deny',
      `deny rule ${JSON.stringify(w.rule?.text)} (${describeOrigin((w.rule as ParsedRule).origin)}) matched ${JSON.stringify(w.subject)}: ${w.reason}`,
      ruleBy(w),
    );
  }
  if (mode === 'plan' && !readOnly) {
    trail.entries.push({
      kind: 'mode',
      mode,
      note: shell
        ? `${exec.name}: the command is not proven read-only`
        : `${exec.name} is not read-only`,
    });
    return make(
      'deny',
      shell
        ? `plan mode: only read-only tools and shell commands proven read-only run while planning, and this command is not (it may write, run a program, connect, read outside the working directories, or use a program or option without a model)`
        : `plan mode: only read-only tools run while planning, and ${exec.name} is not read-only`,
      { kind: 'mode', mode },
    );
  }
  // Nobody is asked in dontAsk mode, nor while planning: what would ask is denied, by that mode.
  const deny = (reason: string, by: DecidedBy): PermissionDecision => {
    trail.entries.push({ kind: 'mode', mode, note: `${mode} denies what would ask` });
    return make('deny', `${reason}; mode "${mode}" denies whatever would ask`, by);
  };
  const ask = (reason: string, by: DecidedBy): PermissionDecision =>
    mode === 'dontAsk' || mode === 'plan' ? deny(reason, by) : make('ask', reason, by);
  if (w.severity === 'unknown') {
    return ask(
      `${JSON.stringify(w.subject)} cannot be fully understood (${w.reason}), so it is never allowed without asking`,
      { kind: 'unparsed', reason: w.reason },
    );
  }
  if (w.severity === 'maybe') return ask(`${w.reason}`, ruleBy(w));
  if (effective(w) === 'ask') {
    const by = ruleBy(w);
    return ask(
      w.rule
        ? `ask rule ${JSON.stringify(w.rule.text)} (${describeOrigin(w.rule.origin)}) matched ${JSON.stringify(w.subject)}: ${w.reason}`
        : `${JSON.stringify(w.subject)}: ${w.reason}`,
      by,
    );
  }
  const unmatched = parts.filter((p) => p.severity === 'none');
  if (unmatched.length === 0) {
    if (bypassed && parts.some((p) => p.severity === 'ask'))
      trail.entries.push({ kind: 'mode', mode, note: 'bypassPermissions skips ask rules' });
    const decisive = parts.find((p) => p.grant) ?? parts.find((p) => p.rule) ?? w;
    return make(
      'allow',
      parts.length === 1
        ? decisive.reason
        : `every part is allowed (${parts.map((p) => p.subject).join('; ')})`,
      ruleBy(decisive),
    );
  }
  // What no rule decides falls to the mode.
  const subject = unmatched.map((p) => p.subject).join('; ');
  const modeBy: DecidedBy = { kind: 'mode', mode };
  if (bypassed) {
    trail.entries.push({
      kind: 'mode',
      mode,
      note: 'bypassPermissions allows what no rule denies',
    });
    return make('allow', `mode "bypassPermissions" allows ${subject}`, modeBy);
  }
  const outside = unmatched.some((p) => (p as Part & { outside?: boolean }).outside);
  if (readOnly && !outside) {
    const what = shell
      ? "the command is proven read-only by its programs' models"
      : `${exec.name} is read-only`;
    trail.entries.push({ kind: 'mode', mode, note: what });
    return make(
      'allow',
      shell
        ? `${what} and mode "${mode}" runs read-only commands`
        : `${exec.name} is read-only and mode "${mode}" runs read-only tools`,
      modeBy,
    );
  }
  if (
    mode === 'acceptEdits' &&
    !shell &&
    writes &&
    !outside &&
    !unmatched.some((p) => p.subject === exec.name && (tool.hints.paths ?? []).length === 0)
  ) {
    trail.entries.push({
      kind: 'mode',
      mode,
      note: 'file edits inside the working directories are accepted',
    });
    return make(
      'allow',
      `mode "acceptEdits" accepts file edits inside the working directories (${subject})`,
      modeBy,
    );
  }
  trail.entries.push({ kind: 'mode', mode, note: 'no rule decides; the mode asks' });
  return ask(
    `no rule allows ${JSON.stringify(subject)}${outside ? ' (outside the working directories)' : ''} and mode "${mode}" asks for ${readOnly ? 'reads outside the working directories' : 'tools that may change things'}`,
    modeBy,
  );
}
