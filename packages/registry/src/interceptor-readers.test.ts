import { runInNewContext } from 'node:vm';
import { ToolErrorCode as Codes, type Interceptor, ToolError } from '@dsh-tools/protocol';
import { describe, expect, it, type Mock, vi } from 'vitest';
import { call, expectFailure, readFile } from '../test/helpers';
import { createToolRegistry, type ToolRegistryOptions } from './index';

/**
 * The waterfall calls an interceptor directly, and the registry reads what it did in the
 * waterfall's own steps (`sent`, `resolved`, `vetoed`, `rejected`). A call under a whole-call
 * deadline (or traced) runs each interceptor inside a wrapper made for that call instead. Both
 * paths must behave the same: each case below runs on both.
 */
const paths: [string, ToolRegistryOptions][] = [
  ['called directly', {}],
  ['inside the wrapper of a call under a deadline', { callTimeoutMs: 60_000 }],
];

const setup = (options: ToolRegistryOptions) => {
  const body = vi.fn((args: { path: string }) => [{ type: 'text' as const, text: args.path }]);
  const registry = createToolRegistry(options);
  registry.register(readFile({ execute: body as never }));
  return { body, registry };
};

const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

/** A `next` kept past its interceptor's end, called: refused, and the body never runs. */
const expectRefused = async (kept: () => Promise<unknown>, body: Mock) => {
  const late = await kept().then(
    () => 'ran',
    () => 'refused',
  );
  expect(late).toBe('refused');
  await turns();
  expect(body).not.toHaveBeenCalled();
};

describe.each(paths)('an interceptor %s', (_path, options) => {
  it('written in another realm (its promise is not this realm’s) may call next() after an await', async () => {
    const { body, registry } = setup(options);
    const foreign = runInNewContext(
      '(async (exec, next) => { await null; return next(); })',
    ) as Interceptor;
    expect(foreign({} as never, (() => Promise.resolve()) as never)).not.toBeInstanceOf(Promise);
    registry.use(foreign, { name: 'foreign' });
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'a' }] });
    expect(body).toHaveBeenCalledTimes(1);
  });

  it('answering with a thenable that calls next() later: awaited, not taken for a veto', async () => {
    const { body, registry } = setup(options);
    registry.use(
      (_exec, next) =>
        ({
          // biome-ignore lint/suspicious/noThenProperty: a thenable answer is the point of the test
          then(resolve: (value: unknown) => void, reject: (error: unknown) => void) {
            setTimeout(() => next().then(resolve, reject), 0);
          },
        }) as never,
      { name: 'thenable' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'a' }] });
    expect(body).toHaveBeenCalledTimes(1);
  });

  it('a thenable whose then throws: the interceptor threw, and the call fails closed', async () => {
    const { body, registry } = setup(options);
    registry.use(
      () =>
        Object.defineProperty({}, 'then', {
          get: () => {
            throw new Error('then getter');
          },
        }) as never,
      { name: 'trap' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, Codes.INTERCEPTOR_ERROR);
    expect(result.error?.message).toMatch(/"trap".*then getter/);
    expect(body).not.toHaveBeenCalled();
  });

  it('throwing synchronously settles it: a kept next() called afterwards starts nothing', async () => {
    const { body, registry } = setup(options);
    let kept: (() => Promise<unknown>) | undefined;
    registry.use(
      (_exec, next) => {
        kept = next;
        throw new ToolError(Codes.DENIED, 'no');
      },
      { name: 'thrower' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expectFailure(result, Codes.DENIED);
    await expectRefused(kept!, body);
  });

  it('a veto is checked, and a kept next() called after it starts nothing', async () => {
    const { body, registry } = setup(options);
    let kept: (() => Promise<unknown>) | undefined;
    registry.use(
      (exec, next) => {
        kept = next;
        return { callId: exec.callId, content: [{ type: 'text', text: 'denied' }], isError: false };
      },
      { name: 'veto' },
    );
    const vetoed = await registry.execute(call('read_file', { path: 'a' }));
    expect(vetoed).toMatchObject({ isError: false, content: [{ type: 'text', text: 'denied' }] });
    expect(Object.isFrozen(vetoed)).toBe(true);
    await expectRefused(kept!, body);

    // An answer of the wrong shape, returned synchronously, fails the call closed.
    const { body: other, registry: checked } = setup(options);
    checked.use(() => ({ content: 'not blocks' }) as never, { name: 'bogus' });
    const bogus = await checked.execute(call('read_file', { path: 'a' }));
    expectFailure(bogus, Codes.INTERCEPTOR_ERROR);
    expect(bogus.error?.message).toContain('"bogus"');
    expect(other).not.toHaveBeenCalled();
  });

  it('rewrites pass down the chain: each link and the body see the latest, extensions included', async () => {
    const { body, registry } = setup(options);
    const seen: unknown[] = [];
    registry.use(async (exec, next) => next({ ...exec, arguments: { path: 'one' } }), {
      name: 'first',
      priority: 2,
    });
    registry.use(
      (exec, next) => {
        seen.push(exec.arguments);
        return next({ ...exec, marker: 'm' } as never);
      },
      { name: 'second', priority: 1 },
    );
    registry.use(
      async (exec, next) => {
        seen.push([exec.arguments, (exec as { marker?: string }).marker]);
        return next(undefined);
      },
      { name: 'third' },
    );
    const result = await registry.execute(call('read_file', { path: 'a' }));
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'one' }] });
    expect(seen).toEqual([{ path: 'one' }, [{ path: 'one' }, 'm']]);
    expect(body).toHaveBeenCalledTimes(1);
    expect((body.mock.calls[0] as unknown[])[1]).toMatchObject({ marker: 'm' });
  });
});
