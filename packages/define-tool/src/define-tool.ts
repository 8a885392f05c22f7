import type {
  BodyExecution,
  ObjectJsonSchema,
  ToolDefinition,
  ToolHints,
} from '@dsh-tools/protocol';
import type { InferJsonSchema, InferSchemaSpec } from './infer';
import type { CheckSchemaSpec, SchemaSpec } from './schema-spec';

/**
 * A schema that converts itself to JSON Schema (the Standard JSON Schema spec: zod >= 4.2,
 * arktype >= 2.1.28, valibot through `toStandardJsonSchema`). Declared here rather than imported
 * so that the package has no dependency but the protocol, as the spec itself recommends.
 */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema: {
      readonly input: (options: {
        readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (string & {});
        readonly libraryOptions?: Record<string, unknown> | undefined;
      }) => Record<string, unknown>;
    };
  };
}

/** Anything `defineTool` accepts as `parameters`. */
export type ToolParameters = SchemaSpec | StandardJsonSchema | ObjectJsonSchema;

/**
 * The arguments a tool's `execute` receives, from its `parameters`: a Standard JSON Schema's input
 * type, what a literal JSON Schema or a {@link SchemaSpec} describes.
 */
export type InferArgs<P> = P extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : P extends { readonly type: 'object' }
    ? InferJsonSchema<P>
    : InferSchemaSpec<P>;

/** What a tool body returns (see `ToolDefinition.execute`). */
export type ToolResult = ReturnType<ToolDefinition['execute']>;

/** The definition `defineTool` takes: a `ToolDefinition` whose `parameters` may be any {@link ToolParameters}. */
export interface ToolConfig<P, Args = InferArgs<P>> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, what the OpenAI and DeepSeek APIs accept as a function name. */
  readonly name: string;
  /** Tells the model when and how to use the tool. */
  readonly description: string;
  readonly parameters: P;
  /**
   * Runs the tool on validated arguments; see `ToolDefinition.execute`. A property rather than a
   * method, so that a body that asks for more than the arguments give is a type error.
   */
  readonly execute: (args: Args, exec: BodyExecution<Args>) => ToolResult;
  /** What policies need to know; path markers of a SchemaSpec are added to `paths`. */
  readonly hints?: ToolHints;
  /** Per-tool time limit in milliseconds; 0 means none. */
  readonly timeoutMs?: number;
}

/**
 * What a `parameters` value is checked against beyond its constraint: every key of every property
 * spec of a {@link SchemaSpec} (object types take extra keys silently); nothing for the others.
 */
export type CheckParameters<P> = P extends { readonly '~standard': unknown }
  ? unknown
  : P extends { readonly type: string }
    ? unknown
    : CheckSchemaSpec<P>;

/**
 * The signature of {@link defineTool}: one, not overloads, so that a mistake is reported at the
 * key that holds it rather than as "no overload matches this call".
 */
export type DefineTool = <const P extends ToolParameters>(
  config: ToolConfig<P & NoInfer<CheckParameters<P>>, InferArgs<P>>,
) => ToolDefinition<InferArgs<P>>;
