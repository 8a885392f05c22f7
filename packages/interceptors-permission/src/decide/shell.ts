import type { ShellCommand } from '../shell/analyze';
import { denyNames, type Match, matchShell, suspiciousCharacter } from '../shell/match';
import { fileOperands } from '../shell/operands';
import type { ShellWord } from '../shell/words';
import { type DecisionTrail, type Part, RANK, record } from './parts';
import { historyRead, judgePath, shellOperand } from './paths';
import { analyzeCached, shellRuleApplies } from './policy';
import { candidates, shellIndex } from './policy-index';
import { isInside, resolveLikeKernel } from './resolve';
import type { ParsedRule } from './rules';

/** Builtins that change nothing outside the shell: allowed when their words are all known. */
const NEUTRAL = new Set(['cd', 'pushd', 'popd', 'true', 'false', ':', '[', 'test']);
/** Device files a redirection may write without asking. */
const SAFE_SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const worse = (a: Match, b: Match): Match =>
  a === 'yes' || b === 'yes' ? 'yes' : a === 'maybe' || b === 'maybe' ? 'maybe' : 'no';

/**
 * An allow rule admits a modelled program only when its model understands every word: otherwise
 * (a prefix or glob rule) the allow becomes an ask that says what was not understood. An exact rule
 * names every word itself, and a grant was given for what the person saw.
 */
function modelDoubt(
  rule: ParsedRule,
  effects: ShellCommand['effects'],
): ((subject: string) => Part) | undefined {
  if (effects?.unknown === undefined || rule.shell?.form === 'exact') return undefined;
  const why = effects.unknown;
  return (subject) => ({
    severity: 'ask',
    subject,
    soft: true,
    reason: `allow rule ${JSON.stringify(rule.text)} covers ${subject} by its prefix, but ${why}, so it asks`,
  });
}

/** Judges one simple command of a command line: deny, file operands, grants, ask, allow, in that order. */
export function shellCommand(
  trail: DecisionTrail,
  cmd: ShellCommand,
  wholeTool: { allow?: ParsedRule; ask?: ParsedRule },
): Part {
  const subject = [...cmd.via, cmd.argv.map((w) => w.text).join(' ')].join(' → ');
  const exec = trail.exec;
  const index = shellIndex(trail.policy, exec);
  const first = cmd.argv[0] as ShellWord;
  // Deny and ask rules also catch the program's base name and what a look-alike imitates.
  const guardNames = first.literal ? denyNames(first) : undefined;
  let maybe: Part | undefined;
  const effects = cmd.effects;
  const canonical = effects?.canonical;
  const guard = (rule: ParsedRule): Match => {
    if (!rule.shell) return 'no';
    const m = matchShell(rule.shell, cmd.argv, 'deny');
    return m === 'yes' || canonical === undefined
      ? m
      : worse(m, matchShell(rule.shell, canonical, 'deny'));
  };
  for (const rule of candidates(index.deny, guardNames)) {
    const m: Match = guard(rule);
    record(trail, rule, m, subject);
    if (m === 'yes') return { severity: 'deny', subject, rule, reason: `it runs ${subject}` };
    if (m === 'maybe')
      maybe ??= {
        severity: 'maybe',
        subject,
        rule,
        reason: `${subject} may match deny rule ${rule.text} (a word is not known before it runs)`,
      };
  }
  const ops =
    effects !== undefined && !effects.partial
      ? { reads: effects.reads, writes: effects.writes, known: true, recursive: effects.recursive }
      : fileOperands(effects?.canonical ?? cmd.argv);
  for (const [access, words] of [
    ['read', ops.reads],
    ['write', ops.writes],
  ] as const) {
    for (const word of words) {
      const part = shellOperand(trail, access, word, cmd.cwds, ops.known, subject, ops.recursive);
      if (part?.severity === 'deny') return part;
      if (part && (!maybe || RANK[part.severity] > RANK[maybe.severity])) maybe = part;
    }
  }
  if (cmd.effects?.history) {
    const part = historyRead(trail, cmd.cwds, subject);
    if (part && (!maybe || RANK[part.severity] > RANK[maybe.severity])) maybe = part;
  }
  if (cmd.unknown !== undefined) return { severity: 'unknown', subject, reason: cmd.unknown };
  const name = cmd.argv[0] as ShellWord;
  const odd = suspiciousCharacter(name.value);
  if (odd !== undefined) {
    return {
      severity: 'unknown',
      subject,
      reason: `the command name ${JSON.stringify(name.value)} contains ${odd}, a character that can imitate another name`,
    };
  }
  if (maybe?.severity === 'maybe') return maybe;
  for (const g of trail.grants) {
    if (!shellRuleApplies(g.rule, exec)) continue;
    const m =
      g.rule.specifier === undefined
        ? 'yes'
        : g.rule.shell
          ? matchShell(g.rule.shell, cmd.argv, 'allow')
          : 'no';
    trail.entries.push({
      kind: 'grant',
      id: g.grant.id,
      rule: g.rule.text,
      matched: m === 'yes',
      subject,
    });
    if (m === 'yes')
      return {
        severity: 'allow',
        subject,
        grant: g,
        reason: `granted (${g.rule.text})`,
        wholeTool: g.rule.specifier === undefined,
      };
  }
  if (maybe) return maybe;
  if (wholeTool.ask)
    return {
      severity: 'ask',
      subject,
      rule: wholeTool.ask,
      soft: true,
      reason: `every ${exec.name} call asks`,
    };
  for (const rule of candidates(index.ask, guardNames)) {
    const m = guard(rule);
    record(trail, rule, m, subject);
    if (m !== 'no')
      return { severity: 'ask', subject, rule, soft: true, reason: `it runs ${subject}` };
  }
  if (wholeTool.allow)
    return {
      severity: 'allow',
      subject,
      rule: wholeTool.allow,
      reason: 'the whole tool is allowed',
      wholeTool: true,
    };
  for (const rule of candidates(index.allow, first.literal ? [first.value] : [])) {
    const m = rule.shell ? matchShell(rule.shell, cmd.argv, 'allow') : 'no';
    record(trail, rule, m, subject);
    if (m !== 'yes') continue;
    const doubt = modelDoubt(rule, effects);
    if (doubt) return doubt(subject);
    return { severity: 'allow', subject, rule, reason: `${subject} is allowed` };
  }
  // Only the shell's own builtins: a name with a slash (`./true`, `/:`) runs whatever file is
  // there, which may be anything the model wrote.
  if (
    !name.value.includes('/') &&
    NEUTRAL.has(name.value) &&
    cmd.argv.every((w) => w.literal) &&
    effects?.unknown === undefined
  ) {
    return {
      severity: 'allow',
      subject,
      reason: `${name.value} changes nothing outside the shell`,
    };
  }
  return { severity: 'none', subject, reason: `no rule covers ${subject}` };
}

/** The parts of a shell command line: its commands, its redirections, and what could not be parsed. */
export function shellParts(
  trail: DecisionTrail,
  line: string,
  whole: { allow?: ParsedRule; ask?: ParsedRule },
): Part[] {
  const analysis = analyzeCached(trail.policy, line);
  const parts: Part[] = analysis.problems.map((problem) => ({
    severity: 'unknown' as const,
    subject: line.length > 80 ? `${line.slice(0, 80)}…` : line,
    reason: problem,
  }));
  for (const cmd of analysis.commands) {
    const part = shellCommand(trail, cmd, whole);
    trail.entries.push({
      kind: 'shell',
      subject: part.subject,
      verdict: part.severity,
      note: part.reason,
    });
    parts.push(part);
  }
  for (const r of analysis.redirects) {
    const subject = `${r.op} ${r.target.text}`;
    if (r.target.literal && !r.target.glob && SAFE_SINKS.has(r.target.value)) continue;
    const part = shellOperand(trail, r.access, r.target, r.cwds, true, subject);
    if (part) parts.push(part);
    if (r.access === 'write') {
      let inside = r.target.literal && !r.target.glob;
      let allowed = inside;
      if (inside) {
        for (const cwd of r.cwds) {
          if (cwd === null) {
            inside = false;
            allowed = false;
            continue;
          }
          const path = resolveLikeKernel(r.target.value, cwd, trail.policy.home);
          if (!trail.policy.workDirs.some((dir) => isInside(path.real, dir))) inside = false;
          if (judgePath(trail, 'write', path, subject, true).severity !== 'allow') allowed = false;
        }
      }
      // A rule allowing the whole shell tool allows its redirections too.
      if (!allowed && !whole.allow) {
        const acceptEdits = trail.mode === 'acceptEdits' && inside;
        parts.push({
          severity: acceptEdits ? 'allow' : 'ask',
          soft: true,
          subject,
          reason: acceptEdits
            ? `acceptEdits: output redirected to ${r.target.text} inside the working directories`
            : `it redirects output to the file ${r.target.text}`,
          wholeTool: false,
        });
      }
    }
  }
  if (analysis.commands.length === 0 && parts.length === 0) {
    parts.push({ severity: 'allow', subject: line, reason: 'the command line runs nothing' });
  }
  return parts;
}
