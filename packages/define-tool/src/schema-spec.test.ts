import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type SchemaSpec, schemaSpecToJsonSchema } from './index';

type Spec = Record<string, unknown>;

/** Property names, the hostile ones included. */
const name = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a.b', '*', '', '$ref'),
);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const pattern = fc.oneof(
  fc.constantFrom('^a', '\\d+', '[a-z]{2,}', '^(read|write)$', '\\p{L}+'),
  fc.string({ maxLength: 6 }).map(escapeRegExp),
);

const count = fc.nat({ max: 50 });
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
/** Drops the keys whose value is undefined: a spec has keys, not undefined values. */
const defined = (spec: Spec): Spec =>
  Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined));

const { property: propertySpec } = fc.letrec<{ property: Spec; item: Spec; spec: Spec }>((tie) => {
  const common = { description: optional(fc.string({ minLength: 1, maxLength: 20 })) };
  const typed = (item: boolean) => {
    const required = item ? fc.constant(undefined) : optional(fc.boolean());
    return fc
      .oneof(
        { depthSize: 'small' },
        fc.record({
          type: fc.constant('string'),
          required,
          ...common,
          minLength: optional(count),
          maxLength: optional(count),
          pattern: optional(pattern),
          enum: optional(fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 4 })),
          default: optional(fc.string()),
        }),
        fc.record({
          type: fc.constantFrom('number', 'integer'),
          required,
          ...common,
          minimum: optional(finite),
          maximum: optional(finite),
          enum: optional(fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 4 })),
          default: optional(fc.integer()),
        }),
        fc.record({
          type: fc.constant('boolean'),
          required,
          ...common,
          default: optional(fc.boolean()),
        }),
        fc.record({
          type: fc.constant('array'),
          required,
          ...common,
          items: tie('item'),
          minItems: optional(count),
          maxItems: optional(count),
        }),
        fc.record({
          type: fc.constant('object'),
          required,
          ...common,
          properties: optional(tie('spec')),
        }),
      )
      .map(defined);
  };
  return {
    property: typed(false),
    item: typed(true),
    spec: fc.dictionary(name, tie('property'), { maxKeys: 4 }),
  };
});

/** A SchemaSpec as a program might build it at run time (JSON.parse keeps `__proto__` an own key). */
const schemaSpec = fc
  .dictionary(name, propertySpec, { maxKeys: 6 })
  .map((spec) => JSON.parse(JSON.stringify(spec)) as Spec);

/** Every object schema in a converted tree, paired with the spec it came from. */
function* objects(schema: Spec, spec: Spec): Generator<[Spec, Spec]> {
  yield [schema, spec];
  const properties = (schema.properties ?? {}) as Record<string, Spec>;
  for (const key of Object.keys(spec)) {
    const child = spec[key] as Spec;
    const converted = properties[key]!;
    if (child.properties) yield* objects(converted, child.properties as Spec);
  }
}

describe('schemaSpecToJsonSchema', () => {
  it('turns any spec into a JSON Schema ajv compiles, requiring exactly the required: true properties', () => {
    const ajv = new Ajv({ strict: true });
    fc.assert(
      fc.property(schemaSpec, (spec) => {
        const schema = schemaSpecToJsonSchema(spec as SchemaSpec);
        expect(() => ajv.compile(schema)).not.toThrow();
        expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
        for (const [object, source] of objects(schema as Spec, spec)) {
          expect(Object.keys(object.properties as Spec)).toEqual(Object.keys(source));
          const required = Object.keys(source).filter((key) => (source[key] as Spec).required);
          if (required.length) expect(object.required).toEqual(required);
          else expect(object).not.toHaveProperty('required');
        }
        expect(JSON.stringify(schema)).not.toMatch(/"required":(true|false)/);
      }),
      { numRuns: 300 },
    );
  });

  it('validates values the way the spec says', () => {
    const ajv = new Ajv({ strict: true });
    const validate = ajv.compile(
      schemaSpecToJsonSchema({
        path: { type: 'string', required: true, minLength: 1 },
        mode: { type: 'string', enum: ['r', 'w'] },
        lines: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 2 },
      }),
    );
    expect(validate({ path: 'a', mode: 'r', lines: [1, 2] })).toBe(true);
    for (const bad of [{}, { path: '' }, { path: 'a', mode: 'x' }, { path: 'a', lines: [0] }])
      expect(validate(bad)).toBe(false);
    // An argument the spec does not name is the model's extra, not an error (as zod's input schema).
    expect(validate({ path: 'a', extra: 1 })).toBe(true);
  });

  it('names itself in its errors, and refuses what is no object', () => {
    expect(() => schemaSpecToJsonSchema({ p: { type: 'string', min: 1 } } as never)).toThrow(
      new TypeError('schemaSpecToJsonSchema(spec).p has unknown key "min"'),
    );
    for (const spec of [null, undefined, 'spec', 5, []])
      expect(() => schemaSpecToJsonSchema(spec as never)).toThrow(
        /^schemaSpecToJsonSchema\(spec\)\.properties must be an object \(got .+\)$/,
      );
  });

  it('drops path markers, which are for policies', () => {
    expect(schemaSpecToJsonSchema({ p: { type: 'string', path: 'write' } })).toEqual({
      type: 'object',
      properties: { p: { type: 'string' } },
    });
  });
});
