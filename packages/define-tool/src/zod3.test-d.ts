import type { ObjectJsonSchema, ToolDefinition } from '@dsh-tools/protocol';
import { expectTypeOf, it } from 'vitest';
import { z as z4 } from 'zod';
import { z } from 'zod3';
import { defineTool, zod3ToJsonSchema } from './zod3';

const text = (value: unknown) => [{ type: 'text' as const, text: String(value) }];

it("types execute by the zod 3 schema's input type", () => {
  const schema = z.object({
    q: z.string(),
    limit: z.number().default(10),
    tags: z.array(z.string()).optional(),
  });
  const tool = defineTool({
    name: 'q',
    description: 'q',
    parameters: schema,
    execute(args) {
      expectTypeOf(args).toEqualTypeOf<z.input<typeof schema>>();
      expectTypeOf(args).toEqualTypeOf<{
        q: string;
        limit?: number | undefined;
        tags?: string[] | undefined;
      }>();
      return text(args.q);
    },
  });
  expectTypeOf(tool).toEqualTypeOf<ToolDefinition<z.input<typeof schema>>>();
  expectTypeOf(zod3ToJsonSchema(schema)).toEqualTypeOf<ObjectJsonSchema>();
});

it('refuses a zod 4 schema at the type level', () => {
  defineTool({
    name: 'q',
    description: 'q',
    // @ts-expect-error: zod 4 belongs to the main entry
    parameters: z4.object({ q: z4.string() }),
    execute: text,
  });
  // @ts-expect-error: zod 4 belongs to the main entry
  zod3ToJsonSchema(z4.object({ q: z4.string() }));
});
