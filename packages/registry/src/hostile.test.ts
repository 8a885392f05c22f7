import {
  type ContentBlock,
  type ToolDefinition,
  type ToolExecution,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { call, deferred, expectFailure, quiet, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

const echo = (overrides: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name: 'echo',
  description: 'Echoes its arguments',
  parameters: { type: 'object' },
  execute: (args) => [textContent(Object.keys(args).join(','))],
  ...overrides,
});

// Unhandled rejections fail the run on their own in vitest; counting them here makes each test
// that promises "none" say so, and fail at the right place.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe('non-JSON arguments', () => {
  it('lists every non-JSON value with its path', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    const cyclic: Record<string, unknown> = { ok: 1 };
    cyclic.self = cyclic;
    class Point {
      x = 1;
    }
    const args = {
      fn: () => 1,
      big: 10n,
      nan: Number.NaN,
      inf: Number.POSITIVE_INFINITY,
      sym: Symbol('s'),
      nested: { list: [1, undefined, cyclic] },
      date: new Date(0),
      map: new Map(),
      point: new Point(),
      'a/b~c': () => 2,
      fine: 'text',
      absent: undefined,
    };
    const result = await registry.execute(call('echo', args));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.details).toEqual({
      more: 0,
      violations: [
        { path: '/fn', message: 'must be a JSON value (got a function)' },
        { path: '/big', message: 'must be a JSON value (got a bigint)' },
        { path: '/nan', message: 'must be a finite number (got NaN)' },
        { path: '/inf', message: 'must be a finite number (got Infinity)' },
        { path: '/sym', message: 'must be a JSON value (got a symbol)' },
        { path: '/nested/list/1', message: 'must be a JSON value (got undefined)' },
        {
          path: '/nested/list/2/self',
          message: 'refers back to one of its parents (a cycle is not JSON)',
        },
        { path: '/date', message: 'must be a plain object (got a Date)' },
        { path: '/map', message: 'must be a plain object (got a Map)' },
        { path: '/point', message: 'must be a plain object (got a Point)' },
        { path: '/a~1b~0c', message: 'must be a JSON value (got a function)' },
      ],
    });
    expect(body).not.toHaveBeenCalled();
  });

  it('accepts an object shared by two parents (not a cycle) and visits it once', async () => {
    const registry = createToolRegistry();
    registry.register(echo());
    // 2^60 paths through 60 levels: a walk that revisits shared objects would never finish.
    let node: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 60; i++) node = { a: node, b: node };
    expect((await registry.execute(call('echo', node))).isError).toBe(false);
  });

  it('refuses nesting deeper than 256 levels without overflowing the stack', async () => {
    const registry = createToolRegistry();
    registry.register(echo());
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    const result = await registry.execute(call('echo', deep));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toMatch(/argument "d\/d\/d.*" is nested deeper than 256 levels/);
    const array: unknown[] = [];
    let cursor = array;
    for (let i = 0; i < 200_000; i++) {
      const next: unknown[] = [];
      cursor.push(next);
      cursor = next;
    }
    expectFailure(await registry.execute(call('echo', { array })), 'INVALID_ARGS');
  });

  it('passes a 10 MB string argument through without copying it', async () => {
    const registry = createToolRegistry();
    const big = 'x'.repeat(10 * 1024 * 1024);
    let received: unknown;
    registry.register(
      echo({
        parameters: {
          type: 'object',
          properties: { content: { type: 'string' } },
          required: ['content'],
        },
        execute: (args) => {
          received = args.content;
          return [textContent(String((args.content as string).length))];
        },
      }),
    );
    const result = await registry.execute(call('echo', { content: big }));
    expect(result.content).toEqual([textContent(String(big.length))]);
    expect(received).toBe(big);
    // A 10 MB tool name never ends up in the message either.
    const unknown = await registry.execute(call(big, {}));
    expectFailure(unknown, 'UNKNOWN_TOOL');
    expect(unknown.error!.message.length).toBeLessThan(300);
  });
});

describe('prototype-shaped keys and names', () => {
  it('treats __proto__ and constructor keys as plain data and never pollutes a prototype', async () => {
    const registry = createToolRegistry();
    const strict = {
      type: 'object',
      properties: { path: { type: 'string' } },
      additionalProperties: false,
    } as const;
    registry.register(echo({ name: 'strict', parameters: strict }));
    let seen: unknown;
    registry.register(
      echo({
        execute: (args) => {
          seen = args;
          return [textContent('ok')];
        },
      }),
    );
    const args = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
    );
    const refused = await registry.execute(call('strict', args));
    expectFailure(refused, 'INVALID_ARGS');
    expect(refused.error?.message).toContain(
      'argument "__proto__" is not a parameter of this tool',
    );
    expect(refused.error?.message).toContain(
      'argument "constructor" is not a parameter of this tool',
    );
    expect((await registry.execute(call('echo', args))).isError).toBe(false);
    // The body gets a frozen copy in which __proto__ is still an own key, never a prototype.
    expect(seen).not.toBe(args);
    expect(Object.isFrozen(seen)).toBe(true);
    expect(Object.hasOwn(seen as object, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(seen, '__proto__')?.value).toEqual({ polluted: true });
    expect(Object.hasOwn(seen as object, 'constructor')).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
  });

  it('does not let Object.prototype satisfy "required"', async () => {
    const registry = createToolRegistry();
    registry.register(
      echo({
        parameters: { type: 'object', required: ['constructor', 'toString', 'hasOwnProperty'] },
      }),
    );
    const result = await registry.execute(call('echo', {}));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toContain('argument "constructor" is required');
    expect(result.error?.message).toContain('argument "toString" is required');
  });

  it('handles tool names equal to Object.prototype members', async () => {
    const registry = createToolRegistry();
    const names = [
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
    ];
    for (const name of names) {
      expect(registry.get(name)).toBeUndefined();
      expect(registry.has(name)).toBe(false);
      expectFailure(await registry.execute(call(name)), 'UNKNOWN_TOOL');
    }
    for (const name of names) registry.register(echo({ name, execute: () => [textContent(name)] }));
    for (const name of names) {
      expect(registry.get(name)?.name).toBe(name);
      expect((await registry.execute(call(name))).content).toEqual([textContent(name)]);
    }
    expect(registry.schemas().map((s) => s.name)).toEqual(names);
  });

  it('keeps __proto__ keys of a schema as data', () => {
    const registry = createToolRegistry();
    const parameters = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    registry.register(echo({ parameters }));
    const copy = registry.schemas()[0]!.parameters.properties!;
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });
});

describe('hostile executions and tools', () => {
  it('survives executions whose fields throw or lie', async () => {
    const registry = createToolRegistry();
    registry.register(echo());
    let reads = 0;
    const flipping = {
      callId: 'f',
      get name() {
        reads++;
        return reads === 1 ? 'echo' : 'nope';
      },
      arguments: {},
    };
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    const hostile: unknown[] = [
      Object.defineProperty({ name: 'echo', arguments: {} }, 'callId', {
        get() {
          throw new Error('getter bomb');
        },
      }),
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('trap bomb');
          },
        },
      ),
      new Proxy(
        {},
        {
          getPrototypeOf: () => {
            throw new Error('proto bomb');
          },
        },
      ),
      revoked,
      {
        callId: 'p',
        name: 'echo',
        arguments: new Proxy(
          {},
          {
            ownKeys: () => {
              throw new Error('keys bomb');
            },
          },
        ),
      },
      { callId: 's', name: 'echo', arguments: {}, signal: { aborted: 'yes' } },
      flipping,
    ];
    const results = await Promise.all(
      hostile.map((exec) => registry.execute(exec as ToolExecution)),
    );
    for (const result of results) {
      expect(typeof result.callId).toBe('string');
      expect(Array.isArray(result.content)).toBe(true);
    }
    expect(results.slice(0, 6).map((r) => r.error?.code)).toEqual([
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
      'INVALID_ARGS',
    ]);
    expect(results[4]?.callId).toBe('p');
    // The name was read once: the call ran the tool it named at that moment.
    expect(results[6]).toMatchObject({ callId: 'f', isError: false });
    expect(reads).toBe(1);
  });

  it('turns hostile throws and outputs into results', async () => {
    const registry = createToolRegistry();
    const throwing: unknown[] = [
      null,
      undefined,
      'plain string',
      Object.defineProperty({}, 'message', {
        get: () => {
          throw new Error('nested');
        },
      }),
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('proxy');
          },
        },
      ),
    ];
    for (const [i, value] of throwing.entries()) {
      registry.register(
        echo({
          name: `throw${i}`,
          execute: () => {
            throw value;
          },
        }),
      );
    }
    const outputs: unknown[] = [
      {
        // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is the point of the test
        then: () => {
          throw new Error('thenable');
        },
      },
      Object.defineProperty({}, 'then', {
        get: () => {
          throw new Error('then getter');
        },
      }),
      [
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('block');
            },
          },
        ),
      ],
      { content: [textContent('x')], structuredContent: 'not an object' },
      undefined,
    ];
    for (const [i, value] of outputs.entries()) {
      registry.register(echo({ name: `out${i}`, execute: () => value as ContentBlock[] }));
    }
    const thrown = await Promise.all(throwing.map((_, i) => registry.execute(call(`throw${i}`))));
    expect(thrown.map((r) => r.error?.code)).toEqual(Array(throwing.length).fill('TOOL_ERROR'));
    expect(thrown[0]?.error?.message).toBe('Tool "throw0" failed: null');
    expect(thrown[2]?.error?.message).toBe('Tool "throw2" failed: plain string');
    const output = await Promise.all(outputs.map((_, i) => registry.execute(call(`out${i}`))));
    expect(output.map((r) => r.error?.code)).toEqual([
      'TOOL_ERROR',
      'TOOL_ERROR',
      'INVALID_OUTPUT',
      'INVALID_OUTPUT',
      'INVALID_OUTPUT',
    ]);
    expect(output[3]?.error?.message).toMatch(/structuredContent that is string, not an object/);
  });

  it('survives a hostile interceptor result (a Proxy) by failing closed', async () => {
    const registry = createToolRegistry();
    registry.register(echo());
    registry.use(
      () =>
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('result bomb');
            },
          },
        ) as never,
      { name: 'evil' },
    );
    const result = await registry.execute(call('echo'));
    expectFailure(result, 'INTERCEPTOR_ERROR');
    expect(result.error?.message).toMatch(
      /Interceptor "evil" threw \(result bomb\); the call to tool "echo" fails closed/,
    );
  });
});

describe('hostile definitions', () => {
  it('refuses definitions whose fields throw, naming the field', () => {
    const registry = createToolRegistry();
    const definition = Object.defineProperty({ ...echo() }, 'parameters', {
      get() {
        throw new Error('schema bomb');
      },
    });
    expect(() => registry.register(definition)).toThrow(
      /reading the tool's "parameters" threw: schema bomb/,
    );
    const proxy = new Proxy(echo(), {
      get: () => {
        throw new Error('trap');
      },
    });
    expect(() => registry.register(proxy)).toThrow(/reading the tool's "name" threw: trap/);
    expect(registry.schemas()).toEqual([]);
  });

  it('reads hints, source and parameters once: what was checked is what is kept', async () => {
    const registry = createToolRegistry();
    let reads = 0;
    const hints = {
      get readOnly() {
        reads++;
        return reads === 1 ? true : ('not a boolean' as unknown as boolean);
      },
      paths: [
        {
          arg: 'path',
          get access() {
            reads++;
            return reads <= 2 ? ('read' as const) : ('write' as const);
          },
        },
      ],
    };
    let kinds = 0;
    const source = {
      get kind() {
        kinds++;
        return kinds === 1 ? ('mcp' as const) : ('local' as const);
      },
      server: 'fs',
      tool: 'read',
    };
    registry.register(echo({ hints, source }));
    let view: unknown;
    registry.use((exec, next) => {
      view = exec.tool;
      return next();
    });
    await registry.execute(call('echo'));
    expect(view).toMatchObject({
      hints: { readOnly: true, paths: [{ arg: 'path', access: 'read' }] },
      source: { kind: 'mcp', server: 'fs', tool: 'read' },
    });
    expect(reads).toBe(2);
    expect(kinds).toBe(1);
    const getterSchema = {
      type: 'object',
      get properties() {
        return {};
      },
    };
    expect(() => registry.register(echo({ name: 'g', parameters: getterSchema as never }))).toThrow(
      /"parameters" must be plain JSON: at "\/properties" it is a getter; pass plain JSON data\./,
    );
    const throwingPaths = [
      Object.defineProperty({}, 'arg', {
        get: () => {
          throw new Error('path bomb');
        },
      }),
    ];
    expect(() =>
      registry.register(echo({ name: 'p', hints: { paths: throwingPaths as never } })),
    ).toThrow(/tool "p": reading hint "paths" threw: path bomb/);
  });

  it('reads a definition once: swapping execute afterwards changes nothing', async () => {
    const registry = createToolRegistry();
    const definition = { ...echo(), execute: () => [textContent('original')] };
    registry.register(definition);
    definition.execute = () => [textContent('swapped')];
    expect((await registry.execute(call('echo'))).content).toEqual([textContent('original')]);
  });
});

describe('registration churn', () => {
  it('stops an in-flight call whose tool is disposed (issue 9: no success from a tool that is gone); the next call is UNKNOWN_TOOL', async () => {
    const registry = createToolRegistry();
    const started = deferred();
    const gate = deferred();
    const dispose = registry.register(
      echo({
        execute: async () => {
          started.resolve();
          await gate.promise;
          return [textContent('finished')];
        },
      }),
    );
    const inFlight = registry.execute(call('echo'));
    await started.promise;
    dispose();
    expectFailure(await registry.execute(call('echo')), 'UNKNOWN_TOOL');
    // A new tool under the same name does not disturb the call still running.
    registry.register(echo({ execute: () => [textContent('replacement')] }));
    gate.resolve();
    expectFailure(await inFlight, 'ABORTED');
    expect((await registry.execute(call('echo'))).content).toEqual([textContent('replacement')]);
  });

  it('runs 10,000 concurrent calls through register/dispose churn without losing one', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError });
    const tools = 10;
    const disposers: ((() => void) | undefined)[] = [];
    const define = (i: number) =>
      echo({
        name: `t${i}`,
        hints: { concurrencySafe: true },
        parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        execute: async (args) => {
          if ((args.n as number) % 7 === 0) await new Promise((r) => setImmediate(r));
          if ((args.n as number) % 97 === 0) throw new Error('unlucky');
          return [textContent(String(args.n))];
        },
      });
    for (let i = 0; i < tools; i++) disposers[i] = registry.register(define(i));
    let observed = 0;
    registry.on('result', () => {
      observed++;
    });
    const pending: Promise<ToolExecutionResult>[] = [];
    for (let n = 0; n < 10_000; n++) {
      pending.push(
        registry.execute({ callId: `call-${n}`, name: `t${n % tools}`, arguments: { n } }),
      );
      if (n % 13 === 0) {
        const i = n % tools;
        if (disposers[i]) {
          disposers[i]!();
          disposers[i] = undefined;
        } else {
          disposers[i] = registry.register(define(i));
        }
      }
      if (n % 250 === 0) await new Promise((r) => setImmediate(r));
    }
    const results = await Promise.all(pending);
    expect(results).toHaveLength(10_000);
    const ids = new Set(results.map((r) => r.callId));
    expect(ids.size).toBe(10_000);
    results.forEach((result, n) => {
      expect(result.callId).toBe(`call-${n}`);
      if (!result.isError) expect(result.content).toEqual([textContent(String(n))]);
      // A call whose tool was disposed while it ran is stopped as an abort stops it.
      else expect(['UNKNOWN_TOOL', 'TOOL_ERROR', 'ABORTED']).toContain(result.error?.code);
    });
    expect(results.some((r) => !r.isError)).toBe(true);
    expect(results.some((r) => r.error?.code === 'UNKNOWN_TOOL')).toBe(true);
    expect(observed).toBe(10_000);
    // A stopped call whose body settles after the grace is reported, and only that.
    expect(errors.filter((e) => e.info.kind !== 'late-settlement')).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(unhandled).toEqual([]);
  });
});

describe('fuzz', () => {
  const registry = createToolRegistry({ onError: () => {}, timeoutMs: 50, timeoutGraceMs: 1 });
  registry.register(readFile());
  registry.register(echo());
  registry.register(
    echo({
      name: 'thrower',
      execute: () => {
        throw new Error('x');
      },
    }),
  );
  const names = ['read_file', 'echo', 'thrower', 'constructor', '__proto__', ''];

  const shapeOk = (result: ToolExecutionResult) => {
    expect(typeof result.callId).toBe('string');
    expect(Array.isArray(result.content)).toBe(true);
    expect(typeof result.isError).toBe('boolean');
    if (result.isError) {
      expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error?.message}` }]);
      expect(typeof result.error?.code).toBe('string');
    }
  };

  it('never rejects and always answers { callId, content, isError } for any input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true }),
        async (exec) => {
          shapeOk(await registry.execute(exec as ToolExecution));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hands the body an equal, deep-frozen copy of any JSON arguments', async () => {
    const copier = createToolRegistry();
    let seen: unknown;
    copier.register(
      echo({
        execute: (args) => {
          seen = args;
          return [textContent('ok')];
        },
      }),
    );
    const deepFrozen = (value: unknown): boolean =>
      typeof value !== 'object' ||
      value === null ||
      (Object.isFrozen(value) && Object.values(value).every(deepFrozen));
    await copier.execute(call('echo', { z: -0 }));
    expect(Object.is((seen as { z: number }).z, -0)).toBe(true);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString')),
          fc.jsonValue(),
        ),
        async (args) => {
          seen = undefined;
          const result = await copier.execute(call('echo', args));
          expect(result.isError).toBe(false);
          expect(seen).not.toBe(args);
          expect(seen).toEqual(args); // -0 included: the copy keeps every number as it is
          expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
          expect(deepFrozen(seen)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never rejects for call-shaped input with arbitrary arguments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            callId: fc.oneof(fc.string(), fc.anything()),
            name: fc.oneof(fc.constantFrom(...names), fc.string()),
            arguments: fc.oneof(
              fc.object({ withBigInt: true, withNullPrototype: true, withTypedArray: true }),
              fc.dictionary(
                fc.constantFrom('path', 'limit', '__proto__', 'constructor'),
                fc.jsonValue(),
              ),
              fc.anything(),
            ),
            agent: fc.option(fc.anything(), { nil: undefined }),
          },
          { requiredKeys: ['callId', 'name'] },
        ),
        async (exec) => {
          const result = await registry.execute(exec as ToolExecution);
          shapeOk(result);
          if (typeof exec.callId === 'string') expect(result.callId).toBe(exec.callId);
        },
      ),
      { numRuns: 500 },
    );
    expect(unhandled).toEqual([]);
  });
});

describe('misused next()', () => {
  it('lets a second or a late next() reject quietly, never running the body again', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    let late: (() => Promise<ToolExecutionResult>) | undefined;
    registry.use(
      async (exec, next) => {
        if (exec.callId === 'twice') {
          const result = await next();
          void next(); // dropped: its rejection must not go unhandled
          return result;
        }
        late = next;
        return { callId: exec.callId, content: [textContent('vetoed')], isError: false };
      },
      { name: 'sloppy' },
    );
    const twice = await registry.execute(call('echo', {}, { callId: 'twice' }));
    expectFailure(twice, 'INTERCEPTOR_ERROR');
    expect(twice.error?.message).toMatch(/Interceptor "sloppy" called next\(\) twice/);
    expect(body).toHaveBeenCalledTimes(1);

    const vetoed = await registry.execute(call('echo', {}, { callId: 'late' }));
    expect(vetoed).toMatchObject({ callId: 'late', isError: false });
    // After the call resolved: a rejection nobody handles yet, and no body.
    const lateNext = late!();
    await new Promise((r) => setTimeout(r, 5));
    expect(unhandled).toEqual([]);
    await expect(lateNext).rejects.toThrow(/called next\(\) after it had returned/);
    expect(body).toHaveBeenCalledTimes(1);
  });
});

describe('hostile signals', () => {
  it('answers a signal whose "aborted" throws with INVALID_ARGS, keeping the callId, telling observers', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    const observed: string[] = [];
    registry.on('result', (result) => {
      observed.push(result.callId);
    });
    const throwing = {
      get aborted(): boolean {
        throw new Error('aborted getter boom');
      },
      addEventListener() {},
      removeEventListener() {},
    };
    const branded = Object.create(AbortSignal.prototype);
    const results = await Promise.all([
      registry.execute(call('echo', {}, { callId: 'duck', signal: throwing as never })),
      registry.execute(call('echo', {}, { callId: 'branded', signal: branded })),
    ]);
    expect(results.map((r) => r.callId)).toEqual(['duck', 'branded']);
    for (const result of results) {
      expectFailure(result, 'INVALID_ARGS');
      expect(result.error?.message).toMatch(/"signal"/);
    }
    expect(observed.sort()).toEqual(['branded', 'duck']);
    expect(body).not.toHaveBeenCalled();
  });
});

describe('the agent is opaque', () => {
  it('passes any agent value through by identity, to interceptors, rewrites and the body, never reading it', async () => {
    const registry = createToolRegistry();
    const seen: unknown[] = [];
    registry.register(
      echo({
        execute: (_args, exec) => {
          seen.push(exec.agent);
          return [textContent('ran')];
        },
      }),
    );
    registry.use((exec, next) => {
      seen.push(exec.agent);
      return next({ ...exec, arguments: { ...exec.arguments } });
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const loop = {
      name: 'main',
      get trap(): never {
        throw new Error('the registry read the agent');
      },
    };
    const agents: unknown[] = [loop, proxy, 42, null, 'main', Symbol('sub'), [1, 2]];
    for (const agent of agents) {
      seen.length = 0;
      const result = await registry.execute({ callId: 'a', name: 'echo', arguments: {}, agent });
      expect(result.isError).toBe(false);
      expect(seen).toHaveLength(2);
      expect(seen.every((s) => s === agent)).toBe(true);
    }
    expect(Object.isFrozen(loop)).toBe(false);
  });

  it('lets an interceptor set the agent to any value in next()', async () => {
    const registry = createToolRegistry();
    let bodySaw: unknown;
    registry.register(
      echo({
        execute: (_args, exec) => {
          bodySaw = exec.agent;
          return [textContent('ran')];
        },
      }),
    );
    const agent = { id: 'sub-1' };
    registry.use((exec, next) => next({ ...exec, agent }));
    const result = await registry.execute({ callId: 'b', name: 'echo', arguments: {} });
    expect(result.isError).toBe(false);
    expect(bodySaw).toBe(agent);
  });
});

describe('revoked proxies', () => {
  it('answers a revoked Proxy in any field of a call with INVALID_ARGS and the callId', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const execs = [
      { callId: 'args', name: 'echo', arguments: proxy },
      { callId: 'nested', name: 'echo', arguments: { x: proxy } },
      { callId: 'name', name: proxy, arguments: {} },
      { callId: 'signal', name: 'echo', arguments: {}, signal: proxy },
    ];
    const results = await Promise.all(execs.map((e) => registry.execute(e as never)));
    expect(results.map((r) => [r.callId, r.error?.code])).toEqual(
      execs.map((e) => [e.callId, 'INVALID_ARGS']),
    );
    expect(results[2]?.error?.message).toMatch(
      /"name" must be a string \(got an unreadable object\)/,
    );
    expect(body).not.toHaveBeenCalled();
  });
});

describe('arguments are a frozen copy, read once', () => {
  it('refuses accessor properties anywhere in the arguments, naming the path', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    let reads = 0;
    const flipping = {
      get x() {
        reads++;
        return reads <= 3 ? 'safe' : { $where: 'rm -rf /' };
      },
    };
    const result = await registry.execute(call('echo', flipping));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toBe(
      'Tool "echo": invalid arguments: argument "x" is a getter; pass plain JSON data. Fix the call and retry.',
    );
    expect(reads).toBe(0);
    const list = [1, 2];
    Object.defineProperty(list, 1, { get: () => 2, enumerable: true });
    const nested = {
      a: { b: list },
      c: Object.defineProperty({}, 'onlySet', { set() {}, enumerable: true }),
    };
    const deep = await registry.execute(call('echo', nested));
    expectFailure(deep, 'INVALID_ARGS');
    expect(deep.error?.details).toEqual({
      more: 0,
      violations: [
        { path: '/a/b/1', message: 'is a getter; pass plain JSON data' },
        { path: '/c/onlySet', message: 'is a setter; pass plain JSON data' },
      ],
    });
    expect(body).not.toHaveBeenCalled();
  });

  it('validates, intercepts and runs one deep-frozen copy: no one can change what was validated', async () => {
    const registry = createToolRegistry();
    registry.register(
      echo({
        parameters: {
          type: 'object',
          properties: {
            x: { type: 'string' },
            nested: { type: 'object' },
            list: { type: 'array' },
          },
        },
        execute: (args) => [textContent(JSON.stringify(args))],
      }),
    );
    const gate = deferred();
    const attempts: unknown[] = [];
    registry.use(
      async (exec, next) => {
        const tries = [
          () => {
            (exec.arguments as Record<string, unknown>).x = { not: 'a string' };
          },
          () => {
            (exec.arguments.nested as Record<string, unknown>).y = 1;
          },
          () => {
            (exec.arguments.list as unknown[]).push(3);
          },
        ];
        for (const attempt of tries) {
          try {
            attempt();
          } catch (error) {
            attempts.push(error);
          }
        }
        await gate.promise;
        return next();
      },
      { name: 'mutator' },
    );
    const args = { x: 'ok', nested: { y: 0 }, list: [1, 2] };
    const pending = registry.execute(call('echo', args));
    // The caller changing its object after the call started changes nothing either.
    args.x = 'changed';
    args.nested.y = 5;
    gate.resolve();
    const result = await pending;
    expect(attempts).toHaveLength(3);
    for (const error of attempts) expect(error).toBeInstanceOf(TypeError);
    expect(result.content).toEqual([textContent('{"x":"ok","nested":{"y":0},"list":[1,2]}')]);
  });

  it('copies and freezes rewritten arguments too', async () => {
    const registry = createToolRegistry();
    let seen: Record<string, unknown> | undefined;
    registry.register(
      echo({
        execute: (args) => {
          seen = args;
          return [textContent('ok')];
        },
      }),
    );
    const shared = { deep: true };
    const rewritten = { path: '/sandbox/a', one: shared, two: shared };
    const inner = deferred();
    const release = deferred();
    registry.use(
      async (_exec, next) => {
        inner.resolve();
        await release.promise;
        return next();
      },
      { name: 'inner' },
    );
    registry.use(
      async (exec, next) => {
        const pending = next({ ...exec, arguments: rewritten });
        await inner.promise;
        // Changed after next(changed) validated it: the body must not see this.
        rewritten.path = '/etc/passwd';
        release.resolve();
        return pending;
      },
      { name: 'confine', priority: 1 },
    );
    const result = await registry.execute(call('echo', { path: '/a' }));
    expect(result.isError).toBe(false);
    expect(seen).toEqual({ path: '/sandbox/a', one: { deep: true }, two: { deep: true } });
    expect(Object.isFrozen(seen)).toBe(true);
    expect(Object.isFrozen(seen?.one)).toBe(true);
    expect(result.arguments?.effective).toBe(seen);
    expect(Object.isFrozen(result.arguments?.original)).toBe(true);
  });

  it('reports a getter in a rewrite as invalid arguments naming the interceptor', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(echo({ execute: body }));
    registry.use(
      (exec, next) =>
        next({
          ...exec,
          arguments: Object.defineProperty({}, 'p', { get: () => 1, enumerable: true }),
        }),
      { name: 'sneaky' },
    );
    const result = await registry.execute(call('echo', {}));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toMatch(
      /interceptor "sneaky" rewrote the arguments, and they are invalid: argument "p" is a getter/,
    );
    expect(body).not.toHaveBeenCalled();
  });
});
