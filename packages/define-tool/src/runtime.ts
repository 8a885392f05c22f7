/**
 * Everything `defineTool` does at runtime, written for size: the main entry ships at most 1.5 KB
 * min+gzip (asserted in size.test.ts), and its error messages are most of that. Every message
 * names the tool, the key, what the key must be and what it got.
 */
import type { ObjectJsonSchema, ToolPathHint } from '@dsh-tools/protocol';
import type { DefineTool } from './define-tool';
import type { CheckSchemaSpec, SchemaSpec } from './schema-spec';

// biome-ignore lint/suspicious/noExplicitAny: input of unknown shape, checked key by key below
type Any = any;

/** Throws the `TypeError` every check of this package throws. */
export const fail = (message: string): never => {
  throw TypeError(message);
};

/** A string. */
export const isString = (value: unknown): value is string => typeof value === 'string';

/** A non-array object; functions count, since an arktype schema is callable. */
export const isObject = (value: unknown): value is Record<string, Any> =>
  Object(value) === value && !Array.isArray(value);

/** A short rendering of any value for a message; cyclic, bigint or huge input must not break it. */
export const show = (value: unknown): string => {
  try {
    // Numbers as JavaScript writes them (Infinity); NaN comes out as JSON's null.
    return (value === +(value as number) ? `${value}` : JSON.stringify(value)).slice(0, 99);
  } catch {
    return typeof value;
  }
};

/** Close enough for "did you mean": fewer than 3 letters of either missing from the other (typos, case, swaps). */
const near = (a: string, b: string): boolean =>
  [...(a + b)].filter((c) => !a.includes(c) || !b.includes(c)).length < 3;

/**
 * Each property type: how to tell a value of it (for `enum`), and the keys it adds to `type`,
 * `description`, `default` (and `required` outside `items`), each with the code of its rule.
 * No prototype, so that `type: 'constructor'` finds nothing.
 */
const TYPES: { readonly [type: string]: readonly [(value: unknown) => boolean, string] } = {
  __proto__: null,
  string: [isString, 'enum:e minLength:n maxLength:n pattern:r path:a'],
  number: [Number.isFinite, 'enum:e minimum:f maximum:f'],
  integer: [Number.isSafeInteger, 'enum:e minimum:f maximum:f'],
  // `enum` is for strings and numbers only: the other types need no test.
  boolean: [0, ''],
  array: [0, 'items:I minItems:n maxItems:n'],
  object: [0, 'properties:o'],
} as Any;

const object = [isObject, 'an object'] as const;
const text = [(v: unknown) => isString(v) && v, 'a non-empty string'] as const;

/** The rule of each code: `[test, what it expects]`. */
const RULES: { readonly [code: string]: readonly [(value: Any, parent: Any) => unknown, string] } =
  {
    N: [(v) => isString(v) && /^[\w-]{1,64}$/.test(v), 'like /^[\\w-]{1,64}$/'],
    D: text,
    s: text,
    F: [(v) => typeof v === 'function', 'a function'],
    // Anything passes (`Object` returns an object): left to the registry (hints) or to the types
    // (`default`, documentation for the model that a provider does not enforce).
    x: [Object, ''],
    p: [Array.isArray, 'an array'],
    o: object,
    b: [(v) => v === !!v, 'a boolean'],
    Y: [(v) => isString(v) && TYPES[v], `${Object.keys(TYPES)}`],
    I: object,
    e: [
      // Distinct, or ajv refuses to compile the schema.
      (v, spec) =>
        Array.isArray(v) &&
        v.length &&
        v.every(TYPES[spec.type]![0]) &&
        new Set(v).size === v.length,
      'distinct values of the type',
    ],
    n: [(v) => Number.isSafeInteger(v) && v >= 0, 'an integer >= 0'],
    f: [Number.isFinite, 'a finite number'],
    r: [
      (v) => {
        try {
          return isString(v) && new RegExp(v, 'u');
        } catch {}
      },
      'a valid regex',
    ],
    a: [(v) => v === 'read' || v === 'write', `'read' or 'write'`],
  };

/**
 * Throws for an own key not in `pairs` (`name:code`, space-separated), naming the nearest known key
 * (`requird`: did you mean "required"?), and for a value that breaks its rule. An upper-case code
 * marks a key that must be there; the others are checked when present.
 */
const check = (object: Any, pairs: string, where: string): void => {
  const codes = new Map(pairs.split(/ +/).map((pair) => pair.split(':') as [string, string]));
  const known = [...codes.keys()];
  for (const key of [...known, ...Object.keys(object)]) {
    const value = object[key];
    const code = codes.get(key)!;
    // Bounded: a huge key must not cost a quadratic search.
    const guess = !key[99] && known.find((k) => near(key, k));
    const [test, what] =
      RULES[code] ??
      fail(`${where} has unknown key ${show(key)}${guess ? ` — did you mean "${guess}"?` : ''}`);
    if ((value !== undefined || code < 'a') && !test(value, object))
      fail(`${where}.${key} must be ${what} (got ${show(value)})`);
  }
};

/**
 * Checks a property spec and converts it to JSON Schema, collecting path markers. `arg` is its
 * dotted argument path, or null below a property whose name holds `.` or `*`, which no dotted path
 * can name. A SchemaSpec is converted as the properties of an object spec.
 */
const convert = (
  spec: Any,
  where: string,
  paths: ToolPathHint[],
  arg: string | null,
  item?: boolean,
): Any => {
  check(
    Object(spec),
    `type:Y ${TYPES[spec?.type]?.[1]} description:s default:x${item ? '' : ' required:b'}`,
    where,
  );
  const { required, path, items, properties, ...out } = spec;
  // `required` is checked to be a boolean: truthy here is `true` there.
  const names: string[] = [];
  if (path)
    paths.push({
      arg: arg ?? fail(`${where}.path needs a property name without "." and "*"`),
      access: path,
    });
  return {
    ...out,
    ...(items && { items: convert(items, `${where}.items`, paths, arg && `${arg}.*`, true) }),
    ...(properties && {
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, property]: Any) => {
          if (property?.required) names.push(key);
          return [
            key,
            convert(
              property,
              `${where}.${key}`,
              paths,
              arg == null || /[.*]/.test(key) ? null : arg ? `${arg}.${key}` : key,
            ),
          ];
        }),
      ),
      // After `properties`, which fills `names`.
      ...(names.length && { required: names }),
    }),
  };
};

/** Converts a SchemaSpec, collecting its path markers; `where` names it in every error. */
const convertSchemaSpec = (spec: unknown, where: string, paths: ToolPathHint[]): ObjectJsonSchema =>
  convert({ type: 'object', properties: spec }, where, paths, '');

/**
 * Converts a {@link SchemaSpec} to the object JSON Schema (draft-07) a model provider accepts.
 * Path markers are dropped: they are hints for policies, not for the model. Throws a `TypeError`
 * naming the property and the key for anything a provider would reject or misread.
 */
export const schemaSpecToJsonSchema: <const S extends SchemaSpec>(
  spec: S & NoInfer<CheckSchemaSpec<S>>,
) => ObjectJsonSchema = (spec) =>
  // `?? null`: an absent spec is refused, as `properties: undefined` is not.
  convertSchemaSpec(spec ?? null, 'schemaSpecToJsonSchema(spec)', []);

/**
 * Defines a tool whose arguments are typed from its `parameters`: a {@link SchemaSpec} (the short
 * form), a Standard JSON Schema (zod >= 4.2, arktype, valibot) or an object JSON Schema.
 *
 * Mostly types: at runtime it checks the definition once, at startup, where a mistake is cheap to
 * fix, and turns `parameters` into the plain JSON Schema the model sees (draft-07, no `$schema`).
 * A Standard Schema also becomes the tool's `inputValidator`; path markers become `hints.paths`.
 *
 * `parameters` is told apart in this order: an object with `~standard` is a Standard JSON Schema;
 * one with a string `type`, or with `properties` that are not a property spec (no string `type`),
 * is a JSON Schema; anything else is a SchemaSpec.
 *
 * @throws TypeError naming the tool, the key and what to fix.
 */
export const defineTool: DefineTool = (config: Any) => {
  const where = `defineTool(${show(config?.name)})`;
  check(Object(config), 'name:N description:D parameters:I execute:F hints:o timeoutMs:n', where);
  const { parameters, hints = {} } = config;
  check(
    hints,
    'readOnly:b destructive:b idempotent:b openWorld:b concurrencySafe:x paths:p command:s',
    `${where}.hints`,
  );
  const paths: ToolPathHint[] = [...(hints.paths ?? [])];
  const standard = parameters['~standard'];
  // A string `type` at the root makes a JSON Schema; so do `properties` that are not a property
  // spec (no string `type`): a SchemaSpec property named "properties" has one.
  const { $schema, ...plain } = Object(
    standard
      ? standard.jsonSchema?.input({ target: 'draft-07' })
      : isString(parameters.type) ||
          (parameters.properties && !isString(parameters.properties.type))
        ? parameters
        : convertSchemaSpec(parameters, `${where}.parameters`, paths),
  );
  if (plain.type !== 'object')
    fail(
      `${where}.parameters needs type: 'object' at its root (got ${show(plain.type)})${standard ? ' (zod 3: /zod3)' : ''}`,
    );
  return {
    ...config,
    parameters: plain,
    ...(paths[0] && { hints: { ...hints, paths } }),
    ...(standard?.validate && { inputValidator: parameters }),
  };
};
