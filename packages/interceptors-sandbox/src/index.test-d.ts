import type {
  BodyExecution,
  InterceptedExecution,
  Interceptor,
  ToolExecution,
} from '@dsh-tools/protocol';
import { describe, expectTypeOf, it } from 'vitest';
import {
  createSandboxRunner,
  requireSandbox,
  type SandboxMode,
  type SandboxOptions,
  type SandboxRunner,
  type SandboxRunOptions,
  type SandboxRunResult,
  sandboxInterceptor,
} from './index';

describe('the ToolExecutionExtensions augmentation', () => {
  it('types exec.sandbox for interceptors, bodies and callers', () => {
    expectTypeOf<InterceptedExecution['sandbox']>().toEqualTypeOf<SandboxRunner | undefined>();
    expectTypeOf<BodyExecution['sandbox']>().toEqualTypeOf<SandboxRunner | undefined>();
    expectTypeOf<ToolExecution['sandbox']>().toEqualTypeOf<SandboxRunner | undefined>();
  });

  it('lets an interceptor attach a runner with next({ ...exec, sandbox })', () => {
    const runner = createSandboxRunner({ mode: 'read-only' });
    const attach: Interceptor = (exec, next) => next({ ...exec, sandbox: runner });
    expectTypeOf(attach).toEqualTypeOf<Interceptor>();
    // @ts-expect-error a sandbox must be a runner
    const wrong: Interceptor = (exec, next) => next({ ...exec, sandbox: 'bwrap' });
    void wrong;
  });
});

describe('public types', () => {
  it('sandboxInterceptor takes SandboxOptions and is an Interceptor', () => {
    expectTypeOf(sandboxInterceptor).parameter(0).toEqualTypeOf<SandboxOptions>();
    expectTypeOf(sandboxInterceptor).returns.toEqualTypeOf<Interceptor>();
    expectTypeOf<SandboxOptions['mode']>().toEqualTypeOf<SandboxMode>();
    expectTypeOf<SandboxMode>().toEqualTypeOf<'read-only' | 'workspace-write' | 'full-access'>();
    // @ts-expect-error mode is required
    sandboxInterceptor({});
    // @ts-expect-error not a mode
    sandboxInterceptor({ mode: 'readonly' });
  });

  it('run() takes argv and options and resolves with the documented result', () => {
    expectTypeOf<SandboxRunner['run']>().parameters.toEqualTypeOf<
      [argv: readonly string[], options?: SandboxRunOptions]
    >();
    expectTypeOf<SandboxRunner['run']>().returns.resolves.toEqualTypeOf<SandboxRunResult>();
    expectTypeOf<SandboxRunResult>().toExtend<{
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderr: string;
      truncated: boolean;
      timedOut: boolean;
    }>();
  });

  it('requireSandbox returns a runner from any execution', () => {
    expectTypeOf(requireSandbox).returns.toEqualTypeOf<SandboxRunner>();
    expectTypeOf<BodyExecution>().toExtend<Parameters<typeof requireSandbox>[0]>();
  });
});
