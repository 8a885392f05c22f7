/**
 * Runs an attack twice: unguarded (the same tools, no interceptor) to prove its effect, then
 * through the permission interceptor with an approver that answers deny, and classifies it.
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type PermissionRules, permissionInterceptor } from '@dsh-tools/interceptors-permission';
import type { ToolExecutionResult } from '@dsh-tools/protocol';
import { type AttackEntry, ISSUE_RULES } from './corpus';
import type { Effects, World } from './fixture';
import { callTool, denyingApprover, resultText, worldRegistry } from './tools';

/** `denied` without a question, `asked` (answered deny), or `bypass`: it ran with no question. */
export type Verdict = 'denied' | 'asked' | 'bypass';

export interface Outcome {
  readonly entry: AttackEntry;
  readonly verdict: Verdict;
  /** Asked where a deny rule covers it (counted as a bypass: a person may answer "allow"). */
  readonly dodgedDeny: boolean;
  readonly questions: readonly string[];
  /** What the guarded call's result says (the denial, or the tool's output). */
  readonly text: string;
  readonly effects: Effects;
}

/** Whether the program an entry needs is installed here. */
export function missingPrograms(entry: AttackEntry): string[] {
  const path = (process.env.PATH ?? '').split(delimiter);
  return (entry.needs ?? []).filter((program) =>
    program.includes('/')
      ? !existsSync(program)
      : !path.some((dir) => existsSync(join(dir, program))),
  );
}

/** Whether the effect an entry claims is among those seen. */
export function happened(entry: AttackEntry, effects: Effects): boolean {
  switch (entry.effect) {
    case 'read':
      return effects.read;
    case 'write':
      return effects.write.length > 0;
    case 'exec':
      return effects.exec;
    case 'net':
      return effects.net;
  }
}

const fillArgs = (world: World, args: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(args).map(([key, value]) => [
      key,
      typeof value === 'string' ? world.fill(value) : value,
    ]),
  );

function invoke(world: World, entry: AttackEntry, registry: ReturnType<typeof worldRegistry>) {
  if (entry.tool) return callTool(registry, entry.tool, fillArgs(world, entry.args ?? {}));
  return callTool(registry, 'Bash', { command: world.fill(entry.command ?? '') });
}

/** Runs the entry with no interceptor in a fresh world; returns what it did. */
export async function runUnguarded(
  world: World,
  entry: AttackEntry,
): Promise<{ effects: Effects; text: string }> {
  world.reset();
  const before = world.snapshot();
  const result = await invoke(world, entry, worldRegistry(world));
  const text = resultText(result);
  return { effects: world.effects(before, text), text };
}

function rulesFor(entry: AttackEntry, base: PermissionRules): PermissionRules {
  const extra = entry.extraRules ?? {};
  return {
    allow: [...(base.allow ?? []), ...(extra.allow ?? [])],
    ask: [...(base.ask ?? []), ...(extra.ask ?? [])],
    deny: [...(base.deny ?? []), ...(extra.deny ?? [])],
  };
}

/**
 * Runs the entry through the permission interceptor (the issue's policy, or `rules`, or the
 * entry's `baseRules`) and classifies it; in a fresh world unless `reset` is false.
 */
export async function runGuarded(
  world: World,
  entry: AttackEntry,
  { rules = ISSUE_RULES, reset = true }: { rules?: PermissionRules; reset?: boolean } = {},
): Promise<Outcome> {
  if (reset) world.reset();
  const questions = denyingApprover();
  let clock = 1_700_000_000_000;
  const policy = permissionInterceptor({
    cwd: world.repo,
    home: world.home,
    rules: rulesFor(entry, entry.baseRules ?? rules),
    mode: entry.mode ?? 'default',
    approve: (request) => questions.approve(request),
    now: () => clock,
  });
  await policy.ready;
  if (entry.grantAtExpiry) {
    const grant = await policy.addGrant({ rule: entry.grantAtExpiry, expiresInMs: 60_000 });
    clock = grant.expiresAt ?? clock;
  }
  const before = world.snapshot();
  const ran = { count: 0 };
  const result: ToolExecutionResult = await invoke(world, entry, worldRegistry(world, policy, ran));
  const text = resultText(result);
  const effects = world.effects(before, text);
  const asked = questions.asked.length > 0;
  const verdict: Verdict = asked ? 'asked' : ran.count > 0 ? 'bypass' : 'denied';
  const dodgedDeny = verdict === 'asked' && entry.mustDeny === true;
  return {
    entry,
    verdict,
    dodgedDeny,
    questions: questions.asked.map((request) => request.reason),
    text,
    effects,
  };
}

/** A bypass: ran with no question, or asked where a deny rule applies. */
export const isBypass = (outcome: Outcome): boolean =>
  outcome.verdict === 'bypass' || outcome.dodgedDeny;

/** One summary line per class. */
export function summaryLine(label: string, outcomes: readonly Outcome[], skipped: number): string {
  const count = (verdict: Verdict) => outcomes.filter((o) => o.verdict === verdict).length;
  const dodged = outcomes.filter((o) => o.dodgedDeny).length;
  const bypass = outcomes.filter(isBypass).length;
  return (
    `class ${label}: n=${outcomes.length} denied=${count('denied')} asked=${count('asked')} ` +
    `bypass=${bypass}${dodged ? ` (of which ${dodged} asked where a deny rule applies)` : ''}` +
    `${skipped ? ` skipped=${skipped} (program missing)` : ''}`
  );
}
