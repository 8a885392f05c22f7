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
import type { HarnessToolDefinition, PreToolDecision, ToolGuard, ToolRegistry } from './cordis';

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

  it('types tools/result (the call, then its result) and tools/change', () => {
    ctx.on('tools/result', (exec, result) => {
      expectTypeOf(exec).toEqualTypeOf<ToolExecution>();
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>();
    });
    ctx.on('tools/change', (event) => {
      expectTypeOf(event).toEqualTypeOf<ToolChangeEvent>();
    });
    // @ts-expect-error not an event of the tools service
    ctx.emit('tools/nonexistent');
  });

  it("types the DeepSeek Harness's policy points", () => {
    ctx.on('tools/pre-execute', async (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<InterceptedExecution>();
      expectTypeOf(next).returns.resolves.toEqualTypeOf<PreToolDecision>();
      return exec.name === 'rm' ? { kind: 'deny', reason: 'no' } : next();
    });
    // @ts-expect-error a decision has a kind of allow, deny or ask
    ctx.on('tools/pre-execute', () => ({ kind: 'maybe' }));
    ctx.on('tools/post-execute', (_exec, result, next) => {
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>();
      return result.isError ? { kind: 'block', feedback: [{ type: 'text', text: 'no' }] } : next();
    });
    expectTypeOf(ctx.tools.guard).parameter(0).toEqualTypeOf<ToolGuard>();
    expectTypeOf(ctx.tools.guard).returns.toEqualTypeOf<() => void>();
  });

  it('registers harness-shaped definitions beside our own', () => {
    const definition: HarnessToolDefinition = {
      name: 'answer',
      description: 'The answer.',
      parameters: { type: 'object', properties: {} },
      output: {
        schema: { type: 'number' },
        render: (_args, value) => [{ type: 'text', text: String(value) }],
      },
      execute: async () => 42,
    };
    expectTypeOf(ctx.tools.register(definition)).toEqualTypeOf<() => void>();
  });
});
