import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

/** The name `dsh-tools` looks for in the working directory when no `--config` is given. */
export const DEFAULT_CONFIG_FILE = 'dsh-tools.json';

/** The largest config file read (a config is a few KB; anything larger is a mistake). */
const MAX_CONFIG_BYTES = 1024 * 1024;

const nonEmpty = z.string().min(1);
const stringRecord = z.record(z.string(), z.string());
const timeoutMs = z.number().int().min(0).max(2_147_483_647);
const toolFilter = z.array(nonEmpty);

// Options of the bridge a config may set beside the `.mcp.json` fields. Claude Code ignores keys
// it does not know, so a `.mcp.json` extended with these still loads there.
const bridgeOptions = {
  timeoutMs: timeoutMs.optional(),
  maxTotalTimeoutMs: timeoutMs.optional(),
  startupTimeoutMs: timeoutMs.optional(),
  trust: z.boolean().optional(),
  include: toolFilter.optional(),
  exclude: toolFilter.optional(),
};

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: nonEmpty,
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  cwd: nonEmpty.optional(),
  ...bridgeOptions,
});

const httpServerSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringRecord.optional(),
  ...bridgeOptions,
});

// `Tool`, `Tool(specifier)`, `mcp__server`, `mcp__server__tool`: Claude Code's rule syntax.
const permissionRule = z
  .string()
  .regex(
    /^[A-Za-z0-9_*-]+(\(.*\))?$/s,
    'expected a rule like "Read", "Bash(npm test:*)" or "mcp__server__tool"',
  );

const permissionsSchema = z.strictObject({
  allow: z.array(permissionRule).optional(),
  ask: z.array(permissionRule).optional(),
  deny: z.array(permissionRule).optional(),
  defaultMode: z
    .enum(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'])
    .optional(),
  additionalDirectories: z.array(nonEmpty).optional(),
});

const sandboxSchema = z.strictObject({
  mode: z.enum(['read-only', 'workspace-write', 'full-access']),
  cwd: nonEmpty.optional(),
  roots: z.array(nonEmpty).optional(),
  denyRead: z.array(nonEmpty).optional(),
  denyWrite: z.array(nonEmpty).optional(),
  network: z.boolean().optional(),
  allowUnsandboxed: z.boolean().optional(),
});

const hookCommandSchema = z.strictObject({
  type: z.literal('command'),
  command: nonEmpty,
  timeout: z.number().positive().max(86_400).optional(),
  onError: z.enum(['block', 'allow']).optional(),
});

const hookMatcherSchema = z.strictObject({
  matcher: z.string().optional(),
  hooks: z.array(hookCommandSchema),
});

/** Claude Code's hook events that are not about a tool call: accepted, ignored, warned about. */
const NON_TOOL_HOOK_EVENTS = new Set([
  'Notification',
  'UserPromptSubmit',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionStart',
  'SessionEnd',
]);

const hooksSchema = z
  .object({
    PreToolUse: z.array(hookMatcherSchema).optional(),
    PostToolUse: z.array(hookMatcherSchema).optional(),
  })
  .catchall(z.unknown());

const exampleToolsSchema = z.union([
  z.boolean(),
  z.strictObject({ cwd: nonEmpty.optional(), writable: z.boolean().optional() }),
]);

const configSchema = z.strictObject({
  $schema: z.string().optional(),
  mcpServers: z.record(z.string(), z.unknown()).optional(),
  exampleTools: exampleToolsSchema.optional(),
  permissions: permissionsSchema.optional(),
  sandbox: sandboxSchema.optional(),
  hooks: hooksSchema.optional(),
});

/** A server started as a child process speaking MCP on stdio (the `.mcp.json` shape). */
export type StdioServerEntry = z.infer<typeof stdioServerSchema>;
/** A server reached over Streamable HTTP (`"type": "http"` in `.mcp.json`). */
export type HttpServerEntry = z.infer<typeof httpServerSchema>;
/** One entry of `mcpServers`. */
export type McpServerEntry = StdioServerEntry | HttpServerEntry;
/** Claude Code's `permissions` settings. */
export type PermissionsConfig = z.infer<typeof permissionsSchema>;
/** The sandbox interceptor's options, as a config file holds them. */
export type SandboxConfig = z.infer<typeof sandboxSchema>;
/** Claude Code's `hooks` settings (only `PreToolUse` and `PostToolUse` run). */
export type HooksConfig = z.infer<typeof hooksSchema>;
/** Whether the built-in example tools are registered, and on which directory. */
export type ExampleToolsConfig = z.infer<typeof exampleToolsSchema>;

/** A validated config: what `dsh-tools` runs. */
export interface DshToolsConfig {
  readonly mcpServers: Readonly<Record<string, McpServerEntry>>;
  readonly exampleTools?: ExampleToolsConfig;
  readonly permissions?: PermissionsConfig;
  readonly sandbox?: SandboxConfig;
  readonly hooks?: HooksConfig;
}

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

/** A config as loaded: the validated content, where it came from, and warnings worth showing. */
export interface LoadedConfig {
  readonly config: DshToolsConfig;
  /** The absolute path of the file, or `undefined` for the embedded default. */
  readonly file: string | undefined;
  /** The directory relative paths in the config resolve against. */
  readonly baseDir: string;
  /** Things accepted but ignored (Claude Code hook events that are not about tools). */
  readonly warnings: readonly string[];
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function describeValue(value: unknown): string {
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

function issuesOf(
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

// `${VAR}` and `${VAR:-default}`, as Claude Code expands them in `.mcp.json`.
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandEnv(
  value: string,
  env: NodeJS.ProcessEnv,
  path: string,
  issues: ConfigIssue[],
): string {
  return value.replace(ENV_REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    if (set !== undefined) return set;
    if (fallback !== undefined) return fallback;
    issues.push({
      path,
      message: `refers to the environment variable ${name}, which is not set: set it, or write \${${name}:-default}`,
    });
    return whole;
  });
}

function expandServer(
  entry: McpServerEntry,
  env: NodeJS.ProcessEnv,
  at: string,
  issues: ConfigIssue[],
): McpServerEntry {
  const map = (record: Record<string, string> | undefined, field: string) =>
    record === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(record).map(([k, v]) => [
            k,
            expandEnv(v, env, `${at}.${field}.${k}`, issues),
          ]),
        );
  if (entry.type === 'http') {
    const headers = map(entry.headers, 'headers');
    return {
      ...entry,
      url: expandEnv(entry.url, env, `${at}.url`, issues),
      ...(headers ? { headers } : {}),
    };
  }
  const stdio = entry as StdioServerEntry;
  const envVars = map(stdio.env, 'env');
  return {
    ...stdio,
    command: expandEnv(stdio.command, env, `${at}.command`, issues),
    ...(stdio.args
      ? { args: stdio.args.map((a, i) => expandEnv(a, env, `${at}.args[${i}]`, issues)) }
      : {}),
    ...(envVars ? { env: envVars } : {}),
    ...(stdio.cwd ? { cwd: expandEnv(stdio.cwd, env, `${at}.cwd`, issues) } : {}),
  };
}

// A server name becomes part of tool names (`mcp__<name>__<tool>`) and of messages.
const SERVER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Validates a parsed config value. Every problem is collected (not only the first), and each
 * names its field: `mcpServers.fs.command: expected a string, got number 3`. `${VAR}` references
 * in server commands, arguments, env, URLs and headers are expanded from `env`, as Claude Code
 * does for `.mcp.json`.
 *
 * @throws {ConfigError} naming `file` and every field at fault.
 */
export function parseConfig(
  value: unknown,
  file: string,
  options: { readonly env?: NodeJS.ProcessEnv } = {},
): { config: DshToolsConfig; warnings: string[] } {
  const env = options.env ?? process.env;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(file, [
      {
        path: '',
        message: `expected a JSON object ({ "mcpServers": { … } }), got ${describeValue(value)}`,
      },
    ]);
  }
  const issues: ConfigIssue[] = [];
  const warnings: string[] = [];
  const top = configSchema.safeParse(value);
  if (!top.success) issues.push(...issuesOf(top.error, value));

  const servers: Record<string, McpServerEntry> = {};
  const rawServers = (value as { mcpServers?: unknown }).mcpServers;
  if (rawServers !== null && typeof rawServers === 'object' && !Array.isArray(rawServers)) {
    for (const [name, raw] of Object.entries(rawServers)) {
      const at = `mcpServers.${name}`;
      if (!SERVER_NAME.test(name)) {
        issues.push({
          path: at,
          message:
            'a server name is 1-64 characters of letters, digits, "_", "-" and "." (it becomes part of tool names)',
        });
        continue;
      }
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        issues.push({
          path: at,
          message: `expected an object with "command" or "url", got ${describeValue(raw)}`,
        });
        continue;
      }
      const kind = (raw as { type?: unknown }).type;
      if (kind === 'sse') {
        issues.push({
          path: `${at}.type`,
          message:
            'the SSE transport is deprecated and not supported: use "type": "http" (Streamable HTTP)',
        });
        continue;
      }
      const isHttp = kind === 'http' || (kind === undefined && 'url' in raw && !('command' in raw));
      if (isHttp && kind === undefined) {
        issues.push({
          path: `${at}.type`,
          message: 'required for a server with "url": write "type": "http"',
        });
        continue;
      }
      if (kind !== undefined && kind !== 'http' && kind !== 'stdio') {
        issues.push({
          path: `${at}.type`,
          message: `expected "stdio" or "http", got ${describeValue(kind)}`,
        });
        continue;
      }
      const parsed = (isHttp ? httpServerSchema : stdioServerSchema).safeParse(raw);
      if (!parsed.success) {
        issues.push(...issuesOf(parsed.error, value, ['mcpServers', name]));
        continue;
      }
      servers[name] = expandServer(parsed.data as McpServerEntry, env, at, issues);
    }
  }

  if (top.success && top.data.hooks) {
    for (const event of Object.keys(top.data.hooks)) {
      if (event === 'PreToolUse' || event === 'PostToolUse') continue;
      if (NON_TOOL_HOOK_EVENTS.has(event)) {
        warnings.push(
          `${file}: hooks.${event} is not a tool event; dsh-tools runs only PreToolUse and PostToolUse hooks and ignores it.`,
        );
      } else {
        issues.push({
          path: `hooks.${event}`,
          message: 'unknown hook event (dsh-tools runs PreToolUse and PostToolUse)',
        });
      }
    }
  }

  if (issues.length > 0 || !top.success) throw new ConfigError(file, issues);
  const data = top.data;
  const config: DshToolsConfig = {
    mcpServers: servers,
    ...(data.exampleTools !== undefined ? { exampleTools: data.exampleTools } : {}),
    ...(data.permissions ? { permissions: data.permissions } : {}),
    ...(data.sandbox ? { sandbox: data.sandbox } : {}),
    ...(data.hooks ? { hooks: data.hooks } : {}),
  };
  return { config, warnings };
}

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Relative `file`s resolve here, and the default file is looked for here (default `process.cwd()`). */
  readonly cwd?: string;
  /** Where `${VAR}` references are expanded from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** What to use when `file` is not given and `dsh-tools.json` does not exist (default: the embedded default). */
  readonly fallback?: () => LoadedConfig;
}

/**
 * Loads and validates a config file. With no `file`, `./dsh-tools.json` is used when it exists,
 * else `options.fallback()` (the CLI passes the embedded default). A `file` that was named but
 * cannot be read is an error: silently running on a default would run the wrong tools.
 *
 * @throws {ConfigError} when the file is missing (if named), unreadable, not JSON, or invalid.
 */
export async function loadConfig(
  file?: string,
  options: LoadConfigOptions = {},
): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const named = file !== undefined;
  const path = resolve(cwd, file ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    const buffer = await readFile(path);
    if (buffer.byteLength > MAX_CONFIG_BYTES) {
      throw new ConfigError(path, [
        {
          path: '',
          message: `the file is ${buffer.byteLength} bytes; a config is at most ${MAX_CONFIG_BYTES}`,
        },
      ]);
    }
    text = buffer.toString('utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !named && options.fallback) return options.fallback();
    const why =
      code === 'ENOENT'
        ? 'the file does not exist (check the path given to --config)'
        : code === 'EISDIR'
          ? 'it is a directory; name the JSON file in it'
          : `it cannot be read (${code ?? String(error)})`;
    throw new ConfigError(path, [{ path: '', message: why }]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new ConfigError(path, [
      { path: '', message: `not valid JSON: ${(error as Error).message}` },
    ]);
  }
  const { config, warnings } = parseConfig(value, path, options.env ? { env: options.env } : {});
  return { config, file: path, baseDir: resolve(path, '..'), warnings };
}

/** Resolves a path from the config against the config's directory (absolute paths stay). */
export function resolveFromConfig(loaded: Pick<LoadedConfig, 'baseDir'>, path: string): string {
  return isAbsolute(path) ? path : resolve(loaded.baseDir, path);
}
