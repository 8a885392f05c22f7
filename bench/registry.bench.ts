/**
 * The registry's costs, each as a ratio against a baseline measured in the same run:
 *
 * 1. execute overhead (validation on; 0 and 5 pass-through interceptors; a trivial tool) against
 *    calling the body plus one compiled-ajv validator call directly (target at most 10x), and 5
 *    pass-through interceptors against none (target at most 1.3x); then 10,000 concurrent calls
 *    through 5 pass-through interceptors against the same with none (target at most 1.5x). The
 *    cost of one pass-through *async* interceptor (`async (exec, next) => next()`, the way users
 *    write them) is the slope (5 of them - none) / 5, set against koa-compose's async hop
 *    measured the same way in the same suite: at most 2x one call at a time, 3x under 10,000
 *    concurrent calls. Between the two, in both settings, the same pass-through measured at each
 *    layer (the least a chain that checks every answer can do, the least one that also names the
 *    link at fault can do, the waterfall engine alone), to show where the hop goes;
 * 2. validation per call against raw compiled ajv: execute on a validated tool minus execute on
 *    the same tool with validation skipped, against the raw validator on fresh frozen copies of the same arguments (and on one warm object);
 * 3. compile cost per tool (register a fresh tool, first call compiles) against typebox 1.x
 *    `Compile` of the same schema and its first `Check` (the first run of generated code is
 *    where V8 compiles it; the registry's figure includes it), and raw ajv the same way, for
 *    where the time goes;
 * 4. registering 1,000 raw-schema tools plus the first schemas();
 * 5. schemas() on an unchanged 1,000-tool registry against a 10-tool one (O(1): same array);
 * 6. executeAll of 10 concurrency-safe 50 ms tools against running them one after another.
 */
import type {
  ObjectJsonSchema,
  ToolArgs,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolInputValidator,
} from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import { type ChainEntry, runChain } from '@dsh-tools/waterfall';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import compose from 'koa-compose';
import { Compile } from 'typebox/compile';
import { formatNs, reportRatio, runSuite } from './lib';

const content = [{ type: 'text' as const, text: 'ok' }];

/**
 * A benchmark counts only calls that worked: a failing call (an invalid argument after an edit,
 * an interceptor that fails closed) is cheap and would flatter the figures. Each timed call passes
 * its result through this check; a failure throws, and `runSuite` (tinybench `throws`) stops the run.
 */
const ok = (result: ToolExecutionResult): ToolExecutionResult => {
  if (result.isError) {
    throw new Error(`bench: a call failed, so its timing means nothing: ${result.error?.message}`);
  }
  return result;
};
const allOk = (results: readonly ToolExecutionResult[]): void => {
  for (const result of results) ok(result);
};
const readFileSchema: ObjectJsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Absolute path' },
    offset: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 10_000 },
  },
  required: ['path'],
  additionalProperties: false,
};
const readArgs = { path: '/etc/hosts', offset: 10, limit: 100 };

/** A heavier schema, so that validation is a measurable share of a call. */
const multiEditSchema: ObjectJsonSchema = {
  type: 'object',
  properties: {
    file_path: { type: 'string', minLength: 1 },
    edits: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          old_string: { type: 'string' },
          new_string: { type: 'string' },
          replace_all: { type: 'boolean' },
        },
        required: ['old_string', 'new_string'],
        additionalProperties: false,
      },
    },
    mode: { type: 'string', enum: ['apply', 'preview', 'check'] },
  },
  required: ['file_path', 'edits'],
  additionalProperties: false,
};
const multiEditArgs = {
  file_path: '/src/index.ts',
  mode: 'apply',
  edits: Array.from({ length: 20 }, (_, i) => ({
    old_string: `const a${i} = 1;`,
    new_string: `const a${i} = 2;`,
    replace_all: i % 2 === 0,
  })),
};

// The reference validator: ajv as its README recommends for this job, one shared instance.
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const rawRead = ajv.compile(readFileSchema);
const rawMultiEdit = ajv.compile(multiEditSchema);
// The other engine considered, on the same schema (for the engine choice in the README).
const typeboxMultiEdit = Compile(multiEditSchema as never);

const tool = (
  name: string,
  parameters: ObjectJsonSchema,
  extra: Partial<ToolDefinition> = {},
): ToolDefinition => ({
  name,
  description: `${name} tool`,
  parameters,
  execute: () => content,
  ...extra,
});

// ---------------------------------------------------------------------------- 1 + 2

const plain = createToolRegistry();
plain.register(tool('read_file', readFileSchema));
plain.register(tool('multi_edit', multiEditSchema));
// The same call with next to nothing to validate (schemas fail closed: no tool runs unvalidated, so
// the baseline is the trivial schema `{ type: "object" }`, which costs one type check).
plain.register(tool('multi_edit_unvalidated', { type: 'object' }));
const intercepted = createToolRegistry();
intercepted.register(tool('read_file', readFileSchema));
for (let i = 0; i < 5; i++) intercepted.use((_exec, next) => next(), { name: `pass${i}` });
// The same policy written as an async function: its promise is not next()'s, so the registry
// checks what it resolves with (identity with next()'s result is the cheap case).
const interceptedAsync = createToolRegistry();
interceptedAsync.register(tool('read_file', readFileSchema));
for (let i = 0; i < 5; i++) {
  interceptedAsync.use(async (_exec, next) => next(), { name: `async${i}` });
}

// Every call its own callId (a registry refuses one already in flight); each task pays the same.
let seq = 0;
const fresh = (exec: ToolExecution) => () => ({ ...exec, callId: `c${++seq}` });
const readCall = fresh({ callId: 'c', name: 'read_file', arguments: readArgs });
const editCall = fresh({ callId: 'c', name: 'multi_edit', arguments: multiEditArgs });
const editCallUnvalidated = fresh({
  callId: 'c',
  name: 'multi_edit_unvalidated',
  arguments: multiEditArgs,
});
const body = tool('read_file', readFileSchema).execute;
const bodyExec = { ...readCall(), tool: undefined, signal: new AbortController().signal } as never;

// koa-compose's async hop, the reference for ours: the same pass-through middleware around an
// inner step that answers a result, with none and with 5 of them.
type KoaInner = () => Promise<ToolExecutionResult>;
const koaResult: ToolExecutionResult = { callId: 'k', content, isError: false };
const koaInner: KoaInner = () => Promise.resolve(koaResult);
const koaChain = (n: number) => {
  const composed = compose<object>(
    Array.from({ length: n }, () => (async (_ctx, next) => next()) as compose.Middleware<object>),
  );
  // koa-compose's types say Promise<void>; at runtime it resolves what the chain returns.
  const run = composed as unknown as (ctx: object, inner: KoaInner) => Promise<ToolExecutionResult>;
  return () => run({}, koaInner);
};
const koa0 = koaChain(0);
const koa5 = koaChain(5);

/**
 * Where the registry's async hop goes, each layer the same pass-through around the same inner
 * step. The *floor*: the least a chain can do when every answer is checked before the link above
 * reads it (the registry's contract: an interceptor never sees another's unchecked result): per
 * link one `next` closure and one reaction to the listener's promise, nothing else (no misuse
 * rules, no rewrites). The *engine*: `@dsh-tools/waterfall`'s `runChain` with a `resolved` check
 * (misuse rules included), as the registry runs it. koa-compose checks nothing, so it is below
 * the floor.
 */
const floorChain = (n: number) => {
  const listeners = Array.from(
    { length: n },
    () => async (_exec: object, next: () => Promise<ToolExecutionResult>) => next(),
  );
  const checked = (value: ToolExecutionResult): ToolExecutionResult => {
    if (value !== koaResult) throw new Error('bench: an unchecked answer');
    return value;
  };
  const step = (index: number): Promise<ToolExecutionResult> => {
    const listener = listeners[index];
    if (!listener) return koaInner();
    let rest: Promise<ToolExecutionResult> | undefined;
    const answer = listener({}, () => {
      rest = step(index + 1);
      return rest;
    });
    return answer === rest ? answer : answer.then(checked);
  };
  return () => step(0);
};
const floor0 = floorChain(0);
const floor5 = floorChain(5);
/**
 * The *attributing floor*: the floor, for a chain that must also name the link at fault (the
 * registry's contract: a bad answer, a throw or a second `next()` fails the call naming the
 * interceptor that did it). A promise's reaction is handed only the value, so a handler that knows
 * its link is a function made for that link: per link, one `next` and the two handlers of its one
 * reaction, and nothing else (no rewrites, no settled-early rule).
 */
const attributingChain = (n: number) => {
  const listeners = Array.from(
    { length: n },
    () => async (_exec: object, next: () => Promise<ToolExecutionResult>) => next(),
  );
  const step = (index: number): Promise<ToolExecutionResult> => {
    const listener = listeners[index];
    if (!listener) return koaInner();
    let rest: Promise<ToolExecutionResult> | undefined;
    const answer = listener({}, () => {
      if (rest) return Promise.reject(new Error(`bench: link ${index} called next() twice`));
      rest = step(index + 1);
      return rest;
    });
    if (answer === rest) return answer;
    return answer.then(
      (value) => {
        if (value !== koaResult) throw new Error(`bench: link ${index} answered unchecked`);
        return value;
      },
      (error: unknown) => {
        throw new Error(`bench: link ${index} threw`, { cause: error });
      },
    );
  };
  return () => step(0);
};
const attributing0 = attributingChain(0);
const attributing5 = attributingChain(5);
const engineChain = (n: number) => {
  const chain: ChainEntry<[object], ToolExecutionResult>[] = Array.from({ length: n }, (_, i) => ({
    name: `async${i}`,
    listener: async (_exec, next) => next(),
    resolved: (value) => value,
  }));
  const args: [object] = [{}];
  return () => runChain<[object], ToolExecutionResult>(chain, args, koaInner);
};
const engine0 = engineChain(0);
const engine5 = engineChain(5);

const overhead = await runSuite(
  'registry: execute overhead, trivial tool, validation on',
  'body + one ajv call, direct',
  [
    {
      name: 'body + one ajv call, direct',
      fn: async () => {
        if (!rawRead(readArgs)) throw new Error('invalid');
        return await body(readArgs, bodyExec);
      },
    },
    { name: 'execute, 0 interceptors', fn: () => plain.execute(readCall()).then(ok) },
    { name: 'execute, 5 interceptors', fn: () => intercepted.execute(readCall()).then(ok) },
    {
      name: 'execute, 5 async interceptors',
      fn: () => interceptedAsync.execute(readCall()).then(ok),
    },
    { name: 'koa-compose, 0 async middleware', fn: () => koa0().then(ok) },
    { name: 'koa-compose, 5 async middleware', fn: () => koa5().then(ok) },
    { name: 'checked-chain floor, 0 async links', fn: () => floor0().then(ok) },
    { name: 'checked-chain floor, 5 async links', fn: () => floor5().then(ok) },
    { name: 'attributing floor, 0 async links', fn: () => attributing0().then(ok) },
    { name: 'attributing floor, 5 async links', fn: () => attributing5().then(ok) },
    { name: 'waterfall engine, 0 async listeners', fn: () => engine0().then(ok) },
    { name: 'waterfall engine, 5 async listeners', fn: () => engine5().then(ok) },
  ],
  {
    time: 400,
    // Each call allocates a few kilobytes: every task starts on a collected heap.
    freshHeap: true,
    targets: [
      { task: 'execute, 0 interceptors', against: 'body + one ajv call, direct', atMost: 10 },
      { task: 'execute, 5 interceptors', against: 'execute, 0 interceptors', atMost: 1.3 },
    ],
  },
);
const perInterceptor =
  ((overhead['execute, 5 interceptors'] ?? Number.NaN) -
    (overhead['execute, 0 interceptors'] ?? Number.NaN)) /
  5;
console.log(`\nper pass-through interceptor: ${formatNs(perInterceptor)}`);
reportRatio(
  'execute (0 interceptors) / body + one ajv call',
  (overhead['execute, 0 interceptors'] ?? Number.NaN) /
    (overhead['body + one ajv call, direct'] ?? Number.NaN),
);
reportRatio(
  'execute (5 interceptors) / body + one ajv call',
  (overhead['execute, 5 interceptors'] ?? Number.NaN) /
    (overhead['body + one ajv call, direct'] ?? Number.NaN),
);
/** The slope of a chain: what one more hop adds, without what a call pays once. */
const perHop = (means: Record<string, number>, five: string, none: string): number =>
  ((means[five] ?? Number.NaN) - (means[none] ?? Number.NaN)) / 5;
const asyncHop = perHop(overhead, 'execute, 5 async interceptors', 'execute, 0 interceptors');
const koaHop = perHop(
  overhead,
  'koa-compose, 5 async middleware',
  'koa-compose, 0 async middleware',
);
console.log(
  `per async pass-through interceptor: ${formatNs(asyncHop)}; per koa-compose async hop: ${formatNs(koaHop)}`,
);
reportRatio('async hop, one call at a time: ours / koa-compose', asyncHop / koaHop, 2);
const floorHop = perHop(
  overhead,
  'checked-chain floor, 5 async links',
  'checked-chain floor, 0 async links',
);
const engineHop = perHop(
  overhead,
  'waterfall engine, 5 async listeners',
  'waterfall engine, 0 async listeners',
);
const attributingHop = perHop(
  overhead,
  'attributing floor, 5 async links',
  'attributing floor, 0 async links',
);
console.log(
  `where an async hop goes: koa-compose ${formatNs(koaHop)}, a checked chain's floor ${formatNs(floorHop)}, the attributing floor ${formatNs(attributingHop)}, the waterfall engine ${formatNs(engineHop)}, the registry ${formatNs(asyncHop)}`,
);
reportRatio('async hop: checked-chain floor / koa-compose', floorHop / koaHop);
reportRatio('async hop: attributing floor / koa-compose', attributingHop / koaHop);
reportRatio('async hop: waterfall engine / koa-compose', engineHop / koaHop);

const CONCURRENT = 10_000;
const concurrentCalls: ToolExecution[] = Array.from({ length: CONCURRENT }, (_, i) => ({
  callId: `k${i}`,
  name: 'read_file',
  arguments: readArgs,
}));
const concurrently = (registry: typeof plain) => async () => {
  allOk(await Promise.all(concurrentCalls.map((exec) => registry.execute(exec))));
};
const chainConcurrently = (run: () => Promise<ToolExecutionResult>) => async () => {
  allOk(await Promise.all(concurrentCalls.map(() => run())));
};
const concurrent = await runSuite(
  'registry: 10,000 concurrent calls (one batch), trivial tool, validation on',
  '10,000 concurrent, 0 interceptors',
  [
    { name: '10,000 concurrent, 0 interceptors', fn: concurrently(plain) },
    { name: '10,000 concurrent, 5 interceptors', fn: concurrently(intercepted) },
    { name: '10,000 concurrent, 5 async interceptors', fn: concurrently(interceptedAsync) },
    { name: '10,000 concurrent koa-compose, 0 async middleware', fn: chainConcurrently(koa0) },
    { name: '10,000 concurrent koa-compose, 5 async middleware', fn: chainConcurrently(koa5) },
    // The same ladder as one call at a time: where the hop under load goes.
    { name: '10,000 concurrent checked-chain floor, 0 links', fn: chainConcurrently(floor0) },
    { name: '10,000 concurrent checked-chain floor, 5 links', fn: chainConcurrently(floor5) },
    { name: '10,000 concurrent attributing floor, 0 links', fn: chainConcurrently(attributing0) },
    { name: '10,000 concurrent attributing floor, 5 links', fn: chainConcurrently(attributing5) },
    { name: '10,000 concurrent waterfall engine, 0 listeners', fn: chainConcurrently(engine0) },
    { name: '10,000 concurrent waterfall engine, 5 listeners', fn: chainConcurrently(engine5) },
  ],
  {
    // A batch takes tens of milliseconds: tinybench's default 64 iterations would take minutes.
    time: 1000,
    iterations: 8,
    freshHeap: true,
    targets: [
      {
        task: '10,000 concurrent, 5 interceptors',
        against: '10,000 concurrent, 0 interceptors',
        atMost: 1.5,
      },
    ],
  },
);

const concurrentAsyncHop = perHop(
  concurrent,
  '10,000 concurrent, 5 async interceptors',
  '10,000 concurrent, 0 interceptors',
);
const concurrentKoaHop = perHop(
  concurrent,
  '10,000 concurrent koa-compose, 5 async middleware',
  '10,000 concurrent koa-compose, 0 async middleware',
);
console.log(
  `\nper async pass-through interceptor, per batch: ${formatNs(concurrentAsyncHop)}; per koa-compose async hop: ${formatNs(concurrentKoaHop)}`,
);
reportRatio(
  'async hop under 10,000 concurrent calls: ours / koa-compose',
  concurrentAsyncHop / concurrentKoaHop,
  3,
);
const concurrentLadder = (five: string, none: string) =>
  perHop(concurrent, `10,000 concurrent ${five}`, `10,000 concurrent ${none}`) / concurrentKoaHop;
reportRatio(
  'async hop under 10,000 concurrent calls: checked-chain floor / koa-compose',
  concurrentLadder('checked-chain floor, 5 links', 'checked-chain floor, 0 links'),
);
reportRatio(
  'async hop under 10,000 concurrent calls: attributing floor / koa-compose',
  concurrentLadder('attributing floor, 5 links', 'attributing floor, 0 links'),
);
reportRatio(
  'async hop under 10,000 concurrent calls: waterfall engine / koa-compose',
  concurrentLadder('waterfall engine, 5 listeners', 'waterfall engine, 0 listeners'),
);

// The difference of two ~5 µs calls is a few hundred ns, less than the noise of one tinybench
// task on a shared machine: so both calls are timed in alternating rounds, and the median of
// the per-round differences is taken.
const perCallNs = async (fn: () => unknown, n: number): Promise<number> => {
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - start) * 1e6) / n;
};
const perSyncCallNs = (fn: () => unknown, n: number): number => {
  const start = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - start) * 1e6) / n;
};
const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
/**
 * A deep, frozen copy like the one the registry validates (and like a model's freshly parsed
 * arguments, a new object every call). Validating the same warm object again and again is cheaper
 * for any engine than validating a fresh one, so the target compares like with like: raw ajv on
 * fresh copies. The same-object figure is printed beside it.
 */
const frozenCopy = (v: unknown): unknown => {
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const key in v) out[key] = frozenCopy((v as Record<string, unknown>)[key]);
    return Object.freeze(out);
  }
  return v;
};
const freshPool = Array.from({ length: 2_000 }, () => frozenCopy(multiEditArgs));
let freshIndex = 0;
const deltas: number[] = [];
const raws: number[] = [];
const rawsFresh: number[] = [];
const typeboxes: number[] = [];
// Checked once before timing (a failing call would be cheap and flatter the difference), and
// counted during it: the check is one property read, the same in both calls.
ok(await plain.execute(editCall()));
ok(await plain.execute(editCallUnvalidated()));
let failedCalls = 0;
const counted = (result: ToolExecutionResult) => {
  if (result.isError) failedCalls++;
};
for (let round = 0; round < 41; round++) {
  const validated = await perCallNs(() => plain.execute(editCall()).then(counted), 5_000);
  const skipped = await perCallNs(() => plain.execute(editCallUnvalidated()).then(counted), 5_000);
  deltas.push(validated - skipped);
  raws.push(perSyncCallNs(() => rawMultiEdit(multiEditArgs), 20_000));
  rawsFresh.push(
    perSyncCallNs(() => rawMultiEdit(freshPool[freshIndex++ % freshPool.length]), 20_000),
  );
}
// Apart from the alternating rounds, so that its garbage does not land in theirs.
for (let round = 0; round < 21; round++) {
  typeboxes.push(perSyncCallNs(() => typeboxMultiEdit.Check(multiEditArgs), 20_000));
}
if (failedCalls > 0) {
  throw new Error(
    `bench: ${failedCalls} validation-round calls failed; their timings mean nothing`,
  );
}
const perCall = median(deltas);
const raw = median(raws);
const rawFresh = median(rawsFresh);
console.log(
  '\n## registry: validation per call (multi_edit, 20 edits; medians of 41 alternating rounds)\n',
);
console.log('| task | per call |\n|---|---:|');
console.log(`| raw compiled ajv, the same object every call | ${formatNs(raw)} |`);
console.log(`| raw compiled ajv, a fresh frozen copy every call | ${formatNs(rawFresh)} |`);
console.log(`| typebox 1.x Compile(...).Check, for comparison | ${formatNs(median(typeboxes))} |`);
console.log(
  `| registry validation: execute validated - execute with validation skipped | ${formatNs(perCall)} |`,
);
reportRatio(
  'registry validation per call / raw compiled ajv on fresh copies',
  perCall / rawFresh,
  1.5,
);
reportRatio('registry validation per call / raw compiled ajv on the same object', perCall / raw);

// ---------------------------------------------------------------------------- 3

/**
 * A fresh schema object every time (no engine may answer from a cache), of realistic shape, and
 * arguments valid for the schema made last (so the first call measures compile + a valid call).
 */
let serial = 0;
const validForLast = (): ToolArgs =>
  (serial - 1) % 2 === 0
    ? { path: 'a' }
    : { file_path: 'a', edits: [{ old_string: 'a', new_string: 'b' }] };
const freshSchema = (): ObjectJsonSchema => {
  const n = serial++;
  return n % 2 === 0
    ? {
        ...readFileSchema,
        description: `v${n}`,
        properties: { ...readFileSchema.properties, [`p${n}`]: { type: 'string' } },
      }
    : {
        ...multiEditSchema,
        description: `v${n}`,
        properties: { ...multiEditSchema.properties, [`p${n}`]: { type: 'number' } },
      };
};
/** A Standard Schema that accepts anything: the same call without compiling `parameters`. */
const passThrough: ToolInputValidator = {
  '~standard': {
    version: 1,
    vendor: 'bench',
    validate: (value: unknown) => ({ value: value as ToolArgs }),
  },
};
const compileRegistry = createToolRegistry();
// A live tool with the read_file schema: re-registering that schema is a cache hit.
compileRegistry.register(tool('live', readFileSchema));
const sharedAjv = new Ajv({ strict: false, allErrors: true, addUsedSchema: false });
addFormats(sharedAjv);

const compile = await runSuite(
  'registry: compile cost per tool',
  'typebox 1.x Compile + first Check',
  [
    {
      name: 'typebox 1.x Compile + first Check',
      fn: () => {
        const validator = Compile(freshSchema() as never);
        if (!validator.Check(validForLast()))
          throw new Error('bench: typebox refused a valid call');
      },
    },
    { name: 'typebox 1.x Compile', fn: () => Compile(freshSchema() as never) },
    {
      name: 'ajv compile + first validate, shared instance (default code options)',
      fn: () => {
        const schema = freshSchema();
        const validate = sharedAjv.compile(schema);
        if (!validate(validForLast())) throw new Error('bench: ajv refused a valid call');
        sharedAjv.removeSchema(schema);
      },
    },
    {
      name: 'registry: register + first call (compiles) + dispose',
      fn: async () => {
        const dispose = compileRegistry.register(tool('fresh', freshSchema()));
        ok(
          await compileRegistry.execute({ callId: 'x', name: 'fresh', arguments: validForLast() }),
        );
        dispose();
      },
    },
    {
      name: 'registry: register + first call, same schema as a live tool + dispose',
      fn: async () => {
        const dispose = compileRegistry.register(tool('again', readFileSchema));
        ok(await compileRegistry.execute({ callId: 'x', name: 'again', arguments: { path: 'a' } }));
        dispose();
      },
    },
    {
      name: 'registry: register + first call, validation skipped + dispose',
      fn: async () => {
        const dispose = compileRegistry.register(
          tool('fresh', freshSchema(), { inputValidator: passThrough }),
        );
        ok(await compileRegistry.execute({ callId: 'x', name: 'fresh', arguments: { path: 'a' } }));
        dispose();
      },
    },
  ],
  { time: 1500 },
);
const compilePerTool =
  (compile['registry: register + first call (compiles) + dispose'] ?? Number.NaN) -
  (compile['registry: register + first call, validation skipped + dispose'] ?? Number.NaN);
console.log(`\nregistry compile per tool (compiling - not compiling): ${formatNs(compilePerTool)}`);
// Like with like: the registry's figure includes the first call, where V8 compiles the code the
// validator generated (lazily, on first run: about as much again as generating it); typebox's
// `Compile` alone stops before that, so its first `Check` is counted too. Both are printed.
reportRatio(
  'registry compile per tool / typebox 1.x Compile + first Check',
  compilePerTool / (compile['typebox 1.x Compile + first Check'] ?? Number.NaN),
  2,
);
reportRatio(
  'registry compile per tool / typebox 1.x Compile alone (no first Check)',
  compilePerTool / (compile['typebox 1.x Compile'] ?? Number.NaN),
);

// ---------------------------------------------------------------------------- 4 + 5

const thousand = Array.from({ length: 1000 }, (_, i) =>
  tool(`mcp__server__tool_${i}`, {
    type: 'object',
    properties: {
      query: { type: 'string', description: `query ${i}` },
      limit: { type: 'integer' },
    },
    required: ['query'],
  }),
);
const registration = await runSuite(
  'registry: 1,000 raw-schema tools',
  'Map of 1,000 definitions',
  [
    {
      name: 'Map of 1,000 definitions',
      fn: () => {
        const map = new Map<string, ToolDefinition>();
        for (const definition of thousand) map.set(definition.name, definition);
        return Array.from(map.values());
      },
    },
    {
      name: 'register 1,000 + first schemas()',
      fn: () => {
        const registry = createToolRegistry();
        for (const definition of thousand) registry.register(definition);
        return registry.schemas();
      },
    },
  ],
  { time: 1500 },
);
const registerMs = (registration['register 1,000 + first schemas()'] ?? Number.NaN) / 1e6;
console.log(
  `\nregister 1,000 + first schemas(): ${registerMs.toFixed(2)} ms on this machine (under 50 ms): ${
    registerMs < 50 ? 'met' : 'MISSED'
  }`,
);

const big = createToolRegistry();
for (const definition of thousand) big.register(definition);
const small = createToolRegistry();
for (const definition of thousand.slice(0, 10)) small.register(definition);
const first = big.schemas();
console.log(
  `schemas() on an unchanged registry returns the same array: ${big.schemas() === first ? 'yes' : 'NO'}`,
);
await runSuite(
  'registry: schemas() on an unchanged registry',
  'schemas(), 10 tools',
  [
    { name: 'schemas(), 10 tools', fn: () => small.schemas() },
    { name: 'schemas(), 1,000 tools', fn: () => big.schemas() },
  ],
  {
    time: 300,
    targets: [{ task: 'schemas(), 1,000 tools', against: 'schemas(), 10 tools', atMost: 2 }],
  },
);

// ---------------------------------------------------------------------------- 6

const parallel = createToolRegistry();
parallel.register(
  tool(
    'sleep',
    { type: 'object' },
    {
      hints: { concurrencySafe: true },
      execute: () => new Promise((resolve) => setTimeout(() => resolve(content), 50)),
    },
  ),
);
const turn: ToolExecution[] = Array.from({ length: 10 }, (_, i) => ({
  callId: `s${i}`,
  name: 'sleep',
  arguments: {},
}));
// 50 ms tools make tinybench's minimum iteration count take minutes: a few timed rounds instead.
const time = async (fn: () => Promise<unknown>, rounds = 5) => {
  await fn();
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await fn();
  return (performance.now() - start) / rounds;
};
const sequential = await time(async () => {
  for (const exec of turn) ok(await parallel.execute(exec));
});
const overlapped = await time(async () => allOk(await parallel.executeAll(turn)));
console.log('\n## registry: executeAll of 10 concurrency-safe 50 ms tools\n');
console.log(
  `| task | mean |\n|---|---:|\n| one after another | ${sequential.toFixed(1)} ms |\n| executeAll | ${overlapped.toFixed(1)} ms |`,
);
const speedup = sequential / overlapped;
console.log(
  `ratio: executeAll speed-up over sequence = ${speedup.toFixed(2)}x (at least 8x): ${speedup >= 8 ? 'met' : 'MISSED'}`,
);
