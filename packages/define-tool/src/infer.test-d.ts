import { describe, expectTypeOf, it } from 'vitest';
import type { InferJsonSchema, InferProperty, InferSchemaSpec, ItemSpec } from './index';

// One ladder serves both dialects; these pin where a JSON Schema and a SchemaSpec property read
// alike and where they differ, so that sharing the ladder cannot blur the two.
describe('the inference ladder', () => {
  it('reads the scalar types and enums alike in both dialects', () => {
    expectTypeOf<InferJsonSchema<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<InferProperty<{ type: 'string' }>>().toEqualTypeOf<string>();
    expectTypeOf<InferJsonSchema<{ type: 'integer' }>>().toEqualTypeOf<number>();
    expectTypeOf<InferProperty<{ type: 'number' }>>().toEqualTypeOf<number>();
    expectTypeOf<InferJsonSchema<{ type: 'boolean' }>>().toEqualTypeOf<boolean>();
    expectTypeOf<InferProperty<{ type: 'boolean' }>>().toEqualTypeOf<boolean>();
    expectTypeOf<InferJsonSchema<{ type: 'string'; enum: readonly ['a', 'b'] }>>().toEqualTypeOf<
      'a' | 'b'
    >();
    expectTypeOf<InferProperty<{ type: 'number'; enum: readonly [1, 2] }>>().toEqualTypeOf<1 | 2>();
    expectTypeOf<InferJsonSchema<{ description: 'x' }>>().toEqualTypeOf<unknown>();
    expectTypeOf<InferProperty<{ description: 'x' }>>().toEqualTypeOf<unknown>();
  });

  it('reads const and the null type in a JSON Schema only (a SchemaSpec has neither)', () => {
    expectTypeOf<InferJsonSchema<{ const: 'on' }>>().toEqualTypeOf<'on'>();
    expectTypeOf<InferJsonSchema<{ type: 'string'; const: 'on' }>>().toEqualTypeOf<'on'>();
    expectTypeOf<InferProperty<{ type: 'string'; const: 'on' }>>().toEqualTypeOf<string>();
    expectTypeOf<InferJsonSchema<{ type: 'null' }>>().toEqualTypeOf<null>();
    expectTypeOf<InferProperty<{ type: 'null' }>>().toEqualTypeOf<unknown>();
  });

  it('reads arrays element by element; an item known only as ItemSpec is unknown[]', () => {
    expectTypeOf<InferJsonSchema<{ type: 'array'; items: { type: 'string' } }>>().toEqualTypeOf<
      string[]
    >();
    expectTypeOf<
      InferProperty<{ type: 'array'; items: { type: 'array'; items: { type: 'boolean' } } }>
    >().toEqualTypeOf<boolean[][]>();
    expectTypeOf<InferProperty<{ type: 'array'; items: ItemSpec }>>().toEqualTypeOf<unknown[]>();
  });

  it('reads required from the parent list in a JSON Schema, from each property in a SchemaSpec', () => {
    expectTypeOf<
      InferJsonSchema<{
        type: 'object';
        properties: { a: { type: 'string' }; b: { type: 'number' } };
        required: readonly ['a'];
      }>
    >().toEqualTypeOf<{ a: string; b?: number }>();
    expectTypeOf<
      InferProperty<{
        type: 'object';
        properties: { a: { type: 'string'; required: true }; b: { type: 'number' } };
      }>
    >().toEqualTypeOf<{ a: string; b?: number }>();
    expectTypeOf<
      InferSchemaSpec<{ o: { type: 'object'; properties: { x: { type: 'null' } } } }>
    >().toEqualTypeOf<{ o?: { x?: unknown } }>();
  });

  it('reads an object without literal properties as a record of unknowns', () => {
    expectTypeOf<InferJsonSchema<{ type: 'object' }>>().toEqualTypeOf<{
      [key: string]: unknown;
    }>();
    expectTypeOf<
      InferJsonSchema<{ type: 'object'; properties: Record<string, { type: 'string' }> }>
    >().toEqualTypeOf<{ [key: string]: unknown }>();
    expectTypeOf<InferProperty<{ type: 'object' }>>().toEqualTypeOf<{ [key: string]: unknown }>();
  });

  it('distributes over a union of schemas', () => {
    expectTypeOf<InferJsonSchema<{ type: 'string' } | { type: 'null' }>>().toEqualTypeOf<
      string | null
    >();
    expectTypeOf<InferProperty<{ type: 'string' } | { type: 'boolean' }>>().toEqualTypeOf<
      string | boolean
    >();
  });
});
