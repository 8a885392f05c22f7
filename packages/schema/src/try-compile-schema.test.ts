import { describe, expect, it } from 'vitest';
import { compileSchema, tryCompileSchema } from './index';

describe('tryCompileSchema', () => {
  it('answers a validator and what the engine ignored, for a schema it can enforce', () => {
    const outcome = tryCompileSchema({
      type: 'object',
      properties: { at: { type: 'string', format: 'no-such-format' } },
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.warnings).toEqual([
      'unknown format "no-such-format" ignored in schema at path "#/properties/at"',
    ]);
    expect(outcome.validator.validate({ at: 1 })).toBe('"/at" must be string');
  });

  it('answers a refusal with its path and the reason compileSchema throws, for each kind of refusal', () => {
    const cases: [unknown, string][] = [
      [null, ''],
      [{ default: () => 1 }, '/default'],
      [{ minimum: '5' }, '/minimum'],
      [{ $async: true }, '/$async'],
      [{ properties: { a: { $ref: 'https://example.invalid/s.json' } } }, '/properties/a/$ref'],
      [{ properties: { a: { pattern: '^(?=a)a+$' } } }, '/properties/a/pattern'],
    ];
    for (const [schema, path] of cases) {
      const outcome = tryCompileSchema(schema);
      expect(outcome).toMatchObject({ ok: false, path });
      const reason = outcome.ok ? '' : outcome.reason;
      expect(() => compileSchema(schema)).toThrow(
        new Error(`compileSchema(): the schema is refused: ${reason}.`),
      );
    }
  });

  it('refuses a schema over budget as a whole, naming itself in the option it quotes and in a bad option', () => {
    const outcome = tryCompileSchema({ description: 'x'.repeat(100) }, { maxSchemaBytes: 50 });
    expect(outcome).toMatchObject({ ok: false, path: '' });
    expect(outcome.ok ? '' : outcome.reason).toMatch(
      /over the schema budget of 50 bytes; shorten it, or raise the budget with tryCompileSchema\(schema, \{ maxSchemaBytes \}\)$/,
    );
    expect(() => tryCompileSchema({}, { maxSchemaBytes: 0 })).toThrow(
      new TypeError(
        'tryCompileSchema(): "maxSchemaBytes" must be a whole number of bytes >= 1 (got 0).',
      ),
    );
  });

  it('refuses a schema whose Proxy traps throw, instead of throwing', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    expect(tryCompileSchema(hostile)).toEqual({
      ok: false,
      path: '',
      reason: 'at its root: it could not be read (trap); a schema must be plain JSON',
    });
  });
});
