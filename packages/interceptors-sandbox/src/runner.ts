import { spawn } from 'node:child_process';
import { accessSync, constants, lstatSync, readFileSync, statSync } from 'node:fs';
import { ToolError, ToolErrorCode } from '@dsh-tools/protocol';
import { findMasks, MaskScanLimitError, type Masks } from './masks';
import { MAX_TIMEOUT_MS, resolveSandboxOptions, type SandboxConfig } from './options';
import { checkAccess, type PolicySnapshot, snapshotPolicy } from './policy';
import {
  isInside,
  PathResolutionError,
  pathShapeProblem,
  resolveLikeKernelSync,
} from './resolve-path';
import type {
  SandboxMode,
  SandboxOptions,
  SandboxRunner,
  SandboxRunOptions,
  SandboxRunResult,
} from './types';

/** The PATH a sandboxed process gets when the host has none. */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The largest argv (all strings, in bytes) accepted: well under the kernel's ARG_MAX. */
const MAX_ARGV_BYTES = 1 << 20;
/** The largest stdin accepted. */
const MAX_STDIN_BYTES = 64 << 20;
const RUN_KEYS = ['cwd', 'env', 'stdin', 'timeoutMs', 'maxOutputBytes', 'signal'];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Everything bubblewrap needs to know about one run. */
export interface BwrapPlan {
  readonly mode: SandboxMode;
  readonly network: boolean;
  /** Resolved writable roots (workspace-write only). */
  readonly writableRoots: readonly string[];
  /** Host directories replaced by an empty tmpfs (/tmp but in full-access; /run). */
  readonly emptied: readonly string[];
  /** Paths under the emptied directories that must stay visible (the cwd), bound read-only. */
  readonly readonlyBinds: readonly string[];
  readonly masks: Masks;
  /** Resolved working directory. */
  readonly cwd: string;
  readonly argv: readonly string[];
}

/**
 * bubblewrap's arguments for a run. Order matters: later mounts cover earlier ones, so the
 * read-only `/` comes first, then the fresh /dev, /proc, /tmp and /run, then the writable roots, and
 * the deny-list masks last so that nothing re-exposes what they hide.
 *
 * Every namespace is unshared (`--unshare-all`; the network only comes back with `--share-net`),
 * all capabilities are dropped and no further user namespace can be created: as root, a process
 * that keeps CAP_SYS_ADMIN can remount `/` read-write and write to the host.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    ...(plan.mode === 'full-access' ? ['--bind', '/', '/'] : ['--ro-bind', '/', '/']),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const dir of plan.emptied) args.push('--tmpfs', dir);
  for (const root of plan.writableRoots) args.push('--bind', root, root);
  for (const path of plan.readonlyBinds) args.push('--ro-bind', path, path);
  for (const path of plan.masks.freeze) args.push('--ro-bind', path, path);
  for (const path of plan.masks.hideFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of plan.masks.hideDirs) args.push('--tmpfs', path, '--remount-ro', path);
  args.push('--chdir', plan.cwd, '--json-status-fd', '3', '--', ...plan.argv);
  return args;
}

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** /run, and /var/run where it is a directory of its own rather than a link to /run. */
const hostRunDirs = (): string[] => {
  const dirs = isDirectory('/run') ? ['/run'] : [];
  try {
    if (lstatSync('/var/run').isDirectory()) dirs.push('/var/run');
  } catch {}
  return dirs;
};

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Where bubblewrap is: the configured path, else `bwrap` on the host's PATH, else /usr/bin. */
export function findBwrap(configured?: string): string | undefined {
  if (configured !== undefined) {
    const usable =
      typeof configured === 'string' && configured.startsWith('/') && !configured.includes('\0');
    return usable && isExecutable(configured) ? configured : undefined;
  }
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/'));
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    if (isExecutable(`${dir}/bwrap`)) return `${dir}/bwrap`;
  }
  return undefined;
}

const located = new Map<string, string>();

/**
 * {@link findBwrap}, remembered once found: every call gets a runner of its own, and looking along
 * PATH each time would cost more than the checks. Absence is not remembered, so installing
 * bubblewrap takes effect without a restart; a binary removed later fails at spawn, closed.
 */
function locateBwrap(configured: string | undefined): string | undefined {
  const key = configured ?? '';
  let path = located.get(key);
  if (path === undefined) {
    path = findBwrap(configured);
    if (path !== undefined) located.set(key, path);
  }
  return path;
}

/** The message of a runner that cannot confine: what is missing and how to get it. */
export function bwrapMissingMessage(who: string, configured?: string): string {
  const where = configured ? `at "${configured}"` : 'on PATH or in /usr/bin';
  const platform =
    process.platform === 'linux'
      ? ''
      : ` bubblewrap runs on Linux only (this is ${process.platform}).`;
  return (
    `${who}: cannot confine the command: bubblewrap (bwrap) was not found ${where}.${platform} ` +
    'Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; ' +
    'Alpine: apk add bubblewrap), or set allowUnsandboxed: true to run commands unconfined.'
  );
}

/** Where a run's output goes until it is full, then how much was dropped. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;
  constructor(private readonly max: number) {}
  push(chunk: Buffer): void {
    const room = this.max - this.kept;
    const part = room <= 0 ? undefined : chunk.length <= room ? chunk : chunk.subarray(0, room);
    if (part) {
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += chunk.length - (part?.length ?? 0);
  }
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped === 0
      ? text
      : `${text}\n[sandbox: output truncated, ${this.dropped} bytes past maxOutputBytes dropped]\n`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether a host pid is gone (or a zombie, which holds nothing and runs nothing). */
const isGone = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
};

/**
 * Waits until the sandbox's first process (its pid namespace's init) is gone: the kernel kills
 * every other process of the namespace before init finishes exiting, so nothing the run started
 * outlives the moment the run resolves.
 */
async function waitGone(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  for (let waited = 0; waited < 5_000 && !isGone(pid); waited += 5) await sleep(5);
}

const describe = (value: unknown): string =>
  typeof value === 'string'
    ? JSON.stringify(value.slice(0, 60))
    : value === null
      ? 'null'
      : Array.isArray(value)
        ? 'an array'
        : typeof value;

interface RunContext {
  /** Who is asking, for messages: `Tool "bash"` or `sandbox runner`. */
  readonly who: string;
  /** The call's signal, observed besides any signal given to run(). */
  readonly signal?: AbortSignal | undefined;
}

/** Checks the input of run() and fills in the defaults; throws a `TypeError` naming the field. */
function checkRunInput(
  config: SandboxConfig,
  who: string,
  argv: unknown,
  options: unknown,
): {
  argv: string[];
  cwd: string | undefined;
  env: Record<string, string>;
  stdin: Buffer | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
} {
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
  return {
    argv: args,
    cwd,
    env,
    stdin,
    timeoutMs: int('timeoutMs', config.timeoutMs, MAX_TIMEOUT_MS),
    maxOutputBytes: int('maxOutputBytes', config.maxOutputBytes, 1 << 30),
    signal: signal as AbortSignal | undefined,
  };
}

/** The environment of a run: the host's allowlisted variables, sane defaults, then the caller's. */
function runEnv(config: SandboxConfig, extra: Record<string, string>): Record<string, string> {
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

/** Creates the runner for one call (or for a host), with `context` naming who runs. */
export function createRunnerFor(config: SandboxConfig, context: RunContext): SandboxRunner {
  const run = async (
    argv: readonly string[],
    options?: SandboxRunOptions,
  ): Promise<SandboxRunResult> => {
    const input = checkRunInput(config, context.who, argv, options);
    const signals = [context.signal, input.signal].filter((s): s is AbortSignal => s !== undefined);
    const bwrap = locateBwrap(config.bwrapPath);
    if (bwrap === undefined && !config.allowUnsandboxed) {
      throw new ToolError(
        ToolErrorCode.UNAVAILABLE,
        bwrapMissingMessage(context.who, config.bwrapPath),
      );
    }
    let policy: PolicySnapshot;
    let cwd: string;
    try {
      policy = snapshotPolicy(config);
      cwd = input.cwd === undefined ? policy.cwd : resolveLikeKernelSync(input.cwd, policy.cwd);
    } catch (error) {
      if (!(error instanceof PathResolutionError)) throw error;
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: the sandbox cannot resolve its paths: ${error.message}`,
      );
    }
    const rule = checkAccess(policy, 'read', input.cwd ?? config.cwd, [cwd]);
    if (rule !== undefined) {
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: sandbox.run cwd "${input.cwd ?? config.cwd}" (resolved "${cwd}") is refused by ${rule}; run somewhere else`,
        { details: { arg: 'cwd', path: input.cwd ?? config.cwd, resolved: cwd, rule } },
      );
    }
    if (!isDirectory(cwd)) {
      throw new Error(`${context.who}: sandbox.run cwd "${cwd}" is not an existing directory`);
    }
    const env = runEnv(config, input.env);
    if (signals.some((s) => s.aborted)) {
      return {
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        truncated: false,
        timedOut: false,
        aborted: true,
        sandboxed: bwrap !== undefined,
      };
    }
    if (bwrap === undefined)
      return spawnAndWait(input.argv[0]!, input.argv.slice(1), {
        cwd,
        env,
        input,
        signals,
        config,
        sandboxed: false,
        who: context.who,
      });

    const writableRoots =
      config.mode === 'workspace-write'
        ? policy.roots.map(([, real]) => real).filter(isDirectory)
        : [];
    if (writableRoots.includes('/')) {
      throw new ToolError(
        ToolErrorCode.SANDBOX_VIOLATION,
        `${context.who}: a writable root resolves to "/"; use mode "full-access" if that is meant`,
      );
    }
    const fresh = (p: string) => isInside(p, '/proc') || isInside(p, '/dev');
    // Directories replaced by an empty tmpfs: /tmp (but in full-access), and /run, where host
    // daemons keep their sockets (docker, dbus, ssh-agent): connecting to a Unix socket needs no
    // write access to its file system, so a read-only bind does not stop it.
    const emptied = [
      ...(config.mode === 'full-access' ? [] : ['/tmp']),
      ...(config.exposeRun ? [] : hostRunDirs()),
    ];
    const bound = [
      cwd,
      policy.cwd,
      ...(config.mode === 'read-only' ? policy.roots.map(([, r]) => r) : []),
    ];
    const readonlyBinds = [...new Set(bound)].filter(
      (p) =>
        emptied.some((d) => isInside(p, d) && p !== d) &&
        !writableRoots.some((r) => isInside(p, r)),
    );
    if (config.network && !config.exposeRun) {
      // DNS keeps working where /etc/resolv.conf points into /run (systemd-resolved).
      const resolvConf = resolveLikeKernelSync('/etc/resolv.conf', '/');
      if (emptied.some((d) => isInside(resolvConf, d)) && isFile(resolvConf)) {
        readonlyBinds.push(resolvConf);
      }
    }
    const visible = (p: string) =>
      !fresh(p) &&
      (!emptied.some((d) => isInside(p, d)) ||
        [...writableRoots, ...readonlyBinds].some((b) => isInside(p, b)));
    const writable = (p: string) =>
      config.mode === 'full-access' || writableRoots.some((r) => isInside(p, r));
    let masks: Masks;
    try {
      masks = findMasks(policy, cwd, { visible, writable });
    } catch (error) {
      if (error instanceof MaskScanLimitError) {
        throw new ToolError(
          ToolErrorCode.UNAVAILABLE,
          `${context.who}: ${error.message}, so the deny lists could not be applied inside the sandbox; ` +
            'raise maskScan.maxEntries, lower maskScan.depth, add large directories to maskScan.skip, or narrow the roots',
        );
      }
      throw error;
    }
    const args = bwrapArgs({
      mode: config.mode,
      network: config.network,
      emptied,
      writableRoots,
      readonlyBinds,
      masks,
      cwd,
      argv: input.argv,
    });
    return spawnAndWait(bwrap, args, {
      cwd: '/',
      env,
      input,
      signals,
      config,
      sandboxed: true,
      who: context.who,
    });
  };
  return Object.freeze({ mode: config.mode, run });
}

interface SpawnSpec {
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly input: ReturnType<typeof checkRunInput>;
  readonly signals: readonly AbortSignal[];
  readonly config: SandboxConfig;
  readonly sandboxed: boolean;
  readonly who: string;
}

/**
 * Spawns one process in its own process group and resolves when it and everything it started
 * are gone. Past the time limit or on abort the group gets SIGTERM, then SIGKILL after the grace.
 * The environment goes through spawn's `env` rather than bwrap's `--setenv`: argv is readable by
 * every user in /proc, the environment only by the owner.
 */
function spawnAndWait(
  file: string,
  args: readonly string[],
  spec: SpawnSpec,
): Promise<SandboxRunResult> {
  const { input, config } = spec;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      stdio: [input.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', spec.sandboxed ? 'pipe' : 'ignore'],
    });
    const stdout = new Capture(input.maxOutputBytes);
    const stderr = new Capture(input.maxOutputBytes);
    let status = '';
    let stopped: 'timeout' | 'abort' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (why: 'timeout' | 'abort') => {
      if (stopped !== undefined || child.pid === undefined || child.exitCode !== null) return;
      stopped = why;
      const group = -child.pid;
      try {
        process.kill(group, 'SIGTERM');
      } catch {}
      killTimer = setTimeout(() => {
        try {
          process.kill(group, 'SIGKILL');
        } catch {}
      }, config.killGraceMs);
    };
    const timer = setTimeout(() => stop('timeout'), input.timeoutMs);
    const onAbort = () => stop('abort');
    for (const s of spec.signals) s.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      for (const s of spec.signals) s.removeEventListener('abort', onAbort);
    };
    child.stdout!.on('data', (c: Buffer) => stdout.push(c));
    child.stderr!.on('data', (c: Buffer) => stderr.push(c));
    const statusStream = child.stdio[3] as NodeJS.ReadableStream | null;
    statusStream?.on('data', (c: Buffer) => {
      if (status.length < 65_536) status += c.toString('utf8');
    });
    if (input.stdin && child.stdin) {
      // A command that exits without reading its input closes the pipe: that is not a failure.
      child.stdin.on('error', () => {});
      child.stdin.end(input.stdin);
    }
    child.on('error', (error) => {
      cleanup();
      reject(
        new ToolError(
          ToolErrorCode.UNAVAILABLE,
          `${spec.who}: cannot start "${file}": ${(error as Error).message}`,
          { cause: error },
        ),
      );
    });
    child.on('close', (code, signal) => {
      cleanup();
      let childPid: number | undefined;
      let exit: number | undefined;
      for (const line of status.split('\n')) {
        try {
          const record = JSON.parse(line) as { 'child-pid'?: number; 'exit-code'?: number };
          if (typeof record['child-pid'] === 'number') childPid = record['child-pid'];
          if (typeof record['exit-code'] === 'number') exit = record['exit-code'];
        } catch {}
      }
      void waitGone(childPid).then(() => {
        // bubblewrap wrote no exit code: the command never ran. A program that is not there is
        // the command's failure (a shell says 127); anything else is the sandbox's.
        const notFound = /^bwrap: execvp /m.test(stderr.text());
        if (
          spec.sandboxed &&
          stopped === undefined &&
          exit === undefined &&
          signal === null &&
          notFound
        ) {
          exit = 127;
        }
        if (spec.sandboxed && stopped === undefined && exit === undefined && signal === null) {
          reject(
            new ToolError(
              ToolErrorCode.UNAVAILABLE,
              `${spec.who}: bubblewrap could not set up the sandbox: ${stderr.text().trim().slice(0, 2000) || `exit code ${code}`}`,
            ),
          );
          return;
        }
        const truncated = stdout.dropped > 0 || stderr.dropped > 0;
        resolve({
          exitCode: stopped ? null : (exit ?? code),
          signal: stopped ? (signal ?? 'SIGKILL') : signal,
          stdout: stdout.text(),
          stderr: stderr.text(),
          truncated,
          timedOut: stopped === 'timeout',
          aborted: stopped === 'abort',
          sandboxed: spec.sandboxed,
        });
      });
    });
  });
}

/**
 * Creates a confined process runner outside any tool call: for hosts that run commands of their
 * own (a `!` shell escape, a hook) under the same rules as tools. Throws a `TypeError` on invalid
 * options.
 */
export function createSandboxRunner(options: SandboxOptions): SandboxRunner {
  const config = resolveSandboxOptions(options, 'createSandboxRunner');
  return createRunnerFor(config, { who: 'sandbox runner' });
}
