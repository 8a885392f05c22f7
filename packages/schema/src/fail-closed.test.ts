import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { compileSchema, tryCompileSchema } from './index';

/** Ajv as a host would use it without this package: the schema compiled as it came. */
const raw = (schema: object) => new Ajv2020({ strict: false, allErrors: true }).compile(schema);

describe('each guard, against raw Ajv first', () => {
  it('"$async": raw Ajv answers a promise for an invalid value, which a caller reads as valid; refused here', async () => {
    const schema = { $async: true, type: 'string' };
    const answer = raw(schema)(42);
    expect(answer).toBeInstanceOf(Promise);
    expect(Boolean(answer)).toBe(true); // `if (validate(x))` lets 42 through
    await expect(answer).rejects.toThrow();
    expect(tryCompileSchema(schema)).toMatchObject({ ok: false, path: '/$async' });
  });

  it('a reference cycle with no data in between: raw Ajv overflows the stack on any value; refused here', () => {
    const schema = { $ref: '#' };
    expect(() => raw(schema)(1)).toThrow(RangeError);
    const outcome = tryCompileSchema(schema);
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.ok ? '' : outcome.reason).toMatch(
      /cycle that never reaches a smaller piece of data/,
    );
  });

  it('a required name Object.prototype also has: raw Ajv finds it inherited on {}; here only an own key counts', () => {
    const schema = { type: 'object', required: ['constructor'] };
    expect(raw(schema)({})).toBe(true);
    const check = compileSchema(schema);
    expect(check.validate({})).toBe("the value must have required property 'constructor'");
    expect(check.validate({ constructor: 1 })).toBeUndefined();
  });
});

/** Each kind of schema the engine refuses, the JSON pointer it names, and the reason's gist. */
const refused: [string, unknown, string, RegExp][] = [
  ['not a schema at all', 'a string', '', /a JSON Schema is an object or a boolean \(got string\)/],
  ['not plain JSON', { default: new Date(0) }, '/default', /must be a plain object \(got a Date\)/],
  [
    'a getter',
    Object.defineProperty({}, 'type', { get: () => 'string', enumerable: true }),
    '/type',
    /is a getter/,
  ],
  [
    'a keyword of the wrong type',
    { properties: { a: { type: 'strng' } } },
    '/properties/a/type',
    /must be one of/,
  ],
  [
    '"$async" in a property',
    { properties: { a: { $async: true } } },
    '/properties/a/$async',
    /asynchronous/,
  ],
  [
    'a remote $ref',
    { properties: { a: { $ref: 'https://example.invalid/s.json' } } },
    '/properties/a/$ref',
    /points outside the schema \(nothing is fetched\)/,
  ],
  [
    'a $ref to nothing',
    { properties: { a: { $ref: '#/$defs/missing' } } },
    '/properties/a/$ref',
    /points at nothing/,
  ],
  ['a backreference', { pattern: '(a)\\1' }, '/pattern', /backreference/],
  ['lookahead', { pattern: '^(?=a)a+$' }, '/pattern', /lookahead/],
  ['a repeat RE2 cannot hold', { pattern: 'a{5000}' }, '/pattern', /RE2 cannot run it/],
  ['an invalid pattern', { pattern: '(' }, '/pattern', /not a valid ECMAScript regular expression/],
  [
    'more than 64 patternProperties',
    {
      patternProperties: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`^k${i}$`, {}])),
    },
    '/patternProperties',
    /it has 65 patterns, more than 64/,
  ],
  [
    'an unknown "$schema"',
    { $schema: 'https://example.invalid/dialect' },
    '/$schema',
    /names no dialect/,
  ],
];

describe('what it refuses, each with the path in the schema', () => {
  for (const [what, schema, path, reason] of refused) {
    it(`refuses ${what} at "${path}"`, () => {
      const outcome = tryCompileSchema(schema);
      expect(outcome).toMatchObject({ ok: false, path });
      expect(outcome.ok ? '' : outcome.reason).toMatch(reason);
    });
  }
});
