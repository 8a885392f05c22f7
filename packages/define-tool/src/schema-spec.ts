/** Keys every property spec may carry, whatever its type. */
interface SpecBase<T> {
  /** Shown to the model: say what the argument means and what a good value looks like. */
  readonly description?: string;
  /** Documented to the model; the value the tool assumes when the argument is absent. */
  readonly default?: T;
}

/** A string argument. `path` marks it as a file path the tool reads or writes (see `hints.paths`). */
export interface StringSpec extends SpecBase<string> {
  readonly type: 'string';
  readonly enum?: readonly string[];
  readonly minLength?: number;
  readonly maxLength?: number;
  /** An ECMAScript regular expression (unicode mode), as JSON Schema's `pattern`. */
  readonly pattern?: string;
  /** Marks a file path: filled into `hints.paths` for sandbox and permission policies, never shown to the model. */
  readonly path?: 'read' | 'write';
}

/** A number (`number`) or whole-number (`integer`) argument. */
export interface NumberSpec extends SpecBase<number> {
  readonly type: 'number' | 'integer';
  readonly enum?: readonly number[];
  readonly minimum?: number;
  readonly maximum?: number;
}

/** A boolean argument. */
export interface BooleanSpec extends SpecBase<boolean> {
  readonly type: 'boolean';
}

/** An array argument; `items` describes every element. */
export interface ArraySpec extends SpecBase<readonly unknown[]> {
  readonly type: 'array';
  readonly items: ItemSpec;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** An object argument; without `properties` it accepts any object. */
export interface ObjectSpec extends SpecBase<{ readonly [key: string]: unknown }> {
  readonly type: 'object';
  readonly properties?: SchemaSpec;
}

/** The spec of an array's elements: a property spec without `required`. */
export type ItemSpec = StringSpec | NumberSpec | BooleanSpec | ArraySpec | ObjectSpec;

/** The spec of one property; `required: true` makes the model always send it. */
export type PropertySpec = ItemSpec & { readonly required?: boolean };

/**
 * A tool's parameters in the short form: one property spec per argument name. It converts to an
 * object JSON Schema (`schemaSpecToJsonSchema`) and types the arguments (`InferArgs`).
 */
export type SchemaSpec = { readonly [name: string]: PropertySpec };

// ---- types: which keys a property spec may carry ------------------------------------------------

type CommonKey = 'type' | 'description' | 'default';
type KeysOf<S> = S extends { readonly type: 'string' }
  ? 'enum' | 'minLength' | 'maxLength' | 'pattern' | 'path'
  : S extends { readonly type: 'number' | 'integer' }
    ? 'enum' | 'minimum' | 'maximum'
    : S extends { readonly type: 'array' }
      ? 'items' | 'minItems' | 'maxItems'
      : S extends { readonly type: 'object' }
        ? 'properties'
        : never;

/** What an unknown key of a spec is checked against: nothing fits, so the key is flagged. */
export interface UnknownSpecKey<K> {
  readonly 'unknown key in a SchemaSpec, see the SchemaSpec table': K;
}

type CheckProperty<S, Item extends boolean> = {
  [K in keyof S]: K extends CommonKey | KeysOf<S> | (Item extends true ? never : 'required')
    ? K extends 'items'
      ? CheckProperty<S[K], true>
      : K extends 'properties'
        ? CheckSchemaSpec<S[K]>
        : S[K]
    : UnknownSpecKey<K>;
};

/**
 * `S` itself where every key of every property spec is known, and a type no value fits where one is
 * not: object types take extra keys silently, and a misspelt `requird: true` must not pass.
 */
export type CheckSchemaSpec<S> = { [K in keyof S]: CheckProperty<S[K], false> };
