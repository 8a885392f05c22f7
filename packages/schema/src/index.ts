export {
  type ArgsFailure,
  type Compiled,
  type CompiledSchema,
  compileParameters,
  offThread,
} from './compile-parameters';
export {
  type CompileSchemaOptions,
  compileSchema,
  type SchemaCompilation,
  type SchemaValidator,
  SYNC_PATTERNS,
  tryCompileSchema,
} from './compile-schema';
export { codeCacheStats, stopCompileWorker, workerLimits } from './compile-worker';
export { formatBytes, kindOf, messageOf, utf8Bytes } from './describe';
export {
  copyJson,
  freezePlain,
  type JsonCopy,
  type JsonProblems,
  MAX_DEPTH,
  MAX_VIOLATIONS,
  pointerSegment,
  type Violation,
} from './json-check';
export { checkBudget, DEFAULT_MAX_SCHEMA_BYTES, readBudget } from './schema-budget';
export { SchemaRefusal } from './schema-check';
export { type LinearPattern, linearPattern, PatternRefusal } from './schema-regex';
