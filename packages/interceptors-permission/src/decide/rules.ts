import type { PermissionRuleSet, PermissionRules, RuleBehavior, RuleOrigin } from '../types';

/** A rule that cannot be read, quoting it and saying what is wrong. */
export class PermissionRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermissionRuleError';
  }
}

/** The three ways a shell specifier matches a command's words. */
export type ShellSpec =
  | { readonly form: 'prefix'; readonly words: readonly string[] }
  | { readonly form: 'exact'; readonly words: readonly string[] }
  | { readonly form: 'glob'; readonly pattern: string; readonly first?: string };

/** A rule read once at load. */
export interface ParsedRule {
  /** As written. */
  readonly text: string;
  readonly behavior: RuleBehavior;
  readonly origin: RuleOrigin;
  /** The tool name part (`Bash`, `Read`, `mcp__github__create_issue`). */
  readonly tool: string;
  /** `mcp__server` and `mcp__server__*`: every tool of that server. */
  readonly mcpServer?: string;
  /** The text between the parentheses; absent (or `*`) = the whole tool. */
  readonly specifier?: string;
  /** The specifier read as a shell rule (only when it reads as one). */
  readonly shell?: ShellSpec;
  /** What `./x` resolves against. */
  readonly root: string;
  /** What `/x` resolves against. */
  readonly settingsDir: string;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;
const PATH_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit']);

/** Whether a rule's tool name is one of the path families (`Read`, `Edit`, `Write`, ...). */
export const isPathFamily = (tool: string): boolean => PATH_TOOLS.has(tool);

/**
 * Splits a rule's shell specifier into words the way a shell would split a simple command (quotes
 * and backslashes), keeping unquoted `*` as a wildcard marker (`\u0000`).
 */
export function splitSpecWords(spec: string): string[] | string {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i] as string;
    if (c === ' ' || c === '\t') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else if (c === '\\') {
      if (i + 1 >= spec.length) return 'ends with a lone backslash';
      current += spec[++i];
      inWord = true;
    } else if (c === "'" || c === '"') {
      const end = spec.indexOf(c, i + 1);
      if (end < 0) return `has an unterminated ${c} quote`;
      current += spec.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '*') {
      current += '\u0000';
      inWord = true;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (inWord) words.push(current);
  return words;
}

function parseShellSpec(spec: string): ShellSpec | string {
  const prefix = spec.endsWith(':*');
  const body = prefix ? spec.slice(0, -2) : spec;
  const words = splitSpecWords(body);
  if (typeof words === 'string') return words;
  if (words.length === 0) return prefix ? 'has nothing before ":*"' : 'is empty';
  if (prefix) {
    if (words.some((w) => w.includes('\u0000'))) {
      return 'mixes the prefix form ":*" with "*" wildcards; use one form';
    }
    return { form: 'prefix', words };
  }
  if (words.some((w) => w.includes('\u0000'))) {
    const first = words[0] as string;
    const pattern = words.join(' ');
    return first.includes('\u0000') ? { form: 'glob', pattern } : { form: 'glob', pattern, first };
  }
  return { form: 'exact', words };
}

const fail = (text: string, origin: RuleOrigin, what: string): never => {
  const where = origin.file ? `${origin.source} (${origin.file})` : origin.source;
  throw new PermissionRuleError(
    `Permission rule ${JSON.stringify(text)} in ${where}, ${origin.list}[${origin.index}] ${what}. ` +
      'Rules look like Tool, Tool(specifier), mcp__server, mcp__server__* or mcp__server__tool.',
  );
};

/** Reads one rule, or throws a {@link PermissionRuleError} quoting it and saying what is wrong. */
export function parseRule(
  text: unknown,
  behavior: RuleBehavior,
  origin: RuleOrigin,
  root: string,
  settingsDir: string,
): ParsedRule {
  if (typeof text !== 'string') {
    return fail(String(text), origin, `is a ${text === null ? 'null' : typeof text}, not a string`);
  }
  if (text.length === 0) return fail(text, origin, 'is empty');
  if (text.length > 4096)
    return fail(`${text.slice(0, 40)}…`, origin, 'is longer than 4096 characters');
  if (text.trim() !== text) return fail(text, origin, 'has leading or trailing whitespace');
  const open = text.indexOf('(');
  let tool = text;
  let specifier: string | undefined;
  if (open >= 0) {
    if (!text.endsWith(')')) return fail(text, origin, 'opens "(" but does not end with ")"');
    tool = text.slice(0, open);
    specifier = text.slice(open + 1, -1);
    if (specifier.length === 0) {
      return fail(
        text,
        origin,
        'has empty parentheses; write the tool name alone to match every call',
      );
    }
  } else if (text.includes(')')) {
    return fail(text, origin, 'has ")" without "("');
  }
  if (tool.length === 0) return fail(text, origin, 'has no tool name before "("');
  let mcpServer: string | undefined;
  if (tool.startsWith('mcp__')) {
    const rest = tool.slice(5);
    const sep = rest.indexOf('__');
    const server = sep < 0 ? rest : rest.slice(0, sep);
    const name = sep < 0 ? undefined : rest.slice(sep + 2);
    if (!server || !TOOL_NAME.test(server))
      return fail(text, origin, 'names no MCP server after "mcp__"');
    if (name === undefined || name === '*') mcpServer = server;
    else if (name === '' || !TOOL_NAME.test(name)) {
      return fail(text, origin, 'has a malformed MCP tool name after the server');
    }
    if (specifier !== undefined && mcpServer !== undefined) {
      return fail(
        text,
        origin,
        'gives a specifier to a whole MCP server; name one tool to use a specifier',
      );
    }
  } else if (!TOOL_NAME.test(tool)) {
    return fail(
      text,
      origin,
      tool.includes('*')
        ? 'uses "*" in a tool name; only mcp__server__* may end with a wildcard'
        : 'has a tool name with characters other than letters, digits, "_", "-" and "."',
    );
  }
  if (specifier === '*') specifier = undefined;
  let shell: ShellSpec | undefined;
  if (specifier !== undefined) {
    if (isPathFamily(tool)) {
      if (specifier.includes('\u0000')) return fail(text, origin, 'contains a NUL character');
    } else {
      const parsed = parseShellSpec(specifier);
      if (typeof parsed === 'string') {
        // Only a shell tool's rule must read as a command; other tools' specifiers may be paths.
        if (tool === 'Bash') return fail(text, origin, `has a command specifier that ${parsed}`);
      } else {
        shell = parsed;
      }
      if (specifier.includes(':*') && !specifier.endsWith(':*')) {
        return fail(text, origin, 'uses ":*" before the end; the prefix form is "command args:*"');
      }
    }
  }
  return {
    text,
    behavior,
    origin,
    tool,
    root,
    settingsDir,
    ...(mcpServer !== undefined && { mcpServer }),
    ...(specifier !== undefined && { specifier }),
    ...(shell !== undefined && { shell }),
  };
}

const LISTS: readonly RuleBehavior[] = ['deny', 'ask', 'allow'];

/** Reads every rule of every set, in precedence-list order; throws on the first malformed one. */
export function parseRuleSets(
  rules: PermissionRules | readonly PermissionRuleSet[] | undefined,
  cwd: string,
): ParsedRule[] {
  if (rules === undefined) return [];
  const sets: readonly PermissionRuleSet[] = Array.isArray(rules)
    ? (rules as readonly PermissionRuleSet[])
    : [{ ...(rules as PermissionRules), source: 'options' }];
  const parsed: ParsedRule[] = [];
  for (const set of sets) {
    if (set === null || typeof set !== 'object') {
      throw new PermissionRuleError(
        `Permission rules: a rule set is ${String(set)}, not an object.`,
      );
    }
    const root = set.root ?? cwd;
    const settingsDir = set.settingsDir ?? root;
    for (const list of LISTS) {
      const entries = set[list];
      if (entries === undefined) continue;
      if (!Array.isArray(entries)) {
        throw new PermissionRuleError(
          `Permission rules from ${set.file ?? set.source}: "${list}" must be an array of rule strings (got ${typeof entries}).`,
        );
      }
      entries.forEach((text, index) => {
        const origin: RuleOrigin = {
          list,
          index,
          source: set.source,
          ...(set.file !== undefined && { file: set.file }),
        };
        parsed.push(parseRule(text, list, origin, root, settingsDir));
      });
    }
  }
  return parsed;
}

/** `options, deny[2]` or `project settings (/p/.claude/settings.json), deny[2]`. */
export function describeOrigin(origin: RuleOrigin): string {
  const where = origin.file ? `${origin.source} (${origin.file})` : origin.source;
  return `${where}, ${origin.list}[${origin.index}]`;
}
