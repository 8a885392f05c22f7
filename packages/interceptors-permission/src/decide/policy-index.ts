import type { InterceptedExecution } from '@dsh-tools/protocol';
import type { RuleBehavior } from '../types';
import { isFamily, isShellTool, type Policy, shellRuleApplies } from './policy';
import { compilePathSpec, type PathPattern } from './resolve';
import type { ParsedRule } from './rules';

/** Compiled path patterns per rule: a rule is compiled once, however many calls it judges. */
const patternCache = new WeakMap<ParsedRule, PathPattern[]>();
/** A grant's patterns, with the directory they were resolved against. */
const grantCache = new WeakMap<ParsedRule, { readonly cwd: string; readonly p: PathPattern[] }>();
/**
 * The path patterns of a rule's specifier, compiled on first use. A rule without a root is a
 * grant's (it comes from no settings file): given `cwd`, its `./x`, `x/y` and `/x` resolve there,
 * as for a rule given in options; without one they stay relative and match no absolute path.
 */
export const patternsOf = (rule: ParsedRule, home: string, cwd?: string): PathPattern[] => {
  if (rule.root === '' && cwd !== undefined) {
    const known = grantCache.get(rule);
    if (known?.cwd === cwd) return known.p;
    const p = compilePathSpec(rule.specifier ?? '**', cwd, cwd, home);
    grantCache.set(rule, { cwd, p });
    return p;
  }
  let p = patternCache.get(rule);
  if (p === undefined) {
    p = compilePathSpec(rule.specifier ?? '**', rule.root, rule.settingsDir, home);
    patternCache.set(rule, p);
  }
  return p;
};

/** Rules a command could match, by program name (and those that may match any program). */
export interface RuleIndex {
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

/** The path-rule lists of a policy, built on first use and kept while the policy lives. */
export const policyIndex = (policy: Policy): PolicyIndex => {
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
export const shellIndex = (
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
export const candidates = (
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
