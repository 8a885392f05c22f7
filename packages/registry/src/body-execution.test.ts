import { textContent } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { call, deferred, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

describe('the execution a body receives', () => {
  it('is a plain object whose own enumerable signal survives a spread, bare or under a time limit', async () => {
    for (const timeoutMs of [undefined, 60_000]) {
      const registry = createToolRegistry();
      let seen: Record<string, unknown> | undefined;
      let copy: Record<string, unknown> | undefined;
      registry.register(
        readFile({
          ...(timeoutMs !== undefined && { timeoutMs }),
          execute: (_args, exec) => {
            seen = exec as unknown as Record<string, unknown>;
            copy = { ...exec };
            return [textContent('ok')];
          },
        }),
      );
      const result = await registry.execute(call('read_file', { path: 'a' }));
      expect(result.isError).toBe(false);
      expect(Object.getPrototypeOf(seen)).toBe(Object.prototype);
      expect(Object.keys(seen!).sort()).toEqual(['arguments', 'callId', 'name', 'signal', 'tool']);
      expect(copy?.signal).toBeInstanceOf(AbortSignal);
      expect(seen?.signal).toBe(copy?.signal);
    }
  });

  it('a spread copy made before the tool is unregistered sees its signal abort', async () => {
    const registry = createToolRegistry();
    const gate = deferred();
    let copy: { signal?: AbortSignal } | undefined;
    const dispose = registry.register(
      readFile({
        execute: async (_args, exec) => {
          copy = { ...exec };
          await gate.promise;
          return [textContent('late')];
        },
      }),
    );
    const running = registry.execute(call('read_file', { path: 'a' }));
    await vi.waitFor(() => expect(copy).toBeDefined());
    expect(copy?.signal?.aborted).toBe(false);
    dispose();
    await vi.waitFor(() => expect(copy?.signal?.aborted).toBe(true));
    gate.resolve();
    expectFailure(await running, 'ABORTED');
  });

  it('its signal getter, taken off the execution, refuses any other object', async () => {
    const registry = createToolRegistry();
    let getter: (() => unknown) | undefined;
    registry.register(
      readFile({
        execute: (_args, exec) => {
          getter = Object.getOwnPropertyDescriptor(exec, 'signal')?.get;
          return [textContent('ok')];
        },
      }),
    );
    await registry.execute(call('read_file', { path: 'a' }));
    expect(() => getter?.call({})).toThrow(/not a tool body execution/);
  });
});
