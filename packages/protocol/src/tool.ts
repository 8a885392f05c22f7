import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { ContentBlock } from './content';
import type { ToolErrorCode } from './errors';

declare global {
  /**
   * Declared here, empty, so that these types need no lib of their own: `AbortSignal` is not in
   * the ES2022 lib, and a project typed for "any ES2022 runtime" (no DOM lib, no @types/node)
   * would otherwise fail inside our declarations. An empty interface adds nothing: where the DOM
   * lib or @types/node declares `AbortSignal`, it merges into theirs unchanged.
   */
  interface AbortSignal {}
}

/** A JSON Schema, as a plain JSON object. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * The `parameters` of a tool: a JSON Schema whose root is an object, as the OpenAI / DeepSeek
 * function-calling APIs require.
 */
export interface ObjectJsonSchema {
  readonly type: 'object';
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean | JsonSchema;
  readonly [keyword: string]: unknown;
}

/** Arguments of a call: the parsed JSON object the model produced. */
export type ToolArgs = { readonly [name: string]: unknown };

/** What the model sees of a tool, and nothing more (the function-calling shape). */
export interface ToolSchema {
  /** `^[a-zA-Z0-9_-]{1,64}$`, the function-name rule of the OpenAI and DeepSeek APIs. */
  readonly name: string;
  readonly description: string;
  readonly parameters: ObjectJsonSchema;
}

/** An argument that holds a file path, and whether the tool reads or writes that file. */
export interface ToolPathHint {
  /**
   * Where the path sits in the arguments, as a dotted path: `path`, `options.target`; `*`
   * stands for every element of an array or every value of an object (`files.*`, `edits.*.path`).
   */
  readonly arg: string;
  readonly access: 'read' | 'write';
  /**
   * A reader only: given a directory here, the tool reads (or lists) what is inside it, and it
   * leaves out every path the call's {@link PathExclusion} (`exec.exclude`) covers. A policy may
   * then exclude what it protects inside that directory instead of asking about the whole of it.
   * Declare it only when the body calls `exec.exclude?.covers(path)` for every entry it reads.
   */
  readonly honoursExclude?: boolean;
}

/**
 * Paths a policy takes out of what a directory-reading tool body reads for one call (the
 * permission interceptor puts its `Read` deny rules here for tools whose path hint says
 * `honoursExclude`). Attached as `exec.exclude`; a later policy may only add to it.
 */
export interface PathExclusion {
  /**
   * Whether the body must leave `path` out: not read it, not list its name, not descend into it.
   * `path` is absolute (a relative one counts from the policy's working directory); the check
   * covers the path as written and with its symlinks resolved, so a link to a covered file is
   * covered too. A directory is covered when everything inside it is.
   */
  covers(path: string): boolean;
  /**
   * The same as absolute globs (`*`, `?`, `**`; a glob also covers what is inside a directory it
   * matches), for a body that hands them to a program (`rg --glob '!…'`). `covers` is the check;
   * these may be wider, never narrower.
   */
  readonly globs: readonly string[];
  /** Who excludes and why, for messages: `permission rules`. */
  readonly by?: string;
}

/**
 * What policies need to know about a tool. Never sent to the model. The first four are MCP's tool
 * annotations without the `Hint` suffix; like MCP's, they are hints, not guarantees, and a host
 * believes them only for tools it trusts.
 */
export interface ToolHints {
  /** The tool does not change its environment. */
  readonly readOnly?: boolean;
  /** The tool may change its environment destructively (delete, overwrite). */
  readonly destructive?: boolean;
  /** Calling it twice with the same arguments has no further effect. */
  readonly idempotent?: boolean;
  /** The tool reaches an open world (the network) rather than a closed domain. */
  readonly openWorld?: boolean;
  /**
   * Whether a call may overlap other concurrency-safe calls of the same model turn. A classifier
   * receives the validated arguments; anything but a returned `true` counts as "not safe".
   */
  readonly concurrencySafe?: boolean | ((args: ToolArgs) => boolean);
  /** Which arguments hold file paths. */
  readonly paths?: readonly ToolPathHint[];
  /** The name of the argument that holds a shell command line, for shell-aware policies. */
  readonly command?: string;
}

/** Where a tool comes from. */
export type ToolSource =
  | { readonly kind: 'local'; readonly plugin?: string }
  | { readonly kind: 'mcp'; readonly server: string; readonly tool: string };

/**
 * The read-only view of a tool that interceptors see inside the pipeline: its schema, hints and
 * source, but not its executor.
 */
export interface ToolView extends ToolSchema {
  readonly hints: Readonly<ToolHints>;
  readonly source: ToolSource;
  readonly timeoutMs?: number;
}

/**
 * Capabilities an interceptor hands to the interceptors inside it and to the tool body, attached
 * with `next({ ...exec, sandbox })`. Open by declaration merging: a package that provides one
 * augments this interface (`declare module '@dsh-tools/protocol' { interface
 * ToolExecutionExtensions { sandbox?: SandboxRunner } }`). The registry passes extension fields
 * through unchanged: they are not validated as arguments, not copied and not frozen.
 */
export interface ToolExecutionExtensions {
  /** What a policy leaves out of a directory reader's work for this call; see {@link PathExclusion}. */
  readonly exclude?: PathExclusion;
}

/** A request to run one tool. */
export interface ToolExecution<Args = ToolArgs> extends ToolExecutionExtensions {
  /** The model's id for this call, echoed on the result. */
  readonly callId: string;
  readonly name: string;
  readonly arguments: Args;
  /**
   * Which agent made the call, for policies and logs: a name (`'main'`, a sub-agent's) or the
   * host's own agent object (the DeepSeek Harness passes its agent loop's). Opaque to the
   * registry: passed through by identity, never read, copied, frozen or validated; narrow it
   * where you use it.
   */
  readonly agent?: unknown;
  /** Aborting it cancels the call: before dispatch nothing runs, during it the body's signal aborts. */
  readonly signal?: AbortSignal;
  /** Attached by the registry inside the pipeline; ignored on input. */
  readonly tool?: ToolView;
}

/** An execution as interceptors see it: validated, frozen, with its tool attached. */
export interface InterceptedExecution<Args = ToolArgs> extends ToolExecution<Args> {
  readonly tool: ToolView;
}

/** An execution as the tool body sees it: it always has a signal (caller's abort + timeout). */
export interface BodyExecution<Args = ToolArgs> extends InterceptedExecution<Args> {
  readonly signal: AbortSignal;
}

/**
 * What a tool body may return when content blocks alone are not enough: machine-readable
 * `structuredContent` (MCP's `structuredContent`) travels on the result beside the content.
 */
export interface ToolOutput {
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: { readonly [key: string]: unknown };
}

/** A Standard Schema that validates arguments (zod, valibot, arktype, ...). */
export type ToolInputValidator<Args = ToolArgs> = StandardSchemaV1<unknown, Args>;

/** A registrable tool: its schema, its executor, and what policies need to know about it. */
export interface ToolDefinition<Args = ToolArgs> extends ToolSchema {
  /**
   * Runs the tool on validated arguments. Return content blocks (or a {@link ToolOutput}); throw
   * to fail (a `ToolError` picks the error code, anything else is `TOOL_ERROR`). Stop work when
   * `exec.signal` aborts.
   */
  execute(
    args: Args,
    exec: BodyExecution<Args>,
  ): Promise<readonly ContentBlock[] | ToolOutput> | readonly ContentBlock[] | ToolOutput;
  readonly hints?: ToolHints;
  /** Per-tool time limit in milliseconds; 0 means none. Overrides the registry default. */
  readonly timeoutMs?: number;
  /**
   * Per-tool whole-call deadline in milliseconds (interceptors and body together, from the end of
   * validation); 0 means none. Overrides the registry's `callTimeoutMs`.
   */
  readonly callTimeoutMs?: number;
  /** Per-tool bound on what a result carries to the model, in bytes. Overrides the registry's. */
  readonly maxOutputBytes?: number;
  /** Validates arguments instead of the compiled `parameters` when present. */
  readonly inputValidator?: ToolInputValidator<Args>;
  readonly source?: ToolSource;
}

/** Why a call failed: a stable code and a message a person (and the model) can act on. */
export interface ToolErrorInfo {
  readonly code: ToolErrorCode;
  readonly message: string;
  /** Structured data for hosts and logs (violations, which rule fired); never sent to the model. */
  readonly details?: unknown;
}

/** The outcome of one call. Every call has one, even a malformed or vetoed one. */
export interface ToolExecutionResult {
  readonly callId: string;
  readonly content: readonly ContentBlock[];
  readonly isError: boolean;
  /** Set on failures; the content of a failure is one text block `Error: <message>`. */
  readonly error?: ToolErrorInfo;
  readonly structuredContent?: { readonly [key: string]: unknown };
  /** Present when an interceptor rewrote the arguments: what the model sent, and what ran. */
  readonly arguments?: { readonly original: unknown; readonly effective: unknown };
}

/**
 * Continues the pipeline. With no argument the current execution passes on; with one, the rest of
 * the chain and the tool body receive it instead (the registry validates its arguments again).
 */
export type InterceptorNext = (exec?: InterceptedExecution) => Promise<ToolExecutionResult>;

/**
 * A policy around tool calls: call `next()` to proceed, `next(changed)` to proceed with rewritten
 * arguments, or return a result without calling it to veto.
 */
export type Interceptor = (
  exec: InterceptedExecution,
  next: InterceptorNext,
) => Promise<ToolExecutionResult> | ToolExecutionResult;

/** Which tools were added or removed by one change of a registry. */
export interface ToolChangeEvent {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/**
 * The part of a registry that the MCP bridge, interceptors and hosts need, so that none of them
 * imports the registry package.
 */
export interface ToolRegistryLike {
  /** Adds a tool; returns its disposer (idempotent). Throws on a duplicate or malformed tool. */
  // biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every argument type
  register(definition: ToolDefinition<any>): () => void;
  get(name: string): ToolDefinition | undefined;
  /** What the model sees, in registration order. */
  schemas(): readonly ToolSchema[];
  /** Runs one call. Never throws or rejects: every outcome is a result. */
  execute(exec: ToolExecution): Promise<ToolExecutionResult>;
}
