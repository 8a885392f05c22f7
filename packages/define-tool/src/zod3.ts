/**
 * zod 3 support. zod 3 schemas carry no JSON Schema of their own, so this entry converts them with
 * zod-to-json-schema, an optional peer dependency that only users of this entry install. zod 4
 * describes itself as JSON Schema (Standard JSON Schema, since 4.2): the main entry takes its
 * schemas directly, and this one refuses them, since zod-to-json-schema silently turns a zod 4
 * schema into an empty one.
 */

// By package name, so that the built declarations of this entry import the main entry's rather
// than share a chunk with them.
import type { ToolConfig } from '@dsh-tools/define-tool';
import type { ObjectJsonSchema, ToolDefinition } from '@dsh-tools/protocol';
import { zodToJsonSchema } from 'zod-to-json-schema';
import { defineTool as defineToolCore, fail, isObject, show } from './runtime';

/** The part of a zod 3 schema this entry relies on; `_input` carries its input type. */
export interface Zod3Schema<Input = unknown> {
  readonly _input: Input;
  readonly _def: object;
  safeParse(data: unknown): unknown;
}

/** What a zod 4 schema is checked against here: nothing fits, so passing one is a type error. */
export interface Zod4SchemaRefused {
  readonly 'a zod 4 schema: import defineTool from "@dsh-tools/define-tool" instead': never;
}

/** `unknown` for a zod 3 schema, {@link Zod4SchemaRefused} for a zod 4 one (it has `_zod`). */
export type RefuseZod4<P> = P extends { readonly _zod: unknown } ? Zod4SchemaRefused : unknown;

const convert = (schema: unknown, where: string): ObjectJsonSchema => {
  if (!isObject(schema) || !isObject(schema._def) || typeof schema.safeParse !== 'function')
    fail(`${where} must be a zod 3 schema such as z.object({ ... }) (got ${show(schema)})`);
  const version = (schema as { _zod?: { version?: { major: number; minor: number } } })._zod;
  if (version)
    fail(
      `${where} is a zod ${version.version ? `${version.version.major}.${version.version.minor}` : '4'} schema, but "@dsh-tools/define-tool/zod3" converts zod 3 schemas only: import defineTool from "@dsh-tools/define-tool" instead (zod >= 4.2 describes itself as JSON Schema)`,
    );
  const { $schema, ...json } = zodToJsonSchema(schema as never, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
  }) as Record<string, unknown>;
  if (json.type !== 'object')
    fail(
      `${where} must be an object schema such as z.object({ ... }) (got a schema of type ${show(json.type)}): wrap the value in an object`,
    );
  return json as ObjectJsonSchema;
};

/**
 * Converts a zod 3 object schema to the JSON Schema a model provider accepts: draft-07, no
 * `$schema`, no `$ref` (every reuse inlined, since providers resolve none).
 *
 * @throws TypeError for a zod 4 schema, a non-object schema or anything that is no zod schema.
 */
export function zod3ToJsonSchema<P extends Zod3Schema>(
  schema: P & NoInfer<RefuseZod4<P>>,
): ObjectJsonSchema {
  return convert(schema, 'zod3ToJsonSchema(schema)');
}

/**
 * Defines a tool whose `parameters` is a zod 3 object schema: `execute` receives the schema's
 * input type (`z.input<typeof schema>`), the model sees its JSON Schema, and the schema itself
 * becomes the `inputValidator` (zod >= 3.24 is a Standard Schema).
 *
 * @throws TypeError naming the tool, for a zod 4 schema, a non-object schema or a malformed
 * definition (checked as by the main entry's `defineTool`).
 */
export function defineTool<P extends Zod3Schema>(
  config: ToolConfig<P & NoInfer<RefuseZod4<P>>, P['_input']>,
): ToolDefinition<P['_input']> {
  // The rest of the definition first, so that its mistakes read as in the main entry.
  defineToolCore({ ...config, parameters: { type: 'object' } } as never);
  const parameters = convert(config.parameters, `defineTool(${show(config.name)}).parameters`);
  const definition = defineToolCore({ ...config, parameters } as never) as ToolDefinition;
  return (
    isObject((config.parameters as { '~standard'?: unknown })['~standard'])
      ? { ...definition, inputValidator: config.parameters }
      : definition
  ) as ToolDefinition<P['_input']>;
}
