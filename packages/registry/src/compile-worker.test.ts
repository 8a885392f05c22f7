import { type JsonSchema, ToolErrorCode } from '@dsh-tools/protocol';
import {
  codeCacheStats,
  offThread,
  SYNC_PATTERNS,
  stopCompileWorker,
  workerLimits,
} from '@dsh-tools/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { sizedSchema } from '../../../test-support/sized-schema';
import { createToolRegistry } from './index';

/** A schema of about `bytes` as JSON, over the worker's threshold, that requires `field_0`. */
const sized = (bytes: number, extra: Record<string, JsonSchema> = {}) => ({
  ...(sizedSchema(bytes, extra) as ReturnType<typeof sizedSchema> & {
    properties: Record<string, JsonSchema>;
  }),
  required: ['field_0'],
});

const BIG = 40_000;
const echo = () => [{ type: 'text' as const, text: 'ran' }];

afterEach(async () => {
  workerLimits.heapMb = 256;
  workerLimits.deadlineMs = 20_000;
  await stopCompileWorker();
});

describe('big schemas compile on a worker thread', () => {
  it('enforces every kind of keyword the generated code calls out to: patterns, formats, uniqueItems, recursion', async () => {
    const registry = createToolRegistry();
    const parameters = {
      ...sized(BIG, {
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', uniqueItems: true },
        tree: { $ref: '#/$defs/node' },
        size: { type: 'string', minLength: 2 },
      }),
      $defs: {
        node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            kids: { type: 'array', items: { $ref: '#/$defs/node' } },
          },
          required: ['name'],
        },
      },
    };
    expect(JSON.stringify(parameters).length).toBeGreaterThan(offThread.aboveChars);
    registry.register({ name: 'big', description: 'A big schema', parameters, execute: echo });

    const call = (callId: string, args: Record<string, unknown>) =>
      registry.execute({ callId, name: 'big', arguments: args });
    const [good, badPattern, badFormat, duplicate, badTree, emoji] = await Promise.all([
      call('1', {
        field_0: 'f0-ok',
        when: '2026-12-03T04:00:00Z',
        tags: [1, 2],
        tree: { name: 'a', kids: [{ name: 'b' }] },
      }),
      call('2', { field_0: 'f0-ok', field_7: 'f8-no' }),
      call('3', { field_0: 'f0-ok', when: 'yesterday' }),
      call('4', {
        field_0: 'f0-ok',
        tags: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      }),
      call('5', { field_0: 'f0-ok', tree: { name: 'a', kids: [{ kids: [] }] } }),
      // minLength counts code points (Ajv's ucs2length, from its runtime): one emoji is 1.
      call('6', { field_0: 'f0-ok', size: '😀' }),
    ]);
    expect(good.isError).toBe(false);
    expect(badPattern.error?.code).toBe(ToolErrorCode.INVALID_ARGS);
    expect(badPattern.error?.message).toContain(
      'argument "field_7" must match pattern "^f7-[a-z0-9]+$"',
    );
    expect(badFormat.error?.message).toContain('argument "when" must match format "date-time"');
    expect(duplicate.error?.message).toContain(
      'argument "tags" must NOT have duplicate items (items ## 0 and 1 are identical)',
    );
    expect(badTree.error?.message).toContain('argument "tree/kids/0/name" is required');
    expect(emoji.error?.message).toContain('argument "size" must NOT have fewer than 2 characters');
  });

  it('refuses at register, synchronously, what the checks refuse: the worker only compiles', () => {
    const registry = createToolRegistry();
    const refused = (extra: Record<string, JsonSchema>) => () =>
      registry.register({
        name: 'x',
        description: '',
        parameters: sized(BIG, extra),
        execute: echo,
      });
    expect(refused({ a: { type: 'string', pattern: '^(?=a)' } })).toThrow(
      /properties\/a\/pattern.*lookahead/,
    );
    expect(refused({ a: { $ref: '#/$defs/missing' } })).toThrow(/properties\/a/);
    expect(refused({ a: { type: 'strin' } })).toThrow(/properties\/a\/type/);
    expect(registry.schemas()).toEqual([]);
  });

  it('compiles many patterns on RE2 on the worker: what only RE2 refuses then refuses every call, once reported, never runs the tool', async () => {
    // A repeat over 1,000 is valid ECMAScript and runs in linear time, but RE2 refuses it.
    const odd = { x: { type: 'string', pattern: 'a{1001}' } } as const;
    const many = sized(BIG, odd);
    expect(Object.keys(many.properties).length).toBeGreaterThan(SYNC_PATTERNS);
    const reports: string[] = [];
    const registry = createToolRegistry({
      onError: (error) => reports.push((error as Error).message),
    });
    let ran = 0;
    registry.register({
      name: 'many',
      description: '',
      parameters: many,
      execute: () => {
        ran++;
        return echo();
      },
    });
    const results = await Promise.all(
      ['1', '2'].map((callId) =>
        registry.execute({ callId, name: 'many', arguments: { field_0: 'f0-a' } }),
      ),
    );
    for (const result of results) {
      expect(result.error?.code).toBe(ToolErrorCode.INVALID_ARGS);
      expect(result.error?.message).toMatch(
        /Tool "many": its parameters schema cannot be enforced \(at "\/properties\/x\/pattern": the pattern "a\{1001\}" is refused: RE2 cannot run it \(.*invalid repeat count.*\), so no call to it runs/,
      );
    }
    expect(ran).toBe(0);
    expect(reports.filter((m) => m.includes('a{1001}'))).toHaveLength(1);
    // With few patterns the checks compile them all, and register refuses it outright.
    expect(() =>
      registry.register({
        name: 'few',
        description: '',
        parameters: {
          type: 'object',
          properties: { ...odd, pad: { description: 'p'.repeat(BIG) } },
        },
        execute: echo,
      }),
    ).toThrow(
      /at "\/properties\/x\/pattern": the pattern "a\{1001\}" is refused: RE2 cannot run it/,
    );
  });

  it('compiles a big schema on the worker and loads it here with its compiled code (no compile on this thread)', async () => {
    // How long the event loop is held is a benchmark's to measure (bench/validation.bench.ts);
    // here, that the two costly steps did not run on this thread: the compile (it did not fall
    // back) and compiling the validator's code (V8 took the worker's code cache).
    const registry = createToolRegistry();
    const parameters = { ...sized(60_000), title: 'fresh' };
    const fellBack = offThread.fellBack;
    const cached = codeCacheStats.used;
    const rejected = codeCacheStats.rejected;
    registry.register({ name: 'big', description: '', parameters, execute: echo });
    const result = await registry.execute({
      callId: 'b',
      name: 'big',
      arguments: { field_0: 'f0-a' },
    });
    expect(result.isError).toBe(false);
    expect(offThread.fellBack).toBe(fellBack);
    expect(codeCacheStats.used).toBe(cached + 1);
    expect(codeCacheStats.rejected).toBe(rejected);
  });

  it('compiles on this thread when the worker cannot run (here: a heap too small to start)', async () => {
    workerLimits.heapMb = 1;
    await stopCompileWorker();
    const fellBack = offThread.fellBack;
    const registry = createToolRegistry();
    const parameters = { ...sized(BIG), title: 'no worker' };
    registry.register({ name: 'big', description: '', parameters, execute: echo });
    const [good, bad] = await Promise.all([
      registry.execute({ callId: '1', name: 'big', arguments: { field_0: 'f0-a' } }),
      registry.execute({ callId: '2', name: 'big', arguments: { field_0: 'nope' } }),
    ]);
    expect(good.isError).toBe(false);
    expect(bad.error?.message).toContain('argument "field_0" must match pattern');
    expect(offThread.fellBack).toBe(fellBack + 1);
  });

  it('a worker stopped while it compiles hands that compile to the next one; nothing falls back to this thread', async () => {
    const registry = createToolRegistry();
    const fellBack = offThread.fellBack;
    registry.register({
      name: 'a',
      description: '',
      parameters: { ...sized(BIG), title: 'a' },
      execute: echo,
    });
    const first = registry.execute({ callId: '1', name: 'a', arguments: { field_0: 'f0-a' } });
    const stopping = stopCompileWorker();
    registry.register({
      name: 'b',
      description: '',
      parameters: { ...sized(BIG), title: 'b' },
      execute: echo,
    });
    const second = registry.execute({ callId: '2', name: 'b', arguments: { field_0: 'nope' } });
    await stopping;
    expect((await first).isError).toBe(false);
    expect((await second).error?.message).toContain('argument "field_0" must match pattern');
    expect(offThread.fellBack).toBe(fellBack);
  });

  it('a compile that overruns its deadline refuses its tool (not remembered), stops the worker, and the next compile runs on a new one', async () => {
    const registry = createToolRegistry({ onError: () => {} });
    const fellBack = offThread.fellBack;
    workerLimits.deadlineMs = 1;
    const parameters = { ...sized(BIG), title: 'slow' };
    const dispose = registry.register({ name: 'slow', description: '', parameters, execute: echo });
    const refused = await registry.execute({
      callId: '1',
      name: 'slow',
      arguments: { field_0: 'f0-a' },
    });
    expect(refused.error?.code).toBe(ToolErrorCode.INVALID_ARGS);
    expect(refused.error?.message).toMatch(
      /Tool "slow": its parameters schema cannot be enforced \(compiling it took longer than 1 ms\), so no call to it runs/,
    );
    workerLimits.deadlineMs = 20_000;
    registry.register({
      name: 'next',
      description: '',
      parameters: { ...sized(BIG), title: 'next' },
      execute: echo,
    });
    expect(
      (await registry.execute({ callId: '2', name: 'next', arguments: { field_0: 'f0-a' } }))
        .isError,
    ).toBe(false);
    // The same schema registered again is compiled again, and now in time.
    dispose();
    registry.register({ name: 'slow', description: '', parameters, execute: echo });
    expect(
      (await registry.execute({ callId: '3', name: 'slow', arguments: { field_0: 'f0-a' } }))
        .isError,
    ).toBe(false);
    expect(offThread.fellBack).toBe(fellBack);
  });

  it('reports an unknown format once, on the first call, as small schemas do', async () => {
    const reports: string[] = [];
    const registry = createToolRegistry({
      onError: (error) => reports.push((error as Error).message),
    });
    registry.register({
      name: 'big',
      description: '',
      parameters: sized(BIG, { v: { type: 'string', format: 'no-such-format' } }),
      execute: echo,
    });
    await registry.execute({ callId: '1', name: 'big', arguments: { field_0: 'f0-a', v: 'x' } });
    await registry.execute({ callId: '2', name: 'big', arguments: { field_0: 'f0-a', v: 'y' } });
    expect(reports.filter((m) => m.includes('no-such-format'))).toHaveLength(1);
  });

  it('a tool unregistered while its schema compiles refuses the waiting call as unknown or aborted, never runs it', async () => {
    const registry = createToolRegistry();
    let ran = 0;
    const dispose = registry.register({
      name: 'big',
      description: '',
      parameters: { ...sized(BIG), title: 'gone' },
      execute: () => {
        ran++;
        return echo();
      },
    });
    const pending = registry.execute({ callId: '1', name: 'big', arguments: { field_0: 'f0-a' } });
    dispose();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(ran).toBe(0);
  });
});

describe('generated code grows with the schema, not with its references', () => {
  it('enforces a $ref target compiled once, however often it is referred to (100 references: 4.4 KB of schema)', async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 5 }]),
    );
    const schema = {
      type: 'object' as const,
      $defs: { a: { type: 'object', properties } },
      allOf: Array.from({ length: 100 }, () => ({ $ref: '#/$defs/a' })),
    };
    // The size of the generated code is pinned in @dsh-tools/schema (schema-engine.test.ts); here,
    // the registry enforces the schema through every reference.
    const registry = createToolRegistry();
    registry.register({ name: 'refs', description: '', parameters: schema, execute: echo });
    const result = await registry.execute({
      callId: '1',
      name: 'refs',
      arguments: { p7: 'too long' },
    });
    expect(result.error?.message).toContain('argument "p7" must NOT have more than 5 characters');
  });
});
