import type { JsonSchema, ObjectJsonSchema } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { call, expectFailure, readFile } from '../test/helpers';
import { readDefinition } from './definition';
import { createToolRegistry } from './index';

const tool = (parameters: Record<string, unknown>) =>
  readFile({ name: 'odd', parameters: { type: 'object', ...parameters } as ObjectJsonSchema });

/**
 * Every way a schema can make Ajv's validator asynchronous, skip a check, recurse forever or
 * throw, and what the registry does instead: refuse the tool at `register`, naming the tool,
 * the path in the schema and what to do.
 */
const refused: [string, Record<string, unknown>, RegExp][] = [
  [
    '$async at the root (a validator returning a promise)',
    { $async: true },
    /at "\/\$async": "\$async" makes the validator asynchronous/,
  ],
  ['$async: false (the keyword itself is refused)', { $async: false }, /"\$async"/],
  [
    '$async in a property',
    { properties: { a: { $async: true, type: 'string' } } },
    /at "\/properties\/a\/\$async"/,
  ],
  [
    '$async behind a $ref into an unknown keyword',
    { properties: { a: { $ref: '#/x-ext/s' } }, 'x-ext': { s: { $async: true } } },
    /\$async/,
  ],
  [
    '$data in a keyword that takes a number',
    { properties: { a: { type: 'number', maximum: { $data: '1/b' } } } },
    /at "\/properties\/a\/maximum": must be number/,
  ],
  [
    '$data in a keyword that takes a string',
    { properties: { a: { pattern: { $data: '1/b' } } } },
    /at "\/properties\/a\/pattern": must be string/,
  ],
  [
    'a keyword value of the wrong type',
    { properties: { a: { type: 'strng' } } },
    /at "\/properties\/a\/type": must be one of/,
  ],
  ['required that is not a list of names', { required: 'a' }, /at "\/required": must be array/],
  [
    'draft-04 boolean exclusiveMinimum',
    { properties: { a: { exclusiveMinimum: true } } },
    /at "\/properties\/a\/exclusiveMinimum": must be number/,
  ],
  [
    'nullable without type (Ajv throws)',
    { properties: { a: { nullable: true } } },
    /"nullable" cannot be used without "type"/,
  ],
  [
    'a remote $ref (nothing is fetched)',
    { properties: { a: { $ref: 'https://example.invalid/s.json' } } },
    /points outside the schema/,
  ],
  ['a $ref to nothing', { properties: { a: { $ref: '#/$defs/missing' } } }, /points at nothing/],
  ['a $ref to an unknown anchor', { properties: { a: { $ref: '#nowhere' } } }, /names no anchor/],
  [
    'a $ref to something that is not a schema',
    { properties: { a: { $ref: '#/required/0' } }, required: ['a'] },
    /not a schema/,
  ],
  ['$ref: "#" at the root', { $ref: '#' }, /cycle that never reaches a smaller piece of data/],
  [
    '$defs a -> b -> a',
    {
      $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      properties: { x: { $ref: '#/$defs/a' } },
    },
    /cycle/,
  ],
  [
    'a cycle through allOf / anyOf / not / if',
    {
      $defs: { a: { anyOf: [{ not: { if: { allOf: [{ $ref: '#/$defs/a' }] } } }] } },
      properties: { x: { $ref: '#/$defs/a' } },
    },
    /cycle/,
  ],
  [
    'a cycle through dependentSchemas',
    {
      $defs: { a: { dependentSchemas: { k: { $ref: '#/$defs/a' } } } },
      allOf: [{ $ref: '#/$defs/a' }],
    },
    /cycle/,
  ],
  ['a $dynamicRef cycle', { $dynamicAnchor: 'm', allOf: [{ $dynamicRef: '#m' }] }, /cycle/],
  [
    'a pattern with a backreference',
    { properties: { a: { pattern: '(a)\\1' } } },
    /at "\/properties\/a\/pattern".*backreference/,
  ],
  ['a pattern with lookahead', { properties: { a: { pattern: '^(?=a)a+$' } } }, /lookahead/],
  [
    'a patternProperties key with lookbehind',
    { patternProperties: { '(?<=x)y': {} } },
    /at "\/patternProperties\/\(\?<=x\)y".*lookahead and lookbehind/,
  ],
  [
    'a pattern that is not a regular expression',
    { properties: { a: { pattern: '(' } } },
    /not a valid ECMAScript regular expression/,
  ],
  ['a repeat RE2 cannot hold', { properties: { a: { pattern: 'a{5000}' } } }, /RE2 cannot run it/],
  [
    'more than 64 patternProperties in one object (each argument key is matched against each)',
    {
      patternProperties: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`^k${i}$`, {}])),
    },
    /at "\/patternProperties": it has 65 patterns, more than 64/,
  ],
];

describe('schemas fail closed at registration', () => {
  for (const [what, parameters, message] of refused) {
    it(`refuses ${what}`, () => {
      const registry = createToolRegistry();
      let thrown: unknown;
      try {
        registry.register(tool(parameters));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect(String(thrown)).toMatch(/register\(\): tool "odd": its schema is refused: /);
      expect(String(thrown)).toMatch(message);
      expect(String(thrown)).toMatch(/The registry runs no tool whose schema it cannot enforce/);
      expect(registry.has('odd')).toBe(false);
      expect(registry.schemas()).toEqual([]);
    });
  }

  it('checks what references reach in places the walk does not enter, through chains of any length', () => {
    // Each hidden schema refers to the next; only the last one is wrong. Every one of the 1,000 is
    // reached late, from the reference pass, which goes on from where it is (it once copied every
    // place found so far for each new one: 1,000 such references took 120 ms).
    const hidden: Record<string, JsonSchema> = {};
    for (let i = 0; i < 1_000; i++) hidden[`h${i}`] = { $ref: `#/x-hidden/h${i + 1}` };
    hidden.h1000 = { type: 'string', pattern: '^(?!x)' };
    const registry = createToolRegistry();
    expect(() =>
      registry.register(tool({ properties: { a: { $ref: '#/x-hidden/h0' } }, 'x-hidden': hidden })),
    ).toThrow(/\/properties\/a(\/\$ref){1001}\/pattern.*lookahead/);
    hidden.h1000 = { $ref: '#/x-hidden/h0' };
    expect(() =>
      registry.register(tool({ properties: { a: { $ref: '#/x-hidden/h0' } }, 'x-hidden': hidden })),
    ).toThrow(/references form a cycle/);
  });

  it('validates a recursive schema with $ref "#" on a property, at every depth', async () => {
    const registry = createToolRegistry();
    registry.register(
      tool({
        properties: { child: { $ref: '#' }, v: { type: 'number' } },
        additionalProperties: false,
      }),
    );
    const ok = await registry.execute(call('odd', { child: { child: { v: 1 } }, v: 2 }));
    expect(ok.isError).toBe(false);
    const bad = await registry.execute(call('odd', { child: { child: { child: { v: 'x' } } } }));
    expectFailure(bad, 'INVALID_ARGS');
    expect(bad.error?.message).toMatch(/argument "child\/child\/child\/v" must be number/);
  });

  it('validates a $defs cycle that passes through properties and items', async () => {
    const registry = createToolRegistry();
    registry.register(
      tool({
        properties: { root: { $ref: '#/$defs/node' } },
        $defs: {
          node: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              kids: { type: 'array', items: { $ref: '#/$defs/other' } },
            },
          },
          other: { allOf: [{ $ref: '#/$defs/node' }] },
        },
      }),
    );
    const deep = { root: { name: 'a', kids: [{ name: 'b', kids: [{ name: 3 }] }] } };
    const result = await registry.execute(call('odd', deep));
    expectFailure(result, 'INVALID_ARGS');
    expect(result.error?.message).toMatch(/argument "root\/kids\/0\/kids\/0\/name" must be string/);
    expect((await registry.execute(call('odd', { root: { name: 'a', kids: [] } }))).isError).toBe(
      false,
    );
  });

  it('resolves anchors and embedded $ids, and fetches nothing', async () => {
    const registry = createToolRegistry();
    registry.register(
      tool({
        $id: 'https://example.invalid/root.json',
        properties: { a: { $ref: '#word' }, b: { $ref: 'b.json' } },
        $defs: { w: { $anchor: 'word', type: 'string' }, b: { $id: 'b.json', type: 'integer' } },
      }),
    );
    expect((await registry.execute(call('odd', { a: 'x', b: 1 }))).isError).toBe(false);
    expectFailure(await registry.execute(call('odd', { a: 1, b: 1.5 })), 'INVALID_ARGS');
  });

  it('keeps an OpenAPI "nullable" next to "type" as Ajv reads it (null allowed), which neither skips nor throws', async () => {
    const registry = createToolRegistry();
    registry.register(tool({ properties: { a: { type: 'string', nullable: true } } }));
    expect((await registry.execute(call('odd', { a: null }))).isError).toBe(false);
    expectFailure(await registry.execute(call('odd', { a: 1 })), 'INVALID_ARGS');
  });

  it('ignores keywords and formats it does not know, as JSON Schema says, and enforces the rest', async () => {
    const registry = createToolRegistry({ onError: () => {} });
    registry.register(
      tool({
        properties: { a: { type: 'string', format: 'x-custom', 'x-vendor': { $async: true } } },
        discriminator: { propertyName: 'a' },
      }),
    );
    expect((await registry.execute(call('odd', { a: 'x' }))).isError).toBe(false);
    expectFailure(await registry.execute(call('odd', { a: 1 })), 'INVALID_ARGS');
  });

  it("compiles a Standard Schema tool's parameters not at all (its validator validates)", () => {
    const entry = readDefinition({
      ...tool({ properties: { a: { pattern: '(a)\\1' } } }),
      inputValidator: {
        '~standard': { version: 1, vendor: 'x', validate: (v: unknown) => ({ value: v }) },
      },
    });
    expect(entry.compiled).toBeUndefined();
  });
});

describe('the schema budget', () => {
  const sized = (bytes: number) => readFile({ name: 'big', description: 'd'.repeat(bytes) });

  it('refuses a tool whose description plus parameters are over 64 KiB, saying the size, the limit and the option', () => {
    const base = JSON.stringify(sized(0).parameters).length;
    expect(() => readDefinition(sized(65_536 - base))).not.toThrow();
    expect(() => readDefinition(sized(65_537 - base))).toThrow(
      /register\(\): tool "big": its schema is refused: its description plus parameters as JSON is 65,537 bytes, over the schema budget of 65,536 bytes; shorten it, or raise the budget with createToolRegistry\(\{ maxSchemaBytes \}\)/,
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    const base = JSON.stringify(sized(0).parameters).length;
    expect(() => readDefinition(sized(0), { maxSchemaBytes: base })).not.toThrow();
    const def = { ...sized(0), description: 'é' };
    expect(() => readDefinition(def, { maxSchemaBytes: base + 1 })).toThrow(/is \d+ bytes/);
  });

  it('takes another limit', () => {
    expect(() => readDefinition(sized(100_000), { maxSchemaBytes: 200_000 })).not.toThrow();
    expect(() => readDefinition(sized(100), { maxSchemaBytes: 50 })).toThrow(
      /over the schema budget of 50 bytes/,
    );
  });

  it('refuses a 20,000-property schema by its size, before compiling it', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
    );
    expect(() => readDefinition(tool({ properties }))).toThrow(
      /over the schema budget of 65,536 bytes/,
    );
  });
});
