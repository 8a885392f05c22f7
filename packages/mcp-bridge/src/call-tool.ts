import type { BodyExecution, ToolArgs } from '@dsh-tools/protocol';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { callContext } from './connection';
import { quoteValue } from './format';
import { NO_LIMIT } from './limits';
import { AS_IS } from './list-tools';
import type { CallInFlight, Connection, McpProgressEvent, McpServerConfig } from './types';

/** A `tools/call` answer as the SDK hands it over, before `content.ts` maps it. */
export interface RawCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

const ignoreProgress = (): void => {};

/**
 * The `tools/call <tool>` client span of one MCP call (MCP's semantic conventions: kind CLIENT,
 * `mcp.method.name`, `gen_ai.tool.name`), a child of the span active when the body runs (the
 * registry's `execute_tool`), and the trace context to send in `params._meta` (`traceparent`,
 * `tracestate`: W3C Trace Context, as MCP carries it), so the server's spans join the trace.
 * With no OpenTelemetry SDK registered the span records nothing and nothing is sent.
 */
function startCallSpan(server: string, tool: string, http: boolean) {
  const span = trace.getTracer('@dsh-tools/mcp-bridge').startSpan(`tools/call ${tool}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': tool,
      'gen_ai.operation.name': 'execute_tool',
      'dsh.mcp.server': server,
      'network.transport': http ? 'tcp' : 'pipe',
    },
  });
  const meta: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), meta);
  return { span, meta: Object.keys(meta).length > 0 ? meta : undefined };
}

/**
 * Sends one `tools/call` on `conn` with the bridge's options: the caller's signal, the limit
 * without progress (reset by every progress notification, so a progress token is always sent),
 * the hard limit, and progress passed to `onProgress` through `contain`. Over HTTP the call runs
 * inside {@link callContext} so that the transport can tell when its stream ends unanswered.
 * Rejects with whatever the SDK threw; `call-errors.ts` maps it.
 */
export function callTool(
  conn: Connection,
  call: CallInFlight,
  tool: string,
  args: ToolArgs,
  exec: BodyExecution,
  config: Pick<McpServerConfig, 'name' | 'onProgress' | 'maxTotalTimeoutMs'> & {
    readonly timeoutMs: number;
  },
  contain: (fn: () => void) => void,
): Promise<RawCallResult> {
  const listener = config.onProgress;
  const maxTotal = config.maxTotalTimeoutMs;
  const { span, meta } = startCallSpan(config.name, tool, conn.http !== undefined);
  const send = () =>
    conn.client.request(
      // The registry hands over validated, frozen arguments; the SDK only serializes them.
      {
        method: 'tools/call',
        params: {
          name: tool,
          arguments: args as Record<string, unknown>,
          ...(meta !== undefined && { _meta: meta }),
        },
      },
      // Not the SDK's result schema: it rejects a whole successful result for one content block
      // of a type it does not know, with a long validation dump. content.ts maps each block.
      AS_IS,
      {
        signal: exec.signal,
        timeout: config.timeoutMs === 0 ? NO_LIMIT : config.timeoutMs,
        resetTimeoutOnProgress: true,
        ...(maxTotal ? { maxTotalTimeout: maxTotal } : {}),
        // Passing onprogress is what makes the SDK send a progress token with the call.
        onprogress: listener
          ? (progress) =>
              contain(() =>
                listener({
                  server: config.name,
                  tool,
                  callId: exec.callId,
                  progress: progress.progress,
                  ...(progress.total === undefined ? {} : { total: progress.total }),
                  ...(progress.message === undefined ? {} : { message: progress.message }),
                } satisfies McpProgressEvent),
              )
          : ignoreProgress,
      },
    );
  const sent = conn.http ? callContext.run(call, send) : send();
  if (span.isRecording()) {
    sent.then(
      (result) => {
        if ((result as RawCallResult | undefined)?.isError === true) {
          span.setAttribute('error.type', 'tool_error');
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'the server answered isError' });
        }
        span.end();
      },
      (error: unknown) => {
        span.setAttribute('error.type', error instanceof Error ? error.name : 'error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
        span.end();
      },
    );
  }
  return sent.then((result) =>
    typeof result === 'object' && result !== null && !Array.isArray(result)
      ? (result as RawCallResult)
      : {
          content: [
            {
              type: 'text',
              text: `[the server answered the call with a result that is not an object (${quoteValue(result)})]`,
            },
          ],
        },
  );
}
