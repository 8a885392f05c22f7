import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { jsonSchemaToTs, renderToolsSdk } from './code-mode-sdk';

/** The syntax errors TypeScript finds in a piece of code. */
const syntaxErrors = (code: string): string[] =>
  (ts.transpileModule(code, { reportDiagnostics: true }).diagnostics ?? []).map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );

/** The declarations block of an SDK section. */
const declarations = (sdk: string): string => sdk.slice(sdk.indexOf('```ts') + 5, -3);

describe('jsonSchemaToTs', () => {
  it('declares what each schema construct allows', () => {
    expect(jsonSchemaToTs({ type: 'integer' })).toBe('number');
    expect(jsonSchemaToTs({ enum: ['a', 1, null] })).toBe('"a" | 1 | null');
    expect(jsonSchemaToTs({ const: 'x' })).toBe('"x"');
    expect(jsonSchemaToTs({ type: ['string', 'null'] })).toBe('string | null');
    expect(
      jsonSchemaToTs({ type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'number' }] } }),
    ).toBe('(string | number)[]');
    expect(jsonSchemaToTs({ type: 'array' })).toBe('JsonValue[]');
    expect(jsonSchemaToTs({ description: 'anything' })).toBe('JsonValue');
    expect(jsonSchemaToTs({ $ref: '#/x' })).toBe('unknown');
    expect(
      jsonSchemaToTs({
        type: 'object',
        additionalProperties: false,
        required: ['a-b'],
        properties: { 'a-b': { type: 'string', description: 'ends */ early' }, c: {} },
      }),
    ).toBe('{\n  /** ends *\\/ early */\n  "a-b": string;\n  c?: JsonValue;\n}');
    expect(jsonSchemaToTs({ type: 'object' })).toBe('Record<string, JsonValue>');
  });

  it('never throws and always renders an SDK TypeScript parses, whatever the schemas', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed}`);
    const schema = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.anything(),
        fc.record(
          {
            type: fc.oneof(
              fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'array', 'object'),
              fc.array(fc.constantFrom('string', 'object', 'array', 'nope')),
            ),
            items: tie('node'),
            properties: fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 }),
            required: fc.array(fc.string()),
            additionalProperties: fc.boolean(),
            oneOf: fc.array(tie('node'), { maxLength: 3 }),
            enum: fc.array(fc.jsonValue(), { maxLength: 3 }),
            const: fc.jsonValue(),
            description: fc.string(),
          },
          { requiredKeys: [] },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ minLength: 1 }), schema, schema), { maxLength: 4 }),
        (tools) => {
          const sdk = renderToolsSdk(
            tools.map(([name, parameters, output]) => ({
              name,
              description: String(name),
              parameters,
              output,
            })),
          );
          expect(syntaxErrors(declarations(sdk))).toEqual([]);
        },
      ),
      { seed, numRuns: 300 },
    );
  });
});
