import type { ItemSpec, SchemaSpec } from './schema-spec';

// ---- types: what a schema means for the arguments ------------------------------------------------

/**
 * The two ways a schema is written here: a JSON Schema (`required` is a list on the object, `const`
 * and `null` exist) or a {@link SchemaSpec} property (`required: true` on the property itself).
 */
type Dialect = 'json' | 'spec';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The one ladder both dialects climb: the value type a schema `S` describes; `unknown` where it is
 * beyond this sketch. The dialects differ only where the rungs say so: `const` and `null` are JSON
 * Schema's, an item known only as `ItemSpec` is a spec built at run time, and an object's
 * `required` lives on the object (JSON Schema) or on each property (spec). `S` is distributed, so
 * a union of schemas describes the union of their values.
 */
type InferValue<S, D extends Dialect> = S extends { readonly const: infer C }
  ? D extends 'json'
    ? C
    : InferTyped<S, D>
  : InferTyped<S, D>;

type InferTyped<S, D extends Dialect> = S extends { readonly enum: readonly (infer E)[] }
  ? E
  : S extends { readonly type: 'string' }
    ? string
    : S extends { readonly type: 'number' | 'integer' }
      ? number
      : S extends { readonly type: 'boolean' }
        ? boolean
        : S extends { readonly type: 'null' }
          ? D extends 'json'
            ? null
            : unknown
          : S extends { readonly type: 'array'; readonly items: infer I }
            ? D extends 'spec'
              ? ItemSpec extends I
                ? unknown[]
                : InferValue<I, D>[]
              : InferValue<I, D>[]
            : S extends { readonly type: 'object'; readonly properties: infer P }
              ? D extends 'json'
                ? InferJsonObject<
                    P,
                    S extends { readonly required: readonly (infer R)[] } ? R : never
                  >
                : InferSchemaSpec<P>
              : S extends { readonly type: 'object' }
                ? { [key: string]: unknown }
                : unknown;

/** A JSON Schema object's properties: those named in `required` (`R`) required, the rest optional. */
type InferJsonObject<P, R> = string extends keyof P
  ? { [key: string]: unknown }
  : Simplify<
      { -readonly [K in keyof P as K extends R ? K : never]: InferValue<P[K], 'json'> } & {
        -readonly [K in keyof P as K extends R ? never : K]?: InferValue<P[K], 'json'>;
      }
    >;

type IsRequired<S> = S extends { readonly required: true } ? true : false;

/** The value type a (literal) JSON Schema describes; `unknown` where it is beyond this sketch. */
export type InferJsonSchema<S> = InferValue<S, 'json'>;

/** The value type of one {@link SchemaSpec} property spec. */
export type InferProperty<S> = InferValue<S, 'spec'>;

/**
 * The arguments a {@link SchemaSpec} describes: `required: true` properties required, the rest
 * optional. A spec only known as `SchemaSpec` (built at run time) describes a record of unknowns.
 */
export type InferSchemaSpec<S> = string extends keyof S
  ? { [key: string]: unknown }
  : Simplify<
      {
        -readonly [K in keyof S as IsRequired<S[K]> extends true ? K : never]: InferProperty<S[K]>;
      } & {
        -readonly [K in keyof S as IsRequired<S[K]> extends true ? never : K]?: InferProperty<S[K]>;
      }
    >;
