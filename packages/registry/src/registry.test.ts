import {
  type ContentBlock,
  type InterceptedExecution,
  type ToolDefinition,
  ToolError,
  type ToolExecution,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { call, expectFailure, quiet, readFile } from '../test/helpers';
import { createToolRegistry, TOOL_NAME } from './index';

describe('register', () => {
  it('registers, gets, lists and disposes a raw JSON-Schema tool', async () => {
    const registry = createToolRegistry();
    const changes: unknown[] = [];
    registry.on('change', (event) => changes.push(event));
    const definition = readFile();
    const dispose = registry.register(definition);
    expect(registry.get('read_file')).toBe(definition);
    expect(registry.has('read_file')).toBe(true);
    expect(registry.schemas()).toEqual([
      { name: 'read_file', description: 'Reads a file', parameters: definition.parameters },
    ]);
    const result = await registry.execute(call('read_file', { path: '/a' }));
    expect(result).toEqual({
      callId: 'c-read_file',
      content: [textContent('read /a')],
      isError: false,
    });
    dispose();
    dispose();
    expect(registry.has('read_file')).toBe(false);
    expect(changes).toEqual([
      { added: ['read_file'], removed: [] },
      { added: [], removed: ['read_file'] },
    ]);
  });

  it('refuses a duplicate, naming the holder', () => {
    const registry = createToolRegistry();
    registry.register(readFile({ source: { kind: 'mcp', server: 'fs', tool: 'read' } }));
    expect(() => registry.register(readFile())).toThrow(
      /tool "read_file" is already registered by MCP server "fs" \(its tool "read"\)\. Dispose/,
    );
  });

  it.each([
    ['a name with a space', { name: 'read file' }, /tool name "read file" is invalid.*Rename/],
    ['an empty name', { name: '' }, /tool name "" is invalid/],
    ['a 65-character name', { name: 'x'.repeat(65) }, /is invalid/],
    ['no execute', { execute: undefined }, /"execute" must be a function/],
    [
      'a string schema',
      { parameters: { type: 'string' } },
      /root is \{ "type": "object".*\(got type "string"\)/,
    ],
    [
      'no parameters',
      { parameters: undefined },
      /"parameters" must be a JSON Schema.*got undefined/,
    ],
    ['a cyclic schema', { parameters: cyclic() }, /"parameters" must be plain JSON.*cycle/],
    [
      'a bad hint',
      { hints: { readOnly: 'yes' } },
      /hint "readOnly" must be a boolean \(got string\)/,
    ],
    ['a bad concurrency hint', { hints: { concurrencySafe: 1 } }, /hint "concurrencySafe"/],
    ['bad paths', { hints: { paths: [{ arg: 'p', access: 'rw' }] } }, /hint "paths"\[0\]/],
    [
      'a non-boolean honoursExclude',
      { hints: { paths: [{ arg: 'p', access: 'read', honoursExclude: 'yes' }] } },
      /hint "paths"\[0\]\.honoursExclude must be a boolean \(got string\)/,
    ],
    [
      'honoursExclude on a writer',
      { hints: { paths: [{ arg: 'p', access: 'write', honoursExclude: true }] } },
      /honoursExclude is for readers: a tool that writes "p"/,
    ],
    ['a negative timeout', { timeoutMs: -1 }, /"timeoutMs" must be a number/],
    [
      'a non-Standard validator',
      { inputValidator: {} },
      /"inputValidator" must be a Standard Schema/,
    ],
    ['a bad source', { source: { kind: 'mcp' } }, /"source" must be/],
    ['a numeric description', { description: 3 }, /"description" must be a string/],
  ])('refuses %s, saying what to fix', (_label, overrides, message) => {
    const registry = createToolRegistry();
    expect(() => registry.register(readFile(overrides as Partial<ToolDefinition>))).toThrow(
      message,
    );
    expect(registry.schemas()).toEqual([]);
  });

  it('refuses a non-object definition', () => {
    const registry = createToolRegistry();
    for (const bad of [null, undefined, 'read_file', 3, []]) {
      expect(() => registry.register(bad as never)).toThrow(/a tool definition must be an object/);
    }
  });

  it("shows interceptors a reader's honoursExclude on its path hint, and only the known keys", async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({
        hints: {
          paths: [{ arg: 'path', access: 'read', honoursExclude: true, extra: 1 } as never],
        },
      }),
    );
    let seen: unknown;
    registry.use((exec, next) => {
      seen = exec.tool.hints.paths;
      return next();
    });
    await registry.execute({ callId: 'c', name: 'read_file', arguments: { path: 'a' } });
    expect(seen).toEqual([{ arg: 'path', access: 'read', honoursExclude: true }]);
  });

  it('accepts an MCP tool without a description', () => {
    const registry = createToolRegistry();
    registry.register({ ...readFile(), description: undefined } as never);
    expect(registry.schemas()[0]?.description).toBe('');
  });

  it('uses the OpenAI / DeepSeek function-name rule', () => {
    expect(TOOL_NAME.test('mcp__fs__read-file_2')).toBe(true);
    expect(TOOL_NAME.test('read.file')).toBe(false);
  });
});

function cyclic() {
  const schema: Record<string, unknown> = { type: 'object', properties: {} };
  (schema.properties as Record<string, unknown>).self = schema;
  return schema;
}

describe('schemas()', () => {
  it('returns the same frozen array until the registry changes, without hints or executors', () => {
    const registry = createToolRegistry();
    registry.register(readFile({ hints: { readOnly: true }, timeoutMs: 5 }));
    const first = registry.schemas();
    expect(registry.schemas()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.keys(first[0]!)).toEqual(['name', 'description', 'parameters']);
    const dispose = registry.register({ ...readFile(), name: 'write_file' });
    const second = registry.schemas();
    expect(second).not.toBe(first);
    expect(second.map((s) => s.name)).toEqual(['read_file', 'write_file']);
    dispose();
    expect(registry.schemas().map((s) => s.name)).toEqual(['read_file']);
  });

  it('cannot be used to change the registry', () => {
    const registry = createToolRegistry();
    const definition = readFile();
    registry.register(definition);
    const [schema] = registry.schemas();
    expect(() => {
      (schema!.parameters.properties as Record<string, unknown>).path = { type: 'number' };
    }).toThrow(TypeError);
    expect(() => (registry.schemas() as ToolDefinition[]).push(readFile())).toThrow(TypeError);
    // Changing the caller's own definition afterwards does not reach the registry either.
    (definition.parameters.properties as Record<string, unknown>).path = { type: 'number' };
    expect(registry.schemas()[0]!.parameters.properties!.path).toEqual({ type: 'string' });
  });
});

describe('execute', () => {
  it('names the closest tools for an unknown name', async () => {
    const registry = createToolRegistry();
    registry.register(readFile());
    registry.register({ ...readFile(), name: 'mcp__fs__write_file' });
    const typo = await registry.execute(call('reed_file'));
    expectFailure(typo, 'UNKNOWN_TOOL');
    expect(typo.error?.message).toMatch(/Unknown tool "reed_file"\. Did you mean "read_file"\?/);
    const unprefixed = await registry.execute(call('write_file'));
    expect(unprefixed.error?.message).toMatch(/Did you mean "mcp__fs__write_file"/);
    const far = await registry.execute(call('zzzzzzzzzzzz'));
    expect(far.error?.message).toMatch(/no tool of that name is registered \(2 tools are\)/);
  });

  it('lists every violation with its path', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('no')]);
    registry.register(readFile({ execute: body }));
    const result = await registry.execute(call('read_file', { limit: 0, extra: 1 }));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toContain('Tool "read_file": invalid arguments:');
    expect(result.error?.message).toContain('argument "path" is required');
    expect(result.error?.message).toContain('argument "limit" must be >= 1');
    expect(result.error?.message).toContain('argument "extra" is not a parameter of this tool');
    expect(result.error?.message).toMatch(/Fix the call and retry\.$/);
    expect(result.error?.details).toMatchObject({ more: 0 });
    expect(body).not.toHaveBeenCalled();
  });

  it('caps the violations it lists', async () => {
    const registry = createToolRegistry();
    registry.register({
      ...readFile(),
      parameters: {
        type: 'object',
        properties: { xs: { type: 'array', items: { type: 'string' } } },
      },
    });
    const result = await registry.execute(
      call('read_file', { xs: Array.from({ length: 50 }, (_, i) => i) }),
    );
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.details).toMatchObject({ more: 30 });
    const { violations } = result.error!.details as { violations: unknown[] };
    expect(violations).toHaveLength(20);
    expect(result.error?.message).toContain('and 30 more');
    expect(result.error?.message).toContain('argument "xs/0" must be string (got number)');
  });

  it('uses a Standard Schema inputValidator instead of parameters, and its output value', async () => {
    const registry = createToolRegistry();
    const seen: unknown[] = [];
    registry.register(
      readFile({
        inputValidator: {
          '~standard': {
            version: 1,
            vendor: 'test',
            validate: async (value: unknown) =>
              typeof (value as { path?: unknown }).path === 'number'
                ? { issues: [{ message: 'must be a string', path: [{ key: 'path' }] }] }
                : { value: { path: String((value as { path: unknown }).path).toUpperCase() } },
          },
        },
        execute: (args) => {
          seen.push(args);
          return [textContent('ok')];
        },
      }),
    );
    const bad = await registry.execute(call('read_file', { path: 3 }));
    expectFailure(bad, 'INVALID_ARGS');
    expect(bad.error?.message).toContain('argument "path" must be a string');
    // Not validated against `parameters` (it forbids `extra`): the Standard Schema decides.
    const good = await registry.execute(call('read_file', { path: 'a', extra: 1 }));
    expect(good.isError).toBe(false);
    expect(seen).toEqual([{ path: 'A' }]);
    // Its output is what runs, frozen like any validated arguments.
    expect(Object.isFrozen(seen[0])).toBe(true);
  });

  it('turns a body throw into TOOL_ERROR and keeps a ToolError code', async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({
        execute: () => {
          throw new Error('disk on fire');
        },
      }),
    );
    registry.register({
      ...readFile(),
      name: 'denied',
      execute: async () => {
        throw new ToolError('DENIED', 'no access to /etc', { details: { rule: 'x' } });
      },
    });
    const thrown = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(thrown, 'TOOL_ERROR');
    expect(thrown.error?.message).toBe('Tool "read_file" failed: disk on fire');
    const denied = await registry.execute(call('denied', { path: 'a' }));
    expectFailure(denied, 'DENIED');
    expect(denied.error).toEqual({
      code: 'DENIED',
      message: 'no access to /etc',
      details: { rule: 'x' },
    });
  });

  it('reports INVALID_OUTPUT naming the tool and the bad block', async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({ execute: () => [textContent('ok'), { type: 'text' } as ContentBlock] }),
    );
    registry.register({ ...readFile(), name: 'str', execute: () => 'hello' as never });
    const block = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(block, 'INVALID_OUTPUT');
    expect(block.error?.message).toMatch(
      /Tool "read_file" returned an invalid content block at index 1/,
    );
    const str = await registry.execute(call('str', { path: 'a' }));
    expect(str.error?.message).toMatch(/Tool "str" returned string; a tool returns an array/);
  });

  it('keeps structuredContent', async () => {
    const registry = createToolRegistry();
    registry.register(
      readFile({ execute: () => ({ content: [textContent('2')], structuredContent: { n: 2 } }) }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toEqual({
      callId: 'c-read_file',
      content: [textContent('2')],
      isError: false,
      structuredContent: { n: 2 },
    });
  });

  it('refuses malformed calls with INVALID_ARGS', async () => {
    const registry = createToolRegistry();
    registry.register(readFile());
    const cases: [unknown, RegExp][] = [
      [null, /a call must be an object/],
      [{ name: 'read_file', arguments: {} }, /"callId" must be a string \(got undefined\)/],
      [{ callId: 'x', arguments: {} }, /tool "name" must be a string/],
      [
        { callId: 'x', name: 'read_file', arguments: '{"path":"a"}' },
        /must be a JSON object \(got string\); parse the JSON/,
      ],
      [{ callId: 'x', name: 'read_file', arguments: [] }, /must be a JSON object \(got array\)/],
      [
        { callId: 'x', name: 'read_file', arguments: {}, signal: {} },
        /"signal" must be an AbortSignal/,
      ],
    ];
    for (const [exec, message] of cases) {
      const result = await registry.execute(exec as ToolExecution);
      expectFailure(result, 'INVALID_ARGS');
      expect(result.error?.message).toMatch(message);
    }
  });

  it('refuses at registration a schema the engine cannot enforce, and warns of an ignored format', async () => {
    // Before issue 9 this tool was registered and ran without argument validation; schemas
    // now fail closed: register throws, naming the tool, the path in the schema and what to do.
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError });
    expect(() =>
      registry.register({
        ...readFile(),
        parameters: {
          type: 'object',
          properties: { p: { $ref: 'https://example.invalid/remote.json' } },
        },
      }),
    ).toThrow(
      /tool "read_file": its schema is refused: at "\/properties\/p\/\$ref".*points outside the schema/,
    );
    expect(registry.has('read_file')).toBe(false);
    registry.register({
      ...readFile(),
      name: 'odd_format',
      parameters: {
        type: 'object',
        properties: { p: { type: 'string', format: 'x-server-format' } },
      },
    });
    expect(errors).toEqual([]);
    // An unknown format is ignored (with a warning), the rest of the schema still applies.
    expect((await registry.execute(call('odd_format', { p: 'x' }))).isError).toBe(false);
    expect((await registry.execute(call('odd_format', { p: 1 }))).error?.code).toBe('INVALID_ARGS');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.info).toEqual({ kind: 'schema', tool: 'odd_format' });
    expect(String(errors[0]?.error)).toMatch(/unknown format "x-server-format"/);
  });
});

describe('compiled schemas shared between tools', () => {
  it('keeps validating a tool after another tool with the same schema is disposed', async () => {
    const first = createToolRegistry();
    const second = createToolRegistry();
    const disposeFirst = first.register(readFile());
    second.register(readFile());
    second.register({ ...readFile(), name: 'same_schema' });
    expect((await first.execute(call('read_file', { path: 1 }))).error?.code).toBe('INVALID_ARGS');
    expect((await second.execute(call('read_file', { path: 1 }))).error?.code).toBe('INVALID_ARGS');
    disposeFirst();
    expect((await second.execute(call('read_file', { path: 1 }))).error?.code).toBe('INVALID_ARGS');
    expect((await second.execute(call('same_schema', { path: 'a' }))).isError).toBe(false);
    expect((await second.execute(call('same_schema', { path: 1 }))).error?.code).toBe(
      'INVALID_ARGS',
    );
  });

  it('tells every tool of a warning raised when its shared schema was first compiled', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError });
    const parameters = {
      type: 'object',
      properties: { at: { type: 'string', format: 'x-shared-format' } },
    } as const;
    registry.register({ ...readFile(), name: 'one', parameters });
    registry.register({ ...readFile(), name: 'two', parameters });
    await registry.execute(call('one', { at: 'x' }));
    await registry.execute(call('two', { at: 'x' }));
    expect(errors.map((e) => e.info.tool)).toEqual(['one', 'two']);
  });
});

describe('interceptors', () => {
  it('see validated, frozen executions with the read-only tool view, outermost first', async () => {
    const registry = createToolRegistry();
    registry.register(readFile({ hints: { readOnly: true } }));
    const order: string[] = [];
    let seen: InterceptedExecution | undefined;
    registry.use(
      async (exec, next) => {
        order.push('inner');
        seen = exec;
        return next();
      },
      { name: 'inner' },
    );
    registry.use(
      async (_exec, next) => {
        order.push('outer');
        return next();
      },
      { name: 'outer', priority: 10 },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.isError).toBe(false);
    expect(order).toEqual(['outer', 'inner']);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(seen?.tool).toMatchObject({
      name: 'read_file',
      hints: { readOnly: true },
      source: { kind: 'local' },
    });
    expect(seen?.tool).not.toHaveProperty('execute');
    const invalid = await registry.execute(call('read_file', { path: 1 }));
    expect(invalid.error?.code).toBe('INVALID_ARGS');
    expect(order).toHaveLength(2);
  });

  it('hands interceptors frozen results, so one cannot corrupt what another returns', async () => {
    const registry = createToolRegistry();
    registry.register(readFile());
    let mutated: unknown;
    registry.use(async (_exec, next) => {
      const result = await next();
      try {
        (result as { content: unknown }).content = 5;
      } catch (error) {
        mutated = error;
      }
      return result;
    });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(mutated).toBeInstanceOf(TypeError);
    expect(result.content).toEqual([textContent('read a')]);
  });

  it('can veto, keeping a thrown ToolError code', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    registry.use(() => {
      throw new ToolError('DENIED', 'read_file is not allowed in plan mode');
    });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'DENIED');
    expect(body).not.toHaveBeenCalled();
  });

  it('re-validate rewritten arguments and record original and effective', async () => {
    const registry = createToolRegistry();
    const body = vi.fn((args: { path?: unknown }) => [textContent(String(args.path))]);
    registry.register(readFile({ execute: body as never }));
    const dispose = registry.use(
      (exec, next) =>
        next({ ...exec, arguments: { path: `/sandbox${String(exec.arguments.path)}` } }),
      { name: 'confine' },
    );
    const result = await registry.execute(call('read_file', { path: '/a' }));
    expect(result.content).toEqual([textContent('/sandbox/a')]);
    expect(result.arguments).toEqual({
      original: { path: '/a' },
      effective: { path: '/sandbox/a' },
    });
    dispose();

    registry.use((exec, next) => next({ ...exec, arguments: { path: 42 } }), { name: 'breaker' });
    body.mockClear();
    const broken = await registry.execute(call('read_file', { path: '/a' }));
    expectFailure(broken, 'INVALID_ARGS');
    expect(broken.error?.message).toMatch(
      /interceptor "breaker" rewrote the arguments, and they are invalid: argument "path" must be string/,
    );
    expect(body).not.toHaveBeenCalled();
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
      /Interceptor "bad" threw \(boom\); the call to tool "read_file" fails closed\./,
    ],
    ['returns a non-result', () => 'ok', /Interceptor "bad" returned string instead of a result/],
    [
      'calls next twice',
      async (_e: InterceptedExecution, next: () => Promise<ToolExecutionResult>) => {
        await next();
        return next().catch(() => next());
      },
      /Interceptor "bad" called next\(\) twice/,
    ],
    [
      'returns before next settles',
      (_e: InterceptedExecution, next: () => Promise<ToolExecutionResult>) => {
        void next();
        return { callId: 'c-read_file', content: [], isError: false };
      },
      /Interceptor "bad" returned before next\(\) settled/,
    ],
    [
      'changes the callId',
      (e: InterceptedExecution, next: (x: InterceptedExecution) => Promise<ToolExecutionResult>) =>
        next({ ...e, callId: 'other' }),
      /Interceptor "bad" changed the callId or the tool name/,
    ],
    [
      "returns another call's result",
      () => ({ callId: 'zzz', content: [], isError: false }),
      /returned the result of another call/,
    ],
    [
      'returns content that is not content blocks',
      () => ({ callId: 'c-read_file', content: [textContent('ok'), 42], isError: false }),
      /Interceptor "bad" returned a result whose content block 1 is not a content block \(got number\)/,
    ],
    [
      'returns a content block of an unknown type',
      () => ({ callId: 'c-read_file', content: [{ type: 'nope' }], isError: false }),
      /returned a result whose content block 0 is not a content block \(a "nope" block/,
    ],
    [
      'returns an error code that does not exist',
      () => ({
        callId: 'c-read_file',
        content: [textContent('Error: x')],
        isError: true,
        error: { code: 'MADE_UP', message: 'x' },
      }),
      /returned a result whose error code "MADE_UP" is not a ToolErrorCode/,
    ],
    [
      'returns a success with an error',
      () => ({
        callId: 'c-read_file',
        content: [],
        isError: false,
        error: { code: 'DENIED', message: 'x' },
      }),
      /returned a result with isError: false and an error/,
    ],
    [
      'returns a failure without an error',
      () => ({ callId: 'c-read_file', content: [textContent('Error: x')], isError: true }),
      /returned a result with isError: true and no error/,
    ],
  ])('fails closed with INTERCEPTOR_ERROR when one %s', async (_label, interceptor, message) => {
    const registry = createToolRegistry();
    registry.register(readFile());
    registry.use(
      async (_exec, next) => {
        const inner = await next();
        // An outer policy that would turn failures into successes cannot hide the misuse.
        return { ...inner, isError: false };
      },
      { name: 'forgiving', priority: 5 },
    );
    registry.use(interceptor as never, { name: 'bad' });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'INTERCEPTOR_ERROR');
    expect(result.error?.message).toMatch(message);
  });
});

describe('events', () => {
  it('tells result observers the final result and contains a throwing observer', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError });
    registry.register(readFile());
    const seen: [ToolExecutionResult, ToolExecution][] = [];
    registry.on('result', () => {
      throw new Error('observer bug');
    });
    registry.on('result', async () => {
      throw new Error('async observer bug');
    });
    registry.on('result', (result, exec) => seen.push([result, exec]));
    const result = await registry.execute(call('read_file', { path: 'a' }));
    await registry.execute(call('nope'));
    expect(seen[0]?.[0]).toBe(result);
    expect(seen[0]?.[1]).toMatchObject({ callId: 'c-read_file', name: 'read_file' });
    expect(seen[1]?.[0].error?.code).toBe('UNKNOWN_TOOL');
    await new Promise((r) => setTimeout(r, 0));
    // Both observers failed on both calls, sync and async alike, each reported with its call.
    const infos = errors.map(
      (e) => `${e.info.kind} ${e.info.tool} ${e.info.callId} ${String(e.error)}`,
    );
    expect(infos.sort()).toEqual([
      'observer nope c-nope Error: async observer bug',
      'observer nope c-nope Error: observer bug',
      'observer read_file c-read_file Error: async observer bug',
      'observer read_file c-read_file Error: observer bug',
    ]);
  });

  it('refuses unknown events and non-function listeners', () => {
    const registry = createToolRegistry();
    expect(() => registry.on('changed' as never, () => {})).toThrow(/unknown event/);
    expect(() => registry.on('change', 3 as never)).toThrow(/must be a function/);
  });
});
