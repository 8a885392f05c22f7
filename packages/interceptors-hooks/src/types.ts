import type { Approver } from '@dsh-tools/protocol';

/** The two Claude Code hook events that wrap a tool call, the ones this package runs. */
export type HookEvent = 'PreToolUse' | 'PostToolUse';

/**
 * What a hook does when it fails (crashes, times out, exits with a code other than 0 and 2,
 * prints output that looks like JSON but is not): `block` denies the call (PreToolUse) or turns
 * the result into an error (PostToolUse); `allow` records the failure and goes on.
 */
export type HookErrorPolicy = 'block' | 'allow';

/**
 * One hook as written in Claude Code's settings (`{ "type": "command", "command": "…" }`), plus
 * this package's `onError`. Claude Code ignores keys it does not know, so a settings file with
 * `onError` still loads there.
 */
export interface HookCommandConfig {
  readonly type: 'command';
  /** A shell command line, run with `sh -c`. */
  readonly command: string;
  /** Seconds before the hook's whole process group is killed; default 60, as in Claude Code. */
  readonly timeout?: number;
  /** Default `block` for PreToolUse, `allow` for PostToolUse. */
  readonly onError?: HookErrorPolicy;
}

/** A matcher and the hooks it selects (one element of `hooks.PreToolUse`). */
export interface HookMatcherConfig {
  /**
   * Which tools: an exact name (`Bash`), a list (`Edit|Write`), a regular expression
   * (`mcp__github__.*`, unanchored as in Claude Code), or `*` / empty / absent for every tool.
   */
  readonly matcher?: string;
  readonly hooks: readonly HookCommandConfig[];
}

/**
 * The `hooks` key of Claude Code's settings. Other events (`Stop`, `SessionStart`, …) may be
 * present; they are not tool events, so they are ignored here.
 */
export interface HooksConfig {
  readonly PreToolUse?: readonly HookMatcherConfig[];
  readonly PostToolUse?: readonly HookMatcherConfig[];
  readonly [event: string]: unknown;
}

/** A `hooks` block and where it came from (a settings file's path, or a label you choose). */
export interface HooksConfigSource {
  readonly source: string;
  readonly hooks: HooksConfig;
}

/** Which hook a record is about: its command and where it was configured. */
export interface HookIdentity {
  readonly event: HookEvent;
  readonly command: string;
  /** The matcher as written (`""` when absent). */
  readonly matcher: string;
  /** The settings file (or option label) the hook came from. */
  readonly source: string;
  /** Its place there: `hooks.PreToolUse[0].hooks[1]`. */
  readonly path: string;
  readonly timeoutSeconds: number;
  readonly onError: HookErrorPolicy;
}

/**
 * A hook's verdict: a PreToolUse permission decision, a PostToolUse `block`, or `none` (no
 * opinion: exit 0 with no decision, or a failure under `onError: 'allow'`).
 */
export type HookDecision = 'allow' | 'deny' | 'ask' | 'block' | 'none';

/**
 * How the hook process ended: `ok` (exit 0, output understood), `blocked` (exit 2), `failed`
 * (crash, timeout, other exit code, over the output cap, output not understood, could not start),
 * `aborted` (the call's signal aborted while it ran).
 */
export type HookRunStatus = 'ok' | 'blocked' | 'failed' | 'aborted';

/**
 * One run of one hook, for logs and hosts: what ran, how long it took, and what it decided.
 * Passed to `onHookRun`, and listed in `error.details.hooks` of a denial.
 */
export interface HookRunRecord {
  readonly callId: string;
  readonly tool: string;
  readonly hook: HookIdentity;
  readonly status: HookRunStatus;
  /** What the hook's run counts as after the failure policy. */
  readonly decision: HookDecision;
  /** Wall time from spawn until the run was settled, in milliseconds. */
  readonly durationMs: number;
  /** The exit code, or `null` when the process was killed by a signal or never started. */
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  /** The hook's reason (JSON reason, or stderr on exit 2). */
  readonly reason?: string;
  /** What went wrong, for a `failed` run. */
  readonly failure?: string;
  /** Whether the hook returned `updatedInput`. */
  readonly rewrote: boolean;
  readonly additionalContext?: string;
  /** Claude Code shows it to the user; here it is for the host to show. */
  readonly systemMessage?: string;
  /** `continue: false`: the hook asks the host to stop the agent after this call. */
  readonly stop?: { readonly reason?: string };
  readonly suppressOutput?: boolean;
  /** Plain (non-JSON) stdout of a successful run, at most 8 KiB of it. */
  readonly stdout?: string;
  /** Stderr, at most 8 KiB of it. */
  readonly stderr?: string;
}

/**
 * What the hooks interceptor appends to a result as `_meta['dsh-tools/hooks']` of each text block
 * it adds: which hooks spoke and what they said.
 */
export interface HookFeedbackMeta {
  /** `context`: additionalContext for the model; `block`: a PostToolUse block. */
  readonly kind: 'context' | 'block';
  readonly entries: readonly {
    readonly event: HookEvent;
    readonly command: string;
    readonly source: string;
    readonly text: string;
  }[];
}

/**
 * `error.details` of a result that hooks denied (`DENIED`), blocked (PostToolUse, `DENIED`), or
 * that was aborted while its PreToolUse hooks ran (`ABORTED`).
 */
export interface HookDenialDetails {
  readonly event: HookEvent;
  /**
   * `deny` (a hook denied, failed under `block`, or stopped the agent), `ask` (the approver said
   * no, failed, timed out or was missing), `conflict` (two hooks rewrote the arguments), `block`
   * (PostToolUse), `aborted` (the call's signal aborted during the PreToolUse hooks).
   */
  readonly reason: 'deny' | 'ask' | 'conflict' | 'block' | 'aborted';
  /** Every hook run of this event for this call. */
  readonly hooks: readonly HookRunRecord[];
  /** Present when a hook said `continue: false`. */
  readonly stop?: { readonly reason?: string };
}

/** Options of {@link hooksInterceptor}. */
export interface HooksInterceptorOptions {
  /**
   * Claude Code's settings `hooks` block, or several of them with their sources (what
   * {@link loadClaudeCodeHooks} returns), merged in order.
   */
  readonly hooks: HooksConfig | readonly HooksConfigSource[];
  /** The hooks' working directory and the payload's `cwd`; default `process.cwd()`. */
  readonly cwd?: string;
  /** `CLAUDE_PROJECT_DIR` in the hooks' environment; default `cwd`. */
  readonly projectDir?: string;
  /** The payload's `session_id`; default a random UUID per interceptor. */
  readonly sessionId?: string;
  /** The payload's `permission_mode`; default `default`. */
  readonly permissionMode?: string;
  /** The payload's `transcript_path`; default `""`. */
  readonly transcriptPath?: string;
  /** Answers a hook's `ask`. Without one, an `ask` denies the call. */
  readonly approve?: Approver;
  /**
   * How long an `ask` waits for `approve` before denying, in milliseconds; default 300000 (five
   * minutes, as the permission interceptor), 0 for no limit. The request's signal aborts then.
   */
  readonly approveTimeoutMs?: number;
  /** Extra environment variables for the hooks (over `process.env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Cap on each of stdout and stderr, in bytes; default 1 MiB. Over it, the hook has failed. */
  readonly maxOutputBytes?: number;
  /** Called after every hook run (a throw is ignored): the trace of every call. */
  readonly onHookRun?: (record: HookRunRecord) => void;
}
