/**
 * What OpenTelemetry costs a registry call, each figure a ratio against a registry made with
 * `tracerProvider: false` (no tracing code on the path at all), measured in the same run:
 *
 * 1. no SDK registered (the default for every user who does not trace): target at most 1.1x, the
 *    "costs nothing" promise (one non-recording `startSpan` per call);
 * 2. an SDK whose sampler records nothing (AlwaysOff): about the same;
 * 3. an SDK recording every call into a processor that drops the spans (what tracing costs when
 *    it is on: the span, its attributes, an event per interceptor, the async context), reported.
 *
 * Each with 3 pass-through interceptors, so the per-interceptor events are part of the cost.
 */

import type { ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistryOptions } from '@dsh-tools/registry';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  NoopSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { runSuite } from './lib';

const ok = (result: ToolExecutionResult): ToolExecutionResult => {
  if (result.isError) throw new Error(`bench: a call failed: ${result.error?.message}`);
  return result;
};

function registry(options: ToolRegistryOptions) {
  const r = createToolRegistry(options);
  r.register({
    name: 'read',
    description: 'Reads',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
    execute: () => [{ type: 'text', text: 'ok' }],
  });
  for (let i = 0; i < 3; i++) r.use((_exec, next) => next(), { name: `pass-${i}` });
  return r;
}

// As an application that traces sets it up: an async context manager, so spans nest.
const manager = new AsyncLocalStorageContextManager();
manager.enable();
context.setGlobalContextManager(manager);

const off = registry({ tracerProvider: false });
const noSdk = registry({}); // the global provider: none registered in this process
const sampledOut = registry({
  tracerProvider: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }),
});
const recording = registry({
  tracerProvider: new BasicTracerProvider({ spanProcessors: [new NoopSpanProcessor()] }),
});

let n = 0;
const call = () => ({ callId: `c${n++}`, name: 'read', arguments: { path: '/tmp/a' } });

await runSuite(
  'registry + OpenTelemetry: one call, 3 pass-through interceptors',
  'tracerProvider: false',
  [
    { name: 'tracerProvider: false', fn: () => off.execute(call()).then(ok) },
    { name: 'no SDK registered', fn: () => noSdk.execute(call()).then(ok) },
    { name: 'SDK, AlwaysOff sampler', fn: () => sampledOut.execute(call()).then(ok) },
    { name: 'SDK recording every call', fn: () => recording.execute(call()).then(ok) },
  ],
  {
    rounds: 5,
    targets: [
      { task: 'no SDK registered', against: 'tracerProvider: false', atMost: 1.1 },
      { task: 'SDK, AlwaysOff sampler', against: 'tracerProvider: false', atMost: 1.2 },
    ],
  },
);
