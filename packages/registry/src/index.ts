export { type CompileSchemaOptions, compileSchema, type SchemaValidator } from '@dsh-tools/schema';
export { TOOL_NAME } from './definition';
export { createToolRegistry } from './registry';
export type {
  ExecuteAllOptions,
  InterceptorOptions,
  RegistryErrorInfo,
  ToolRegistry,
  ToolRegistryOptions,
} from './types';
