import { type ShellAnalysis, type ShellCommand, WRITE_OPS } from '../shell/analyze';
import { denyNames, type Match, matchShell, suspiciousCharacter } from '../shell/match';
import { readOnlyWithoutModel } from '../shell/models/index';
import { fileOperands } from '../shell/operands';
import { isProcessSubstitution, type ShellWord } from '../shell/words';
import { type DecisionTrail, type Part, RANK, record } from './parts';
import { historyRead, judgePath, shellOperand } from './paths';
import { analyzeCached, shellRuleApplies } from './policy';
import { candidates, shellIndex } from './policy-index';
import { isInside, resolveLikeKernel } from './resolve';
import type { ParsedRule } from './rules';

/** Builtins that change nothing outside the shell: allowed when their words are all known. */
const NEUTRAL = new Set(['cd', 'pushd', 'popd', 'true', 'false', ':', '[', 'test', 'unset']);
/** Declarations: their model judges every name (subscripts, exported variables); values may be anything. */
const DECLARATIONS = new Set(['declare', 'typeset', 'export', 'local', 'readonly']);
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

/** bash connects for a redirection to `/dev/tcp/HOST/PORT` or `/dev/udp/…`: no program needed. */
const NETWORK_PATH = /^\/dev\/(tcp|udp)\//;
/** Programs whose deny rules say "no network" for this policy. */
const NETWORK_PROGRAMS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'telnet']);

/**
 * A connection bash opens itself: denied by a network deny rule (WebFetch, or a shell rule on
 * curl, wget, nc, …), which says the policy wants no network; asked otherwise.
 */
function networkPart(
  trail: DecisionTrail,
  subject: string,
  wholeAllow: ParsedRule | undefined,
): Part {
  for (const rule of trail.policy.rules) {
    if (rule.behavior !== 'deny') continue;
    const first = rule.shell?.form === 'glob' ? rule.shell.first : rule.shell?.words[0];
    const network =
      rule.tool === 'WebFetch' ||
      (rule.tool === 'Bash' && first !== undefined && NETWORK_PROGRAMS.has(first));
    record(
      trail,
      rule,
      network,
      subject,
      'a connection opened by a /dev/tcp or /dev/udp redirection',
    );
    if (network)
      return { severity: 'deny', subject, rule, reason: `it connects to the network (${subject})` };
  }
  if (wholeAllow)
    return { severity: 'allow', subject, rule: wholeAllow, reason: 'the whole tool is allowed' };
  return {
    severity: 'ask',
    subject,
    soft: true,
    reason: `it connects to the network through ${subject}`,
  };
}

/** Wrappers that run their command as someone else or elsewhere: never read-only. */
const ELEVATING = new Set(['sudo', 'doas', 'chroot', 'su', 'runuser', 'pkexec']);

/**
 * Whether a command line only reads: no problem, every command read-only by its model (or a
 * program that cannot change anything), reading only known files inside the working directories,
 * no writing redirection, no network.
 */
function provenReadOnly(trail: DecisionTrail, analysis: ShellAnalysis): boolean {
  if (analysis.problems.length > 0) return false;
  const insideWork = (word: ShellWord, cwds: readonly (string | null)[]): boolean => {
    if (isProcessSubstitution(word)) return true;
    if (!word.literal) return false;
    // A glob stays inside when the directory before its first pattern character does.
    const glob = word.glob ? /[*?[{]/.exec(word.value) : null;
    const fixed = glob ? word.value.slice(0, glob.index).replace(/[^/]*$/, '') || '.' : word.value;
    // A `..` anywhere in a glob can climb out of what the directory before it holds
    // (`src/*/../../../etc/x`): not proven inside.
    if (glob && word.value.split('/').includes('..')) return false;
    return cwds.every((cwd) => {
      if (cwd === null) return false;
      const path = resolveLikeKernel(fixed, cwd, trail.policy.home);
      return trail.policy.workDirs.some((dir) => isInside(path.real, dir));
    });
  };
  for (const cmd of analysis.commands) {
    if (cmd.unknown !== undefined || cmd.via.some((w) => ELEVATING.has(w))) return false;
    const fx = cmd.effects;
    if (fx === undefined) {
      if (!readOnlyWithoutModel(cmd.argv)) return false;
    } else if (!fx.readOnly || fx.unknown !== undefined || fx.network || fx.runs.length > 0)
      return false;
    // echo and printf print their words; they read nothing.
    const printer = fx?.program === 'echo' || fx?.program === 'printf';
    const reads = printer
      ? []
      : fx !== undefined && !fx.partial
        ? fx.reads
        : fileOperands(fx?.canonical ?? cmd.argv).reads;
    if (!reads.every((w) => insideWork(w, cmd.cwds))) return false;
  }
  return analysis.redirects.every(
    (r) =>
      !NETWORK_PATH.test(r.target.value) &&
      (r.access === 'read'
        ? insideWork(r.target, r.cwds)
        : r.target.literal && SAFE_SINKS.has(r.target.value)),
  );
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
  let maybe: Part | undefined;
  const effects = cmd.effects;
  // A git alias may run another program (`-c alias.x='!rm …' x`): its rules are candidates too.
  const head = effects?.canonical?.[0];
  const guardNames = !first.literal
    ? undefined
    : head !== undefined && head.value !== first.value
      ? [...denyNames(first), ...denyNames(head)]
      : denyNames(first);
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
      ? {
          reads: effects.reads,
          writes: effects.writes,
          known: true,
          recursive:
            effects.recursive && effects.followsLinks
              ? ('following links' as const)
              : effects.recursive,
        }
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
    if (m !== 'yes') continue;
    // A grant by prefix is an allow rule like any other: the model must understand the rest.
    const doubt = g.rule.specifier === undefined ? undefined : modelDoubt(g.rule, effects);
    if (doubt) {
      maybe ??= doubt(subject);
      continue;
    }
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
    // Across global options too (`git --no-pager log`): the model vets them, or the allow asks.
    let m = rule.shell ? matchShell(rule.shell, cmd.argv, 'allow') : 'no';
    if (m !== 'yes' && rule.shell && canonical !== undefined)
      m = matchShell(rule.shell, canonical, 'allow');
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
    ((NEUTRAL.has(name.value) && cmd.argv.every((w) => w.literal)) ||
      (DECLARATIONS.has(name.value) && effects !== undefined)) &&
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
    if (NETWORK_PATH.test(r.target.value)) {
      parts.push(networkPart(trail, subject, whole.allow));
      continue;
    }
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
            : WRITE_OPS.has(r.op)
              ? `it redirects output to the file ${r.target.text}`
              : `${r.op} writes the file ${r.target.text}`,
          wholeTool: false,
        });
      }
    }
  }
  if (trail.mode === 'plan') trail.shellReadOnly = provenReadOnly(trail, analysis);
  if (analysis.commands.length === 0 && parts.length === 0) {
    parts.push({ severity: 'allow', subject: line, reason: 'the command line runs nothing' });
  }
  return parts;
}
