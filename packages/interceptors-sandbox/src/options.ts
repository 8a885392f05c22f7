import { homedir } from 'node:os';
import { type ParsedGlob, parseGlob } from './glob';
import { type ResolvedLimits, resolveLimits } from './limits';
import { lexicalAbsolute } from './resolve-path';
import type { SandboxMode, SandboxOptions } from './types';

/**
 * Secrets never read by default, wherever the sandbox is: environment files, SSH, cloud and
 * registry credentials, and other processes' environments.
 */
export const DEFAULT_DENY_READ: readonly string[] = Object.freeze([
  '**/.env*',
  '~/.ssh/**',
  '~/.aws/**',
  '~/.gnupg/**',
  '~/.config/gcloud/**',
  '~/.azure/**',
  '~/.kube/**',
  '~/.docker/config.json',
  '~/.netrc',
  '~/.npmrc',
  '~/.git-credentials',
  '/proc/*/environ',
  '/proc/*/task/*/environ',
]);

/**
 * Files never written by default: secrets, git hooks and config (code that runs later, outside
 * the sandbox), and the shell start-up files that every later shell runs.
 */
export const DEFAULT_DENY_WRITE: readonly string[] = Object.freeze([
  '**/.env*',
  '~/.ssh/**',
  '~/.aws/**',
  '**/.git/hooks/**',
  '**/.git/config',
  '~/.bashrc',
  '~/.bash_profile',
  '~/.bash_login',
  '~/.bash_logout',
  '~/.profile',
  '~/.zshrc',
  '~/.zshenv',
  '~/.zprofile',
  '~/.zlogin',
  '~/.config/fish/**',
  '~/.gitconfig',
]);

/** Host variables the runner's processes see by default; everything else is dropped. */
export const DEFAULT_ENV_ALLOWLIST: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_COLLATE',
  'LC_MESSAGES',
  'LC_NUMERIC',
  'LC_TIME',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TZ',
]);

/** Options after validation, with every default filled in. */
export interface SandboxConfig {
  readonly mode: SandboxMode;
  readonly cwd: string;
  readonly home: string;
  readonly roots: readonly string[];
  readonly denyRead: readonly ParsedGlob[];
  readonly denyWrite: readonly ParsedGlob[];
  readonly network: boolean;
  readonly allowUnsandboxed: boolean;
  readonly exposeRun: boolean;
  readonly bwrapPath: string | undefined;
  readonly envAllowlist: readonly string[];
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly killGraceMs: number;
  readonly scanDepth: number;
  readonly scanMaxEntries: number;
  readonly scanSkip: ReadonlySet<string>;
  readonly limits: ResolvedLimits;
  readonly rawOutput: boolean;
  /** Who narrowed this configuration (`narrow()`), outermost first. */
  readonly narrowedBy?: readonly string[];
}

const MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'full-access'];
const KEYS = [
  'mode',
  'cwd',
  'roots',
  'denyRead',
  'denyWrite',
  'network',
  'allowUnsandboxed',
  'exposeRun',
  'bwrapPath',
  'envAllowlist',
  'timeoutMs',
  'maxOutputBytes',
  'killGraceMs',
  'maskScan',
  'limits',
  'rawOutput',
] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** setTimeout's ceiling; a longer delay would fire at once. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

const describe = (value: unknown): string => {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value === null || Array.isArray(value)) return value === null ? 'null' : 'an array';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
};

const closest = (key: string): string | undefined => {
  const lower = key.toLowerCase();
  return KEYS.find(
    (k) => k.toLowerCase() === lower || k.toLowerCase().startsWith(lower.slice(0, 4)),
  );
};

/**
 * Validates sandbox options and fills in the defaults; throws a `TypeError` naming the option, the
 * value it got, and what it accepts. `who` names the caller in messages.
 */
export function resolveSandboxOptions(options: SandboxOptions, who: string): SandboxConfig {
  const fail = (message: string): never => {
    throw new TypeError(`${who}: ${message}`);
  };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    fail(`options must be an object like { mode: 'workspace-write' } (got ${describe(options)})`);
  }
  for (const key of Object.keys(options)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      const hint = closest(key);
      fail(`unknown option "${key}"${hint ? ` — did you mean "${hint}"?` : ''}`);
    }
  }
  const o = options as Partial<Record<(typeof KEYS)[number], unknown>>;
  if (!MODES.includes(o.mode as SandboxMode)) {
    fail(
      `option "mode" must be one of ${MODES.map((m) => `"${m}"`).join(', ')} (got ${describe(o.mode)})`,
    );
  }
  const path = (name: string, value: unknown, base: string): string => {
    if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) {
      return fail(
        `option "${name}" must be a non-empty path without null bytes (got ${describe(value)})`,
      );
    }
    return lexicalAbsolute(value, base);
  };
  const cwd = o.cwd === undefined ? process.cwd() : path('cwd', o.cwd, process.cwd());
  const list = (name: string, value: unknown): readonly unknown[] => {
    if (value === undefined) return [];
    if (!Array.isArray(value))
      return fail(`option "${name}" must be an array (got ${describe(value)})`);
    return value;
  };
  const rootsGiven = list('roots', o.roots);
  const roots =
    o.roots === undefined ? [cwd] : rootsGiven.map((r, i) => path(`roots[${i}]`, r, cwd));
  if (o.mode === 'workspace-write' && roots.includes('/')) {
    fail('a writable root of "/" is no confinement: use mode "full-access" if that is meant');
  }
  const home = lexicalAbsolute(homedir(), '/');
  const globs = (name: string, defaults: readonly string[]): ParsedGlob[] =>
    [...defaults, ...list(name, o[name as 'denyRead'])].map((g, i) => {
      const parsed = parseGlob(g as string, cwd, home);
      if (typeof parsed === 'string') {
        fail(`option "${name}[${i - defaults.length}]" ${describe(g)} ${parsed}`);
      }
      return parsed as ParsedGlob;
    });
  const bool = (name: string, value: unknown): boolean => {
    if (value === undefined) return false;
    if (typeof value !== 'boolean')
      return fail(`option "${name}" must be a boolean (got ${describe(value)})`);
    return value;
  };
  const int = (
    name: string,
    value: unknown,
    fallback: number,
    min: number,
    max: number,
  ): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return fail(
        `option "${name}" must be an integer from ${min} to ${max} (got ${describe(value)})`,
      );
    }
    return value;
  };
  let bwrapPath: string | undefined;
  if (o.bwrapPath !== undefined) {
    if (
      typeof o.bwrapPath !== 'string' ||
      !o.bwrapPath.startsWith('/') ||
      o.bwrapPath.includes('\0')
    ) {
      fail(`option "bwrapPath" must be an absolute path (got ${describe(o.bwrapPath)})`);
    }
    bwrapPath = o.bwrapPath as string;
  }
  const envAllowlist =
    o.envAllowlist === undefined
      ? DEFAULT_ENV_ALLOWLIST
      : list('envAllowlist', o.envAllowlist).map((name, i) =>
          typeof name === 'string' && ENV_NAME.test(name)
            ? name
            : fail(
                `option "envAllowlist[${i}]" must be a variable name like PATH (got ${describe(name)})`,
              ),
        );
  const scan = o.maskScan ?? {};
  if (scan === null || typeof scan !== 'object' || Array.isArray(scan)) {
    fail(`option "maskScan" must be an object like { depth: 6 } (got ${describe(scan)})`);
  }
  const s = scan as { depth?: unknown; maxEntries?: unknown; skip?: unknown };
  for (const key of Object.keys(s)) {
    if (!['depth', 'maxEntries', 'skip'].includes(key)) fail(`unknown option "maskScan.${key}"`);
  }
  const skip =
    s.skip === undefined
      ? ['node_modules']
      : list('maskScan.skip', s.skip).map((name, i) =>
          typeof name === 'string' && name.length > 0 && !name.includes('/')
            ? name
            : fail(`option "maskScan.skip[${i}]" must be a directory name (got ${describe(name)})`),
        );
  return Object.freeze({
    mode: o.mode as SandboxMode,
    cwd,
    home,
    roots: Object.freeze(roots),
    denyRead: Object.freeze(globs('denyRead', DEFAULT_DENY_READ)),
    denyWrite: Object.freeze(globs('denyWrite', DEFAULT_DENY_WRITE)),
    network: bool('network', o.network),
    allowUnsandboxed: bool('allowUnsandboxed', o.allowUnsandboxed),
    exposeRun: bool('exposeRun', o.exposeRun),
    bwrapPath,
    envAllowlist: Object.freeze([...envAllowlist]),
    timeoutMs: int('timeoutMs', o.timeoutMs, 120_000, 1, MAX_TIMEOUT_MS),
    maxOutputBytes: int('maxOutputBytes', o.maxOutputBytes, 1 << 20, 1, 1 << 30),
    killGraceMs: int('killGraceMs', o.killGraceMs, 250, 0, 60_000),
    scanDepth: int('maskScan.depth', s.depth, 6, 0, 64),
    scanMaxEntries: int('maskScan.maxEntries', s.maxEntries, 20_000, 1, 10_000_000),
    scanSkip: new Set(skip),
    limits: resolveLimits(o.limits, fail),
    rawOutput: bool('rawOutput', o.rawOutput),
  });
}
