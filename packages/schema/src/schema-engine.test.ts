import { describe, expect, it } from 'vitest';
import { type AjvCodegen, makeEngine } from './schema-engine';

describe('generated code grows with the schema, not with its references', () => {
  it('compiles a $ref target once, however often it is referred to (100 references: 4.4 KB of schema)', async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 5 }]),
    );
    const schema = {
      type: 'object' as const,
      $defs: { a: { type: 'object', properties } },
      allOf: Array.from({ length: 100 }, () => ({ $ref: '#/$defs/a' })),
    };
    const ajv = (await import('ajv')) as unknown as AjvCodegen;
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const standalone = (await import('ajv/dist/standalone/index.js')).default;
    const engine = makeEngine(Ajv2020, ajv, {
      ownProperties: false,
      source: true,
      formats: [],
      regExp: Object.assign(() => ({ test: () => true }), { code: 'require("dsh:pattern")' }),
      duplicateOf: () => undefined,
      warn: () => {},
    });
    const code = standalone(engine, engine.compile(schema));
    // Pasted at each reference (Ajv's default), the definition made 4.3 MB of code (966 times
    // the schema) and took 1.3 s to compile; 3,000 references fit in the budget.
    expect(code.length).toBeLessThan(40 * JSON.stringify(schema).length);
  });
});
