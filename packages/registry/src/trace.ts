import type { ToolExecution, ToolExecutionResult } from '@dsh-tools/protocol';
import {
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

// OpenTelemetry spans for every call, named and attributed as the GenAI semantic conventions
// name a tool's execution (`execute_tool <tool>`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
// `error.type`). Only `@opentelemetry/api` is imported: with no SDK registered, its tracer hands
// out a non-recording span and this module does nothing else, so a registry nobody traces pays one
// `startSpan` per call (measured in `bench/tracing.bench.ts`).

/**
 * The tracer a registry writes to: `provider`'s, or the global provider's as it is now (an SDK
 * registered after the registry was made is found; one replaced, by `trace.disable()` and another,
 * is not written to any more).
 */
function tracerFor(provider: TracerProvider | undefined): () => Tracer {
  if (provider !== undefined) {
    const own = provider.getTracer('@dsh-tools/registry');
    return () => own;
  }
  let tracer: Tracer | undefined;
  let tracerOf: TracerProvider | undefined;
  return () => {
    const global = trace.getTracerProvider();
    if (global !== tracerOf || tracer === undefined) {
      tracerOf = global;
      tracer = global.getTracer('@dsh-tools/registry');
    }
    return tracer;
  };
}

/** What the interceptor chain writes on a traced call's span: one event per interceptor. */
export type TraceEvent = 'passed' | 'rewrote' | 'vetoed' | 'answered' | 'threw';

/** Names and attributes a finished call's span (its caller ends it). */
function finish(span: Span, result: ToolExecutionResult, exec: ToolExecution): void {
  span.updateName(`execute_tool ${exec.name}`);
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': exec.name,
    'gen_ai.tool.call.id': exec.callId,
    'gen_ai.tool.type': 'function',
  });
  const error = result.isError ? result.error : undefined;
  if (result.isError) {
    span.setAttribute('error.type', error?.code ?? 'TOOL_ERROR');
    span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message ?? 'the tool failed' });
  }
}

/** What tracing needs of a registry's calls (`execute.ts`'s `Calls`): how results are told, and the span. */
export interface Traceable {
  readonly tell: (result: ToolExecutionResult, exec: ToolExecution) => ToolExecutionResult;
  readonly span?: Span;
}

/** How a registry runs its calls with or without spans (`tracerProvider: false`: without). */
export interface Tracing {
  /**
   * Runs one call (`run` with the registry's stages) inside an `execute_tool` span when it is
   * recorded: the span is the active one while the interceptors and the body run (their own
   * spans, an MCP call's among them, are its children), the chain adds an event per interceptor,
   * and the result names it. When nothing records, `run` gets the stages unchanged.
   */
  traced<C extends Traceable>(
    calls: C,
    run: (calls: C) => Promise<ToolExecutionResult>,
  ): Promise<ToolExecutionResult>;
  /** A call refused before it could run (in a turn): its span, already over; then `tell`. */
  failed(
    result: ToolExecutionResult,
    exec: ToolExecution,
    tell: Traceable['tell'],
  ): ToolExecutionResult;
}

const UNTRACED: Tracing = {
  traced: (calls, run) => run(calls),
  failed: (result, exec, tell) => tell(result, exec),
};

/** The tracing of a registry made with `tracerProvider` (see {@link ToolRegistryOptions}). */
export function createTracing(provider: TracerProvider | false | undefined): Tracing {
  if (provider === false) return UNTRACED;
  const getTracer = tracerFor(provider);
  return {
    traced(calls, run) {
      const span = getTracer().startSpan('execute_tool', { kind: SpanKind.INTERNAL });
      if (!span.isRecording()) return run(calls);
      const tell = (result: ToolExecutionResult, exec: ToolExecution): ToolExecutionResult => {
        finish(span, result, exec);
        return calls.tell(result, exec);
      };
      const within = trace.setSpan(context.active(), span);
      return context.with(within, () => run({ ...calls, tell, span })).finally(() => span.end());
    },
    failed(result, exec, tell) {
      const span = getTracer().startSpan('execute_tool', { kind: SpanKind.INTERNAL });
      if (span.isRecording()) {
        finish(span, result, exec);
        span.end();
      }
      return tell(result, exec);
    },
  };
}

/** The event an interceptor's hop leaves on its call's span. */
export function traceHop(span: Span, name: string, outcome: TraceEvent): void {
  span.addEvent('dsh.interceptor', {
    'dsh.interceptor.name': name,
    'dsh.interceptor.outcome': outcome,
  });
}
