import type { z } from 'zod';

/** One thing wrong with a config file: where, and what was expected. */
export interface ConfigIssue {
  /** The field, as a dotted path: `mcpServers.fs.command`, `hooks.PreToolUse[0].hooks`. */
  readonly path: string;
  readonly message: string;
}

/**
 * A config file that cannot be used. The message names the file, every field at fault and what
 * was expected there, so one edit fixes them all.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** The file (or `<embedded default>`). */
  readonly file: string;
  readonly issues: readonly ConfigIssue[];

  constructor(file: string, issues: readonly ConfigIssue[]) {
    const lines = issues.map((i) => `  ${i.path || '(top level)'}: ${i.message}`);
    super(
      `${file} is not a valid dsh-tools config:\n${lines.join('\n')}\nFix the fields above and run the command again.`,
    );
    this.file = file;
    this.issues = issues;
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** A short description of a value for a message: `the string "x"`, `number 3`, `an array`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 60))}`;
  return `${typeof value} ${String(value)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let at: unknown = root;
  for (const key of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  record: 'an object',
};

/**
 * Turns zod's issues into {@link ConfigIssue}s that name the field (under `prefix`) and say what
 * was expected and what was found, in the words of a config file rather than of a type system.
 */
export function issuesOf(
  error: z.ZodError,
  input: unknown,
  prefix: readonly PropertyKey[] = [],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = [...prefix, ...issue.path];
    const at = formatPath(path);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          issues.push({
            path: formatPath([...path, key]),
            message: 'unknown key (remove it, or check its spelling)',
          });
        }
        break;
      case 'invalid_type': {
        const got = valueAt(input, path);
        const expected = ARTICLE[issue.expected] ?? issue.expected;
        issues.push({
          path: at,
          message:
            got === undefined
              ? `required: expected ${expected}`
              : `expected ${expected}, got ${describeValue(got)}`,
        });
        break;
      }
      case 'invalid_value': {
        const got = valueAt(input, path);
        const expected = `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
        issues.push({
          path: at,
          message:
            got === undefined ? `required: ${expected}` : `${expected}, got ${describeValue(got)}`,
        });
        break;
      }
      case 'invalid_union':
        issues.push({
          path: at,
          message: 'expected true, false or an object { "cwd", "writable" }',
        });
        break;
      case 'too_small':
        issues.push({
          path: at,
          message:
            issue.origin === 'string'
              ? 'must not be empty'
              : `must be at least ${String(issue.minimum)}`,
        });
        break;
      case 'invalid_format':
        issues.push({
          path: at,
          message:
            issue.format === 'regex'
              ? `${issue.message}, got ${describeValue(valueAt(input, path))}`
              : issue.format === 'url'
                ? `expected an http(s) URL such as "https://mcp.example.com/mcp", got ${describeValue(valueAt(input, path))}`
                : `expected ${issue.format} format, got ${describeValue(valueAt(input, path))}`,
        });
        break;
      case 'too_big':
        issues.push({ path: at, message: `must be at most ${String(issue.maximum)}` });
        break;
      default:
        issues.push({ path: at, message: issue.message });
    }
  }
  return issues;
}
