/**
 * zod 3 support. zod 3 schemas carry no JSON Schema of their own, so this entry converts them with
 * zod-to-json-schema (an optional peer dependency: only users of this entry install it). zod 4
 * implements Standard JSON Schema since 4.2, and the main entry takes its schemas directly.
 */
import type { ObjectJsonSchema, ToolDefinition } from '@dsh-tools/protocol';
import { zodToJsonSchema } from 'zod-to-json-schema';
import type { ToolConfig } from './define-tool';
import { defineTool as defineToolCore, isObject, show } from './runtime';

/** The part of a zod 3 schema this entry relies on; `_input` carries its input type. */
export interface Zod3Schema<Input = unknown> {
  readonly _input: Input;
  readonly _def: object;
  safeParse(data: unknown): unknown;
}

/** What a zod 4 schema is checked against here: nothing fits, so passing one is a type error. */
export interface Zod4SchemaRefused {
  readonly 'zod 4 schema: import defineTool from "@dsh-tools/define-tool" instead': never;
}

type RefuseZod4<P> = P extends { readonly _zod: unknown } ? Zod4SchemaRefused : unknown;

/**
 * Converts a zod 3 object schema to the object JSON Schema a model provider accepts (draft-07, no
 * `$schema`, no `$ref`s: providers resolve none). Throws a `TypeError` for a zod 4 schema, which
 * zod-to-json-schema would silently turn into an empty schema, and for a non-object root.
 */
export function zod3ToJsonSchema<P extends Zod3Schema>(
  schema: P & NoInfer<RefuseZod4<P>>,
  where = 'zod3ToJsonSchema: ',
): ObjectJsonSchema {
  if (!isObject(schema) || !isObject(schema._def) || typeof schema.safeParse !== 'function')
    throw new TypeError(
      `${where}parameters must be a zod 3 schema, such as z.object({ ... }) (got ${show(schema)})`,
    );
  const zod = (schema as { _zod?: { version?: { major?: unknown; minor?: unknown } } })._zod;
  if (zod !== undefined)
    throw new TypeError(
      `${where}parameters is a zod ${zod.version?.major ?? 4}.${zod.version?.minor ?? 'x'} schema, but the "/zod3" entry converts zod 3 schemas only; import defineTool from "@dsh-tools/define-tool" instead (zod >= 4.2 describes itself as JSON Schema)`,
    );
  const { $schema, ...json } = zodToJsonSchema(schema as never, {
    target: 'jsonSchema7',
    $refStrategy: 'none',
  }) as Record<string, unknown>;
  if (json.type !== 'object')
    throw new TypeError(
      `${where}parameters must be an object schema such as z.object({ ... }) (got a schema of type ${show(json.type)}); wrap the value in an object with one property`,
    );
  return json as ObjectJsonSchema;
}

/**
 * Defines a tool whose parameters are a zod 3 object schema: the arguments are typed as the
 * schema's input type (`z.input<typeof schema>`), the model sees its JSON Schema, and the schema
 * itself validates the arguments (zod >= 3.24 is a Standard Schema).
 *
 * @throws TypeError naming the tool, for a zod 4 schema, a non-object schema or a malformed definition.
 */
export function defineTool<P extends Zod3Schema>(
  config: ToolConfig<P & NoInfer<RefuseZod4<P>>, P['_input']>,
): ToolDefinition<P['_input']> {
  // The rest of the definition is checked first, so that its errors read as in the main entry.
  defineToolCore({ ...config, parameters: { type: 'object' } } as never);
  const parameters = zod3ToJsonSchema(config.parameters, `defineTool("${config.name}"): `);
  const definition = defineToolCore({ ...config, parameters } as never) as ToolDefinition;
  const standard = (config.parameters as { '~standard'?: { validate?: unknown } })['~standard'];
  return (
    typeof standard?.validate === 'function'
      ? { ...definition, inputValidator: config.parameters }
      : definition
  ) as ToolDefinition<P['_input']>;
}
