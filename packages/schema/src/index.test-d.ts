import { describe, expectTypeOf, it } from 'vitest';
import {
  type Compiled,
  type CompileSchemaOptions,
  compileParameters,
  compileSchema,
  copyJson,
  type JsonCopy,
  type JsonProblems,
  type LinearPattern,
  linearPattern,
  type SchemaCompilation,
  type SchemaRefusal,
  type SchemaValidator,
  tryCompileSchema,
  type Violation,
} from './index';

describe('the public types', () => {
  it('compileSchema takes any schema and an optional budget, and returns a validator', () => {
    expectTypeOf(compileSchema).parameter(0).toEqualTypeOf<unknown>();
    expectTypeOf(compileSchema).parameter(1).toEqualTypeOf<CompileSchemaOptions | undefined>();
    expectTypeOf<CompileSchemaOptions>().toEqualTypeOf<{ readonly maxSchemaBytes?: number }>();
    expectTypeOf(compileSchema({})).toEqualTypeOf<SchemaValidator>();
    expectTypeOf<SchemaValidator['validate']>().returns.toEqualTypeOf<string | undefined>();
  });

  it('tryCompileSchema answers a validator or a refusal, told apart by ok', () => {
    expectTypeOf(tryCompileSchema).returns.toEqualTypeOf<SchemaCompilation>();
    const outcome = tryCompileSchema({});
    if (outcome.ok) {
      expectTypeOf(outcome.validator).toEqualTypeOf<SchemaValidator>();
      expectTypeOf(outcome.warnings).toEqualTypeOf<readonly string[]>();
      // @ts-expect-error: a validator has no reason
      void outcome.reason;
    } else {
      expectTypeOf(outcome.path).toEqualTypeOf<string>();
      expectTypeOf(outcome.reason).toEqualTypeOf<string>();
      // @ts-expect-error: a refusal has no validator
      void outcome.validator;
    }
  });

  it('the host API: compiled parameters, the JSON gate, refusals and patterns', () => {
    expectTypeOf(compileParameters).parameters.toEqualTypeOf<[object, string]>();
    expectTypeOf(compileParameters).returns.toEqualTypeOf<Compiled>();
    expectTypeOf<ReturnType<Compiled['validate']>>().toEqualTypeOf<JsonProblems | undefined>();
    expectTypeOf<Compiled['ready']>().toEqualTypeOf<Promise<void> | undefined>();
    expectTypeOf(copyJson).returns.toEqualTypeOf<JsonCopy | JsonProblems>();
    expectTypeOf<JsonProblems['violations']>().toEqualTypeOf<readonly Violation[]>();
    expectTypeOf<Violation>().toEqualTypeOf<{ readonly path: string; readonly message: string }>();
    expectTypeOf<SchemaRefusal>().toMatchTypeOf<Error>();
    expectTypeOf<SchemaRefusal['path']>().toEqualTypeOf<string>();
    expectTypeOf(linearPattern).returns.toEqualTypeOf<LinearPattern>();
    expectTypeOf<LinearPattern['test']>().parameters.toEqualTypeOf<[input: string]>();
  });
});
