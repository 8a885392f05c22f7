import type { InterceptedExecution, PathExclusion, ToolView } from '@dsh-tools/protocol';
import { toSandboxGlobs } from './narrowing';
import { isFamily, namesTool, type Policy } from './policy';
import { patternsOf } from './policy-index';
import { type PathPattern, resolveLikeKernel } from './resolve';
import type { ParsedRule } from './rules';

/** Whether a tool promises to leave excluded paths out of a directory it is given. */
export const honoursExclude = (tool: ToolView): boolean =>
  (tool.hints.paths ?? []).some((hint) => hint.access === 'read' && hint.honoursExclude === true);

/** Whether a deny rule is one a directory reader's exclusion carries: a Read-family path deny, or this tool's own. */
const excludedBy = (rule: ParsedRule, exec: InterceptedExecution): boolean =>
  rule.behavior === 'deny' &&
  rule.specifier !== undefined &&
  (isFamily('read', rule.tool) || namesTool(rule, exec));

/** Each policy's exclusions by tool (name and MCP source, what `namesTool` reads). */
const built = new WeakMap<Policy, Map<string, PathExclusion | undefined>>();

/**
 * What this policy takes out of a directory reader's work: every path its `Read` deny rules (and
 * the tool's own path deny rules) cover, so that a search of `.` needs no question and still never
 * returns `.env`. A path is covered when it matches as written or where its symlinks lead, the
 * same test a deny rule gets. `undefined` when no deny rule applies.
 */
export function readExclusion(
  policy: Policy,
  exec: InterceptedExecution,
): PathExclusion | undefined {
  // The same for every call of one tool under one policy: built once, not on each call.
  const source = exec.tool.source;
  const key = `${exec.name}\u0000${source.kind === 'mcp' ? `${source.server}/${source.tool}` : ''}`;
  let byTool = built.get(policy);
  if (byTool === undefined) {
    byTool = new Map();
    built.set(policy, byTool);
  }
  if (byTool.has(key)) return byTool.get(key);
  const exclusion = buildExclusion(policy, exec);
  byTool.set(key, exclusion);
  return exclusion;
}

function buildExclusion(policy: Policy, exec: InterceptedExecution): PathExclusion | undefined {
  const rules = policy.rules.filter((rule) => excludedBy(rule, exec));
  if (rules.length === 0) return undefined;
  const patterns: PathPattern[] = rules.flatMap((rule) => patternsOf(rule, policy.home));
  const globs = new Set<string>();
  for (const pattern of patterns)
    for (const glob of toSandboxGlobs(pattern.glob)) {
      globs.add(glob);
      if (!glob.endsWith('/**')) globs.add(`${glob}/**`);
    }
  return Object.freeze({
    covers(path: string): boolean {
      // Anything that is not a usable path is left out: a reader must not read what it cannot name.
      if (typeof path !== 'string' || path === '' || path.includes('\u0000')) return true;
      const resolved = resolveLikeKernel(path, policy.cwd, policy.home);
      return patterns.some((p) => p.test(resolved.lexical) || p.test(resolved.real));
    },
    globs: Object.freeze([...globs]),
    by: 'permission rules',
  });
}

/**
 * One exclusion of two: a path either covers is covered. A policy may only add to what an outer
 * one excluded.
 */
export function joinExclusions(
  outer: PathExclusion | undefined,
  own: PathExclusion,
): PathExclusion {
  if (outer === undefined) return own;
  // An outer exclusion this code cannot read may have meant anything: nothing is read at all.
  if (typeof outer !== 'object' || outer === null || typeof outer.covers !== 'function')
    return Object.freeze({ ...own, covers: () => true, globs: Object.freeze(['/**']) });
  return Object.freeze({
    covers: (path: string) => own.covers(path) || outer.covers(path) === true,
    globs: Object.freeze([...(Array.isArray(outer.globs) ? outer.globs : []), ...own.globs]),
    by: [outer.by, own.by].filter((b) => typeof b === 'string').join(', '),
  });
}
