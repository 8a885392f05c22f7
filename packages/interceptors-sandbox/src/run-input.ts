import { MAX_TIMEOUT_MS, type SandboxConfig } from './options';
import { pathShapeProblem } from './resolve-path';

/** The PATH a sandboxed process gets when the host has none. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The largest argv (all strings, in bytes) accepted: well under the kernel's ARG_MAX. */
const MAX_ARGV_BYTES = 1 << 20;
/** The largest stdin accepted. */
const MAX_STDIN_BYTES = 64 << 20;
const RUN_KEYS = ['cwd', 'env', 'stdin', 'timeoutMs', 'maxOutputBytes', 'signal', 'rawOutput'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const describe = (value: unknown): string =>
  typeof value === 'string'
    ? JSON.stringify(value.slice(0, 60))
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value;

/** run()'s input, checked, with the defaults filled in. */
export interface RunInput {
  readonly argv: string[];
  readonly cwd: string | undefined;
  readonly env: Record<string, string>;
  readonly stdin: Buffer | undefined;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly signal: AbortSignal | undefined;
  readonly rawOutput: boolean;
}

/** Checks the input of run() and fills in the defaults; throws a `TypeError` naming the field. */
export function checkRunInput(
  config: SandboxConfig,
  who: string,
  argv: unknown,
  options: unknown,
): RunInput {
  const fail = (message: string): never => {
    throw new TypeError(`${who}: sandbox.run ${message}`);
  };
  if (!Array.isArray(argv) || argv.length === 0) {
    fail(
      `needs argv as a non-empty array of strings, like ['sh', '-c', 'ls'] (got ${describe(argv)})`,
    );
  }
  let bytes = 0;
  const args = (argv as unknown[]).map((a, i) => {
    if (typeof a !== 'string') return fail(`argv[${i}] must be a string (got ${describe(a)})`);
    if (a.includes('\0')) return fail(`argv[${i}] contains a null byte`);
    bytes += a.length;
    return a;
  });
  if (args[0] === '') fail('argv[0] must name a program (got "")');
  if (bytes > MAX_ARGV_BYTES)
    fail(`argv is larger than ${MAX_ARGV_BYTES} bytes; pass data on stdin`);
  const o = (options ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o))
    fail(`options must be an object (got ${describe(options)})`);
  for (const key of Object.keys(o)) {
    if (!RUN_KEYS.includes(key)) fail(`has no option "${key}" (known: ${RUN_KEYS.join(', ')})`);
  }
  let cwd: string | undefined;
  if (o.cwd !== undefined) {
    const problem = pathShapeProblem(o.cwd);
    if (problem) fail(`option "cwd" ${problem}`);
    cwd = o.cwd as string;
  }
  const env: Record<string, string> = {};
  if (o.env !== undefined) {
    if (o.env === null || typeof o.env !== 'object' || Array.isArray(o.env)) {
      fail(`option "env" must be an object of strings (got ${describe(o.env)})`);
    }
    for (const [name, value] of Object.entries(o.env as object)) {
      if (!ENV_NAME.test(name)) fail(`option "env" has an invalid variable name ${describe(name)}`);
      if (typeof value !== 'string' || value.includes('\0')) {
        fail(`option "env.${name}" must be a string without null bytes (got ${describe(value)})`);
      }
      env[name] = value as string;
    }
  }
  let stdin: Buffer | undefined;
  if (o.stdin !== undefined) {
    if (typeof o.stdin === 'string') stdin = Buffer.from(o.stdin, 'utf8');
    else if (o.stdin instanceof Uint8Array) stdin = Buffer.from(o.stdin);
    else fail(`option "stdin" must be a string or a Uint8Array (got ${describe(o.stdin)})`);
    if (stdin!.length > MAX_STDIN_BYTES)
      fail(`option "stdin" is larger than ${MAX_STDIN_BYTES} bytes`);
  }
  const int = (name: string, fallback: number, max: number): number => {
    const v = o[name];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
      return fail(
        `option "${name}" must be an integer from 1 to ${max} (got ${describe(v)} ${String(v)})`,
      );
    }
    return v;
  };
  const signal = o.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    fail(`option "signal" must be an AbortSignal (got ${describe(signal)})`);
  }
  if (o.rawOutput !== undefined && typeof o.rawOutput !== 'boolean') {
    fail(`option "rawOutput" must be a boolean (got ${describe(o.rawOutput)})`);
  }
  return {
    argv: args,
    cwd,
    env,
    stdin,
    timeoutMs: int('timeoutMs', config.timeoutMs, MAX_TIMEOUT_MS),
    maxOutputBytes: int('maxOutputBytes', config.maxOutputBytes, 1 << 30),
    signal: signal as AbortSignal | undefined,
    rawOutput: (o.rawOutput as boolean | undefined) ?? config.rawOutput,
  };
}

/** The environment of a run: the host's allowlisted variables, sane defaults, then the caller's. */
export function runEnv(
  config: SandboxConfig,
  extra: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of config.envAllowlist) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= DEFAULT_PATH;
  env.HOME ??= config.home;
  if (config.mode !== 'full-access') env.TMPDIR = '/tmp';
  return Object.assign(env, extra);
}
