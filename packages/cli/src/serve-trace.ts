import type { ToolExecutionResult } from '@dsh-tools/protocol';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

/** A `_meta` that may carry W3C trace context, read without trusting its shape. */
const carrierOf = (meta: unknown): Record<string, string> => {
  const carrier: Record<string, string> = {};
  if (typeof meta !== 'object' || meta === null) return carrier;
  for (const key of ['traceparent', 'tracestate'] as const) {
    const value = (meta as Record<string, unknown>)[key];
    // A header-sized value at most: anything longer is not a trace context.
    if (typeof value === 'string' && value.length <= 512) carrier[key] = value;
  }
  return carrier;
};

/**
 * Runs one `tools/call` that `serve` handles in a SERVER span (`tools/call <tool>`, MCP's
 * semantic conventions, `dsh.client` naming the gateway client), continuing the trace the client
 * sent in `params._meta` (`traceparent`, `tracestate`): the registry's `execute_tool` span and an
 * upstream server's call become its children, in the client's trace. With no OpenTelemetry SDK
 * registered, `run` runs as it is.
 */
export function inServerSpan(
  tool: string,
  meta: unknown,
  identity: string | undefined,
  run: () => Promise<ToolExecutionResult>,
): Promise<ToolExecutionResult> {
  const parent = propagation.extract(context.active(), carrierOf(meta));
  const span = trace.getTracer('@dsh-tools/cli').startSpan(
    `tools/call ${tool}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': tool,
        'gen_ai.operation.name': 'execute_tool',
        ...(identity !== undefined ? { 'dsh.client': identity } : {}),
      },
    },
    parent,
  );
  if (!span.isRecording()) return run();
  return context.with(trace.setSpan(parent, span), run).then(
    (result) => {
      if (result.isError) {
        span.setAttribute('error.type', result.error?.code ?? 'TOOL_ERROR');
        span.setStatus({ code: SpanStatusCode.ERROR, message: result.error?.message ?? '' });
      }
      span.end();
      return result;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      span.end();
      throw error;
    },
  );
}
