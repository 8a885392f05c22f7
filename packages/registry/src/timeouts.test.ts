import { textContent } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { call, deferred, expectFailure, quiet, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

describe('timeouts', () => {
  it('aborts the body signal and resolves TIMEOUT after the grace even if the body ignores it', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError, timeoutGraceMs: 5 });
    const release = deferred();
    let signal: AbortSignal | undefined;
    registry.register(
      readFile({
        timeoutMs: 10,
        execute: async (_args, exec) => {
          signal = exec.signal;
          await release.promise;
          return [textContent('too late')];
        },
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'TIMEOUT');
    expect(result.error?.message).toMatch(
      /Tool "read_file" did not finish within 10 ms and was stopped/,
    );
    expect(signal?.aborted).toBe(true);
    expect((signal!.reason as DOMException).name).toBe('TimeoutError');
    expect(errors).toEqual([]);
    release.resolve();
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(errors[0]?.info).toEqual({
      kind: 'late-settlement',
      tool: 'read_file',
      callId: 'c-read_file',
    });
    expect(String(errors[0]?.error)).toMatch(
      /returned after its call had already resolved TIMEOUT/,
    );
  });

  it('resolves as soon as a body that honours its signal stops (no waiting for the grace)', async () => {
    // The grace is longer than the test's own time limit: only an early settle can pass.
    const registry = createToolRegistry({ timeoutMs: 10, timeoutGraceMs: 600_000 });
    registry.register(
      readFile({
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason));
          }),
      }),
    );
    expectFailure(await registry.execute(call('read_file', { path: 'a' })), 'TIMEOUT');
  });

  it('gives a body that first reads its signal after the timeout an aborted one', async () => {
    const registry = createToolRegistry({ timeoutMs: 5, timeoutGraceMs: 600_000 });
    registry.register(
      readFile({
        execute: async (_args, exec) => {
          await new Promise((r) => setTimeout(r, 30));
          return [textContent(`aborted: ${exec.signal.aborted}`)];
        },
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.content).toEqual([textContent('aborted: true')]);
  });

  it('gives a body that nothing can stop a live signal', async () => {
    const registry = createToolRegistry();
    let signal: unknown;
    registry.register(
      readFile({
        execute: (_args, exec) => {
          signal = exec.signal;
          expect(exec.signal).toBe(signal);
          expect(Object.keys(exec)).toEqual(['callId', 'name', 'arguments', 'tool', 'signal']);
          return [textContent('ok')];
        },
      }),
    );
    expect((await registry.execute(call('read_file', { path: 'a' }))).isError).toBe(false);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect((signal as AbortSignal).aborted).toBe(false);
  });

  it('lets a definition override the registry default, and 0 means none', async () => {
    const registry = createToolRegistry({ timeoutMs: 5, timeoutGraceMs: 0 });
    const gate = deferred();
    registry.register(
      readFile({
        timeoutMs: 0,
        execute: async () => {
          await gate.promise;
          return [textContent('done')];
        },
      }),
    );
    const pending = registry.execute(call('read_file', { path: 'a' }));
    await new Promise((r) => setTimeout(r, 30));
    gate.resolve();
    expect((await pending).isError).toBe(false);
  });

  it('keeps a success that arrives within the grace', async () => {
    const registry = createToolRegistry({ timeoutMs: 5, timeoutGraceMs: 600_000 });
    registry.register(
      readFile({
        execute: (_args, exec) =>
          new Promise((resolve) => {
            exec.signal.addEventListener('abort', () => resolve([textContent('partial')]));
          }),
      }),
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toMatchObject({ isError: false, content: [textContent('partial')] });
  });

  it('reports a late rejection once, through onError, never as an unhandled rejection', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ onError, timeoutMs: 5, timeoutGraceMs: 0 });
    const fail = deferred();
    registry.register(
      readFile({
        execute: async () => {
          await fail.promise;
          throw new Error('late failure');
        },
      }),
    );
    expectFailure(await registry.execute(call('read_file', { path: 'a' })), 'TIMEOUT');
    fail.resolve();
    await vi.waitFor(() => expect(errors).toHaveLength(1));
    expect(String(errors[0]?.error)).toBe('Error: late failure');
  });

  it('leaves no timer behind after a call, and holds the process open only while a call runs', async () => {
    // The real timers, wrapped to see which ones the registry leaves pending (Node's own resource
    // count does not list unref'd timers, so it cannot tell).
    const pending = new Set<ReturnType<typeof setTimeout>>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const set = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
      fn: () => void,
      ms?: number,
    ) => {
      const handle = realSet(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation((handle) => {
      pending.delete(handle as ReturnType<typeof setTimeout>);
      realClear(handle);
    });
    try {
      const registry = createToolRegistry({ timeoutMs: 60_000, timeoutGraceMs: 60_000 });
      const gate = deferred();
      registry.register(
        readFile({
          execute: async () => {
            await gate.promise;
            return [textContent('ok')];
          },
        }),
      );
      const running = registry.execute(call('read_file', { path: 'a' }));
      await new Promise((r) => realSet(r, 1));
      expect(pending.size).toBe(1);
      // Ref'd on purpose: see process-lifetime.test.ts.
      for (const handle of pending) expect(handle.hasRef()).toBe(true);
      gate.resolve();
      expect((await running).isError).toBe(false);
      for (let i = 0; i < 20; i++) {
        expect((await registry.execute(call('read_file', { path: 'a' }))).isError).toBe(false);
      }
      expect(set).toHaveBeenCalledTimes(21);
      expect(pending.size).toBe(0);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });

  it('refuses time limits beyond what a Node timer can hold, saying what the maximum is', async () => {
    // Node clamps a delay of 2^31 ms or more to 1 ms: such a limit would time every call out at once.
    for (const value of [2 ** 31, 1e12, Number.POSITIVE_INFINITY]) {
      expect(() => createToolRegistry({ timeoutMs: value })).toThrow(
        /"timeoutMs" must be a number of milliseconds from 0 to 2147483647 \(about 24\.8 days\), 0 for no limit/,
      );
      expect(() => createToolRegistry({ timeoutGraceMs: value })).toThrow(
        /"timeoutGraceMs" must be a number of milliseconds from 0 to 2147483647/,
      );
      expect(() => createToolRegistry().register(readFile({ timeoutMs: value }))).toThrow(
        /tool "read_file": "timeoutMs" must be a number of milliseconds from 0 to 2147483647 \(about 24\.8 days\), 0 for no limit/,
      );
    }
    // The largest value a timer holds is accepted, and means what it says.
    const registry = createToolRegistry({
      timeoutMs: 2_147_483_647,
      timeoutGraceMs: 2_147_483_647,
    });
    registry.register(
      readFile({
        timeoutMs: 2_147_483_647,
        execute: () => new Promise((r) => setTimeout(() => r([textContent('done')]), 30)),
      }),
    );
    expect((await registry.execute(call('read_file', { path: 'a' }))).content).toEqual([
      textContent('done'),
    ]);
  });

  it('refuses bad options at creation', () => {
    expect(() => createToolRegistry({ timeoutMs: -1 })).toThrow(
      /"timeoutMs" must be a number of milliseconds from 0 to 2147483647/,
    );
    expect(() => createToolRegistry({ timeoutGraceMs: Number.NaN })).toThrow(/"timeoutGraceMs"/);
    expect(() => createToolRegistry({ maxConcurrency: 0 })).toThrow(
      /"maxConcurrency" must be a number >= 1/,
    );
  });
});

describe('cancellation', () => {
  it('runs nothing when the signal is aborted before dispatch', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    const interceptor = vi.fn((_e, next) => next());
    registry.register(readFile({ execute: body }));
    registry.use(interceptor);
    const controller = new AbortController();
    controller.abort();
    const result = await registry.execute(
      call('read_file', { path: 'a' }, { signal: controller.signal }),
    );
    expectFailure(result, 'ABORTED');
    expect(result.error?.message).toMatch(/aborted before it started; nothing ran/);
    expect(body).not.toHaveBeenCalled();
    expect(interceptor).not.toHaveBeenCalled();
  });

  it('aborts the body signal when the caller aborts during the call', async () => {
    const registry = createToolRegistry({ timeoutGraceMs: 600_000 });
    const started = deferred();
    let bodySignal: AbortSignal | undefined;
    registry.register(
      readFile({
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            bodySignal = exec.signal;
            started.resolve();
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')));
          }),
      }),
    );
    const controller = new AbortController();
    const pending = registry.execute(
      call('read_file', { path: 'a' }, { signal: controller.signal }),
    );
    await started.promise;
    controller.abort(new Error('user pressed Esc'));
    const result = await pending;
    expectFailure(result, 'ABORTED');
    expect(result.error?.message).toBe('The call to tool "read_file" was aborted by the caller.');
    expect((bodySignal!.reason as Error).message).toBe('user pressed Esc');
  });

  it('resolves ABORTED after the grace when the body ignores the abort', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ timeoutGraceMs: 1, onError });
    const started = deferred();
    registry.register(
      readFile({
        execute: () => {
          started.resolve();
          return new Promise(() => {});
        },
      }),
    );
    const controller = new AbortController();
    const pending = registry.execute(
      call('read_file', { path: 'a' }, { signal: controller.signal }),
    );
    await started.promise;
    controller.abort();
    expectFailure(await pending, 'ABORTED');
    expect(errors).toEqual([]);
  });

  it('does not start the body when the caller aborts while an interceptor waits', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    const asking = deferred();
    const answer = deferred();
    registry.use(async (_exec, next) => {
      asking.resolve();
      await answer.promise;
      return next();
    });
    const controller = new AbortController();
    const pending = registry.execute(
      call('read_file', { path: 'a' }, { signal: controller.signal }),
    );
    await asking.promise;
    controller.abort();
    answer.resolve();
    expectFailure(await pending, 'ABORTED');
    expect(body).not.toHaveBeenCalled();
  });

  it('accepts only a real AbortSignal, and says so', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    const fakes: unknown[] = [
      { aborted: false, addEventListener() {}, removeEventListener() {} },
      Object.create(AbortSignal.prototype),
      new EventTarget(),
    ];
    for (const signal of fakes) {
      const result = await registry.execute(
        call('read_file', { path: 'a' }, { signal: signal as AbortSignal }),
      );
      expectFailure(result, 'INVALID_ARGS');
      expect(result.callId).toBe('c-read_file');
      expect(result.error?.message).toMatch(
        /"signal" must be an AbortSignal .*pass an AbortController's signal/,
      );
    }
    expect(body).not.toHaveBeenCalled();
  });

  it('cannot be hung or crashed by a signal whose listener methods throw', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ timeoutGraceMs: 1, onError });
    const started = deferred();
    registry.register(
      readFile({
        timeoutMs: 20,
        execute: (_args, exec) =>
          exec.callId === 'hang'
            ? new Promise(() => {})
            : exec.callId === 'stop'
              ? new Promise((_resolve, reject) => {
                  started.resolve();
                  exec.signal.addEventListener('abort', () => reject(new Error('stopped')));
                })
              : [textContent('done')],
      }),
    );
    const patched = () => {
      const controller = new AbortController();
      const { signal } = controller;
      signal.addEventListener = () => {
        throw new Error('add boom');
      };
      signal.removeEventListener = () => {
        throw new Error('remove boom');
      };
      Object.defineProperty(signal, 'aborted', {
        get: () => {
          throw new Error('aborted boom');
        },
      });
      return { controller, signal };
    };
    // Finishes normally, times out (the grace timer fires), and is aborted by its controller.
    const done = await registry.execute(
      call('read_file', { path: 'a' }, { callId: 'done', signal: patched().signal }),
    );
    expect(done).toMatchObject({ callId: 'done', isError: false });
    const hang = await registry.execute(
      call('read_file', { path: 'a' }, { callId: 'hang', signal: patched().signal }),
    );
    expectFailure(hang, 'TIMEOUT');
    const { controller, signal } = patched();
    const stopping = registry.execute(call('read_file', { path: 'a' }, { callId: 'stop', signal }));
    await started.promise;
    controller.abort();
    expectFailure(await stopping, 'ABORTED');
    await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual([]);
  });
});
