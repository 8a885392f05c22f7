import type { ConfigIssue } from './config-error';
import type { McpServerEntry, StdioServerEntry } from './config-schema';

// `${VAR}` and `${VAR:-default}`, as Claude Code expands them in `.mcp.json`.
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` and `${VAR:-default}` in `value`; an unset variable without a default is an issue at `path`. */
export function expandEnv(
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

/**
 * Expands `${VAR}` references in a server's command, arguments, env, cwd, URL and headers, as
 * Claude Code does for `.mcp.json`. An unset variable without a default becomes an issue at its field.
 */
export function expandServer(
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
