import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type BodyExecution,
  type ContentBlock,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  isContentBlock,
  type PathExclusion,
  type ToolArgs,
  type ToolDefinition,
  ToolError,
  ToolErrorCode,
  type ToolExecutionResult,
  type ToolHints,
  type ToolPathHint,
  type ToolRegistryLike,
  type ToolSchema,
  type ToolView,
} from './index';

describe('protocol types', () => {
  it('narrows content blocks by type', () => {
    const block = {} as ContentBlock;
    if (block.type === 'image') expectTypeOf(block.mimeType).toEqualTypeOf<string>();
    if (block.type === 'resource') {
      expectTypeOf(block.resource).toHaveProperty('uri').toEqualTypeOf<string>();
    }
    expectTypeOf<ContentBlock['type']>().toEqualTypeOf<
      'text' | 'image' | 'audio' | 'resource_link' | 'resource'
    >();
    const value: unknown = null;
    if (isContentBlock(value)) expectTypeOf(value).toEqualTypeOf<ContentBlock>();
  });

  it('error codes are a closed union of string literals', () => {
    expectTypeOf(ToolErrorCode.DENIED).toEqualTypeOf<'DENIED'>();
    expectTypeOf<ToolErrorCode>().toEqualTypeOf<
      | 'UNKNOWN_TOOL'
      | 'INVALID_ARGS'
      | 'TOOL_ERROR'
      | 'INVALID_OUTPUT'
      | 'DENIED'
      | 'ABORTED'
      | 'TIMEOUT'
      | 'INTERCEPTOR_ERROR'
      | 'SANDBOX_VIOLATION'
      | 'MCP_ERROR'
      | 'UNAVAILABLE'
    >();
    // @ts-expect-error not a code
    void new ToolError('NOPE', 'x');
    // @ts-expect-error not a code
    void errorResult('c', 'NOPE', 'x');
    expectTypeOf(new ToolError('DENIED', 'x').code).toEqualTypeOf<ToolErrorCode>();
  });

  it('a ToolDefinition is a ToolSchema plus an executor typed by its arguments', () => {
    type Args = { path: string; limit?: number };
    const def: ToolDefinition<Args> = {
      name: 'read',
      description: 'd',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
      async execute(args, exec) {
        expectTypeOf(args).toEqualTypeOf<Args>();
        expectTypeOf(exec).toEqualTypeOf<BodyExecution<Args>>();
        expectTypeOf(exec.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(exec.tool).toEqualTypeOf<ToolView>();
        return [{ type: 'text', text: args.path }];
      },
    };
    expectTypeOf(def).toMatchTypeOf<ToolSchema>();
    expectTypeOf<NonNullable<ToolDefinition<Args>['inputValidator']>>().toEqualTypeOf<
      StandardSchemaV1<unknown, Args>
    >();
    // @ts-expect-error parameters must be an object schema
    const bad: ToolSchema = { name: 'x', description: 'd', parameters: { type: 'string' } };
    void bad;
  });

  it('interceptors see the tool view and may continue, rewrite or veto', () => {
    const interceptor: Interceptor = async (exec, next) => {
      expectTypeOf(exec).toEqualTypeOf<InterceptedExecution>();
      expectTypeOf(exec.arguments).toEqualTypeOf<ToolArgs>();
      expectTypeOf(exec.tool.hints).toEqualTypeOf<Readonly<ToolHints>>();
      if (exec.tool.hints.destructive) return errorResult(exec.callId, 'DENIED', 'no');
      return next({ ...exec, arguments: { ...exec.arguments, dryRun: true } });
    };
    expectTypeOf(interceptor).returns.toEqualTypeOf<
      Promise<ToolExecutionResult> | ToolExecutionResult
    >();
    // @ts-expect-error the tool view has no executor
    void ({} as ToolView).execute;
  });

  it('ToolRegistryLike is what the bridge needs', () => {
    expectTypeOf<ToolRegistryLike['register']>().returns.toEqualTypeOf<() => void>();
    expectTypeOf<ToolRegistryLike['execute']>().returns.toEqualTypeOf<
      Promise<ToolExecutionResult>
    >();
    expectTypeOf<ToolRegistryLike['schemas']>().returns.toEqualTypeOf<readonly ToolSchema[]>();
  });
  it('a body reads the exclusion a policy attached, and a reader hint may promise to honour it', () => {
    const body: ToolDefinition['execute'] = (_args, exec) => {
      expectTypeOf(exec.exclude).toEqualTypeOf<PathExclusion | undefined>();
      expectTypeOf(exec.exclude!.covers).toEqualTypeOf<(path: string) => boolean>();
      expectTypeOf(exec.exclude!.globs).toEqualTypeOf<readonly string[]>();
      return [];
    };
    void body;
    expectTypeOf<ToolPathHint['honoursExclude']>().toEqualTypeOf<boolean | undefined>();
  });
});
