import type {
  BodyExecution,
  InterceptedExecution,
  ToolDefinition,
  ToolExecution,
} from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import { createToolRegistry } from './index';

/** What a sandbox package would hand the body; declared here so the test needs no such package. */
interface TestSandbox {
  run(command: string): Promise<{ readonly code: number }>;
}

declare module '@dsh-tools/protocol' {
  interface ToolExecutionExtensions {
    sandbox?: TestSandbox;
  }
}

describe('ToolExecutionExtensions declaration merging', () => {
  const registry = createToolRegistry();

  it('types exec.sandbox in an interceptor, and lets it attach one with next({ ...exec, sandbox })', () => {
    registry.use((exec, next) => {
      expectTypeOf(exec.sandbox).toEqualTypeOf<TestSandbox | undefined>();
      const sandbox: TestSandbox = { run: async () => ({ code: 0 }) };
      expectTypeOf(next).toBeCallableWith({ ...exec, sandbox });
      return next({ ...exec, sandbox });
    });
    expectTypeOf<InterceptedExecution['sandbox']>().toEqualTypeOf<TestSandbox | undefined>();
  });

  it('types exec.sandbox in a body', () => {
    const bash: ToolDefinition<{ command: string }> = {
      name: 'bash',
      description: 'Runs a command',
      parameters: { type: 'object', properties: { command: { type: 'string' } } },
      execute: async (args, exec) => {
        expectTypeOf(exec).toEqualTypeOf<BodyExecution<{ command: string }>>();
        expectTypeOf(exec.sandbox).toEqualTypeOf<TestSandbox | undefined>();
        const ran = await exec.sandbox?.run(args.command);
        return [{ type: 'text', text: String(ran?.code) }];
      },
    };
    registry.register(bash);
    expectTypeOf<BodyExecution['sandbox']>().toEqualTypeOf<TestSandbox | undefined>();
  });

  it('lets a host pass its own extension to execute()', () => {
    const sandbox: TestSandbox = { run: async () => ({ code: 0 }) };
    expectTypeOf(registry.execute).parameter(0).toEqualTypeOf<ToolExecution>();
    expectTypeOf(registry.execute).toBeCallableWith({
      callId: 'c1',
      name: 'bash',
      arguments: {},
      sandbox,
    });
    // A wrongly typed capability does not type-check.
    // @ts-expect-error: sandbox must be a TestSandbox
    registry.execute({ callId: 'c1', name: 'bash', arguments: {}, sandbox: 42 });
  });
});
