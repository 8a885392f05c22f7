import { Validator } from '@cfworker/json-schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { offThread } from './compile-parameters';
import { type CompileJob, checkForCompile, compileJob } from './compile-schema';
import { compileInWorker, stopCompileWorker } from './compile-worker';
import { compileSchema } from './index';

/**
 * Differential fuzzing: generated JSON Schema 2020-12 schemas and values, validated by the
 * registry's compiler and by @cfworker/json-schema (an independent implementation that shares no
 * code with Ajv), must agree on accept / reject. The generator stays inside what both implement
 * the same way: no formats (annotations in 2020-12, assertions in both libraries' defaults), no
 * `dependencies` (draft-07, which Ajv keeps in 2020-12 mode), integer `multipleOf` (float
 * remainders differ by rounding), and patterns from a fixed set that both engines read alike.
 */

const PATTERNS = ['^a', 'b$', '^[a-c]+$', '\\d', '^\\w*$', 'a|b', '^.{2}$', '\\s'];
const NAMES = ['a', 'b', 'c', 'ab'];

const scalar = fc.oneof(
  fc.constantFrom(null, true, false, 0, 1, -1, 2.5, 10, ''),
  fc.string({ unit: fc.constantFrom('a', 'b', 'c', '1', ' ', '😀'), maxLength: 4 }),
  fc.integer({ min: -5, max: 12 }),
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...NAMES), tie('v'), { maxKeys: 3 }),
  ),
})).v;

const typeName = fc.constantFrom(
  'null',
  'boolean',
  'integer',
  'number',
  'string',
  'array',
  'object',
);

const schema: fc.Arbitrary<unknown> = fc.letrec((tie) => {
  const sub = tie('schema');
  const small = fc.integer({ min: 0, max: 3 });
  const keyword = fc.oneof(
    typeName.map((type) => ({ type })),
    fc.uniqueArray(typeName, { minLength: 1, maxLength: 3 }).map((type) => ({ type })),
    fc.array(scalar, { minLength: 1, maxLength: 3 }).map((e) => ({ enum: e })),
    scalar.map((c) => ({ const: c })),
    fc.integer({ min: -3, max: 5 }).map((n) => ({ minimum: n })),
    fc.integer({ min: -3, max: 5 }).map((n) => ({ exclusiveMaximum: n })),
    fc.integer({ min: 1, max: 3 }).map((n) => ({ multipleOf: n })),
    small.map((n) => ({ minLength: n })),
    small.map((n) => ({ maxLength: n })),
    fc.constantFrom(...PATTERNS).map((pattern) => ({ pattern })),
    small.map((n) => ({ minItems: n })),
    small.map((n) => ({ maxItems: n })),
    fc.boolean().map((uniqueItems) => ({ uniqueItems })),
    sub.map((items) => ({ items })),
    fc.array(sub, { minLength: 1, maxLength: 2 }).map((prefixItems) => ({ prefixItems })),
    sub.map((contains) => ({ contains })),
    fc.tuple(sub, small).map(([contains, minContains]) => ({ contains, minContains })),
    fc
      .dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 2 })
      .map((properties) => ({ properties })),
    fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 }).map((required) => ({ required })),
    sub.map((additionalProperties) => ({ additionalProperties })),
    fc.dictionary(fc.constantFrom(...PATTERNS), sub, { maxKeys: 2 }).map((patternProperties) => ({
      patternProperties,
    })),
    sub.map((propertyNames) => ({ propertyNames })),
    small.map((n) => ({ minProperties: n })),
    small.map((n) => ({ maxProperties: n })),
    fc
      .tuple(fc.constantFrom(...NAMES), fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 2 }))
      .map(([k, v]) => ({ dependentRequired: { [k]: v } })),
    fc.tuple(fc.constantFrom(...NAMES), sub).map(([k, s]) => ({ dependentSchemas: { [k]: s } })),
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((allOf) => ({ allOf })),
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((anyOf) => ({ anyOf })),
    fc.array(sub, { minLength: 1, maxLength: 3 }).map((oneOf) => ({ oneOf })),
    sub.map((not) => ({ not })),
    // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword here
    fc.tuple(sub, sub, sub).map(([i, t, e]) => ({ if: i, then: t, else: e })),
    fc
      .tuple(fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 2 }), fc.boolean())
      .map(([properties, u]) => ({ properties, unevaluatedProperties: u })),
  );
  return {
    schema: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.boolean(),
      fc.array(keyword, { maxLength: 3 }).map((parts) => Object.assign({}, ...parts)),
    ),
  };
}).schema;

/** A recursive root: the generated schema under `$defs`, reached again through `properties`. */
const recursive = schema.map((inner) => ({
  $defs: { inner },
  anyOf: [{ $ref: '#/$defs/inner' }, { type: 'object', properties: { next: { $ref: '#' } } }],
}));

const VALUES_PER_SCHEMA = 4;

describe('differential fuzzing against @cfworker/json-schema', () => {
  it('agrees on accept / reject for at least 10,000 generated schema / value pairs', () => {
    let pairs = 0;
    fc.assert(
      fc.property(
        fc.oneof(schema, recursive),
        fc.array(value, { minLength: VALUES_PER_SCHEMA, maxLength: VALUES_PER_SCHEMA }),
        (s, values) => {
          const ours = compileSchema(s);
          const theirs = new Validator(s as object, '2020-12', false);
          for (const v of values) {
            pairs++;
            const accepted = ours.validate(v) === undefined;
            if (accepted !== theirs.validate(v).valid) {
              throw new Error(
                `disagree on ${JSON.stringify(v)} against ${JSON.stringify(s)}: registry ${accepted ? 'accepts' : 'rejects'}`,
              );
            }
          }
        },
      ),
      { numRuns: 2_600, seed: 9 },
    );
    expect(pairs).toBeGreaterThanOrEqual(10_000);
  }, 120_000);

  it('never crashes on hostile generated schemas: each compiles and answers, or is refused with an Error', () => {
    const keywordName = fc.constantFrom(
      '$ref',
      '$async',
      '$data',
      '$id',
      '$anchor',
      '$dynamicRef',
      '$dynamicAnchor',
      '$defs',
      'type',
      'properties',
      'items',
      'pattern',
      'patternProperties',
      'allOf',
      'anyOf',
      'not',
      'format',
      'nullable',
      'minimum',
      'required',
      'enum',
      'const',
      'if',
      'then',
      '$schema',
      'x-odd',
    );
    const junk = fc.letrec((tie) => ({
      j: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(
          '#',
          '#/$defs/a',
          '#/properties',
          '(a)\\1',
          '^(a+)+$',
          'string',
          'date-time',
          true,
          1,
          null,
        ),
        fc.string({ maxLength: 6 }),
        fc.array(tie('j'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(keywordName, fc.constantFrom('a', '$defs')), tie('j'), {
          maxKeys: 4,
        }),
      ),
    })).j;
    fc.assert(
      fc.property(junk, fc.array(value, { maxLength: 3 }), (s, values) => {
        let check: ReturnType<typeof compileSchema>;
        try {
          check = compileSchema(s);
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).message).toMatch(/^compileSchema\(\): the schema is refused: /);
          return;
        }
        for (const v of values) {
          const answer = check.validate(v);
          expect(answer === undefined || typeof answer === 'string').toBe(true);
        }
      }),
      { numRuns: 3_000, seed: 13 },
    );
  }, 120_000);

  it('agrees with itself across threads: what the compiling worker builds accepts and rejects as this thread does', async () => {
    // Formats and uniqueItems call out of the generated code (see compile-worker.ts): mixed in.
    const FORMATS = [
      'date-time',
      'date',
      'email',
      'uri',
      'uuid',
      'hostname',
      'duration',
      'ipv4',
      'byte',
    ];
    const formatted = fc
      .tuple(fc.oneof(schema, recursive), fc.constantFrom(...FORMATS))
      .map(([s, format]) => ({ anyOf: [s, { type: 'string', format }] }));
    const strings = fc.constantFrom(
      '2026-12-03T04:00:00Z',
      '2026-12-03',
      'a@b.co',
      'https://x.y/z',
      'not a date',
      '123e4567-e89b-12d3-a456-426614174000',
      'P1D',
      'PT',
      '10.0.0.1',
      'ex.ample',
      'QUJD',
    );
    const samples = fc.sample(
      fc.tuple(
        fc.oneof(schema, recursive, formatted),
        fc.array(fc.oneof(value, strings), {
          minLength: VALUES_PER_SCHEMA,
          maxLength: VALUES_PER_SCHEMA,
        }),
      ),
      { numRuns: 700, seed: 21 },
    );
    const fellBack = offThread.fellBack;
    let pairs = 0;
    await Promise.all(
      samples.map(async ([s, values]) => {
        const json = JSON.stringify(s);
        let job: CompileJob;
        try {
          job = checkForCompile(s, json);
        } catch {
          return; // refused before any compile, on either thread
        }
        const here = compileJob(job).validate;
        const there = (await compileInWorker(job)).validate;
        for (const v of values) {
          pairs++;
          if (here(v) !== there(v)) {
            throw new Error(`threads disagree on ${JSON.stringify(v)} against ${json}`);
          }
          expect(there.errors ?? null).toEqual(here.errors ?? null);
        }
      }),
    );
    expect(pairs).toBeGreaterThanOrEqual(2_000);
    expect(offThread.fellBack).toBe(fellBack);
    await stopCompileWorker();
  }, 120_000);
});
