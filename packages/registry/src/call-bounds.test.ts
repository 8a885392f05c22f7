import { getEventListeners } from 'node:events';
import { type ToolExecutionResult, textContent } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { call, deferred, expectFailure, quiet, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

describe('callTimeoutMs: a whole-call deadline', () => {
  it('resolves TIMEOUT naming an interceptor that never settles, and aborts the signal it sees', async () => {
    const registry = createToolRegistry({ callTimeoutMs: 20 });
    const body = vi.fn(() => [textContent('ran')]);
    registry.register(readFile({ execute: body }));
    let seen: AbortSignal | undefined;
    registry.use((_exec, next) => next(), { name: 'outer' });
    registry.use(
      (exec) => {
        seen = exec.signal;
        return new Promise<never>(() => {});
      },
      { name: 'approval' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'TIMEOUT');
    expect(result.error?.message).toMatch(
      /did not finish within its whole-call deadline of 20 ms \(callTimeoutMs\); interceptor "approval" was still pending/,
    );
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException | undefined)?.name).toBe('TimeoutError');
    expect(body).not.toHaveBeenCalled();
  });

  it('names the body when the body is what is still running, and aborts its signal', async () => {
    const { onError } = quiet();
    const registry = createToolRegistry({ callTimeoutMs: 20, onError });
    let bodySignal: AbortSignal | undefined;
    registry.register(
      readFile({
        execute: (_args, exec) => {
          bodySignal = exec.signal;
          return new Promise(() => {});
        },
      }),
    );
    registry.use((_exec, next) => next(), { name: 'pass' });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, 'TIMEOUT');
    expect(result.error?.message).toMatch(/the tool body was still running/);
    expect(bodySignal?.aborted).toBe(true);
  });

  it('bounds an interceptor that hangs after the body returned', async () => {
    const registry = createToolRegistry({ callTimeoutMs: 20 });
    registry.register(readFile());
    registry.use(
      async (_exec, next) => {
        await next();
        return new Promise<never>(() => {});
      },
      { name: 'post' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result.error?.message).toMatch(/interceptor "post" was still pending/);
  });

  it('lets a per-tool callTimeoutMs override the registry (0: none), and leaves fast calls alone', async () => {
    const registry = createToolRegistry({ callTimeoutMs: 10_000 });
    const gate = deferred();
    registry.register(
      readFile({
        callTimeoutMs: 15,
        execute: async () => {
          await gate.promise;
          return [textContent('late')];
        },
      }),
    );
    registry.register(readFile({ name: 'quick' }));
    expectFailure(await registry.execute(call('read_file', { path: 'a' })), 'TIMEOUT');
    gate.resolve();
    const quick = await registry.execute(call('quick', { path: 'a' }));
    expect(quick.isError).toBe(false);
  });

  it('still answers a caller abort as ABORTED, and leaves no listener on the caller signal', async () => {
    const registry = createToolRegistry({ callTimeoutMs: 5_000 });
    const controller = new AbortController();
    registry.register(
      readFile({
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason));
          }),
      }),
    );
    const running = registry.execute(
      call('read_file', { path: 'a' }, { signal: controller.signal }),
    );
    await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    expectFailure(await running, 'ABORTED');
    // A long-lived caller signal (a session's) must not gather one listener per call.
    const session = new AbortController();
    for (let i = 0; i < 20; i++) {
      await createToolRegistry({ callTimeoutMs: 1000 })
        .execute(call('nope', {}, { signal: session.signal }))
        .catch(() => undefined);
    }
    const registry2 = createToolRegistry({ callTimeoutMs: 1000 });
    registry2.register(readFile());
    for (let i = 0; i < 20; i++) {
      await registry2.execute(call('read_file', { path: 'a' }, { signal: session.signal }));
    }
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
  });

  it('refuses a malformed callTimeoutMs at creation', () => {
    for (const bad of [-1, Number.NaN, '5', 2 ** 31]) {
      expect(() => createToolRegistry({ callTimeoutMs: bad as number })).toThrow(/callTimeoutMs/);
    }
  });
});

describe('callId: at most once in flight', () => {
  it('refuses a second call whose callId is in flight, then accepts it again once the first ended', async () => {
    const registry = createToolRegistry();
    const gate = deferred();
    const body = vi.fn(async () => {
      await gate.promise;
      return [textContent('first')];
    });
    registry.register(readFile({ execute: body }));
    const first = registry.execute(call('read_file', { path: 'a' }, { callId: 'same' }));
    const second = await registry.execute(call('read_file', { path: 'b' }, { callId: 'same' }));
    expectFailure(second, 'INVALID_ARGS');
    expect(second.error?.message).toMatch(
      /a call with callId "same" is already in flight in this registry; nothing ran/,
    );
    gate.resolve();
    expect((await first).content).toEqual([textContent('first')]);
    expect(body).toHaveBeenCalledTimes(1);
    const again = await registry.execute(call('read_file', { path: 'c' }, { callId: 'same' }));
    expect(again.isError).toBe(false);
  });

  it('executeAll refuses every later call of a turn that repeats a callId, each with a message', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ok')]);
    registry.register(
      readFile({ execute: body, hints: { readOnly: true, concurrencySafe: true } }),
    );
    const results = await registry.executeAll([
      call('read_file', { path: 'a' }, { callId: 'x' }),
      call('read_file', { path: 'b' }, { callId: 'y' }),
      call('read_file', { path: 'c' }, { callId: 'x' }),
      call('read_file', { path: 'd' }, { callId: 'x' }),
    ]);
    expect(results.map((r) => [r.callId, r.error?.code])).toEqual([
      ['x', undefined],
      ['y', undefined],
      ['x', 'INVALID_ARGS'],
      ['x', 'INVALID_ARGS'],
    ]);
    expect(results[2]?.error?.message).toMatch(
      /call 2 of this turn has the callId "x" of call 0; nothing ran/,
    );
    expect(results[3]?.error?.message).toMatch(/call 3 of this turn has the callId "x" of call 0/);
    expect(body).toHaveBeenCalledTimes(2);
  });
});

describe('unregistering a tool stops its calls in flight', () => {
  it('aborts the body signal with a reason, and the call resolves ABORTED', async () => {
    const registry = createToolRegistry();
    let signal: AbortSignal | undefined;
    const dispose = registry.register(
      readFile({
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            signal = exec.signal;
            exec.signal.addEventListener('abort', () => reject(exec.signal.reason));
          }),
      }),
    );
    const running = registry.execute(call('read_file', { path: 'a' }));
    await vi.waitFor(() => expect(signal).toBeDefined());
    dispose();
    const result = await running;
    expectFailure(result, 'ABORTED');
    expect(result.error?.message).toMatch(/was unregistered while this call ran/);
    const reason = signal?.reason as DOMException | undefined;
    expect(reason?.name).toBe('AbortError');
    expect(reason?.message).toMatch(/unregistered/);
  });

  it('a body that ignores its signal: ABORTED after the grace under a timeoutMs, else when it returns', async () => {
    const { errors, onError } = quiet();
    const registry = createToolRegistry({ timeoutGraceMs: 10, onError });
    const gate = deferred();
    const started: string[] = [];
    const stubborn = (name: string, timeoutMs?: number) =>
      readFile({
        name,
        ...(timeoutMs !== undefined && { timeoutMs }),
        execute: async () => {
          started.push(name);
          await gate.promise;
          return [textContent('from a tool that no longer exists')];
        },
      });
    const disposeTimed = registry.register(stubborn('timed', 60_000));
    const disposeBare = registry.register(stubborn('bare'));
    const timed = registry.execute(call('timed', { path: 'a' }));
    const bare = registry.execute(call('bare', { path: 'a' }));
    await vi.waitFor(() => expect(started).toHaveLength(2));
    disposeTimed();
    disposeBare();
    // Under a deadline the grace bounds the wait; the bare call waits for its body.
    expectFailure(await timed, 'ABORTED');
    let bareDone = false;
    void bare.then(() => {
      bareDone = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(bareDone).toBe(false);
    gate.resolve();
    const result = await bare;
    expectFailure(result, 'ABORTED');
    expect(result.error?.message).toMatch(/was unregistered while this call ran/);
    await vi.waitFor(() => expect(errors).toHaveLength(2));
    expect(errors.map((e) => e.info.kind)).toEqual(['late-settlement', 'late-settlement']);
  });

  it('never starts the body of a call whose tool was unregistered while an interceptor held it', async () => {
    const registry = createToolRegistry();
    const body = vi.fn(() => [textContent('ran')]);
    const dispose = registry.register(readFile({ execute: body }));
    const approve = deferred();
    registry.use(async (_exec, next) => {
      await approve.promise;
      return next();
    });
    const running = registry.execute(call('read_file', { path: 'a' }));
    await new Promise((r) => setTimeout(r, 5));
    dispose();
    approve.resolve();
    const result = await running;
    expectFailure(result, 'ABORTED');
    expect(result.error?.message).toMatch(/was unregistered before it ran; nothing ran/);
    expect(body).not.toHaveBeenCalled();
  });

  it('leaves the calls of other tools, and of a tool registered again later under the same name, alone', async () => {
    const registry = createToolRegistry();
    const gate = deferred();
    const slow = (name: string) =>
      readFile({
        name,
        execute: async () => {
          await gate.promise;
          return [textContent(name)];
        },
      });
    const disposeA = registry.register(slow('a'));
    registry.register(slow('b'));
    const a = registry.execute(call('a', { path: 'x' }));
    const b = registry.execute(call('b', { path: 'x' }));
    await new Promise((r) => setTimeout(r, 5));
    disposeA();
    await new Promise((r) => setTimeout(r, 1));
    registry.register(slow('a'));
    const a2 = registry.execute(call('a', { path: 'x' }, { callId: 'a2' }));
    gate.resolve();
    const results: ToolExecutionResult[] = await Promise.all([a, b, a2]);
    expect(results.map((r) => r.error?.code)).toEqual(['ABORTED', undefined, undefined]);
  });
});

describe('a tool disposed and registered again in the same turn', () => {
  it('keeps its calls in flight running (a client re-registering its whole list on a change)', async () => {
    const registry = createToolRegistry();
    const gate = deferred();
    let signal: AbortSignal | undefined;
    const slow = () =>
      readFile({
        execute: async (_args, exec) => {
          signal = exec.signal;
          await gate.promise;
          return [textContent('finished')];
        },
      });
    const dispose = registry.register(slow());
    const running = registry.execute(call('read_file', { path: 'a' }));
    await vi.waitFor(() => expect(signal).toBeDefined());
    dispose();
    registry.register(slow());
    await new Promise((r) => setTimeout(r, 5));
    expect(signal?.aborted).toBe(false);
    gate.resolve();
    expect((await running).content).toEqual([textContent('finished')]);
  });
});

describe('maxSchemaBytes on the registry', () => {
  it('holds every tool to the registry budget, and refuses a malformed one at creation', () => {
    const registry = createToolRegistry({ maxSchemaBytes: 200 });
    expect(() => registry.register(readFile({ description: 'd'.repeat(300) }))).toThrow(
      /maxSchemaBytes/,
    );
    expect(() => registry.register(readFile())).not.toThrow();
    expect(() => createToolRegistry({ maxSchemaBytes: -1 })).toThrow(/maxSchemaBytes/);
  });
});
