import type {
  ToolChangeEvent,
  ToolDefinition,
  ToolExecution,
  ToolExecutionResult,
  ToolRegistryLike,
  ToolSchema,
} from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createToolRegistry,
  type ExecuteAllOptions,
  type RegistryErrorInfo,
  type ToolRegistry,
  type ToolRegistryOptions,
} from './index';

describe('createToolRegistry types', () => {
  const registry = createToolRegistry();

  it('returns a ToolRegistry that is a ToolRegistryLike', () => {
    expectTypeOf(registry).toEqualTypeOf<ToolRegistry>();
    expectTypeOf(registry).toExtend<ToolRegistryLike>();
    expectTypeOf(createToolRegistry).parameter(0).toEqualTypeOf<ToolRegistryOptions | undefined>();
  });

  it('registers tools of any argument type and returns a disposer', () => {
    const typed = {} as ToolDefinition<{ path: string }>;
    expectTypeOf(registry.register(typed)).toEqualTypeOf<() => void>();
    expectTypeOf(registry.get('x')).toEqualTypeOf<ToolDefinition | undefined>();
    expectTypeOf(registry.has('x')).toEqualTypeOf<boolean>();
  });

  it('answers schemas as a readonly list and results as promises', () => {
    expectTypeOf(registry.schemas()).toEqualTypeOf<readonly ToolSchema[]>();
    expectTypeOf(registry.execute).parameter(0).toEqualTypeOf<ToolExecution>();
    expectTypeOf(registry.execute({} as ToolExecution)).toEqualTypeOf<
      Promise<ToolExecutionResult>
    >();
    expectTypeOf(registry.executeAll([])).toEqualTypeOf<Promise<ToolExecutionResult[]>>();
    expectTypeOf(registry.executeAll).parameter(1).toEqualTypeOf<ExecuteAllOptions | undefined>();
  });

  it('types each event listener', () => {
    registry.on('change', (event) => {
      expectTypeOf(event).toEqualTypeOf<ToolChangeEvent>();
    });
    registry.on('result', (result, exec) => {
      expectTypeOf(result).toEqualTypeOf<ToolExecutionResult>();
      expectTypeOf(exec).toEqualTypeOf<ToolExecution>();
    });
    // @ts-expect-error: only "change" and "result" exist
    registry.on('changed', () => {});
  });

  it('types interceptors and options', () => {
    registry.use(
      async (exec, next) => {
        expectTypeOf(exec.tool.hints.readOnly).toEqualTypeOf<boolean | undefined>();
        return next({ ...exec, arguments: { path: 'x' } });
      },
      { name: 'n', priority: 1 },
    );
    // @ts-expect-error: an interceptor returns a result
    registry.use(() => 'no');
    expectTypeOf<RegistryErrorInfo['kind']>().toEqualTypeOf<
      'late-settlement' | 'observer' | 'schema'
    >();
  });

  it('types the pipeline bounds and the opaque agent', () => {
    expectTypeOf<ToolRegistryOptions['callTimeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ToolRegistryOptions['maxOutputBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ToolDefinition['callTimeoutMs']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ToolDefinition['maxOutputBytes']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<ToolExecution['agent']>().toEqualTypeOf<unknown>();
    createToolRegistry({ callTimeoutMs: 60_000, maxOutputBytes: 65_536 });
    // @ts-expect-error: a limit is a number
    createToolRegistry({ maxOutputBytes: '1 MiB' });
    void registry.execute({ callId: 'a', name: 'read', arguments: {}, agent: { id: 'loop' } });
  });
});
