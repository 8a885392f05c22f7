import type { Context } from '@deepseek-ai/cordis';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type HarnessShapedResult,
  TOOL_RUNTIME_SCHEDULER,
  type ToolExecutionMode,
  type ToolPresentationMode,
  type ToolRegistry,
  type ToolRestriction,
  type ToolRuntimeScheduler,
} from './cordis';
import type * as harness from './harness';
import type { ToolRegistryConfig } from './types';

declare const ctx: Context;

describe('the harness-facing members, typed', () => {
  it('types what the agent loop reads and what an agent context calls', () => {
    expectTypeOf(ctx.tools.executionMode).returns.toEqualTypeOf<ToolExecutionMode>();
    expectTypeOf(ctx.tools[TOOL_RUNTIME_SCHEDULER]).toEqualTypeOf<ToolRuntimeScheduler>();
    expectTypeOf(ctx.tools.restrict).parameter(0).toEqualTypeOf<ToolRestriction>();
    expectTypeOf(ctx.tools.presentAs).parameter(0).toEqualTypeOf<ToolPresentationMode>();
    expectTypeOf<HarnessShapedResult['error']>().toExtend<
      { info?: { name: string; code: string } } | undefined
    >();
    expectTypeOf<ReturnType<ToolRuntimeScheduler['finish']>>().toEqualTypeOf<HarnessShapedResult>();
  });

  it('serves the service under the harness name from dsh-tools/harness', () => {
    expectTypeOf<typeof harness.ToolRuntime>().toEqualTypeOf<typeof ToolRegistry>();
    expectTypeOf<typeof harness.default>().toEqualTypeOf<typeof ToolRegistry>();
    expectTypeOf<typeof harness.TOOL_RUNTIME_SCHEDULER>().toEqualTypeOf<
      typeof TOOL_RUNTIME_SCHEDULER
    >();
  });

  it('types Code Mode: the options, the renderers and the failure', () => {
    expectTypeOf<ToolRegistryConfig['mode']>().toEqualTypeOf<ToolPresentationMode | undefined>();
    expectTypeOf<ToolRegistryConfig['maxParallelSubCalls']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<typeof harness.jsonSchemaToTs>().toEqualTypeOf<
      (schema: unknown, indent?: number) => string
    >();
    expectTypeOf<typeof harness.RUN_CODE_NAME>().toEqualTypeOf<'run_code'>();
    expectTypeOf<harness.CodeRunFailedError['code']>().toEqualTypeOf<'CODE_RUN_FAILED'>();
  });
});
