import { readFileSync } from 'node:fs';
import { compileSchema, tryCompileSchema } from '@dsh-tools/schema';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('the README example', () => {
  it('runs as written, through the package name', () => {
    const outcome = tryCompileSchema({
      type: 'object',
      properties: { path: { type: 'string', pattern: '^(/[a-z]+)+$' } },
      required: ['path'],
    });
    if (!outcome.ok) throw new Error(`schema refused: ${outcome.reason}`);
    expect(outcome.validator.validate({ path: '/tmp/a' })).toBeUndefined();
    expect(outcome.validator.validate({ path: 'x' })).toBe(
      '"/path" must match pattern "^(/[a-z]+)+$"',
    );

    const refused = tryCompileSchema({ type: 'string', pattern: '(a)\\1' });
    expect(refused).toMatchObject({ ok: false, path: '/pattern' });
    expect(refused.ok ? '' : refused.reason).toMatch(
      /^at "\/pattern": the pattern "\(a\)\\\\1" is refused: the backreference \\1 cannot run in linear time\. /,
    );

    expect(
      compileSchema({ type: 'string', pattern: '^(a+)+$' }).validate(`${'a'.repeat(10_000)}!`),
    ).toBe('the value must match pattern "^(a+)+$"');
  });

  it('is the code the README shows', () => {
    const usage = readme.slice(readme.indexOf('## Usage'), readme.indexOf('## Guarantees'));
    for (const line of [
      "import { compileSchema, tryCompileSchema } from '@dsh-tools/schema';",
      "  properties: { path: { type: 'string', pattern: '^(/[a-z]+)+$' } },",
      "outcome.validator.validate({ path: '/tmp/a' }); // undefined: valid",
      `outcome.validator.validate({ path: 'x' }); // '"/path" must match pattern "^(/[a-z]+)+$"'`,
      "tryCompileSchema({ type: 'string', pattern: '(a)\\\\1' });",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the README's line, as text
      "compileSchema({ type: 'string', pattern: '^(a+)+$' }).validate(`${'a'.repeat(10_000)}!`);",
      `// 'the value must match pattern "^(a+)+$"'`,
    ]) {
      expect(usage).toContain(line);
    }
  });
});
