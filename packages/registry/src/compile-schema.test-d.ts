import { describe, expectTypeOf, it } from 'vitest';
import {
  type CompileSchemaOptions,
  compileSchema,
  type SchemaValidator,
  type ToolRegistryOptions,
} from './index';

describe('compileSchema types', () => {
  it('takes any schema and an optional budget, and returns a validator', () => {
    expectTypeOf(compileSchema).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(compileSchema).parameter(1).toEqualTypeOf<CompileSchemaOptions | undefined>();
    expectTypeOf<CompileSchemaOptions>().toEqualTypeOf<{ readonly maxSchemaBytes?: number }>();
    expectTypeOf(compileSchema({})).toEqualTypeOf<SchemaValidator>();
  });

  it('validates to undefined (valid) or a message', () => {
    expectTypeOf(compileSchema({}).validate).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(compileSchema({}).validate).returns.toEqualTypeOf<string | undefined>();
  });

  it('takes the schema budget as a registry option', () => {
    expectTypeOf<ToolRegistryOptions['maxSchemaBytes']>().toEqualTypeOf<number | undefined>();
  });
});
