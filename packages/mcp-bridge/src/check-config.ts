import { quoteValue } from './format';
import type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from './types';

/**
 * Checks a server config as `connectMcpServer` receives it, which may come from a JSON file or a
 * caller that is not TypeScript: every field is checked for its type and range, and the first
 * problem throws a TypeError that names the server and the field. Returns the config unchanged.
 */
export function checkConfig(config: McpServerConfig): McpServerConfig {
  if (typeof config !== 'object' || config === null) {
    throw new TypeError(
      'connectMcpServer: config must be an object like { name, command } or { name, url }.',
    );
  }
  const name = (config as { name?: unknown }).name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) {
    throw new TypeError(
      `connectMcpServer: "name" must be a non-empty string of at most 256 characters (got ${quoteValue(name)}).`,
    );
  }
  const hasCommand = 'command' in config && config.command !== undefined;
  const hasUrl = 'url' in config && config.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new TypeError(
      `connectMcpServer: server "${name}" needs exactly one of "command" (stdio) or "url" (Streamable HTTP).`,
    );
  }
  if (hasCommand) {
    const c = config as McpStdioServerConfig;
    if (typeof c.command !== 'string' || c.command === '') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "command" must be a non-empty string.`,
      );
    }
    if (
      c.args !== undefined &&
      (!Array.isArray(c.args) || c.args.some((a) => typeof a !== 'string'))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "args" must be an array of strings.`,
      );
    }
    if (c.env !== undefined && !isStringRecord(c.env)) {
      throw new TypeError(`connectMcpServer: server "${name}": "env" must map names to strings.`);
    }
  } else {
    const c = config as McpHttpServerConfig;
    let url: URL;
    try {
      url = new URL(String(c.url));
    } catch {
      throw new TypeError(
        `connectMcpServer: server "${name}": "url" is not a URL (got ${quoteValue(c.url)}).`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "url" must be http: or https: (got ${url.protocol}).`,
      );
    }
    if (c.headers !== undefined && !isStringRecord(c.headers)) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "headers" must map names to strings.`,
      );
    }
  }
  for (const key of [
    'timeoutMs',
    'maxTotalTimeoutMs',
    'startupTimeoutMs',
    'listChangedDebounceMs',
  ] as const) {
    const value = config[key];
    if (
      value !== undefined &&
      !(typeof value === 'number' && value >= 0 && Number.isFinite(value))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be a number >= 0 (got ${quoteValue(value)}).`,
      );
    }
  }
  if (config.trust !== undefined && typeof config.trust !== 'boolean') {
    throw new TypeError(
      `connectMcpServer: server "${name}": "trust" must be true or false (got ${quoteValue(config.trust)}); a string such as "false" is not accepted, so that a config cannot trust a server by accident.`,
    );
  }
  const maxBytes = config.maxMessageBytes;
  if (
    maxBytes !== undefined &&
    !(typeof maxBytes === 'number' && Number.isInteger(maxBytes) && maxBytes >= 1)
  ) {
    throw new TypeError(
      `connectMcpServer: server "${name}": "maxMessageBytes" must be a whole number >= 1 (got ${quoteValue(maxBytes)}).`,
    );
  }
  checkReconnect(name, config.reconnect);
  for (const key of ['onProgress', 'onError'] as const) {
    if (config[key] !== undefined && typeof config[key] !== 'function') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be a function (got ${quoteValue(config[key])}).`,
      );
    }
  }
  for (const key of ['include', 'exclude'] as const) {
    const list = config[key];
    if (
      list !== undefined &&
      (!Array.isArray(list) || list.some((f) => typeof f !== 'string' && !(f instanceof RegExp)))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be an array of strings or RegExps.`,
      );
    }
  }
  return config;
}

/** The reconnect policy's own fields, each a number within its range. */
const RECONNECT_FIELDS: Readonly<Record<string, { min: number; integer?: boolean }>> = {
  maxAttempts: { min: 0, integer: true },
  initialDelayMs: { min: 0 },
  maxDelayMs: { min: 0 },
  factor: { min: 1 },
  budgetMs: { min: 0 },
};

function checkReconnect(name: string, policy: unknown): void {
  if (policy === undefined || policy === false) return;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new TypeError(
      `connectMcpServer: server "${name}": "reconnect" must be false or an object like { maxAttempts: 8 } (got ${quoteValue(policy)}); use {} for the defaults.`,
    );
  }
  for (const [key, value] of Object.entries(policy)) {
    const rule = Object.hasOwn(RECONNECT_FIELDS, key) ? RECONNECT_FIELDS[key] : undefined;
    if (!rule) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "reconnect" has an unknown field ${quoteValue(key)}; the fields are ${Object.keys(RECONNECT_FIELDS).join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < rule.min ||
      (rule.integer && !Number.isInteger(value))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "reconnect.${key}" must be ${rule.integer ? 'an integer' : 'a number'} >= ${rule.min} (got ${typeof value === 'number' ? String(value) : quoteValue(value)}).`,
      );
    }
  }
}

const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');
