/**
 * What a hostile schema or argument can cost the registry (issue 9, schemas), each against a
 * baseline measured in the same run:
 *
 * 1. patterns: validating a 10 KB hostile argument against catastrophic patterns (nested
 *    quantifiers, overlapping alternation, `(.*a){20}`) on the linear-time engine, against a
 *    benign pattern on the same argument; the target is an absolute one, at most 50 ms a call.
 *    "Before" is V8's backtracking engine on `^(a+)+$`, timed on 20–26 characters (each one more
 *    doubles the time) and extrapolated to 40, where it would run for hours.
 * 2. compile: a typical tool schema, and ones up to the 64 KiB budget, compiled by
 *    `compileSchema` (on the calling thread), against the typical one, for the record; then what
 *    the event loop sees of a tool's schema: `register` (the checks, and the compile up to 8 KiB)
 *    and the longest stretch without a turn while the first call waits for the compiling worker.
 *    Target: no schema within budget blocks the event loop more than about 50 ms.
 * 3. memory: the heap growth over 7,000 tools registered, called and disposed after a first
 *    thousand, against the same churn on one shared Ajv instance with `removeSchema` (what the
 *    registry did before).
 */
import { compileSchema, createToolRegistry } from '@dsh-tools/registry';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { sizedSchema } from '../test-support/sized-schema';
import { formatNs, runSuite } from './lib';

const hostile = (unit: string) => `${unit.repeat(Math.floor(10_000 / unit.length))}!`;

const PATTERNS: [string, string][] = [
  ['^(a+)+$', 'a'],
  ['^(a|a)+$', 'a'],
  ['^(a|aa)+$', 'a'],
  ['^(a*)*$', 'a'],
  ['^(\\w+\\s?)+$', 'ab '],
  ['(x+x+)+y', 'x'],
  ['^(.*a){20}$', 'a'],
  ['^(a?){30}a{30}$', 'a'],
];

// ---------------------------------------------------------------- 1. patterns

const benign = compileSchema({ type: 'string', pattern: '^[a-z]+$' });
const benignInput = hostile('a');
const tasks = [
  {
    name: 'benign ^[a-z]+$, 10 KB',
    fn: () => {
      if (benign.validate(benignInput) === undefined) throw new Error('the benign input passed');
    },
  },
  ...PATTERNS.map(([pattern, unit]) => {
    const check = compileSchema({ type: 'string', pattern });
    const input = hostile(unit);
    return {
      name: `${pattern}, 10 KB hostile`,
      fn: () => {
        if (check.validate(input) === undefined) throw new Error(`${pattern} passed`);
      },
    };
  }),
];
const unique = compileSchema({ type: 'array', uniqueItems: true });
const distinct: unknown[] = [];
for (let i = 0; JSON.stringify(distinct).length < 10_000; i++) distinct.push({ a: i });
tasks.push({
  name: `uniqueItems, ${distinct.length} distinct objects (10 KB)`,
  fn: () => {
    if (unique.validate(distinct) !== undefined) throw new Error('distinct items were refused');
  },
});
const manyPatterns = compileSchema({
  type: 'object',
  patternProperties: Object.fromEntries(
    Array.from({ length: 64 }, (_, i) => [`^k${i}_[a-z]+$`, { type: 'number' }]),
  ),
  additionalProperties: false,
});
const manyKeys: Record<string, number> = {};
for (let i = 0; JSON.stringify(manyKeys).length < 10_000; i++) manyKeys[`x${i}`] = 1;
tasks.push({
  name: `64 patternProperties (the most allowed), ${Object.keys(manyKeys).length} keys (10 KB)`,
  fn: () => {
    if (manyPatterns.validate(manyKeys) === undefined) throw new Error('unknown keys passed');
  },
});
const patterns = await runSuite(
  'validation of a 10 KB argument, linear-time engine',
  tasks[0]!.name,
  tasks,
  {
    time: 200,
    iterations: 8,
  },
);
const worst = Math.max(...Object.values(patterns));
console.log(
  `target: slowest 10 KB validation ${formatNs(worst)} (at most 50 ms): ${worst <= 50e6 ? 'met' : 'MISSED'}`,
);

const backtracking = /^(a+)+$/;
const native: [number, number][] = [];
for (const n of [20, 22, 24, 26]) {
  const input = `${'a'.repeat(n)}!`;
  const start = performance.now();
  backtracking.test(input);
  native.push([n, performance.now() - start]);
}
console.log('\nbefore: V8 backtracking on ^(a+)+$ (ms):');
for (const [n, ms] of native) console.log(`  ${n} characters + "!": ${ms.toFixed(1)} ms`);
const [lastN, lastMs] = native[native.length - 1]!;
const at40 = lastMs * 2 ** (40 - lastN);
console.log(
  `  40 characters, extrapolated (doubling per character): ${(at40 / 3_600_000).toFixed(1)} hours`,
);
const linear40 = compileSchema({ type: 'string', pattern: '^(a+)+$' });
const start40 = performance.now();
for (let i = 0; i < 1_000; i++) linear40.validate(`${'a'.repeat(40)}!`);
console.log(
  `after: the linear-time engine on the same 40 characters: ${formatNs(((performance.now() - start40) / 1_000) * 1e6)} a call`,
);

// ---------------------------------------------------------------- 2. compile

const typical = {
  type: 'object',
  properties: {
    path: { type: 'string', pattern: '^[^\\0]+$' },
    edits: {
      type: 'array',
      items: {
        type: 'object',
        properties: { old_string: { type: 'string' }, new_string: { type: 'string' } },
        required: ['old_string', 'new_string'],
      },
    },
    mode: { enum: ['a', 'b', 'c'] },
    when: { type: 'string', format: 'date-time' },
  },
  required: ['path'],
};
/** A schema of about `bytes` as JSON: many properties, each with a pattern and a limit. */
const sized = (bytes: number) => sizedSchema(bytes);
let serial = 0;
// Each compile gets a schema no cache has seen: a distinct title.
const fresh = (schema: Record<string, unknown>) => ({ ...schema, title: `s${serial++}` });
const SIZES = [4_096, 8_192, 16_384, 32_768, 64_000];
const compiles = await runSuite(
  'compile one schema (what register does)',
  'typical tool schema',
  [
    { name: 'typical tool schema', fn: () => compileSchema(fresh(typical)) },
    ...SIZES.map((bytes) => {
      const schema = sized(bytes);
      const count = Object.keys(schema.properties).length;
      return {
        name: `${JSON.stringify(schema).length.toLocaleString('en-US')} bytes, ${count} properties with patterns`,
        fn: () => compileSchema(fresh(schema)),
      };
    }),
  ],
  { time: 400, iterations: 4, rounds: 2 },
);
// Before: the registry's old engine (one shared Ajv, formats added, native patterns, no checks),
// compiling the largest schema on a tool's first call.
const oldEngine = new Ajv2020({
  strict: false,
  allErrors: true,
  addUsedSchema: false,
  validateSchema: false,
  code: { optimize: false },
  logger: false,
});
addFormats(oldEngine);
const largestSchema = sized(SIZES[SIZES.length - 1]!);
const before = await runSuite(
  'before: the same largest schema on the old engine (shared Ajv, native patterns)',
  'old engine',
  [
    {
      name: 'old engine',
      fn: () => {
        const schema = fresh(largestSchema);
        oldEngine.compile(schema);
        oldEngine.removeSchema(schema);
      },
    },
  ],
  { time: 400, iterations: 4, rounds: 2 },
);
void before;
const largest = Math.max(...Object.values(compiles));
console.log(
  `compileSchema() (compiles on the calling thread, by contract): within budget at most ${formatNs(largest)}`,
);

// What a tool's schema costs the event loop: `register` (the fail-closed checks, on this thread;
// schemas over 16 KiB of JSON compile on the compiling worker) and the first call (which waits
// for the worker; the longest stretch the event loop did not turn meanwhile is what counts).
/** The longest gap between two turns of the event loop while `work` runs, in ns. */
const longestBlock = async (work: Promise<unknown>): Promise<number> => {
  let done = false;
  void work.finally(() => {
    done = true;
  });
  let longest = 0;
  let last = process.hrtime.bigint();
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    const now = process.hrtime.bigint();
    longest = Math.max(longest, Number(now - last));
    last = now;
  }
  await work;
  return longest;
};
/** The same size, as dense as it gets: one short pattern per property, no descriptions. */
const dense = (bytes: number) => {
  const properties: Record<string, unknown> = {};
  for (let i = 0; JSON.stringify({ type: 'object', properties }).length < bytes - 200; i++) {
    properties[`f${i}`] = { type: 'string', pattern: `^f${i}-[a-z0-9]+$` };
  }
  return { type: 'object', properties };
};
const loopRegistry = createToolRegistry({ onError: () => {} });
const ROUNDS = 7;
const shapes = [
  ...SIZES.map(
    (bytes) => [`${bytes.toLocaleString('en-US')} bytes, with descriptions`, sized(bytes)] as const,
  ),
  ['64,000 bytes, one pattern per 40 bytes', dense(64_000)] as const,
];
let worstLoop = 0;
const rows: string[] = [];
for (const [label, schema] of shapes) {
  const registers: number[] = [];
  const blocks: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const name = `t${serial}`;
    const parameters = fresh(schema as Record<string, unknown>);
    const start = process.hrtime.bigint();
    loopRegistry.register({
      name,
      description: '',
      parameters: parameters as never,
      execute: () => [],
    });
    registers.push(Number(process.hrtime.bigint() - start));
    blocks.push(await longestBlock(loopRegistry.execute({ callId: name, name, arguments: {} })));
  }
  // The first round loads what the rest reuse (the engine's modules, the worker): reported apart.
  const steady = (xs: number[]) => xs.slice(1).sort((a, b) => a - b);
  const reg = steady(registers);
  const blk = steady(blocks);
  const worst = Math.max(reg[reg.length - 1]!, blk[blk.length - 1]!);
  worstLoop = Math.max(worstLoop, worst);
  rows.push(
    `| ${label} | ${formatNs(reg[Math.floor(reg.length / 2)]!)} | ${formatNs(reg[reg.length - 1]!)} | ${formatNs(blk[Math.floor(blk.length / 2)]!)} | ${formatNs(blk[blk.length - 1]!)} | ${formatNs(registers[0]!)} |`,
  );
}
console.log("\n## a tool's schema and the event loop: register, then the first call\n");
console.log(
  '| schema | register (median) | register (max) | longest block during first call (median) | (max) | very first register |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(
  `target: no schema within budget blocks the event loop more than about 50 ms (steady rounds): worst ${formatNs(worstLoop)}: ${worstLoop <= 50e6 ? 'met' : 'MISSED'}`,
);

// ---------------------------------------------------------------- 3. memory

const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
const schemaFor = (i: number) => ({
  type: 'object',
  properties: {
    [`p${i}`]: { type: 'string', pattern: `^v${i}(-[a-z]+)*$` },
    when: { type: 'string', format: 'date-time' },
  },
  required: [`p${i}`],
});
const growth = async (churn: (from: number, to: number) => Promise<void>) => {
  await churn(0, 1_000);
  await settle();
  const base = process.memoryUsage().heapUsed;
  await churn(1_000, 8_000);
  await settle();
  return process.memoryUsage().heapUsed - base;
};
if (gc) {
  const registry = createToolRegistry({ onError: () => {} });
  const ours = await growth(async (from, to) => {
    for (let i = from; i < to; i++) {
      const name = `tool_${i}`;
      const dispose = registry.register({
        name,
        description: '',
        parameters: schemaFor(i) as never,
        execute: () => [],
      });
      await registry.execute({ callId: `c${i}`, name, arguments: { [`p${i}`]: `v${i}` } });
      dispose();
    }
  });
  // The registry's engine before issue 9: one shared instance, formats added, removeSchema on dispose.
  const shared = new Ajv2020({
    strict: false,
    allErrors: true,
    addUsedSchema: false,
    logger: false,
  });
  addFormats(shared);
  const before = await growth(async (from, to) => {
    for (let i = from; i < to; i++) {
      const schema = schemaFor(i);
      shared.compile(schema)({ [`p${i}`]: `v${i}` });
      shared.removeSchema(schema);
    }
  });
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    '\n## heap growth over 7,000 tools after the first 1,000 (registered, called, disposed)\n',
  );
  console.log(`before: one shared Ajv, compile + removeSchema: ${mb(before)}`);
  console.log(`after: the registry (an engine per schema, dropped with its tools): ${mb(ours)}`);
  console.log(`target: a few MB at most: ${ours <= 4 * 1024 * 1024 ? 'met' : 'MISSED'}`);
} else {
  console.log('\nmemory: not measured (run with --expose-gc, as pnpm bench does)');
}
