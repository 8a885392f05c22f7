import type {
  BodyExecution,
  ObjectJsonSchema,
  ToolArgs,
  ToolDefinition,
  ToolRegistryLike,
} from '@dsh-tools/protocol';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  type InferArgs,
  type InferSchemaSpec,
  type ItemSpec,
  type SchemaSpec,
  schemaSpecToJsonSchema,
} from './index';

const text = (value: unknown) => [{ type: 'text' as const, text: String(value) }];

describe('SchemaSpec', () => {
  it('types the seed example exactly', () => {
    const readFile = defineTool({
      name: 'read_file',
      description: 'Read a file from the workspace',
      parameters: {
        path: { type: 'string', description: 'File path', required: true },
        offset: { type: 'number', description: 'Start line' },
        limit: { type: 'number', description: 'Max lines' },
      },
      async execute(args, exec) {
        expectTypeOf(args).toEqualTypeOf<{ path: string; offset?: number; limit?: number }>();
        expectTypeOf(exec).toEqualTypeOf<
          BodyExecution<{ path: string; offset?: number; limit?: number }>
        >();
        return [{ type: 'text', text: args.path }];
      },
    });
    expectTypeOf(readFile).toEqualTypeOf<
      ToolDefinition<{ path: string; offset?: number; limit?: number }>
    >();
  });

  it('infers literal unions from enums, and every other kind', () => {
    const tool = defineTool({
      name: 'kinds',
      description: 'Every kind',
      parameters: {
        mode: { type: 'string', enum: ['read', 'write'], required: true },
        level: { type: 'integer', enum: [1, 2, 3] },
        n: { type: 'integer', minimum: 0 },
        on: { type: 'boolean', default: false },
        files: { type: 'array', items: { type: 'string', path: 'read' }, required: true },
        grid: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
        options: {
          type: 'object',
          required: true,
          properties: {
            target: { type: 'string', path: 'write', required: true },
            edits: {
              type: 'array',
              items: {
                type: 'object',
                properties: { line: { type: 'integer', required: true }, text: { type: 'string' } },
              },
            },
          },
        },
        extra: { type: 'object' },
      },
      execute: (args) => text(args),
    });
    expectTypeOf(tool).toEqualTypeOf<
      ToolDefinition<{
        mode: 'read' | 'write';
        files: string[];
        options: { target: string; edits?: { line: number; text?: string }[] };
        level?: 1 | 2 | 3;
        n?: number;
        on?: boolean;
        grid?: number[][];
        extra?: { [key: string]: unknown };
      }>
    >();
  });

  it('makes a property with a non-literal required optional', () => {
    const flag: boolean = Math.random() > 0.5;
    type Args = InferSchemaSpec<{ a: { type: 'string'; required: typeof flag } }>;
    expectTypeOf<Args>().toEqualTypeOf<{ a?: string }>();
  });

  it('types a spec only known as SchemaSpec, or an array of unknown items, loosely', () => {
    expectTypeOf<InferArgs<SchemaSpec>>().toEqualTypeOf<{ [key: string]: unknown }>();
    type Loose = InferSchemaSpec<{ a: { type: 'array'; items: ItemSpec; required: true } }>;
    expectTypeOf<Loose>().toEqualTypeOf<{ a: unknown[] }>();
  });

  it('infers from a spec declared on its own with as const', () => {
    const spec = {
      q: { type: 'string', required: true },
      k: { type: 'string', enum: ['a', 'b'] },
    } as const satisfies SchemaSpec;
    expectTypeOf<InferArgs<typeof spec>>().toEqualTypeOf<{ q: string; k?: 'a' | 'b' }>();
    const tool = defineTool({ name: 'q', description: 'q', parameters: spec, execute: text });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<{ q: string; k?: 'a' | 'b' }>>();
  });

  it('rejects an unknown key at any depth', () => {
    const base = { name: 'x', description: 'x', execute: text };
    // @ts-expect-error: requird is no key of a property spec
    defineTool({ ...base, parameters: { p: { type: 'string', requird: true } } });
    // @ts-expect-error: minLength belongs to strings
    defineTool({ ...base, parameters: { p: { type: 'number', minLength: 1 } } });
    // @ts-expect-error: a path marker belongs to strings
    defineTool({ ...base, parameters: { p: { type: 'number', path: 'read' } } });
    defineTool({
      ...base,
      // @ts-expect-error: array items are never required on their own
      parameters: { a: { type: 'array', items: { type: 'string', required: true } } },
    });
    defineTool({
      ...base,
      parameters: {
        // @ts-expect-error: an unknown key inside nested properties
        o: { type: 'object', properties: { q: { type: 'string', descripton: 'x' } } },
      },
    });
    defineTool({
      ...base,
      parameters: {
        a: {
          type: 'array',
          // @ts-expect-error: an unknown key inside the items of nested properties
          items: { type: 'object', properties: { q: { type: 'string', foo: 1 } } },
        },
      },
    });
    // @ts-expect-error: an array needs items
    defineTool({ ...base, parameters: { a: { type: 'array' } } });
    // @ts-expect-error: no such type
    defineTool({ ...base, parameters: { a: { type: 'date' } } });
    // @ts-expect-error: an enum of the wrong type
    defineTool({ ...base, parameters: { a: { type: 'string', enum: [1, 2] } } });
    // @ts-expect-error: a default of the wrong type
    defineTool({ ...base, parameters: { a: { type: 'number', default: 'one' } } });
    // @ts-expect-error: path is 'read' or 'write'
    defineTool({ ...base, parameters: { a: { type: 'string', path: 'rw' } } });
    // @ts-expect-error: an unknown key of the definition
    defineTool({ ...base, parameters: {}, timeout: 5 });
    // @ts-expect-error: an unknown hint
    defineTool({ ...base, parameters: {}, hints: { readonly: true } });
  });

  it('types execute by the arguments, and checks what it returns', () => {
    defineTool({
      name: 'x',
      description: 'x',
      parameters: { a: { type: 'string', required: true } },
      execute(args) {
        // @ts-expect-error: b is no argument
        args.b;
        expectTypeOf(args.a).toEqualTypeOf<string>();
        return [{ type: 'text', text: args.a }];
      },
    });
    defineTool({
      name: 'x',
      description: 'x',
      parameters: {},
      // @ts-expect-error: a tool returns content blocks
      execute: () => 'done',
    });
    defineTool({
      name: 'x',
      description: 'x',
      parameters: { a: { type: 'string' } },
      // @ts-expect-error: a body cannot ask for an argument the schema does not give
      execute: (args: { a?: string; b: number }) => text(args.b),
    });
  });
});

describe('Standard JSON Schema', () => {
  it("infers a zod schema's input type", () => {
    const schema = z.object({
      path: z.string(),
      limit: z.number().default(100),
      mode: z.enum(['r', 'w']).optional(),
    });
    const tool = defineTool({
      name: 'zod',
      description: 'zod',
      parameters: schema,
      execute(args) {
        expectTypeOf(args).toEqualTypeOf<z.input<typeof schema>>();
        expectTypeOf(args).toEqualTypeOf<{
          path: string;
          limit?: number | undefined;
          mode?: 'r' | 'w' | undefined;
        }>();
        return text(args.path);
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ToolDefinition<z.input<typeof schema>>>();
    expectTypeOf<InferArgs<typeof schema>>().toEqualTypeOf<z.input<typeof schema>>();
  });

  it('infers arktype and valibot input types', () => {
    const ark = type({ a: 'string', 'b?': 'number' });
    expectTypeOf<InferArgs<typeof ark>>().toEqualTypeOf<{ a: string; b?: number }>();
    defineTool({
      name: 'ark',
      description: 'ark',
      parameters: ark,
      execute: (args) => text(args.a),
    });
    const valibot = toStandardJsonSchema(v.object({ a: v.string(), b: v.optional(v.number()) }));
    expectTypeOf<InferArgs<typeof valibot>>().toEqualTypeOf<{
      a: string;
      b?: number | undefined;
    }>();
    defineTool({
      name: 'valibot',
      description: 'valibot',
      parameters: valibot,
      execute: (args) => text(args.a),
    });
  });
});

describe('JSON Schema', () => {
  it('infers the arguments of a literal object schema', () => {
    const tool = defineTool({
      name: 'json',
      description: 'json',
      parameters: {
        type: 'object',
        properties: {
          q: { type: 'string' },
          n: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' } },
          kind: { enum: ['a', 'b'] },
          nested: { type: 'object', properties: { x: { type: 'boolean' } }, required: ['x'] },
        },
        required: ['q'],
      },
      execute: (args) => text(args.q),
    });
    expectTypeOf(tool).toEqualTypeOf<
      ToolDefinition<{
        q: string;
        n?: number;
        tags?: string[];
        kind?: 'a' | 'b';
        nested?: { x: boolean };
      }>
    >();
  });

  it('types a schema only known as ObjectJsonSchema as a record of unknowns', () => {
    const schema: ObjectJsonSchema = { type: 'object', properties: {} };
    expectTypeOf<InferArgs<typeof schema>>().toEqualTypeOf<{ [key: string]: unknown }>();
  });
});

it('returns what a registry takes', () => {
  const registry = {} as ToolRegistryLike;
  const tool = defineTool({
    name: 'x',
    description: 'x',
    parameters: { a: { type: 'string', required: true } },
    hints: { readOnly: true, concurrencySafe: (args: ToolArgs) => args.a === 'safe' },
    timeoutMs: 1000,
    execute: text,
  });
  registry.register(tool);
  expectTypeOf(tool.parameters).toEqualTypeOf<ObjectJsonSchema>();
});

it('schemaSpecToJsonSchema returns an object schema and rejects unknown keys', () => {
  expectTypeOf(schemaSpecToJsonSchema({ a: { type: 'string' } })).toEqualTypeOf<ObjectJsonSchema>();
  // @ts-expect-error: requird is no key of a property spec
  schemaSpecToJsonSchema({ a: { type: 'string', requird: true } });
});
