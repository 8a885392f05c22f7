/**
 * The exit codes of `dsh-tools`, one per kind of outcome, so that a script can tell a tool's
 * error result from a broken config or a server that did not start.
 */
export const EXIT = {
  /** Success. */
  OK: 0,
  /** `call`: the tool call returned an error result. */
  TOOL_ERROR: 1,
  /** `check`: the call would be denied or refused. (Same code as a `call` that failed.) */
  CHECK_DENY: 1,
  /** Unknown command or option, arguments that are not a JSON object. */
  USAGE: 2,
  /** The config file is missing, not JSON or invalid, or asks for a policy that cannot be enforced. */
  CONFIG: 3,
  /** A configured MCP server failed to start. */
  SERVER_FAILED: 4,
  /** `serve` could not start (no token for a non-loopback address, the port is in use). */
  SERVE_FAILED: 5,
  /** `check`: the call would ask a person (an `ask` rule, a mode, a hook). */
  CHECK_ASK: 6,
  /** A bug: an error nothing else accounts for (EX_SOFTWARE). */
  INTERNAL: 70,
} as const;
