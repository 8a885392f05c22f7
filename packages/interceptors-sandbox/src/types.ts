import type { NarrowableSandbox, SandboxNarrowing } from '@dsh-tools/protocol';
import type { SandboxLimits } from './limits';

export type { SandboxLimits, SandboxNarrowing };

/**
 * What a sandbox permits. `read-only`: only tools marked `readOnly`, no write path, nothing
 * writable in the runner. `workspace-write`: write paths and the runner's writes land only inside
 * the writable roots. `full-access`: only the deny lists apply.
 */
export type SandboxMode = 'read-only' | 'workspace-write' | 'full-access';

/** Bounds of the scan that finds deny-list matches to mask inside the runner. */
export interface SandboxMaskScanOptions {
  /** How many directory levels below the cwd and each root are searched (default 6). */
  readonly depth?: number;
  /** The most entries one scan may visit; past it the run fails closed (default 20,000). */
  readonly maxEntries?: number;
  /** Directory names never descended into (default `['node_modules']`). */
  readonly skip?: readonly string[];
}

/** Options of {@link sandboxInterceptor} and {@link createSandboxRunner}. */
export interface SandboxOptions {
  readonly mode: SandboxMode;
  /** The directory relative paths are resolved against (default `process.cwd()`). */
  readonly cwd?: string;
  /** Writable roots of `workspace-write` (default `[cwd]`); relative ones resolve against `cwd`. */
  readonly roots?: readonly string[];
  /** Globs never read (nor written), added to {@link DEFAULT_DENY_READ}. */
  readonly denyRead?: readonly string[];
  /** Globs never written, added to {@link DEFAULT_DENY_WRITE}. */
  readonly denyWrite?: readonly string[];
  /** Whether the runner's processes may reach the network (default `false`). */
  readonly network?: boolean;
  /** Whether the runner may run commands unconfined when bubblewrap is missing (default `false`). */
  readonly allowUnsandboxed?: boolean;
  /**
   * Whether the runner's processes see the host's /run (default `false`: an empty tmpfs). Host
   * daemons listen there (docker, dbus, ssh-agent), and a Unix socket accepts connections through a
   * read-only mount, network namespace or not.
   */
  readonly exposeRun?: boolean;
  /** The bubblewrap executable (default: `bwrap` on `PATH`, then `/usr/bin/bwrap`). */
  readonly bwrapPath?: string;
  /** Environment variables copied from the host into the runner (default {@link DEFAULT_ENV_ALLOWLIST}). */
  readonly envAllowlist?: readonly string[];
  /** Runner defaults: time limit in ms (default 120,000). */
  readonly timeoutMs?: number;
  /** Runner defaults: bytes kept of each of stdout and stderr (default 1 MiB). */
  readonly maxOutputBytes?: number;
  /** Runner: ms between SIGTERM and SIGKILL when a run is stopped (default 250). */
  readonly killGraceMs?: number;
  /** Runner: bounds of the deny-list scan. */
  readonly maskScan?: SandboxMaskScanOptions;
  /** Runner: resource limits of each run (see {@link SandboxLimits} for each default). */
  readonly limits?: SandboxLimits;
  /**
   * Runner: keep terminal control sequences in `stdout`/`stderr` (default `false`: every control
   * character but newline and tab is escaped, so output cannot drive the terminal it is shown on).
   */
  readonly rawOutput?: boolean;
}

/** Options of one {@link SandboxRunner.run}. */
export interface SandboxRunOptions {
  /** Working directory inside the sandbox (default the sandbox's `cwd`). */
  readonly cwd?: string;
  /** Variables added to the scrubbed environment. */
  readonly env?: { readonly [name: string]: string };
  /** Written to the process's standard input, which is then closed (default: none). */
  readonly stdin?: string | Uint8Array;
  /** Time limit in ms; the process group is killed past it (default the sandbox's). */
  readonly timeoutMs?: number;
  /** Bytes kept of each of stdout and stderr; the rest is dropped and marked (default the sandbox's). */
  readonly maxOutputBytes?: number;
  /** Aborting it kills the run, like a timeout; pass the body's `exec.signal`. */
  readonly signal?: AbortSignal;
  /** Keep terminal control sequences in the output (default the sandbox's `rawOutput`). */
  readonly rawOutput?: boolean;
}

/** A resource limit a run ran into. */
export interface SandboxLimitHit {
  /** Which limit, as named in {@link SandboxLimits}. */
  readonly limit: keyof SandboxLimits;
  /** The limit's value. */
  readonly value: number;
  /** What happened, for a person: how far the run got. */
  readonly detail: string;
}

/** What one run did. */
export interface SandboxRunResult {
  /** The exit code, or `null` when the run was killed. */
  readonly exitCode: number | null;
  /** The signal that ended the run (the runner's kill), or `null`. */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether output past `maxOutputBytes` was dropped (each stream then ends with a marker line). */
  readonly truncated: boolean;
  /** Whether the run was killed for exceeding its time limit. */
  readonly timedOut: boolean;
  /** Whether the run was killed because its signal aborted. */
  readonly aborted: boolean;
  /** `true` under bubblewrap; `false` only for an unconfined run allowed by `allowUnsandboxed`. */
  readonly sandboxed: boolean;
  /** Set when the run ran into a resource limit: which, and how far it got. */
  readonly limit?: SandboxLimitHit;
}

/**
 * What every process of a runner runs under, for a person (`dsh-tools check`) or a log: the
 * sandbox's own rules with any narrowing already applied.
 */
export interface SandboxDescription {
  readonly mode: SandboxMode;
  /** The working directory of its processes. */
  readonly cwd: string;
  /** Where its processes may write (empty in `read-only`; `['/']` in `full-access`). */
  readonly writable: readonly string[];
  /** Globs never read nor written, as written: the defaults, the options, then narrowings. */
  readonly denyRead: readonly string[];
  /** Globs never written, as written: the defaults, the options, then narrowings. */
  readonly denyWrite: readonly string[];
  readonly network: boolean;
  /** Each resource limit of a run (see {@link SandboxLimits}). */
  readonly limits: { readonly [K in keyof SandboxLimits]-?: number };
  /** Who narrowed it (`permission rules`), outermost first; empty when nothing did. */
  readonly narrowedBy: readonly string[];
}

/**
 * Runs commands confined to the sandbox's mode. Tool bodies receive one as `exec.sandbox` when a
 * {@link sandboxInterceptor} is installed; {@link requireSandbox} gets it or fails closed.
 */
export interface SandboxRunner extends NarrowableSandbox {
  /** The mode this runner enforces. */
  readonly mode: SandboxMode;
  /**
   * A runner with this one's rules and the narrowing's on top: more deny globs, no network. It
   * never permits more. Throws a `TypeError` for a glob the sandbox cannot enforce.
   */
  narrow(narrowing: SandboxNarrowing): SandboxRunner;
  /** What its processes run under: roots, deny globs, network, limits, who narrowed it. */
  describe(): SandboxDescription;
  /**
   * Runs `argv` (no shell: `['sh', '-c', line]` for one) and resolves with its outcome. Rejects
   * with a `ToolError` (`UNAVAILABLE`) when it cannot confine the command, or (`SANDBOX_VIOLATION`)
   * when `cwd` is outside what the mode permits to read; with a `TypeError` on malformed input.
   */
  run(argv: readonly string[], options?: SandboxRunOptions): Promise<SandboxRunResult>;
}

declare module '@dsh-tools/protocol' {
  interface ToolExecutionExtensions {
    /** The confined process runner, attached by `sandboxInterceptor` (`@dsh-tools/interceptors-sandbox`). */
    readonly sandbox?: SandboxRunner;
  }
}
