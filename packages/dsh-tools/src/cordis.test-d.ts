import type { Context } from '@deepseek-ai/cordis';
import type {
  InterceptedExecution,
  InterceptorNext,
  ToolChangeEvent,
  ToolExecution,
  ToolExecutionResult,
  ToolRegistryLike,
} from '@dsh-tools/protocol';
import type { ToolRegistry as StandaloneToolRegistry } from '@dsh-tools/registry';
import { describe, expectTypeOf, it } from 'vitest';
import type { ToolRegistry } from './cordis';

declare const ctx: Context;

describe('cordis typing', () => {
  it('types ctx.tools as the service, usable wherever a registry is expected', () => {
    expectTypeOf(ctx.tools).toEqualTypeOf<ToolRegistry>();
    expectTypeOf<ToolRegistry>().toExtend<StandaloneToolRegistry>();
    expectTypeOf<ToolRegistry>().toExtend<ToolRegistryLike>();
    expectTypeOf(ctx.tools.register).returns.toEqualTypeOf<() => void>();
    expectTypeOf(ctx.tools.execute).returns.toEqualTypeOf<Promise<ToolExecutionResult>>();
  });

  it('types the tools/execute listener like an Interceptor', () => {
    ctx.on('tools/execute', (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<InterceptedExecution>();
      expectTypeOf(next).toEqualTypeOf<InterceptorNext>();
      return next({ ...exec, arguments: { path: 'x' } });
    });
    // @ts-expect-error a listener must return a result (or its promise)
    ctx.on('tools/execute', () => 'not a result');
  });

  it('types tools/result and tools/change', () => {
    ctx.on('tools/result', (result, exec) => {
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>();
      expectTypeOf(exec).toEqualTypeOf<ToolExecution>();
    });
    ctx.on('tools/change', (event) => {
      expectTypeOf(event).toEqualTypeOf<ToolChangeEvent>();
    });
    // @ts-expect-error not an event of the tools service
    ctx.emit('tools/nonexistent');
  });
});
