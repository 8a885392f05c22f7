export type {
  DefineTool,
  InferArgs,
  StandardJsonSchema,
  ToolConfig,
  ToolParameters,
  ToolResult,
} from './define-tool';
export type { InferJsonSchema, InferProperty, InferSchemaSpec } from './infer';
export { defineTool, schemaSpecToJsonSchema } from './runtime';
export type {
  ArraySpec,
  BooleanSpec,
  CheckSchemaSpec,
  ItemSpec,
  NumberSpec,
  ObjectSpec,
  PropertySpec,
  SchemaSpec,
  StringSpec,
  UnknownSpecKey,
} from './schema-spec';
