import {
  type BodyExecution,
  type InterceptedExecution,
  type ToolExecution,
  textContent,
} from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { call, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

/**
 * A capability as a sandbox interceptor would attach it: an object with state and methods (its type
 * is declared on `ToolExecutionExtensions` by extensions.test-d.ts).
 */
const makeRunner = () => {
  const runs: string[] = [];
  return {
    runs,
    run: async (command: string) => {
      runs.push(command);
      return { code: 0 };
    },
  };
};

describe('extension fields', () => {
  it('pass an outer interceptor’s capability to inner interceptors and the body by identity, through a rewrite that spreads exec', async () => {
    const registry = createToolRegistry();
    let bodyExec: BodyExecution | undefined;
    let bodyArgs: unknown;
    registry.register(
      readFile({
        execute: (args, exec) => {
          bodyArgs = args;
          bodyExec = exec;
          return [textContent('ran')];
        },
      }),
    );
    const runner = makeRunner();
    const seen: { name: string; exec: InterceptedExecution }[] = [];
    registry.use(
      (exec, next) => {
        seen.push({ name: 'sandbox', exec });
        return next({ ...exec, sandbox: runner });
      },
      { name: 'sandbox', priority: 10 },
    );
    registry.use(
      (exec, next) => {
        seen.push({ name: 'confine', exec });
        return next({ ...exec, arguments: { path: `/jail${String(exec.arguments.path)}` } });
      },
      { name: 'confine', priority: 5 },
    );
    registry.use(
      (exec, next) => {
        seen.push({ name: 'inner', exec });
        return next();
      },
      { name: 'inner' },
    );
    const result = await registry.execute(call('read_file', { path: '/a' }));
    expect(result).toMatchObject({ isError: false, content: [textContent('ran')] });
    expect(seen.map((s) => s.name)).toEqual(['sandbox', 'confine', 'inner']);
    const [outer, confine, inner] = seen.map((s) => s.exec);
    expect(outer).not.toHaveProperty('sandbox');
    expect(confine?.sandbox).toBe(runner);
    // The rewrite of the arguments (spreading exec) kept the capability, and it was re-validated.
    expect(inner?.sandbox).toBe(runner);
    expect(inner?.arguments).toEqual({ path: '/jail/a' });
    expect(bodyExec?.sandbox).toBe(runner);
    // Neither copied nor frozen: it is the interceptor's object, state and all.
    expect(Object.isFrozen(runner)).toBe(false);
    await bodyExec?.sandbox?.run('ls');
    expect(runner.runs).toEqual(['ls']);
    // Not an argument, and not in the result.
    expect(bodyArgs).toEqual({ path: '/jail/a' });
    expect(result).not.toHaveProperty('sandbox');
    expect(result.arguments).toEqual({ original: { path: '/a' }, effective: { path: '/jail/a' } });
    expect(JSON.stringify(result)).not.toContain('sandbox');
  });

  it('attached alone are not a rewrite: the arguments are not validated again and the result has no arguments record', async () => {
    const registry = createToolRegistry();
    const body = vi.fn((_args: unknown, _exec: BodyExecution) => [textContent('ran')]);
    const validate = vi.fn((value: unknown) => ({ value: value as { path: string } }));
    registry.register(
      readFile({
        execute: body,
        inputValidator: { '~standard': { version: 1, vendor: 'test', validate } },
      }),
    );
    const runner = makeRunner();
    registry.use((exec, next) => next({ ...exec, sandbox: runner }));
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toMatchObject({ isError: false, content: [textContent('ran')] });
    expect(result).not.toHaveProperty('arguments');
    expect(validate).toHaveBeenCalledTimes(1);
    expect(body.mock.calls[0]?.[1].sandbox).toBe(runner);
    // A rewrite to an equal but new object is a rewrite, validated again.
    registry.use((exec, next) => next({ ...exec, arguments: { ...exec.arguments } }), {
      priority: -1,
    });
    const rewritten = await registry.execute(call('read_file', { path: 'a' }));
    expect(rewritten.arguments).toEqual({ original: { path: 'a' }, effective: { path: 'a' } });
    expect(validate).toHaveBeenCalledTimes(3);
  });

  it('are dropped by an interceptor that passes next() an execution without them', async () => {
    const registry = createToolRegistry();
    const body = vi.fn((_args: unknown, _exec: BodyExecution) => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    registry.use((exec, next) => next({ ...exec, sandbox: makeRunner() }), {
      priority: 1,
    });
    registry.use((exec, next) =>
      next({ callId: exec.callId, name: exec.name, arguments: exec.arguments, tool: exec.tool }),
    );
    await registry.execute(call('read_file', { path: 'a' }));
    expect(body.mock.calls[0]?.[1]).not.toHaveProperty('sandbox');
  });

  it('pass from the caller of execute() and executeAll() to interceptors and the body', async () => {
    const registry = createToolRegistry();
    const bodies: BodyExecution[] = [];
    registry.register(
      readFile({
        hints: { concurrencySafe: true },
        execute: (_args, exec) => {
          bodies.push(exec);
          return [textContent('ran')];
        },
      }),
    );
    const runner = makeRunner();
    const key = Symbol('capability');
    const intercepted: unknown[] = [];
    registry.use((exec, next) => {
      intercepted.push((exec as unknown as Record<PropertyKey, unknown>)[key]);
      return next();
    });
    const exec = { ...call('read_file', { path: 'a' }), sandbox: runner, [key]: runner };
    const hidden = Object.defineProperty({ ...call('read_file', { path: 'b' }) }, 'secret', {
      value: runner,
      enumerable: false,
    });
    expect((await registry.execute(exec)).isError).toBe(false);
    expect(await registry.executeAll([exec, { ...hidden, callId: 'c-hidden' }])).toMatchObject([
      { isError: false },
      { isError: false },
    ]);
    expect(intercepted).toEqual([runner, runner, undefined]);
    for (const body of bodies.slice(0, 2)) {
      expect(body.sandbox).toBe(runner);
      expect((body as unknown as Record<PropertyKey, unknown>)[key]).toBe(runner);
    }
    // Only own enumerable fields are extensions.
    expect(bodies[2]).not.toHaveProperty('secret');
  });

  it('never call a getter: an accessor extension is refused, from the caller or from an interceptor', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    const getter = vi.fn(() => makeRunner());
    const exec = Object.defineProperty({ ...call('read_file', { path: 'a' }) }, 'sandbox', {
      get: getter,
      enumerable: true,
    }) as ToolExecution;
    const fromCaller = await registry.execute(exec);
    expectFailure(fromCaller, 'INVALID_ARGS');
    expect(fromCaller.error?.message).toBe(
      'execute(): the call "c-read_file": field "sandbox" is a getter; an extension field must be a plain value (the registry never calls a getter). Pass the value itself.',
    );

    const dispose = registry.use(
      (e, next) =>
        next(
          Object.defineProperty({ ...e }, 'sandbox', {
            get: getter,
            enumerable: true,
          }) as InterceptedExecution,
        ),
      { name: 'lazy' },
    );
    const fromInterceptor = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(fromInterceptor, 'INTERCEPTOR_ERROR');
    expect(fromInterceptor.error?.message).toMatch(
      /Interceptor "lazy" passed next\(\) an execution whose field "sandbox" is a getter/,
    );
    dispose();
    expect(getter).not.toHaveBeenCalled();
    expect(body).not.toHaveBeenCalled();
  });

  it('answers a call whose keys cannot be listed with INVALID_ARGS and its callId', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    const exec = new Proxy(call('read_file', { path: 'a' }), {
      ownKeys: () => {
        throw new Error('keys bomb');
      },
    });
    const result = await registry.execute(exec);
    expectFailure(result, 'INVALID_ARGS');
    expect(result.callId).toBe('c-read_file');
    expect(result.error?.message).toMatch(/could not be read \(keys bomb\)/);
    expect(body).not.toHaveBeenCalled();
  });

  it('keeps any extension value as it is, and never as an argument', async () => {
    const registry = createToolRegistry();
    let seen: BodyExecution | undefined;
    registry.register(
      readFile({
        execute: (_args, exec) => {
          seen = exec;
          return [textContent('ran')];
        },
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc
            .string()
            .filter((k) => !['callId', 'name', 'arguments', 'agent', 'tool', 'signal'].includes(k)),
          fc.anything({ withBigInt: true, withMap: true }),
        ),
        async (fields) => {
          seen = undefined;
          const result = await registry.execute({ ...fields, ...call('read_file', { path: 'a' }) });
          expect(result.isError).toBe(false);
          for (const key of Object.keys(fields)) {
            expect(Object.getOwnPropertyDescriptor(seen, key)?.value).toBe(fields[key]);
          }
          expect((seen as BodyExecution | undefined)?.arguments).toEqual({ path: 'a' });
        },
      ),
      { numRuns: 200 },
    );
  });
});
