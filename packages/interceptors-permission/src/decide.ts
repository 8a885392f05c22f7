import { statSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { InterceptedExecution, ToolView } from '@dsh-tools/protocol';
import {
  compilePathSpec,
  expandHome,
  globsMayIntersect,
  isInside,
  operandGlobSegments,
  type PathPattern,
  type ResolvedPath,
  resolveLikeKernel,
} from './paths';
import { describeOrigin, isPathFamily, type ParsedRule } from './rules';
import { analyzeShell, type ShellAnalysis, type ShellCommand } from './shell-analyze';
import { baseName, fileOperands } from './shell-commands';
import { denyNames, type Match, matchShell, suspiciousCharacter } from './shell-match';
import type { ShellWord } from './shell-words';
import type {
  DecidedBy,
  PermissionDecision,
  PermissionGrant,
  PermissionMode,
  RuleBehavior,
  TrailEntry,
} from './types';

/** A grant with its rule read. */
export interface ActiveGrant {
  readonly grant: PermissionGrant;
  readonly rule: ParsedRule;
}

/** The loaded, indexed policy a decision reads. */
export interface Policy {
  readonly rules: readonly ParsedRule[];
  readonly cwd: string;
  readonly home: string;
  /** Real paths of `cwd` and the additional directories. */
  readonly workDirs: readonly string[];
  /** Recent command lines' analyses (a pure function of the line), most recent last. */
  readonly parseCache?: { readonly size: number; readonly entries: Map<string, ShellAnalysis> };
}

/** Analyses a command line, through the policy's cache when it has one. */
const analyzeCached = (policy: Policy, line: string): ShellAnalysis => {
  const cache = policy.parseCache;
  if (cache === undefined || cache.size === 0 || line.length > 4096)
    return analyzeShell(line, policy.cwd, policy.home);
  const hit = cache.entries.get(line);
  if (hit !== undefined) {
    cache.entries.delete(line);
    cache.entries.set(line, hit);
    return hit;
  }
  const analysis = analyzeShell(line, policy.cwd, policy.home);
  cache.entries.set(line, analysis);
  if (cache.entries.size > cache.size)
    cache.entries.delete(cache.entries.keys().next().value as string);
  return analysis;
};

type Severity = 'deny' | 'unknown' | 'maybe' | 'ask' | 'none' | 'allow';
const RANK: Record<Severity, number> = { deny: 5, unknown: 4, maybe: 3, ask: 2, none: 1, allow: 0 };

interface Part {
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

const lexicalPath = (value: string, cwd: string, home: string): ResolvedPath => {
  const lexical = resolvePath(cwd, expandHome(value, home));
  return { lexical, real: lexical };
};

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const NEUTRAL = new Set(['cd', 'pushd', 'popd', 'true', 'false', ':', '[', 'test']);
const SAFE_SINKS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

const patternCache = new WeakMap<ParsedRule, PathPattern[]>();
const patternsOf = (rule: ParsedRule, home: string): PathPattern[] => {
  let p = patternCache.get(rule);
  if (p === undefined) {
    p = compilePathSpec(rule.specifier ?? '**', rule.root, rule.settingsDir, home);
    patternCache.set(rule, p);
  }
  return p;
};

/** Whether a rule names this tool (by name, MCP server or MCP tool). */
export function namesTool(rule: ParsedRule, exec: InterceptedExecution): boolean {
  const source = exec.tool.source;
  if (rule.mcpServer !== undefined) {
    return (
      (source.kind === 'mcp' && source.server === rule.mcpServer) ||
      exec.name.startsWith(`mcp__${rule.mcpServer}__`)
    );
  }
  if (rule.tool === exec.name) return true;
  return source.kind === 'mcp' && rule.tool === `mcp__${source.server}__${source.tool}`;
}

const isShellTool = (tool: ToolView): boolean => typeof tool.hints.command === 'string';

/** Whether a rule applies to a shell tool's commands: its own name, or `Bash` for any shell tool. */
const shellRuleApplies = (rule: ParsedRule, exec: InterceptedExecution): boolean =>
  !isPathFamily(rule.tool) &&
  (namesTool(rule, exec) || (rule.tool === 'Bash' && isShellTool(exec.tool)));

/** Values at a dotted hint path (`edits.*.path`). */
export function valuesAt(args: unknown, path: string): unknown[] {
  let current: unknown[] = [args];
  for (const key of path.split('.')) {
    const next: unknown[] = [];
    for (const value of current) {
      if (value === null || typeof value !== 'object') continue;
      if (key === '*') next.push(...(Array.isArray(value) ? value : Object.values(value)));
      else if (Object.hasOwn(value, key)) next.push((value as Record<string, unknown>)[key]);
    }
    current = next;
  }
  return current;
}

const isFamily = (access: 'read' | 'write', tool: string): boolean =>
  access === 'read'
    ? tool === 'Read'
    : tool === 'Edit' || tool === 'Write' || tool === 'MultiEdit' || tool === 'NotebookEdit';

/** Rules a command could match, by program name (and those that may match any program). */
interface RuleIndex {
  readonly byName: Map<string, ParsedRule[]>;
  readonly always: ParsedRule[];
  /** Candidate lists already computed, by the names asked for. */
  readonly memo: Map<string, readonly ParsedRule[]>;
}
interface PolicyIndex {
  /** Path rules by access: deny and ask, and all (with allow). */
  readonly paths: Record<
    'read' | 'write',
    { readonly guard: ParsedRule[]; readonly all: ParsedRule[] }
  >;
  readonly shell: Map<string, Record<RuleBehavior, RuleIndex>>;
}
const indexes = new WeakMap<Policy, PolicyIndex>();

const policyIndex = (policy: Policy): PolicyIndex => {
  let index = indexes.get(policy);
  if (index === undefined) {
    const paths = (access: 'read' | 'write') => {
      const all = policy.rules.filter((r) => r.specifier !== undefined && isFamily(access, r.tool));
      return { all, guard: all.filter((r) => r.behavior !== 'allow') };
    };
    index = { paths: { read: paths('read'), write: paths('write') }, shell: new Map() };
    indexes.set(policy, index);
  }
  return index;
};

/** The shell rules that apply to this tool, indexed by the program they name. */
const shellIndex = (
  policy: Policy,
  exec: InterceptedExecution,
): Record<RuleBehavior, RuleIndex> => {
  const source = exec.tool.source;
  const key = `${exec.name}\u0000${isShellTool(exec.tool)}\u0000${source.kind === 'mcp' ? `${source.server}/${source.tool}` : ''}`;
  const cache = policyIndex(policy).shell;
  let index = cache.get(key);
  if (index === undefined) {
    const empty = (): RuleIndex => ({ byName: new Map(), always: [], memo: new Map() });
    index = { allow: empty(), ask: empty(), deny: empty() };
    for (const rule of policy.rules) {
      if (rule.specifier === undefined || !shellRuleApplies(rule, exec)) continue;
      const shell = rule.shell;
      const first =
        shell === undefined ? undefined : shell.form === 'glob' ? shell.first : shell.words[0];
      const target = index[rule.behavior];
      if (first === undefined) target.always.push(rule);
      else {
        const list = target.byName.get(first);
        if (list) list.push(rule);
        else target.byName.set(first, [rule]);
      }
    }
    cache.set(key, index);
  }
  return index;
};

/** Rules of one list that a command named `name` may match (all of them for an unknown name). */
const candidates = (
  index: RuleIndex,
  names: readonly string[] | undefined,
): readonly ParsedRule[] => {
  const key = names === undefined ? '\u0000' : names.join('\u0000');
  const known = index.memo.get(key);
  if (known !== undefined) return known;
  let out: ParsedRule[];
  if (names === undefined) out = [...index.always, ...[...index.byName.values()].flat()];
  else {
    out = [];
    for (const n of names) {
      const list = index.byName.get(n);
      if (list) for (const r of list) if (!out.includes(r)) out.push(r);
    }
    out.push(...index.always);
  }
  // Bounded: program names come from commands, which the model chooses.
  if (index.memo.size < 1024) index.memo.set(key, out);
  return out;
};

class Decider {
  readonly trail: TrailEntry[] = [];
  constructor(
    readonly policy: Policy,
    readonly exec: InterceptedExecution,
    readonly mode: PermissionMode,
    readonly grants: readonly ActiveGrant[],
  ) {}

  record(rule: ParsedRule, matched: Match | boolean, subject?: string, note?: string): void {
    this.trail.push({
      kind: 'rule',
      rule: rule.text,
      origin: rule.origin,
      matched: matched === 'yes' ? true : matched === 'no' ? false : matched,
      ...(subject !== undefined && { subject }),
      ...(note !== undefined && { note }),
    });
  }

  pathMatches(rule: ParsedRule, path: ResolvedPath, purpose: RuleBehavior): boolean {
    const patterns = patternsOf(rule, this.policy.home);
    // An allow must hold where the kernel really goes; a deny or ask also catches the name used.
    return patterns.some((p) => p.test(path.real) || (purpose !== 'allow' && p.test(path.lexical)));
  }

  /** Read / Edit path rules for one resolved path; deny and ask only, or allow too. */
  judgePath(
    access: 'read' | 'write',
    path: ResolvedPath,
    subject: string,
    withAllow: boolean,
  ): Part {
    const family = (tool: string) => isFamily(access, tool);
    let ask: Part | undefined;
    let allow: Part | undefined;
    const lists = policyIndex(this.policy).paths[access];
    for (const rule of withAllow ? lists.all : lists.guard) {
      if (rule.behavior === 'allow' && allow) continue;
      const hit = this.pathMatches(rule, path, rule.behavior);
      this.record(rule, hit, subject);
      if (!hit) continue;
      if (rule.behavior === 'deny') {
        return {
          severity: 'deny',
          subject,
          rule,
          reason: `${access === 'read' ? 'reading' : 'writing'} ${path.real}`,
        };
      }
      if (rule.behavior === 'ask')
        ask ??= {
          severity: 'ask',
          subject,
          rule,
          soft: true,
          reason: `${access === 'read' ? 'reads' : 'writes'} ${path.real}`,
        };
      else allow = { severity: 'allow', subject, rule, reason: `${access} ${path.real}` };
    }
    if (withAllow && !ask) {
      for (const g of this.grants) {
        if (!isPathFamily(g.rule.tool) || g.rule.specifier === undefined || !family(g.rule.tool))
          continue;
        const hit = this.pathMatches(g.rule, path, 'allow');
        this.trail.push({
          kind: 'grant',
          id: g.grant.id,
          rule: g.rule.text,
          matched: hit,
          subject,
        });
        if (hit)
          return { severity: 'allow', subject, grant: g, reason: `granted ${access} ${path.real}` };
      }
    }
    return (
      ask ??
      allow ?? {
        severity: 'none',
        subject,
        reason: `no rule covers ${access === 'read' ? 'reading' : 'writing'} ${path.real}`,
      }
    );
  }

  hasPathRules(access: 'read' | 'write'): boolean {
    return policyIndex(this.policy).paths[access].guard.length > 0;
  }

  /** Checks shell operands against path deny / ask rules. */
  /** A deny or ask path rule that some path matched by `segments` could meet. */
  protectedGlob(
    access: 'read' | 'write',
    segments: readonly string[],
    subject: string,
    note: string,
  ): Part | undefined {
    for (const rule of policyIndex(this.policy).paths[access].guard) {
      const hit = patternsOf(rule, this.policy.home).some((p) =>
        globsMayIntersect(segments, p.segments),
      );
      this.record(rule, hit ? 'maybe' : 'no', subject, note);
      if (hit) return { severity: 'maybe', subject, rule, reason: note };
    }
    return undefined;
  }

  shellOperand(
    access: 'read' | 'write',
    word: ShellWord,
    cwds: readonly (string | null)[],
    knownProgram: boolean,
    subject: string,
    recursive = false,
  ): Part | undefined {
    if (!this.hasPathRules(access)) return undefined;
    const what = access === 'read' ? 'read' : 'write';
    if (!word.literal) {
      if (!knownProgram) return undefined;
      return {
        severity: 'maybe',
        subject,
        reason: `the file operand ${word.text} is not known before it runs and could be a file a path rule protects (${what})`,
      };
    }
    let worst: Part | undefined;
    for (const cwd of cwds) {
      const relative = !isAbsolute(word.value) && !word.value.startsWith('~');
      if (cwd === null) {
        if (relative && knownProgram) {
          return {
            severity: 'maybe',
            subject,
            reason: `the file operand ${word.text} is relative to a directory changed by cd to a value not known before it runs`,
          };
        }
        if (relative) continue;
      }
      const base = cwd ?? this.policy.cwd;
      if (word.glob) {
        const segments = operandGlobSegments(word.value, base, this.policy.home);
        if (recursive) segments.push('**');
        const hit = this.protectedGlob(access, segments, subject, `glob operand ${word.text}`);
        if (hit)
          return {
            ...hit,
            reason: `the glob ${word.text} could match a path rule ${hit.rule?.text} protects`,
          };
        continue;
      }
      // Programs known to take files get the kernel's resolution (symlinks followed); for any other
      // program a word is only possibly a file, so it is checked as written (`git add .env`).
      const path = knownProgram
        ? resolveLikeKernel(word.value, base, this.policy.home)
        : lexicalPath(word.value, base, this.policy.home);
      const part = this.judgePath(access, path, subject, false);
      if (part.severity === 'deny') return part;
      if (part.severity === 'ask' && !worst) worst = part;
      if (recursive && isDirectory(path.real)) {
        const segments = [...path.real.split('/').filter((s) => s !== ''), '**'];
        const inside = this.protectedGlob(
          access,
          segments,
          subject,
          `directory operand ${word.text}`,
        );
        if (inside)
          return {
            ...inside,
            reason: `${word.text} is a directory read recursively that holds paths rule ${inside.rule?.text} protects`,
          };
      }
    }
    return worst;
  }

  shellCommand(cmd: ShellCommand, wholeTool: { allow?: ParsedRule; ask?: ParsedRule }): Part {
    const subject = [...cmd.via, cmd.argv.map((w) => w.text).join(' ')].join(' → ');
    const exec = this.exec;
    const index = shellIndex(this.policy, exec);
    const first = cmd.argv[0] as ShellWord;
    // Deny and ask rules also catch the program's base name and what a look-alike imitates.
    const guardNames = first.literal ? denyNames(first) : undefined;
    let maybe: Part | undefined;
    for (const rule of candidates(index.deny, guardNames)) {
      const m: Match = rule.shell ? matchShell(rule.shell, cmd.argv, 'deny') : 'no';
      this.record(rule, m, subject);
      if (m === 'yes') return { severity: 'deny', subject, rule, reason: `it runs ${subject}` };
      if (m === 'maybe')
        maybe ??= {
          severity: 'maybe',
          subject,
          rule,
          reason: `${subject} may match deny rule ${rule.text} (a word is not known before it runs)`,
        };
    }
    const ops = fileOperands(cmd.argv);
    for (const [access, words] of [
      ['read', ops.reads],
      ['write', ops.writes],
    ] as const) {
      for (const word of words) {
        const part = this.shellOperand(access, word, cmd.cwds, ops.known, subject, ops.recursive);
        if (part?.severity === 'deny') return part;
        if (part && (!maybe || RANK[part.severity] > RANK[maybe.severity])) maybe = part;
      }
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
    for (const g of this.grants) {
      if (!shellRuleApplies(g.rule, exec)) continue;
      const m =
        g.rule.specifier === undefined
          ? 'yes'
          : g.rule.shell
            ? matchShell(g.rule.shell, cmd.argv, 'allow')
            : 'no';
      this.trail.push({
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
      const m = rule.shell ? matchShell(rule.shell, cmd.argv, 'deny') : 'no';
      this.record(rule, m, subject);
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
      this.record(rule, m, subject);
      if (m === 'yes') return { severity: 'allow', subject, rule, reason: `${subject} is allowed` };
    }
    if (NEUTRAL.has(baseName(name.value)) && cmd.argv.every((w) => w.literal)) {
      return {
        severity: 'allow',
        subject,
        reason: `${name.value} changes nothing outside the shell`,
      };
    }
    return { severity: 'none', subject, reason: `no rule covers ${subject}` };
  }

  wholeToolRules(): { deny?: ParsedRule; ask?: ParsedRule; allow?: ParsedRule } {
    const out: { deny?: ParsedRule; ask?: ParsedRule; allow?: ParsedRule } = {};
    for (const rule of this.policy.rules) {
      if (rule.specifier !== undefined || !namesTool(rule, this.exec)) continue;
      this.record(rule, true, this.exec.name, 'names the whole tool');
      out[rule.behavior] ??= rule;
    }
    return out;
  }

  wholeToolGrant(): ActiveGrant | undefined {
    for (const g of this.grants) {
      if (g.rule.specifier !== undefined || !namesTool(g.rule, this.exec)) continue;
      this.trail.push({
        kind: 'grant',
        id: g.grant.id,
        rule: g.rule.text,
        matched: true,
        subject: this.exec.name,
      });
      return g;
    }
    return undefined;
  }

  shellParts(line: string, whole: { allow?: ParsedRule; ask?: ParsedRule }): Part[] {
    const analysis = analyzeCached(this.policy, line);
    const parts: Part[] = analysis.problems.map((problem) => ({
      severity: 'unknown' as const,
      subject: line.length > 80 ? `${line.slice(0, 80)}…` : line,
      reason: problem,
    }));
    for (const cmd of analysis.commands) {
      const part = this.shellCommand(cmd, whole);
      this.trail.push({
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
      const part = this.shellOperand(r.access, r.target, r.cwds, true, subject);
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
            const path = resolveLikeKernel(r.target.value, cwd, this.policy.home);
            if (!this.policy.workDirs.some((d) => isInside(path.real, d))) inside = false;
            if (this.judgePath('write', path, subject, true).severity !== 'allow') allowed = false;
          }
        }
        // A rule allowing the whole shell tool allows its redirections too.
        if (!allowed && !whole.allow) {
          const acceptEdits = this.mode === 'acceptEdits' && inside;
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

  pathParts(tool: ToolView, toolRules: readonly ParsedRule[]): Part[] {
    const parts: Part[] = [];
    for (const hint of tool.hints.paths ?? []) {
      for (const value of valuesAt(this.exec.arguments, hint.arg)) {
        if (value === undefined) continue;
        const subject = `${hint.arg}=${typeof value === 'string' ? value : JSON.stringify(value)}`;
        if (typeof value !== 'string' || value.includes('\u0000') || value === '') {
          parts.push({
            severity: 'unknown',
            subject,
            reason: `argument ${hint.arg} is declared a path but is not a usable path string (empty, NUL, or not a string)`,
          });
          continue;
        }
        const path = resolveLikeKernel(value, this.policy.cwd, this.policy.home);
        this.trail.push({
          kind: 'path',
          arg: hint.arg,
          access: hint.access,
          path: value,
          resolved: path.real,
        });
        // A rule naming this tool with a specifier reads the specifier as a path pattern.
        let own: Part | undefined;
        for (const rule of toolRules) {
          const hit = this.pathMatches(rule, path, rule.behavior);
          this.record(rule, hit, subject);
          if (
            hit &&
            (!own || RANK[rule.behavior === 'allow' ? 'allow' : rule.behavior] > RANK[own.severity])
          ) {
            own = {
              severity: rule.behavior,
              subject,
              rule,
              soft: rule.behavior === 'ask',
              reason: `${hint.access} ${path.real}`,
            };
          }
        }
        const family = this.judgePath(hint.access, path, subject, true);
        const part = own && RANK[own.severity] > RANK[family.severity] ? own : family;
        const inside = this.policy.workDirs.some((d) => isInside(path.real, d));
        parts.push({
          ...part,
          reason: part.reason + (inside ? '' : ' (outside the working directories)'),
        });
        (parts[parts.length - 1] as Part & { outside?: boolean }).outside = !inside;
        (parts[parts.length - 1] as Part & { access?: string }).access = hint.access;
      }
    }
    return parts;
  }

  decide(): PermissionDecision {
    const exec = this.exec;
    const tool = exec.tool;
    const whole = this.wholeToolRules();
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
    const wholeGrant = whole.deny ? undefined : this.wholeToolGrant();
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
          ...this.shellParts(line, {
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
      const toolRules = this.policy.rules.filter(
        (r) => r.specifier !== undefined && !isPathFamily(r.tool) && namesTool(r, exec),
      );
      const hasPaths = (tool.hints.paths ?? []).length > 0;
      if (!hasPaths) {
        for (const rule of toolRules) {
          // No path or command hint to read the specifier against: it cannot be checked, so a deny
          // or ask still applies (fail closed) and an allow does not.
          const hit = rule.behavior !== 'allow';
          this.record(
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
      const pathParts = hasPaths ? this.pathParts(tool, toolRules) : [];
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
        for (const p of pathParts)
          if (p.severity === 'none')
            Object.assign(p, { severity: 'allow', rule: toolPart.rule, grant: toolPart.grant });
      }
      if (!toolPart && pathParts.length > 0 && pathParts.every((p) => p.severity === 'allow')) {
        toolPart = { ...(pathParts[0] as Part) };
      }
      parts.push(...pathParts);
      parts.push(
        toolPart ?? { severity: 'none', subject: exec.name, reason: `no rule names ${exec.name}` },
      );
    }
    return this.finish(parts, shell);
  }

  finish(parts: Part[], shell: boolean): PermissionDecision {
    const { exec, mode } = this;
    const tool = exec.tool;
    const writes = (tool.hints.paths ?? []).some((p) => p.access === 'write');
    const readOnly = tool.hints.readOnly === true && !writes;
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
      trail: this.trail,
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
      this.trail.push({ kind: 'mode', mode, note: `${exec.name} is not read-only` });
      return make(
        'deny',
        `plan mode: only read-only tools run while planning, and ${exec.name} is not read-only`,
        { kind: 'mode', mode },
      );
    }
    const deny = (reason: string, by: DecidedBy): PermissionDecision => {
      this.trail.push({ kind: 'mode', mode, note: 'dontAsk denies what would ask' });
      return make('deny', `${reason}; mode "dontAsk" denies whatever would ask`, by);
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
        this.trail.push({ kind: 'mode', mode, note: 'bypassPermissions skips ask rules' });
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
      this.trail.push({ kind: 'mode', mode, note: 'bypassPermissions allows what no rule denies' });
      return make('allow', `mode "bypassPermissions" allows ${subject}`, modeBy);
    }
    const outside = unmatched.some((p) => (p as Part & { outside?: boolean }).outside);
    if (readOnly && !outside) {
      this.trail.push({ kind: 'mode', mode, note: `${exec.name} is read-only` });
      return make(
        'allow',
        `${exec.name} is read-only and mode "${mode}" runs read-only tools`,
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
      this.trail.push({
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
    this.trail.push({ kind: 'mode', mode, note: 'no rule decides; the mode asks' });
    return ask(
      `no rule allows ${JSON.stringify(subject)}${outside ? ' (outside the working directories)' : ''} and mode "${mode}" asks for ${readOnly ? 'reads outside the working directories' : 'tools that may change things'}`,
      modeBy,
    );
  }
}

/** Decides one call: deny > grant > ask > allow > mode, part by part. Never throws on odd input. */
export function decide(
  policy: Policy,
  exec: InterceptedExecution,
  mode: PermissionMode,
  grants: readonly ActiveGrant[],
): PermissionDecision {
  return new Decider(policy, exec, mode, grants).decide();
}

/** Real paths of the working directories. */
export function workDirectories(
  cwd: string,
  additional: readonly string[],
  home: string,
): string[] {
  return [cwd, ...additional]
    .map((d) => resolveLikeKernel(d, cwd, home).real)
    .filter((d, i, all) => all.indexOf(d) === i);
}
