/**
 * Bytes allocated per call and per interceptor hop: the registry's against koa-compose's and a
 * direct body call. Unlike a time, an allocation count does not depend on what else the machine
 * runs, so this figure is exact where registry.bench.ts's ratios are noisy; and allocation is
 * what makes 10,000 concurrent calls slow (the young generation fills and is collected).
 *
 * Measured in a child process whose young generation (128 MB per semi-space) holds every byte a
 * window allocates: nothing is collected during it (checked: a window during which a collection
 * ran is measured again), so the growth of the heap is what the window allocated.
 */
import { spawnSync } from 'node:child_process';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { ObjectJsonSchema, ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { Ajv } from 'ajv';
import compose from 'koa-compose';
import { reportRatio } from './lib';

const FLAGS = ['--expose-gc', '--min-semi-space-size=128', '--max-semi-space-size=128'];
if (!FLAGS.every((flag) => process.execArgv.includes(flag))) {
  const child = spawnSync(process.execPath, [...FLAGS, fileURLToPath(import.meta.url)], {
    stdio: 'inherit',
  });
  process.exit(child.status ?? 1);
}

const gc = (globalThis as { gc?: () => void }).gc as () => void;
/** When each collection started, on `performance.now()`'s clock (entries arrive later). */
const collections: number[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry.startTime);
}).observe({ entryTypes: ['gc'] });

const content = [{ type: 'text' as const, text: 'ok' }];
const schema: ObjectJsonSchema = {
  type: 'object',
  properties: { path: { type: 'string' }, limit: { type: 'integer', minimum: 1 } },
  required: ['path'],
  additionalProperties: false,
};
const args = { path: '/etc/hosts', limit: 100 };
const tool = { name: 'read_file', description: 'r', parameters: schema, execute: () => content };
const registry = (interceptors: number, async: boolean) => {
  const r = createToolRegistry();
  r.register(tool);
  for (let i = 0; i < interceptors; i++) {
    r.use(async ? async (_exec, next) => next() : (_exec, next) => next(), { name: `i${i}` });
  }
  return r;
};
let ids = 0;
const through = (r: ReturnType<typeof registry>) => () =>
  r.execute({ callId: `c${ids++}`, name: 'read_file', arguments: args });
const validate = new Ajv({ strict: false }).compile(schema);
const direct = async () => {
  if (!validate(args)) throw new Error('invalid');
  return tool.execute();
};
const koaResult: ToolExecutionResult = { callId: 'k', content, isError: false };
const koa = (n: number) => {
  const run = compose<object>(
    Array.from({ length: n }, () => (async (_ctx, next) => next()) as compose.Middleware<object>),
  ) as unknown as (ctx: object, inner: () => Promise<ToolExecutionResult>) => Promise<unknown>;
  return () => run({}, () => Promise.resolve(koaResult));
};

const CALLS = 2000;
/** Bytes one call allocates: the median of five windows of CALLS calls in flight at once. */
async function bytesPerCall(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < CALLS; i++) await fn();
  const windows: number[] = [];
  while (windows.length < 5) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    const start = performance.now();
    const before = process.memoryUsage().heapUsed;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < CALLS; i++) calls.push(fn());
    const results = await Promise.all(calls);
    const after = process.memoryUsage().heapUsed;
    for (const result of results) {
      if ((result as { isError?: boolean })?.isError) throw new Error('bench: a call failed');
    }
    const end = performance.now();
    // The observer hears of a collection a little later: wait for it before looking.
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!collections.some((at) => at >= start && at <= end)) windows.push((after - before) / CALLS);
  }
  return windows.sort((a, b) => a - b)[2] as number;
}

const bytes: Record<string, number> = {};
for (const [name, fn] of [
  ['body + one ajv call, direct', direct],
  ['execute, 0 interceptors', through(registry(0, false))],
  ['execute, 5 interceptors', through(registry(5, false))],
  ['execute, 5 async interceptors', through(registry(5, true))],
  ['koa-compose, 0 async middleware', koa(0)],
  ['koa-compose, 5 async middleware', koa(5)],
] as const) {
  bytes[name] = await bytesPerCall(fn);
}
console.log('\nregistry: bytes allocated per call, 2,000 in flight (exact: nothing collected)');
console.table(
  Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, { bytes: Math.round(v) }])),
);
const hop = (five: string, none: string) => ((bytes[five] ?? 0) - (bytes[none] ?? 0)) / 5;
const asyncHop = hop('execute, 5 async interceptors', 'execute, 0 interceptors');
const syncHop = hop('execute, 5 interceptors', 'execute, 0 interceptors');
const koaHop = hop('koa-compose, 5 async middleware', 'koa-compose, 0 async middleware');
console.log(
  `per async hop: ${Math.round(asyncHop)} B (koa-compose: ${Math.round(koaHop)} B); per sync hop: ${Math.round(syncHop)} B`,
);
reportRatio('bytes per async hop: ours / koa-compose', asyncHop / koaHop);
reportRatio(
  'bytes per call, execute (0 interceptors) / body + one ajv call',
  (bytes['execute, 0 interceptors'] ?? 0) / (bytes['body + one ajv call, direct'] ?? 1),
);
