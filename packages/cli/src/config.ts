import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { expandEnv, expandServer } from './config-env';
import { ConfigError, type ConfigIssue, describeValue, issuesOf } from './config-error';
import {
  configSchema,
  type DshToolsConfig,
  httpServerSchema,
  type McpServerEntry,
  NON_TOOL_HOOK_EVENTS,
  stdioServerSchema,
} from './config-schema';
import { exampleServerPath } from './example-server-path';

export { ConfigError, type ConfigIssue } from './config-error';
export type {
  AuditConfig,
  ClientConfig,
  DshToolsConfig,
  ExampleToolsConfig,
  HooksConfig,
  HttpServerEntry,
  McpServerEntry,
  PermissionsConfig,
  SandboxConfig,
  StdioServerEntry,
} from './config-schema';

/** The name `dsh-tools` looks for in the working directory when no `--config` is given. */
export const DEFAULT_CONFIG_FILE = 'dsh-tools.json';

/** The largest config file read (a config is a few KB; anything larger is a mistake). */
const MAX_CONFIG_BYTES = 1024 * 1024;

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

// A server name becomes part of tool names (`mcp__<name>__<tool>`) and of messages.
const SERVER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The variable that names the example notes server shipped in this package (its absolute path),
 * unless the environment sets it: a config that says `${DSH_TOOLS_EXAMPLE_SERVER}` works wherever
 * it is copied, as long as it is read by this package.
 */
export const EXAMPLE_SERVER_VARIABLE = 'DSH_TOOLS_EXAMPLE_SERVER';

/**
 * Validates a parsed config value. Every problem is collected (not only the first), and each
 * names its field: `mcpServers.fs.command: expected a string, got number 3`. `${VAR}` references
 * in server commands, arguments, env, URLs and headers are expanded from `env`, as Claude Code
 * does for `.mcp.json`, and `${DSH_TOOLS_EXAMPLE_SERVER}` from {@link EXAMPLE_SERVER_VARIABLE}.
 *
 * @throws {ConfigError} naming `file` and every field at fault.
 */
export function parseConfig(
  value: unknown,
  file: string,
  options: { readonly env?: NodeJS.ProcessEnv } = {},
): { config: DshToolsConfig; warnings: string[] } {
  const given = options.env ?? process.env;
  const env =
    given[EXAMPLE_SERVER_VARIABLE] === undefined
      ? { ...given, [EXAMPLE_SERVER_VARIABLE]: exampleServerPath() }
      : given;
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

  if (top.success && top.data.clients) {
    const seen = new Set<string>();
    top.data.clients.forEach((client, i) => {
      if (seen.has(client.name)) {
        issues.push({ path: `clients[${i}].name`, message: `"${client.name}" is used twice` });
      }
      seen.add(client.name);
      if (client.tokenSha256 === undefined && client.tokenFile === undefined && !top.data.oauth) {
        issues.push({
          path: `clients[${i}]`,
          message:
            'give "tokenSha256" or "tokenFile" (a client without a token is an OAuth identity, and needs an "oauth" section)',
        });
      }
      if (client.mode !== undefined && !top.data.permissions) {
        issues.push({
          path: `clients[${i}].mode`,
          message: 'a client\'s permission mode needs a "permissions" section to apply to',
        });
      }
    });
  }

  // The store's URL may hold a password: `${VAR}` keeps it out of the file, as for servers.
  const state =
    top.success && top.data.state
      ? { ...top.data.state, redis: expandEnv(top.data.state.redis, env, 'state.redis', issues) }
      : undefined;
  // (An unset variable is an issue already.)
  if (state && !state.redis.includes('${') && !/^rediss?:\/\/\S+$/.test(state.redis)) {
    issues.push({
      path: 'state.redis',
      message: 'expected a Redis URL once expanded: redis://[user:password@]host:port[/db]',
    });
  }
  if (issues.length > 0 || !top.success) throw new ConfigError(file, issues);
  const data = top.data;
  const config: DshToolsConfig = {
    mcpServers: servers,
    ...(data.exampleTools !== undefined ? { exampleTools: data.exampleTools } : {}),
    ...(data.permissions ? { permissions: data.permissions } : {}),
    ...(data.sandbox ? { sandbox: data.sandbox } : {}),
    ...(data.hooks ? { hooks: data.hooks } : {}),
    ...(data.clients ? { clients: data.clients } : {}),
    ...(data.audit ? { audit: data.audit } : {}),
    ...(data.oauth ? { oauth: data.oauth } : {}),
    ...(data.pins ? { pins: data.pins } : {}),
    ...(data.limits ? { limits: data.limits } : {}),
    ...(state ? { state } : {}),
    ...(data.telemetry ? { telemetry: data.telemetry } : {}),
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
