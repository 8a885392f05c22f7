import { ToolErrorCode, textContent } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { call, readFile } from '../test/helpers';
import { createToolRegistry } from './index';

/**
 * A call with no interceptor finishes a body that answered at once without awaiting it; what the
 * body returned must still be read exactly as `await` reads it, with and without interceptors.
 */
describe('a bare body that answers at once', () => {
  const withAndWithout = [0, 1];

  it('a content array that is also a thenable is settled through its then, called once, in a later turn', async () => {
    for (const interceptors of withAndWithout) {
      const registry = createToolRegistry();
      let calls = 0;
      let calledSync = false;
      registry.register(
        readFile({
          execute: () => {
            const blocks = [textContent('as returned')] as unknown as Record<string, unknown>;
            let returning = true;
            // A thenable on purpose: what `await` would call.
            Object.defineProperty(blocks, 'then', {
              value: (resolve: (value: unknown) => void) => {
                calls++;
                calledSync ||= returning;
                resolve([textContent('through then')]);
              },
            });
            queueMicrotask(() => {
              returning = false;
            });
            returning = true;
            return blocks as never;
          },
        }),
      );
      if (interceptors) registry.use(async (_exec, next) => next(), { name: 'pass' });
      const result = await registry.execute(call('read_file', { path: 'a' }));
      expect(result.isError).toBe(false);
      expect(result.content).toEqual([textContent('through then')]);
      expect(calls).toBe(1);
      expect(calledSync).toBe(false);
    }
  });

  it('reads then once; a then that throws (or whose getter throws) fails the call as the tool', async () => {
    for (const interceptors of withAndWithout) {
      for (const how of ['getter', 'call'] as const) {
        const registry = createToolRegistry();
        let reads = 0;
        registry.register(
          readFile({
            execute: () => {
              const blocks = [textContent('x')];
              Object.defineProperty(blocks, 'then', {
                get() {
                  reads++;
                  if (how === 'getter') throw new Error('then getter bomb');
                  return () => {
                    throw new Error('then call bomb');
                  };
                },
              });
              return blocks;
            },
          }),
        );
        if (interceptors) registry.use(async (_exec, next) => next(), { name: 'pass' });
        const result = await registry.execute(call('read_file', { path: 'a' }));
        expect(result.isError).toBe(true);
        expect(result.error?.code).toBe(ToolErrorCode.TOOL_ERROR);
        expect(result.error?.message).toContain(`then ${how} bomb`);
        expect(reads).toBe(1);
      }
    }
  });

  it('a plain content array is the result, and a synchronous throw is TOOL_ERROR', async () => {
    for (const interceptors of withAndWithout) {
      const registry = createToolRegistry();
      registry.register(readFile({ execute: () => [textContent('now')] }));
      registry.register(
        readFile({
          name: 'throws',
          execute: () => {
            throw new Error('sync boom');
          },
        }),
      );
      if (interceptors) registry.use(async (_exec, next) => next(), { name: 'pass' });
      const ok = await registry.execute(call('read_file', { path: 'a' }));
      expect(ok.content).toEqual([textContent('now')]);
      const failed = await registry.execute(call('throws', { path: 'a' }));
      expect(failed.error?.code).toBe(ToolErrorCode.TOOL_ERROR);
      expect(failed.error?.message).toContain('sync boom');
    }
  });
});
