import type { BodyExecution } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { z as z4 } from 'zod';
import { z } from 'zod3';
import { z as zodV4FromZod3 } from 'zod3/v4';
import { defineTool, zod3ToJsonSchema } from './zod3';

const base = { name: 'search', description: 'Search the web', execute: async () => [] };
const message = (run: () => unknown): string => {
  try {
    run();
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
};

describe('defineTool from /zod3', () => {
  const schema = z.object({
    query: z.string().min(1).describe('What to look for'),
    limit: z.number().int().default(10),
    site: z.object({ host: z.string() }).optional(),
  });

  it('shows the model the JSON Schema of a zod 3 schema and validates with the schema', async () => {
    const tool = defineTool({
      ...base,
      parameters: schema,
      hints: { readOnly: true, openWorld: true },
      async execute({ query, limit }) {
        return [{ type: 'text', text: `${query}:${limit}` }];
      },
    });
    expect(tool.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, description: 'What to look for' },
        limit: { type: 'integer', default: 10 },
        site: {
          type: 'object',
          properties: { host: { type: 'string' } },
          required: ['host'],
          additionalProperties: false,
        },
      },
      required: ['query'],
      additionalProperties: false,
    });
    expect(tool.hints).toEqual({ readOnly: true, openWorld: true });
    expect(tool.inputValidator).toBe(schema);
    expect(await tool.inputValidator?.['~standard'].validate({ query: 'x' })).toEqual({
      value: { query: 'x', limit: 10 },
    });
    const args = { query: 'q', limit: 2 };
    expect(
      await tool.execute(args, { signal: new AbortController().signal } as BodyExecution<
        typeof args
      >),
    ).toEqual([{ type: 'text', text: 'q:2' }]);
  });

  it('inlines reused schemas instead of $ref, and reads through refinements', () => {
    const point = z.object({ x: z.number() });
    const json = zod3ToJsonSchema(z.object({ from: point, to: point }).refine(() => true));
    expect(JSON.stringify(json)).not.toContain('$ref');
    expect(json.properties?.to).toEqual(json.properties?.from);
    expect(json).not.toHaveProperty('$schema');
  });

  it('refuses a zod 4 schema, which zod-to-json-schema would turn into an empty one', () => {
    expect(
      message(() => defineTool({ ...base, parameters: z4.object({ a: z4.string() }) as never })),
    ).toBe(
      'defineTool("search").parameters is a zod 4.6 schema, but "@dsh-tools/define-tool/zod3" converts zod 3 schemas only: import defineTool from "@dsh-tools/define-tool" instead (zod >= 4.2 describes itself as JSON Schema)',
    );
    // zod 3.25 ships zod 4 as "zod/v4": refused as well.
    expect(
      message(() => zod3ToJsonSchema(zodV4FromZod3.object({ a: zodV4FromZod3.string() }) as never)),
    ).toMatch(/^zod3ToJsonSchema\(schema\) is a zod 4\.0 schema/);
  });

  it('refuses a non-object schema and what is no zod schema, naming the tool', () => {
    expect(message(() => defineTool({ ...base, parameters: z.string() as never }))).toBe(
      'defineTool("search").parameters must be an object schema such as z.object({ ... }) (got a schema of type "string"): wrap the value in an object',
    );
    for (const parameters of [{ type: 'object' }, null, 'z.object()', { _def: {} }])
      expect(message(() => defineTool({ ...base, parameters } as never))).toMatch(
        /^defineTool\("search"\)\.parameters must be a zod 3 schema such as z\.object\(\{ \.\.\. \}\) \(got .+\)$/,
      );
  });

  it('checks the rest of the definition as the main entry does', () => {
    expect(message(() => defineTool({ ...base, name: 'bad name', parameters: schema }))).toBe(
      'defineTool("bad name").name must be like /^[\\w-]{1,64}$/ (got "bad name")',
    );
    expect(
      message(() =>
        defineTool({ ...base, parameters: schema, hints: { readonly: true } } as never),
      ),
    ).toBe('defineTool("search").hints has unknown key "readonly" — did you mean "readOnly"?');
    expect(message(() => defineTool(undefined as never))).toMatch(/^defineTool\(undefined\)\.name/);
  });
});
