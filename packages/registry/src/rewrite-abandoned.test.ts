import { ToolErrorCode as Codes } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { call, deferred, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

/**
 * A rewrite whose arguments are validated asynchronously (an async Standard Schema validator) can
 * still be in validation when the interceptor that sent it settles. Nothing may start after the
 * call has ended: neither the body nor an inner interceptor runs with the rewritten call, and the
 * call fails closed naming the interceptor. Without the check the body would run after the call's
 * result was delivered, with arguments no one waited for.
 */
describe.each([
  ['called directly', {}],
  // Under a whole-call deadline each interceptor runs inside a wrapper made for the call.
  ['inside the wrapper of a call under a deadline', { callTimeoutMs: 60_000 }],
] as const)('a rewrite still in validation when its interceptor settles (%s)', (_path, options) => {
  const setup = () => {
    const gate = deferred();
    const body = vi.fn(() => [{ type: 'text' as const, text: 'ran' }]);
    const inner = vi.fn();
    const validate = vi.fn(async (value: unknown) => {
      await gate.promise;
      return { value: value as { path: string } };
    });
    const registry = createToolRegistry(options);
    registry.register(
      readFile({
        execute: body,
        inputValidator: { '~standard': { version: 1, vendor: 'test', validate } },
      }),
    );
    registry.use(
      (exec, next) => {
        inner();
        return next(exec);
      },
      { name: 'inner', priority: -1 },
    );
    return { gate, body, inner, registry };
  };
  const settleAll = async (gate: { resolve: () => void }) => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    gate.resolve();
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };

  it('sent before the interceptor returned: nothing starts after the call ended', async () => {
    const { gate, body, inner, registry } = setup();
    registry.use(
      async (exec, next) => {
        void next({ ...exec, arguments: { path: 'rewritten' } });
        return { callId: exec.callId, content: [{ type: 'text', text: 'mine' }], isError: false };
      },
      { name: 'hasty' },
    );
    const pending = registry.execute(call('read_file', { path: 'a' }));
    // The interceptor settles first; the validation finishes after it.
    await settleAll(gate);
    const result = await pending;
    expectFailure(result, Codes.INTERCEPTOR_ERROR);
    expect(result.error?.message).toContain('"hasty"');
    expect(inner).not.toHaveBeenCalled();
    expect(body).not.toHaveBeenCalled();
  });

  it('sent after the interceptor returned its promise (after an await): the same', async () => {
    const { gate, body, inner, registry } = setup();
    registry.use(
      async (exec, next) => {
        await null;
        void next({ ...exec, arguments: { path: 'rewritten' } });
        return { callId: exec.callId, content: [{ type: 'text', text: 'mine' }], isError: false };
      },
      { name: 'late' },
    );
    const pending = registry.execute(call('read_file', { path: 'a' }));
    // The interceptor settles first; the validation finishes after it.
    await settleAll(gate);
    const result = await pending;
    expectFailure(result, Codes.INTERCEPTOR_ERROR);
    expect(result.error?.message).toContain('"late"');
    expect(inner).not.toHaveBeenCalled();
    expect(body).not.toHaveBeenCalled();
  });

  it('a rewrite the interceptor waits for runs, validated, once', async () => {
    const { gate, body, inner, registry } = setup();
    registry.use(
      async (exec, next) => {
        await null;
        return next({ ...exec, arguments: { path: 'rewritten' } });
      },
      { name: 'patient' },
    );
    const pending = registry.execute(call('read_file', { path: 'a' }));
    gate.resolve();
    const result = await pending;
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'ran' }] });
    expect(inner).toHaveBeenCalledTimes(1);
    expect(body).toHaveBeenCalledTimes(1);
    expect(body.mock.calls[0]).toBeDefined();
  });
});
