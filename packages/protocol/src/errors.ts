/**
 * Every way a tool call can fail, as a stable machine-readable code. A host switches on these;
 * the human-readable `message` beside them may change between versions.
 */
const codes = [
  'UNKNOWN_TOOL',
  'INVALID_ARGS',
  'TOOL_ERROR',
  'INVALID_OUTPUT',
  'DENIED',
  'ABORTED',
  'TIMEOUT',
  'INTERCEPTOR_ERROR',
  'SANDBOX_VIOLATION',
  'MCP_ERROR',
  'UNAVAILABLE',
] as const;

/**
 * Every way a tool call can fail, as a stable machine-readable code. A host switches on these;
 * the human-readable `message` beside them may change between versions.
 *
 * | code | meaning |
 * |---|---|
 * | `UNKNOWN_TOOL` | no tool of that name is registered |
 * | `INVALID_ARGS` | the arguments do not match the tool's schema (also a malformed call) |
 * | `TOOL_ERROR` | the tool body threw |
 * | `INVALID_OUTPUT` | the tool body returned something that is not content blocks |
 * | `DENIED` | a policy (permission, sandbox, hook, plan mode) vetoed the call |
 * | `ABORTED` | the caller aborted the call |
 * | `TIMEOUT` | the tool did not finish within its time limit |
 * | `INTERCEPTOR_ERROR` | an interceptor misbehaved (threw, called `next()` twice, returned a non-result) |
 * | `SANDBOX_VIOLATION` | the call tried to reach outside its sandbox |
 * | `MCP_ERROR` | an MCP server answered with an error |
 * | `UNAVAILABLE` | the tool's backend is not reachable right now (server down, reconnecting) |
 */
export const ToolErrorCode: { readonly [C in (typeof codes)[number]]: C } =
  /* @__PURE__ */ Object.fromEntries(codes.map((code) => [code, code])) as {
    readonly [C in (typeof codes)[number]]: C;
  };

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
  declare readonly code: ToolErrorCode;
  /** Structured data for hosts and logs; never shown to the model. */
  declare readonly details?: unknown;

  constructor(code: ToolErrorCode, message: string, options: ToolErrorOptions = {}) {
    super(message, options);
    this.name = 'ToolError';
    this.code = code;
    this.details = options.details;
  }
}
