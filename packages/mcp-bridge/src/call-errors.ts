import { ToolError } from '@dsh-tools/protocol';
import type { SdkError } from '@modelcontextprotocol/client';
import { asError, indent, lastLines, summarize, withCauses } from './format';
import type { ProcessExit } from './process-transport';
import { loadedSdk } from './sdk';
import type { McpServerStatus } from './types';

/** The code the bridge answers a call with when its HTTP response stream ended unanswered. */
export const STREAM_ENDED = -32099;

/** Whether the SDK gave up waiting for an answer (a request's timeout). */
export function isTimeout(error: unknown): boolean {
  const sdk = loadedSdk();
  return (
    sdk !== undefined &&
    error instanceof sdk.SdkError &&
    error.code === sdk.SdkErrorCode.RequestTimeout
  );
}

/** Whether an HTTP server no longer knows the session: the request was refused before it ran. */
export function isSessionLost(error: unknown): boolean {
  const sdk = loadedSdk();
  if (sdk === undefined || !(error instanceof sdk.SdkHttpError)) return false;
  // 404 is the spec's answer for an unknown session; some servers answer 400 and say so.
  if (error.status === 404) return true;
  const text = String((error.data as { text?: unknown } | undefined)?.text ?? error.message);
  return error.status === 400 && /session/i.test(text);
}

/**
 * Whether the connection itself is gone. An HTTP error answer to one request is not that: a 500
 * for one call fails that call only (session loss, 404, is told apart before this), and a server
 * that is really down shows it by refusing connections or by its event stream not coming back.
 */
export function isConnectionError(error: unknown): boolean {
  const sdk = loadedSdk();
  if (sdk !== undefined) {
    if (error instanceof sdk.SdkHttpError) return false;
    if (error instanceof sdk.SdkError) {
      const code = sdk.SdkErrorCode;
      return (
        error.code === code.ConnectionClosed ||
        error.code === code.NotConnected ||
        error.code === code.SendFailed
      );
    }
  }
  // fetch() failing outright (refused, reset): a TypeError whose cause has a system code.
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string';
}

/** What the mapping of a failed call needs to know besides the error. */
export interface FailedCall {
  readonly server: string;
  readonly tool: string;
  /** The caller's signal had aborted. */
  readonly aborted: boolean;
  /** The call's limit without progress, ms (0 = none). */
  readonly timeoutMs: number;
  /** The bridge had already found the connection lost (by another call, or its process exit). */
  readonly connectionDead: boolean;
  /** How the stdio server's process ended, if it has. */
  readonly exit?: ProcessExit | undefined;
  readonly stderrTail?: string | undefined;
  /** Why the transport ended the connection itself (an oversized message), if it did. */
  readonly failure?: string | undefined;
  readonly reconnectDisabled: boolean;
  /** `close()` was called: the server is not coming back, so a retry is pointless. */
  readonly closed?: boolean;
}

/**
 * The `ToolError` a failed call resolves with, from what the SDK threw. Checked in this order: the
 * caller's abort (`ABORTED`), a timeout (`TIMEOUT`, saying which limit), a lost connection
 * (`UNAVAILABLE`: the outcome is unknown), an HTTP error answer (5xx `UNAVAILABLE`, 4xx
 * `MCP_ERROR`), a JSON-RPC error (`MCP_ERROR` with its code), anything else (`MCP_ERROR`). A lost
 * session is not mapped here: the bridge reconnects and resends, and only then fails it with
 * {@link unavailableError}.
 */
export function mapCallError(error: unknown, call: FailedCall): ToolError {
  const { server, tool } = call;
  const sdk = loadedSdk();
  if (call.aborted) {
    return new ToolError(
      'ABORTED',
      `The call to "${tool}" of MCP server "${server}" was cancelled; the server was told to stop.`,
      { cause: error },
    );
  }
  if (isTimeout(error)) {
    const total = (error as SdkError).data as { maxTotalTimeout?: unknown } | undefined;
    return new ToolError(
      'TIMEOUT',
      total?.maxTotalTimeout !== undefined
        ? `Tool "${tool}" of MCP server "${server}" was still running after ${String(total.maxTotalTimeout)} ms (its "maxTotalTimeoutMs"), although it reported progress; the call was cancelled. Raise "maxTotalTimeoutMs" for this server if such calls are expected to take longer.`
        : `Tool "${tool}" of MCP server "${server}" did not answer within ${call.timeoutMs} ms and reported no progress meanwhile; the call was cancelled. Retry, or raise "timeoutMs" for this server if it is just slow.`,
      { cause: error },
    );
  }
  if (call.closed) {
    return new ToolError(
      'UNAVAILABLE',
      `MCP server "${server}" was closed (close() was called) during the call to "${tool}"; the call's outcome is unknown. Do not retry: its tools are no longer bridged.`,
      { cause: error, details: { server, tool, status: 'closed' } },
    );
  }
  if (isConnectionError(error) || call.connectionDead) {
    const exit = call.exit;
    const cause = error instanceof TypeError && error.cause instanceof Error;
    const how = call.failure
      ? ` (${call.failure})`
      : exit
        ? ` (the server process exited, ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`
        : cause
          ? ` (${summarize(withCauses(error))})`
          : '';
    const tail = call.stderrTail?.trim();
    const stderr = tail ? ` Last lines of its stderr:\n${indent(lastLines(tail, 5))}` : '';
    return new ToolError(
      'UNAVAILABLE',
      `MCP server "${server}" went away during the call to "${tool}"${how}; the call's outcome is unknown. ${call.reconnectDisabled ? 'Reconnecting is disabled.' : 'The bridge is reconnecting; retry in a few seconds.'}${stderr}`,
      { cause: error },
    );
  }
  if (sdk && error instanceof sdk.SdkHttpError) {
    // 5xx: the server (or a proxy) failed this one request; 4xx: it refused it.
    const transient = error.status >= 500;
    return new ToolError(
      transient ? 'UNAVAILABLE' : 'MCP_ERROR',
      `MCP server "${server}" answered the call to "${tool}" with HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''}; ${transient ? "the call's outcome is unknown and the connection stays up. Retry, or check the server's logs." : "the call was refused. Check the server's logs and the headers in its config."}`,
      { cause: error, details: { server, tool, status: error.status } },
    );
  }
  if (sdk && error instanceof sdk.ProtocolError && error.code === STREAM_ENDED) {
    return new ToolError(
      'UNAVAILABLE',
      `The call to "${tool}" of MCP server "${server}" failed: ${summarize(error.message)}; the call's outcome is unknown and the connection stays up. Retry, or check the server's logs.`,
      { cause: error, details: { server, tool } },
    );
  }
  if (sdk && error instanceof sdk.ProtocolError) {
    return new ToolError(
      'MCP_ERROR',
      `MCP server "${server}" refused the call to "${tool}": ${summarize(error.message)}`,
      { cause: error, details: { server, tool, code: error.code, data: error.data } },
    );
  }
  return new ToolError(
    'MCP_ERROR',
    `The call to "${tool}" of MCP server "${server}" failed: ${summarize(asError(error).message)}`,
    { cause: error },
  );
}

/** The error of a call that finds the server away, saying why and what to do. */
export function unavailableError(
  server: string,
  tool: string,
  status: McpServerStatus,
  cause?: unknown,
): ToolError {
  const why =
    status === 'reconnecting'
      ? 'is reconnecting after losing its connection; retry in a few seconds'
      : status === 'failed'
        ? 'is down and the bridge gave up reconnecting; restart it (handle.reconnect()) or check its logs'
        : status === 'closed'
          ? 'was closed (close() was called); do not retry: its tools are no longer bridged'
          : 'is not connected yet; retry in a moment';
  return new ToolError(
    'UNAVAILABLE',
    `Tool "${tool}" is unavailable: MCP server "${server}" ${why}.`,
    {
      ...(cause === undefined ? {} : { cause }),
      details: { server, tool, status },
    },
  );
}

/** The error of a call the server answered with `isError: true`, carrying the server's text. */
export function toolReportedError(
  server: string,
  tool: string,
  text: string,
  content: unknown,
): ToolError {
  return new ToolError(
    'MCP_ERROR',
    text || `MCP server "${server}" reported an error from tool "${tool}" without a message.`,
    { details: { server, tool, content } },
  );
}
