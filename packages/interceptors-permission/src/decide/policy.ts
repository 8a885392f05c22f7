import type { InterceptedExecution, ToolView } from '@dsh-tools/protocol';
import { analyzeShell, type ShellAnalysis } from '../shell/analyze';
import type { PermissionGrant } from '../types';
import { resolveLikeKernel } from './resolve';
import { isPathFamily, type ParsedRule } from './rules';

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
export const analyzeCached = (policy: Policy, line: string): ShellAnalysis => {
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

/** Whether a tool runs command lines (it declares a `command` hint). */
export const isShellTool = (tool: ToolView): boolean => typeof tool.hints.command === 'string';

/** Whether a rule applies to a shell tool's commands: its own name, or `Bash` for any shell tool. */
export const shellRuleApplies = (rule: ParsedRule, exec: InterceptedExecution): boolean =>
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

/** Whether a tool belongs to the Read family (read) or the Edit family (write). */
export const isFamily = (access: 'read' | 'write', tool: string): boolean =>
  access === 'read'
    ? tool === 'Read'
    : tool === 'Edit' || tool === 'Write' || tool === 'MultiEdit' || tool === 'NotebookEdit';

/** Real paths of the working directories. */
export function workDirectories(
  cwd: string,
  additional: readonly string[],
  home: string,
): string[] {
  return [cwd, ...additional]
    .map((dir) => resolveLikeKernel(dir, cwd, home).real)
    .filter((dir, i, all) => all.indexOf(dir) === i);
}
