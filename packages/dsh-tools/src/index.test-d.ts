import type * as defineTool from '@dsh-tools/define-tool';
import type * as protocol from '@dsh-tools/protocol';
import type * as registry from '@dsh-tools/registry';
import type * as waterfall from '@dsh-tools/waterfall';
import { describe, expectTypeOf, it } from 'vitest';
import * as meta from './index';

describe('dsh-tools re-exports the types unchanged', () => {
  it('re-exports the contract types', () => {
    expectTypeOf<meta.ToolDefinition>().toEqualTypeOf<protocol.ToolDefinition>();
    expectTypeOf<meta.ToolExecutionResult>().toEqualTypeOf<protocol.ToolExecutionResult>();
    expectTypeOf<meta.Interceptor>().toEqualTypeOf<protocol.Interceptor>();
    expectTypeOf<meta.ToolErrorCode>().toEqualTypeOf<protocol.ToolErrorCode>();
  });

  it('re-exports the registry, the waterfall and defineTool types', () => {
    expectTypeOf<meta.ToolRegistry>().toEqualTypeOf<registry.ToolRegistry>();
    expectTypeOf<meta.ToolRegistryOptions>().toEqualTypeOf<registry.ToolRegistryOptions>();
    expectTypeOf<meta.Waterfall<[number], string>>().toEqualTypeOf<
      waterfall.Waterfall<[number], string>
    >();
    expectTypeOf<meta.SchemaSpec>().toEqualTypeOf<defineTool.SchemaSpec>();
    expectTypeOf<typeof meta.defineTool>().toEqualTypeOf<typeof defineTool.defineTool>();
  });

  it('infers typed arguments through the meta-package', () => {
    const tool = meta.defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: { path: { type: 'string', required: true } },
      execute(args) {
        expectTypeOf(args.path).toEqualTypeOf<string>();
        return [meta.textContent(args.path)];
      },
    });
    expectTypeOf(tool).toExtend<meta.ToolDefinition<{ path: string }>>();
  });
});
