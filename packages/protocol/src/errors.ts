/**
 * Every way a tool call can fail, as a stable machine-readable code. A host switches on these;
 * the human-readable `message` beside them may change between versions.
 */
export const ToolErrorCode = {
  /** No tool of that name is registered. */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** The arguments do not match the tool's schema (also malformed calls: no callId, non-JSON). */
  INVALID_ARGS: 'INVALID_ARGS',
  /** The tool body threw. */
  TOOL_ERROR: 'TOOL_ERROR',
  /** The tool body returned something that is not a list of content blocks. */
  INVALID_OUTPUT: 'INVALID_OUTPUT',
  /** A policy (permission, sandbox, hook, plan mode) vetoed the call. */
  DENIED: 'DENIED',
  /** The caller aborted the call. */
  ABORTED: 'ABORTED',
  /** The tool did not finish within its time limit. */
  TIMEOUT: 'TIMEOUT',
  /** An interceptor misbehaved (threw, called `next()` twice, returned a non-result). */
  INTERCEPTOR_ERROR: 'INTERCEPTOR_ERROR',
  /** The call tried to reach outside its sandbox. */
  SANDBOX_VIOLATION: 'SANDBOX_VIOLATION',
  /** An MCP server answered with an error. */
  MCP_ERROR: 'MCP_ERROR',
  /** The tool's backend is not reachable right now (server down, reconnecting). */
  UNAVAILABLE: 'UNAVAILABLE',
} as const;

/** One of {@link ToolErrorCode}'s values. */
export type ToolErrorCode = (typeof ToolErrorCode)[keyof typeof ToolErrorCode];

/** Options of {@link ToolError}. */
export interface ToolErrorOptions {
  readonly cause?: unknown;
  /** Structured data for hosts and logs (which rule fired, which file); never shown to the model. */
  readonly details?: unknown;
}

/**
 * An error that knows its {@link ToolErrorCode}. A tool body or interceptor throws one to fail with
 * a specific code (say `DENIED` or `UNAVAILABLE`); any other thrown value becomes `TOOL_ERROR`.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly code: ToolErrorCode;
  readonly details?: unknown;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    if ('details' in options) this.details = options.details;
  }
}
