/**
 * What a package standing in for `@deepseek-ai/dsh-tools` must give the harness's published
 * packages: every runtime name they import from it (surveyed from the installed packages
 * themselves), and the same JSON Schema from the same definition spec, key for key, so that the
 * model's prompt stays byte-identical.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as upstream from '@deepseek-ai/dsh-tools';
import * as harness from 'dsh-tools/harness';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const scope = join(dirname(require.resolve('@deepseek-ai/dsh-tools/package.json')), '..');

/** Every `import { … } from "@deepseek-ai/dsh-tools"` of the installed harness packages, by package. */
function survey(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const root = join(import.meta.dirname, '../node_modules/@deepseek-ai');
  for (const name of readdirSync(root)) {
    let text: string;
    try {
      text = readFileSync(join(root, name, 'lib/index.js'), 'utf8');
    } catch {
      continue;
    }
    for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"@deepseek-ai\/dsh-tools"/g)) {
      const names = (match[1] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0] ?? '');
      found.set(name, [...(found.get(name) ?? []), ...names.filter(Boolean)]);
    }
  }
  return found;
}

describe('dsh-tools/harness, the runtime a stand-in for @deepseek-ai/dsh-tools serves', () => {
  it('exports every name the installed harness packages import from @deepseek-ai/dsh-tools', () => {
    const imports = survey();
    // The survey saw the loop and the tool plugins (an empty survey would prove nothing).
    expect([...imports.keys()]).toEqual(
      expect.arrayContaining(['dsh-agent-loop', 'dsh-tool-fs', 'dsh-tool-bash', 'dsh-tool-goal']),
    );
    const missing = [...imports].flatMap(([pkg, names]) =>
      names.filter((n) => !(n in harness)).map((n) => `${pkg}: ${n}`),
    );
    expect(missing).toEqual([]);
    expect(harness.default).toBe(harness.ToolRuntime);
    expect(harness.TOOL_ABORTED_BEFORE_DISPATCH).toBe(upstream.TOOL_ABORTED_BEFORE_DISPATCH);
    expect(harness.TOOL_ABORTED).toBe(upstream.TOOL_ABORTED);
    expect(scope).toMatch(/@deepseek-ai$/);
  });

  // A value spec as the harness's DSL writes one, with now and then a mistake in it.
  const annotations = fc.record(
    { description: fc.string(), title: fc.string(), default: fc.integer(), examples: fc.integer() },
    { requiredKeys: [] },
  );
  const scalar = fc.oneof(
    fc.record(
      { type: fc.constant('string'), enum: fc.array(fc.string(), { minLength: 1, maxLength: 3 }) },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { type: fc.constantFrom('number', 'integer'), const: fc.integer() },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constantFrom('boolean', 'null', 'json') }),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.tuple(scalar, annotations).map(([s, a]) => ({ ...a, ...s })),
      fc.record({ type: fc.constant('array'), items: tie('value') }, { requiredKeys: ['type'] }),
      fc.record(
        {
          type: fc.constant('object'),
          additionalProperties: fc.boolean(),
          properties: tie('params'),
        },
        { requiredKeys: ['type', 'additionalProperties'] },
      ),
      fc.record({ oneOf: fc.array(tie('value'), { minLength: 2, maxLength: 3 }) }),
      // Mistakes: an unknown key, a wrong type name, a one-option oneOf.
      fc.constantFrom(
        { type: 'string', bogus: 1 },
        { type: 'weird' },
        { oneOf: [{ type: 'string' }] },
        { type: 'object' },
      ),
    ),
    params: fc.dictionary(
      fc.stringMatching(/^[a-z]{1,6}$/),
      fc
        .tuple(tie('value'), fc.boolean())
        .map(([v, required]) =>
          required && typeof v === 'object' ? { ...(v as object), required: true } : v,
        ),
      { maxKeys: 3 },
    ),
  }));

  const outcome = (convert: () => unknown) => {
    try {
      return JSON.stringify(convert());
    } catch (error) {
      return `throws ${(error as { code?: string }).code}`;
    }
  };

  it('converts every spec to the same JSON Schema, key for key, or refuses it as the harness does, and declares it as the same TypeScript', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
    console.log(`fast-check seed ${seed}`);
    fc.assert(
      fc.property(value, (spec) => {
        expect(outcome(() => harness.valueSchemaSpecToJsonSchema(spec))).toBe(
          outcome(() => upstream.valueSchemaSpecToJsonSchema(spec as never)),
        );
        const params = { p: spec };
        expect(outcome(() => harness.parameterSchemaSpecToJsonSchema(params))).toBe(
          outcome(() => upstream.parameterSchemaSpecToJsonSchema(params as never)),
        );
        // Code Mode declares each schema it accepts as the same TypeScript type.
        let schema: unknown;
        try {
          schema = upstream.parameterSchemaSpecToJsonSchema(params as never);
        } catch {
          return;
        }
        expect(harness.jsonSchemaToTs(schema, 1)).toBe(upstream.jsonSchemaToTs(schema, 1));
      }),
      { seed, numRuns: 300 },
    );
  });

  it('defines a tool with the harness keys that both services register and run alike', () => {
    const options = {
      name: 'greet',
      description: 'Greets.',
      parameters: { who: { type: 'string', required: true } },
      output: {
        schema: { type: 'string' },
        render: (_a: unknown, v: unknown) => [{ type: 'text', text: v }],
      },
      isConcurrencySafe: () => true,
      execute: async (args: { who: string }) => `hello ${args.who}`,
    } as const;
    const ours = harness.defineTool(options);
    const theirs = upstream.defineTool(options as never);
    expect(JSON.stringify({ p: ours.parameters, o: ours.output.schema })).toBe(
      JSON.stringify({ p: theirs.parameters, o: theirs.output.schema }),
    );
    expect(ours.isConcurrencySafe({ who: 'x' })).toBe(true);
    expect(ours.isConcurrencySafe({})).toBe(false);
    return expect(ours.execute({}, {})).rejects.toMatchObject({ code: 'INVALID_ARGS' });
  });
});
