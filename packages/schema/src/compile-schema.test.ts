import { describe, expect, it } from 'vitest';
import { compileSchema } from './index';

describe('compileSchema', () => {
  it('validates, answering undefined or a message naming the path', () => {
    const check = compileSchema({
      type: 'object',
      properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name'],
    });
    expect(check.validate({ name: 'a', tags: ['x'] })).toBeUndefined();
    expect(check.validate({ name: 1 })).toMatch(/"\/name" must be string/);
    expect(check.validate({ tags: [1] })).toMatch(/must have required property 'name'/);
    expect(check.validate({ tags: [1] })).toMatch(/"\/tags\/0" must be string/);
    expect(compileSchema(true).validate(1)).toBeUndefined();
    expect(compileSchema(false).validate(1)).toMatch(/the value/);
  });

  it('accepts any JSON Schema root, not only objects', () => {
    const check = compileSchema({ type: 'string', maxLength: 3 });
    expect(check.validate('abc')).toBeUndefined();
    expect(check.validate('abcd')).toMatch(/the value must NOT have more than 3 characters/);
  });

  it('refuses what is not a schema, naming what it got', () => {
    for (const bad of [null, 1, 'x', [], undefined]) {
      expect(() => compileSchema(bad)).toThrow(
        /compileSchema\(\): the schema is refused: at its root/,
      );
    }
    expect(() => compileSchema({ type: 'object', default: () => 1 })).toThrow(/plain JSON/);
  });

  it('refuses a schema that is not valid against its meta-schema, naming the path', () => {
    expect(() => compileSchema({ properties: { a: { type: 'strin' } } })).toThrow(
      /at "\/properties\/a\/type": must be one of/,
    );
    expect(() => compileSchema({ minimum: '5' })).toThrow(/at "\/minimum": must be number/);
  });

  it('holds a schema to the budget, naming its size, the limit and the option', () => {
    const big = { description: 'x'.repeat(70_000) };
    expect(() => compileSchema(big)).toThrow(
      /the schema as JSON is 70,018 bytes, over the schema budget of 65,536 bytes.*compileSchema\(schema, \{ maxSchemaBytes \}\)/,
    );
    expect(compileSchema(big, { maxSchemaBytes: 100_000 }).validate(1)).toBeUndefined();
    expect(() => compileSchema({}, { maxSchemaBytes: 0 })).toThrow(/"maxSchemaBytes" must be/);
    expect(() => compileSchema({}, { maxSchemaBytes: 1.5 })).toThrow(/"maxSchemaBytes" must be/);
  });

  it('is refused by the same fail-closed rules as registration', () => {
    expect(() => compileSchema({ $async: true })).toThrow(/"\$async"/);
    expect(() => compileSchema({ pattern: '(a)\\1' })).toThrow(/backreference/);
    expect(() => compileSchema({ $ref: '#' })).toThrow(/cycle/);
  });

  it('enforces contains next to prefixItems inside if / not (an Ajv 8 defect the fuzzer found)', () => {
    // Ajv alone accepts [] here: it counts the if-schema as satisfied and takes `then`.
    const check = compileSchema({
      if: { contains: false, prefixItems: [{}] },
      // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword here
      then: true,
      else: false,
    });
    expect(check.validate([])).toMatch(/the value/);
    expect(
      compileSchema({ not: { contains: false, prefixItems: [{ type: 'string' }] } }).validate([]),
    ).toBeUndefined();
    const counted = compileSchema({
      contains: { type: 'string' },
      minContains: 2,
      prefixItems: [true],
    });
    expect(counted.validate(['a', 'b'])).toBeUndefined();
    expect(counted.validate(['a', 1])).toMatch(/must contain at least 2 valid item/);
  });

  it('refuses a "$schema" it does not know with a message, not an engine exception', () => {
    expect(() => compileSchema({ $schema: '#' })).toThrow(
      /compileSchema\(\): the schema is refused: at "\/\$schema": it names no dialect the registry knows/,
    );
  });

  it('validates a plain-JSON copy of the value, naming what is not JSON', () => {
    const check = compileSchema({ type: 'object', uniqueItems: true });
    const bare = Object.assign(Object.create(null), { a: 1 });
    expect(check.validate(bare)).toBeUndefined();
    expect(check.validate({ a: 10n })).toMatch(/"\/a"/);
    expect(
      check.validate({
        get a() {
          return 1;
        },
      }),
    ).toMatch(/getter/);
  });

  it('checks uniqueItems in one pass, by JSON equality (key order and 1 vs 1.0 do not matter)', () => {
    const check = compileSchema({ type: 'array', uniqueItems: true });
    expect(
      check.validate([
        { a: 1, b: [2] },
        { b: [2], a: 1.0 },
      ]),
    ).toMatch(/must NOT have duplicate items \(items ## 0 and 1 are identical\)/);
    expect(check.validate([{ a: 1 }, { a: '1' }, [1], [1, 1], null, 'null'])).toBeUndefined();
    const many = Array.from({ length: 5_000 }, (_, i) => ({ a: i }));
    expect(check.validate(many)).toBeUndefined();
    expect(check.validate([...many, { a: 0 }])).toMatch(/items ## 0 and 5000 are identical/);
    expect(compileSchema({ uniqueItems: false }).validate([1, 1])).toBeUndefined();
  });
});
