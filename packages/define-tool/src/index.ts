export type {
  DefineTool,
  InferArgs,
  InferJsonSchema,
  StandardJsonSchema,
  ToolConfig,
  ToolParameters,
  ToolResult,
} from './define-tool';
export { defineTool, schemaSpecToJsonSchema } from './runtime';
export type {
  ArraySpec,
  BooleanSpec,
  CheckSchemaSpec,
  InferProperty,
  InferSchemaSpec,
  ItemSpec,
  NumberSpec,
  ObjectSpec,
  PropertySpec,
  SchemaSpec,
  StringSpec,
  UnknownSpecKey,
} from './schema-spec';
