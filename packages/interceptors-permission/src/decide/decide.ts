import type { InterceptedExecution } from '@dsh-tools/protocol';
import type { PermissionDecision, PermissionMode } from '../types';
import { type DecisionTrail, type Part, RANK, record } from './parts';
import { pathParts } from './paths';
import { type ActiveGrant, isShellTool, namesTool, type Policy, valuesAt } from './policy';
import { isPathFamily, type ParsedRule } from './rules';
import { shellParts } from './shell';
import { finish } from './verdict';

/** Rules naming the whole tool (no specifier), the first of each behaviour. */
export function wholeToolRules(trail: DecisionTrail): {
  deny?: ParsedRule;
  ask?: ParsedRule;
  allow?: ParsedRule;
} {
  const out: { deny?: ParsedRule; ask?: ParsedRule; allow?: ParsedRule } = {};
  for (const rule of trail.policy.rules) {
    if (rule.specifier !== undefined || !namesTool(rule, trail.exec)) continue;
    record(trail, rule, true, trail.exec.name, 'names the whole tool');
    out[rule.behavior] ??= rule;
  }
  return out;
}

/** A grant covering the whole tool, if there is one. */
export function wholeToolGrant(trail: DecisionTrail): ActiveGrant | undefined {
  for (const g of trail.grants) {
    if (g.rule.specifier !== undefined || !namesTool(g.rule, trail.exec)) continue;
    trail.entries.push({
      kind: 'grant',
      id: g.grant.id,
      rule: g.rule.text,
      matched: true,
      subject: trail.exec.name,
    });
    return g;
  }
  return undefined;
}

/** Judges every part of one call, then lets {@link finish} decide. */
function decideCall(trail: DecisionTrail): PermissionDecision {
  const exec = trail.exec;
  const tool = exec.tool;
  const whole = wholeToolRules(trail);
  const parts: Part[] = [];
  if (whole.deny) {
    parts.push({
      severity: 'deny',
      subject: exec.name,
      rule: whole.deny,
      reason: `the rule names the whole tool ${exec.name}`,
    });
  }
  const shell = isShellTool(tool);
  let toolPart: Part | undefined;
  const wholeGrant = whole.deny ? undefined : wholeToolGrant(trail);
  if (shell) {
    const line = valuesAt(exec.arguments, tool.hints.command as string)[0];
    if (typeof line !== 'string') {
      parts.push({
        severity: 'unknown',
        subject: exec.name,
        reason: `argument ${tool.hints.command} (the command line) is not a string`,
      });
    } else {
      const allowRule = wholeGrant ? undefined : whole.allow;
      parts.push(
        ...shellParts(trail, line, {
          ...(whole.ask && !wholeGrant && { ask: whole.ask }),
          ...(allowRule && { allow: allowRule }),
        }),
      );
      if (wholeGrant) {
        for (const p of parts) {
          if (p.severity === 'none' || (p.soft && p.severity === 'ask' && p.rule === undefined)) {
            Object.assign(p, {
              severity: 'allow',
              grant: wholeGrant,
              reason: `granted (${wholeGrant.rule.text})`,
              soft: false,
            });
          }
        }
      }
    }
  } else {
    const toolRules = trail.policy.rules.filter(
      (r) => r.specifier !== undefined && !isPathFamily(r.tool) && namesTool(r, exec),
    );
    const hasPaths = (tool.hints.paths ?? []).length > 0;
    if (!hasPaths) {
      for (const rule of toolRules) {
        // No path or command hint to read the specifier against: it cannot be checked, so a deny
        // or ask still applies (fail closed) and an allow does not.
        const hit = rule.behavior !== 'allow';
        record(
          trail,
          rule,
          hit,
          exec.name,
          'the tool has no path or command hint to check the specifier against',
        );
        if (hit && (!toolPart || RANK[rule.behavior] > RANK[toolPart.severity])) {
          toolPart = {
            severity: rule.behavior,
            subject: exec.name,
            rule,
            soft: rule.behavior === 'ask',
            reason: `rule ${rule.text} names ${exec.name}`,
          };
        }
      }
    }
    const argParts = hasPaths ? pathParts(trail, tool, toolRules) : [];
    if (wholeGrant)
      toolPart ??= {
        severity: 'allow',
        subject: exec.name,
        grant: wholeGrant,
        reason: `granted (${wholeGrant.rule.text})`,
      };
    if (whole.ask && !wholeGrant)
      toolPart ??= {
        severity: 'ask',
        subject: exec.name,
        rule: whole.ask,
        soft: true,
        reason: `every ${exec.name} call asks`,
      };
    if (whole.allow)
      toolPart ??= {
        severity: 'allow',
        subject: exec.name,
        rule: whole.allow,
        reason: `the whole tool ${exec.name} is allowed`,
      };
    if (toolPart?.severity === 'allow') {
      for (const p of argParts)
        if (p.severity === 'none')
          Object.assign(p, { severity: 'allow', rule: toolPart.rule, grant: toolPart.grant });
    }
    if (!toolPart && argParts.length > 0 && argParts.every((p) => p.severity === 'allow')) {
      toolPart = { ...(argParts[0] as Part) };
    }
    parts.push(...argParts);
    parts.push(
      toolPart ?? { severity: 'none', subject: exec.name, reason: `no rule names ${exec.name}` },
    );
  }
  return finish(trail, parts, shell);
}

/** Decides one call: deny > grant > ask > allow > mode, part by part. Never throws on odd input. */
export function decide(
  policy: Policy,
  exec: InterceptedExecution,
  mode: PermissionMode,
  grants: readonly ActiveGrant[],
): PermissionDecision {
  return decideCall({ policy, exec, mode, grants, entries: [] });
}
