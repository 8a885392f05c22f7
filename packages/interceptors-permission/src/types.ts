import type {
  Approver,
  InterceptedExecution,
  Interceptor,
  SandboxNarrowing,
  ToolHints,
} from '@dsh-tools/protocol';

/**
 * How calls that no rule decides are treated. Changeable at runtime with `setMode`.
 *
 * | mode | unmatched calls |
 * |---|---|
 * | `default` | read-only tools run (reading inside the working directories), others ask |
 * | `acceptEdits` | also file writes inside `cwd` and `additionalDirectories` |
 * | `plan` | enforced: only read-only tools run, everything else is denied, even allowed calls |
 * | `dontAsk` | whatever would ask is denied (CI, scripts) |
 * | `bypassPermissions` | everything runs except deny rules and commands the parser cannot read |
 */
export type PermissionMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions';

/** Every mode, in the order a host cycles through them. */
export const PERMISSION_MODES: readonly PermissionMode[] = [
  'default',
  'acceptEdits',
  'plan',
  'dontAsk',
  'bypassPermissions',
];

/** The three lists of rules, and what a match in each does. */
export type RuleBehavior = 'allow' | 'ask' | 'deny';

/** Rules in Claude Code's syntax: `Bash(npm test:*)`, `Read(./src/**)`, `mcp__github`. */
export interface PermissionRules {
  readonly allow?: readonly string[];
  readonly ask?: readonly string[];
  readonly deny?: readonly string[];
}

/**
 * Rules from one place (an option, a settings file), with what their paths resolve against, so
 * that a trail can say where a rule came from.
 */
export interface PermissionRuleSet extends PermissionRules {
  /** A label a person recognises: `options`, `project settings`, ... */
  readonly source: string;
  /** The settings file the rules came from, if any. */
  readonly file?: string;
  /** What `./x` and bare relative paths in path rules resolve against; default the policy's `cwd`. */
  readonly root?: string;
  /** What `/x` in path rules resolves against (the settings file's directory); default `root`. */
  readonly settingsDir?: string;
}

/** Where one rule came from: which list, which entry, which source. */
export interface RuleOrigin {
  readonly list: RuleBehavior;
  readonly index: number;
  readonly source: string;
  readonly file?: string;
}

/** A call named in a policy's `examples`: an object, or the compact form `Tool(argument)`. */
export type PermissionExample =
  | string
  | {
      readonly tool: string;
      readonly args?: { readonly [name: string]: unknown };
      /** The tool's hints; default: Claude Code's tools (`Bash`, `Read`, `Edit`, ...) as they are. */
      readonly hints?: ToolHints;
    };

/** Calls a policy must decide as listed, checked when it loads. */
export interface PermissionExamples {
  readonly allow?: readonly PermissionExample[];
  readonly ask?: readonly PermissionExample[];
  readonly deny?: readonly PermissionExample[];
}

/** Who made a grant, when, and in answer to which question. */
export interface GrantOrigin {
  /** `approver` (a person answering a question) or what the host passed to `addGrant`. */
  readonly by: string;
  /** Epoch milliseconds. */
  readonly at: number;
  /** The question it answered, when it came from one. */
  readonly question?: {
    readonly callId: string;
    readonly tool: string;
    readonly reason: string;
    readonly rule?: string;
  };
}

/** A scoped, expiring permission that replaces "always allow forever". */
export interface PermissionGrant {
  readonly id: string;
  /** What it allows, as an allow rule: `Bash(npm test:*)`, `Edit(./src/**)`, `mcp__github`. */
  readonly rule: string;
  /** Epoch milliseconds after which it no longer applies; absent = until revoked. */
  readonly expiresAt?: number;
  /** How many further calls it allows; absent = unlimited. */
  readonly usesLeft?: number;
  readonly origin: GrantOrigin;
}

/** Persists grants. The interceptor loads once and saves the whole list after each change. */
export interface GrantStore {
  /** Reads every grant. Throws (never returns an empty list) when the stored data is unreadable. */
  load(): Promise<readonly PermissionGrant[]>;
  /** Replaces the stored grants. */
  save(grants: readonly PermissionGrant[]): Promise<void>;
}

/**
 * What {@link SharedGrantStore.spend} did: `spent` when every grant named was in force (one use of
 * each counted one taken), else the grants that were not (expired, used up, revoked, or never
 * stored), and nothing was taken.
 */
export type GrantSpend =
  | { readonly spent: true }
  | { readonly spent: false; readonly refused: readonly string[] };

/**
 * A grant store several policies share, possibly in several processes (a gateway's replicas),
 * with the operations that must be atomic there. The policy reads {@link list} before each
 * decision and spends the grants an allow relies on before the call runs, so the store, not a
 * policy's copy, decides whether a grant still applies. A store that fails (rejects) fails closed:
 * the call is decided as without its grants.
 */
export interface SharedGrantStore {
  /**
   * The grants in force now. Called before every decision, so keep it cheap: cache, and drop the
   * cache when the store hears of a change (a copy that is briefly stale only delays a new grant;
   * {@link spend} refuses one that no longer applies).
   */
  list(): Promise<readonly PermissionGrant[]>;
  /**
   * Stores a new grant. Resolves once the grant is stored (acknowledged: it survives what the
   * store promises to survive), with the grant as stored: a store with its own clock may move
   * `expiresAt`, keeping its distance from `origin.at`.
   */
  add(grant: PermissionGrant): Promise<PermissionGrant>;
  /**
   * Atomically, all or nothing: when every grant named is in force, takes one use of each
   * counted one (removing those used up); otherwise takes nothing and names the ones that are not.
   * Two policies can never both spend a grant's last use.
   */
  spend(ids: readonly string[]): Promise<GrantSpend>;
  /** Removes a grant; whether it was there. */
  revoke(id: string): Promise<boolean>;
}

/** Options of {@link permissionInterceptor}. */
export interface PermissionOptions {
  /** The rules, as one set of lists or as several sourced sets (what `loadClaudeSettings` returns). */
  readonly rules?: PermissionRules | readonly PermissionRuleSet[];
  /** The starting mode; default `default`. */
  readonly mode?: PermissionMode;
  /** What relative paths in rules and arguments resolve against; default `process.cwd()`. */
  readonly cwd?: string;
  /** Further directories that count as working directories (reads and `acceptEdits` writes). */
  readonly additionalDirectories?: readonly string[];
  /** Answers `ask` decisions. Absent: every ask is denied, saying why. */
  readonly approve?: Approver;
  /** Milliseconds an approver may take before the ask is denied; default 300000, 0 = no limit. */
  readonly approveTimeoutMs?: number;
  /**
   * Where grants live; default in memory. A {@link GrantStore} is loaded once and saved whole after
   * each change (one process); a {@link SharedGrantStore} is asked before every decision and its
   * uses are spent atomically before a call runs (several processes).
   */
  readonly grants?: GrantStore | SharedGrantStore;
  /** Calls the policy must decide as listed, checked when it loads (`ready` rejects otherwise). */
  readonly examples?: PermissionExamples;
  /** The clock, for tests (epoch milliseconds); default `Date.now`. */
  readonly now?: () => number;
  /** The home directory (`~` in rules and paths); default `os.homedir()`. */
  readonly home?: string;
  /**
   * How many recent command lines keep their parsed form (parsing is a pure function of the line,
   * so this never changes a decision; file system checks run every time); default 256, 0 = none.
   */
  readonly parseCacheSize?: number;
  /**
   * Receives problems the interceptor contains (a grant store that fails to save, a shared store
   * that cannot be reached: its grants then do not apply).
   */
  readonly onError?: (error: unknown) => void;
  /**
   * Told of every decision as it is taken (an audit trail's source): the decision with its rule,
   * source and trail, and for an `ask`, how it ended (`allow`: a person allowed it, `deny`: a
   * person or the timeout refused it, `aborted`: the call was aborted while waiting). Called
   * before the call runs; a throw goes to `onError` and never changes the decision.
   */
  readonly onDecision?: (
    exec: InterceptedExecution,
    decision: PermissionDecision,
    answer?: 'allow' | 'deny' | 'aborted',
  ) => void;
}

/** One step of a decision's trail, in the order it was taken. */
export type TrailEntry =
  | {
      readonly kind: 'rule';
      readonly rule: string;
      readonly origin: RuleOrigin;
      /** `maybe`: the call could match (an argument the parser cannot know), so it is not allowed. */
      readonly matched: boolean | 'maybe';
      /** The part of a shell command or the path it was checked against. */
      readonly subject?: string;
      readonly note?: string;
    }
  | {
      readonly kind: 'grant';
      readonly id: string;
      readonly rule: string;
      readonly matched: boolean;
      readonly subject?: string;
    }
  | {
      readonly kind: 'path';
      readonly arg: string;
      readonly access: 'read' | 'write';
      readonly path: string;
      readonly resolved: string;
    }
  | {
      readonly kind: 'shell';
      readonly subject: string;
      readonly verdict: string;
      readonly note?: string;
    }
  | { readonly kind: 'mode'; readonly mode: PermissionMode; readonly note: string }
  | { readonly kind: 'approval'; readonly note: string };

/** What decided a call. */
export type DecidedBy =
  | { readonly kind: 'rule'; readonly rule: string; readonly origin: RuleOrigin }
  | { readonly kind: 'grant'; readonly grant: PermissionGrant }
  | { readonly kind: 'mode'; readonly mode: PermissionMode }
  | { readonly kind: 'unparsed'; readonly reason: string }
  | { readonly kind: 'policy'; readonly reason: string };

/** A decision with its trail, as `explain` returns it and as a denial's `error.details` carries it. */
export interface PermissionDecision {
  readonly behavior: RuleBehavior;
  /** Why, in words a person (and the model) reads. */
  readonly reason: string;
  readonly decidedBy: DecidedBy;
  readonly mode: PermissionMode;
  /** Grants the decision relies on (each use is counted when the call runs). */
  readonly grants: readonly PermissionGrant[];
  readonly trail: readonly TrailEntry[];
  /**
   * From `explain` only, when the call is not denied: what else these rules hold it to once it
   * runs. `sandbox` is what they take away from a sandbox on the call (applied through
   * `exec.sandbox.narrow`, so every process of the call runs under it); `exclude` the globs a
   * directory reader that honours `exec.exclude` leaves out.
   */
  readonly enforced?: {
    readonly sandbox: SandboxNarrowing;
    readonly exclude?: readonly string[];
  };
}

/** The permission interceptor, with the host's controls on it. */
export interface PermissionInterceptor extends Interceptor {
  /** The current mode. */
  readonly mode: PermissionMode;
  /** Changes the mode; calls already past the check are not affected. Throws on an unknown mode. */
  setMode(mode: PermissionMode): void;
  /** Decides a call without running it or asking anyone, with the full trail. */
  explain(exec: InterceptedExecution): Promise<PermissionDecision>;
  /**
   * Current grants (expired and used-up ones are dropped). Rejects when the store cannot be read.
   */
  listGrants(): Promise<readonly PermissionGrant[]>;
  /**
   * Adds a grant as the host (`by` defaults to `host`). Throws on a malformed rule; with a shared
   * store, resolves once the store has it and rejects when the store refused it.
   */
  addGrant(grant: {
    readonly rule: string;
    readonly expiresInMs?: number;
    readonly uses?: number;
    readonly by?: string;
  }): Promise<PermissionGrant>;
  /** Revokes a grant; returns whether it existed. Rejects when a shared store cannot be reached. */
  revokeGrant(id: string): Promise<boolean>;
  /**
   * Settles when the policy is loaded: the shell parser, the grant store, and the examples. Rejects
   * with what failed; until it settles calls wait, and after a rejection every call is denied.
   */
  readonly ready: Promise<void>;
}
