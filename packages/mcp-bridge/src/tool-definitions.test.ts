import type { BodyExecution } from '@dsh-tools/protocol';
import { createToolRegistry } from '@dsh-tools/registry';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyToolDiff } from './apply-tool-diff';
import { MAX_DESCRIPTION } from './limits';
import { mcpToolName, TOOL_NAME_PATTERN } from './naming';
import {
  desiredTools,
  malformed,
  matches,
  type ToolCaller,
  toolRecord,
  toParameters,
} from './tool-definitions';
import type { ListedTool } from './types';

const noCall: ToolCaller = () => {
  throw new Error('not called in these tests');
};

const build = (
  listed: readonly unknown[],
  config: Parameters<typeof desiredTools>[1] = { name: 'srv' },
) => {
  const reports: string[] = [];
  const desired = desiredTools(listed as ListedTool[], config, noCall, (e) =>
    reports.push(e.message),
  );
  return { desired, reports };
};

describe('desiredTools', () => {
  it('keeps each well-formed, first-listed tool that passes the filters, in order, under its public name', () => {
    const listedTool = fc.oneof(
      fc.record({
        name: fc.oneof(
          fc.constantFrom('a', 'b', 'read_x', 'read_y', 'x.y'),
          fc.string({ maxLength: 8 }),
        ),
      }),
      fc.anything(),
    );
    fc.assert(
      fc.property(fc.array(listedTool, { maxLength: 20 }), fc.boolean(), (listed, filtered) => {
        const config = filtered
          ? { name: 'srv', include: ['read_*', /^x/], exclude: ['read_y'] }
          : { name: 'srv' };
        const { desired, reports } = build(listed, config);
        const expected: string[] = [];
        let skipped = 0;
        for (const t of listed) {
          if (malformed(t) !== undefined) {
            skipped++;
            continue;
          }
          const name = (t as ListedTool).name;
          if (filtered && !(/^read_/.test(name) || /^x/.test(name))) continue;
          if (filtered && name === 'read_y') continue;
          if (expected.includes(name)) {
            skipped++;
            continue;
          }
          expected.push(name);
        }
        expect([...desired.values()].map((r) => r.tool)).toEqual(expected);
        expect([...desired.keys()]).toEqual(expected.map((n) => mcpToolName('srv', n)));
        expect(reports).toHaveLength(skipped);
        for (const [name, r] of desired) {
          expect(name).toMatch(TOOL_NAME_PATTERN);
          expect(r.definition.name).toBe(name);
          expect(r.definition.source).toEqual({ kind: 'mcp', server: 'srv', tool: r.tool });
          expect(r.definition.timeoutMs).toBe(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reports what it skipped, naming the server and the tool', () => {
    const { desired, reports } = build([
      { name: 'a' },
      { name: 'a' },
      { name: '' },
      7,
      { name: 'b', inputSchema: [] },
    ]);
    expect([...desired.keys()]).toEqual(['mcp__srv__a']);
    expect(reports).toEqual([
      'MCP server "srv" listed tool "a" twice; the first one is used.',
      'MCP server "srv" listed a tool without a name (""); that tool is skipped.',
      'MCP server "srv" listed an entry that is not a tool (number); that tool is skipped.',
      'MCP server "srv" listed tool "b" with an inputSchema that is not an object; that tool is skipped.',
    ]);
  });

  it('calls the server tool by its own name from the body', async () => {
    const seen: unknown[] = [];
    const call: ToolCaller = (tool, args) => {
      seen.push([tool, args]);
      return [];
    };
    const desired = desiredTools([{ name: 'odd name' }], { name: 'srv' }, call, () => {});
    const [record] = [...desired.values()];
    await record?.definition.execute({ q: 1 }, {} as BodyExecution);
    expect(seen).toEqual([['odd name', { q: 1 }]]);
  });
});

describe('toolRecord', () => {
  const one = (tool: ListedTool, trust?: boolean) =>
    toolRecord('p', tool, trust === undefined ? { name: 'srv' } : { name: 'srv', trust }, noCall);

  it('keeps a description of exactly 16,384 characters and cuts one longer', () => {
    for (const length of [MAX_DESCRIPTION - 1, MAX_DESCRIPTION]) {
      expect(one({ name: 't', description: 'd'.repeat(length) }).definition.description).toBe(
        'd'.repeat(length),
      );
    }
    for (const length of [MAX_DESCRIPTION + 1, MAX_DESCRIPTION * 10]) {
      expect(one({ name: 't', description: 'd'.repeat(length) }).definition.description).toBe(
        `${'d'.repeat(MAX_DESCRIPTION)}…`,
      );
    }
  });

  it('falls back from description to title to a sentence naming tool and server', () => {
    expect(one({ name: 't', description: '  ', title: ' Title ' }).definition.description).toBe(
      'Title',
    );
    expect(one({ name: 't', description: 3, title: null }).definition.description).toBe(
      'Tool "t" of MCP server "srv".',
    );
  });

  it('believes annotations only when trust is the boolean true', () => {
    const annotations = {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: 'yes',
    };
    expect(one({ name: 't', annotations }, true).definition.hints).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      concurrencySafe: true,
    });
    for (const trust of [undefined, false, 'true' as unknown as boolean, 1 as unknown as boolean]) {
      expect(one({ name: 't', annotations }, trust).definition.hints).toEqual({});
    }
  });

  it('changes its key exactly when what the model or a policy sees changes', () => {
    const a = one({ name: 't', description: 'x', inputSchema: { type: 'object' } }, true);
    expect(one({ name: 't', description: 'x', inputSchema: { type: 'object' } }, true).key).toBe(
      a.key,
    );
    expect(
      one({ name: 't', description: 'y', inputSchema: { type: 'object' } }, true).key,
    ).not.toBe(a.key);
    expect(
      one({ name: 't', description: 'x', inputSchema: { properties: { q: {} } } }, true).key,
    ).not.toBe(a.key);
    expect(
      one({ name: 't', description: 'x', annotations: { readOnlyHint: true } }, true).key,
    ).not.toBe(a.key);
  });
});

describe('malformed', () => {
  it('takes a name of up to 1,024 characters and refuses a longer one', () => {
    expect(malformed({ name: 'n'.repeat(1023) })).toBeUndefined();
    expect(malformed({ name: 'n'.repeat(1024) })).toBeUndefined();
    expect(malformed({ name: 'n'.repeat(1025) })).toBe('a tool whose name is 1025 characters long');
  });

  it('refuses an inputSchema that cannot be function parameters', () => {
    expect(malformed({ name: 't', inputSchema: { type: 'string' } })).toContain(
      'of type "string", not "object"',
    );
    expect(malformed({ name: 't', inputSchema: { properties: [] } })).toContain(
      '"properties" that is not an object',
    );
    expect(malformed({ name: 't', inputSchema: { required: ['a', 1] } })).toContain(
      '"required" that is not an array of names',
    );
    expect(
      malformed({ name: 't', inputSchema: { type: 'object', required: ['a'] } }),
    ).toBeUndefined();
  });
});

describe('toParameters', () => {
  it('drops $schema, forces type object, and makes anything else an empty object schema', () => {
    expect(toParameters({ $schema: 'x', properties: { a: {} } })).toEqual({
      type: 'object',
      properties: { a: {} },
    });
    for (const schema of [undefined, null, [], 'x']) {
      expect(toParameters(schema)).toEqual({ type: 'object', properties: {} });
    }
  });
});

describe('matches', () => {
  it('takes exact names, * globs (other characters literal) and RegExps, global ones included', () => {
    expect(matches('read_file', 'read_file')).toBe(true);
    expect(matches('read_file', 'read_files')).toBe(false);
    expect(matches('read_*', 'read_file')).toBe(true);
    expect(matches('read_*', 'xread_file')).toBe(false);
    expect(matches('a.b*', 'axb')).toBe(false);
    expect(matches('a.b*', 'a.bc')).toBe(true);
    expect(matches('*', '')).toBe(true);
    const global = /^read/g;
    // A global RegExp keeps lastIndex between tests; each match must start afresh.
    expect([matches(global, 'read_a'), matches(global, 'read_b')]).toEqual([true, true]);
  });
});

describe('schemas the registry cannot hold', () => {
  it("leaves a tool over the registry's schema budget out with a report naming its size and the limit, and keeps it when the host raised the budget", () => {
    const listed = [
      { name: 'big', description: 'd'.repeat(70_000), inputSchema: { type: 'object' } },
      {
        name: 'huge',
        inputSchema: {
          type: 'object',
          properties: Object.fromEntries(
            Array.from({ length: 5_000 }, (_, i) => [`p${i}`, { type: 'string' }]),
          ),
        },
      },
      { name: 'small' },
    ] as ListedTool[];
    const bridged = (maxSchemaBytes?: number) => {
      const registry = createToolRegistry(maxSchemaBytes ? { maxSchemaBytes } : {});
      const reports: string[] = [];
      const report = (e: Error) => reports.push(e.message);
      const desired = desiredTools(listed, { name: 'srv' }, noCall, report);
      const { current } = applyToolDiff(new Map(), desired, { server: 'srv', registry, report });
      return { kept: [...current.keys()], reports };
    };
    // A long description is cut to MAX_DESCRIPTION first: what is measured is what registers.
    const byDefault = bridged();
    expect(byDefault.kept).toEqual([mcpToolName('srv', 'big'), mcpToolName('srv', 'small')]);
    expect(byDefault.reports).toEqual([
      expect.stringMatching(
        /^MCP server "srv": the registry refused tool "mcp__srv__huge" \(.*its description plus parameters as JSON is [\d,]+ bytes, over the schema budget of 65,536 bytes; .*maxSchemaBytes.*\); it is left out\.$/,
      ),
    ]);
    const raised = bridged(1024 * 1024);
    expect(raised.kept).toEqual([
      mcpToolName('srv', 'big'),
      mcpToolName('srv', 'huge'),
      mcpToolName('srv', 'small'),
    ]);
    expect(raised.reports).toEqual([]);
    const tight = bridged(10);
    expect(tight.kept).toEqual([]);
    expect(tight.reports[0]).toMatch(/over the schema budget of 10 bytes/);
  });

  it('leaves out, with a report, each tool whose schema the registry refuses, and registers the rest', async () => {
    const registry = createToolRegistry();
    const reports: string[] = [];
    const listed = [
      { name: 'async', inputSchema: { type: 'object', $async: true } },
      {
        name: 'redos',
        inputSchema: {
          type: 'object',
          properties: { s: { type: 'string', pattern: '^(a+)+\\1$' } },
        },
      },
      { name: 'loop', inputSchema: { type: 'object', $ref: '#' } },
      {
        name: 'tree',
        inputSchema: { type: 'object', properties: { kid: { $ref: '#' }, n: { type: 'number' } } },
      },
      {
        name: 'plain',
        inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
      },
    ];
    const desired = desiredTools(
      listed as ListedTool[],
      { name: 'srv' },
      async () => [],
      (e) => reports.push(e.message),
    );
    const { current } = applyToolDiff(new Map(), desired, {
      server: 'srv',
      registry,
      report: (e) => reports.push(e.message),
    });
    expect([...current.keys()]).toEqual([mcpToolName('srv', 'tree'), mcpToolName('srv', 'plain')]);
    expect(reports).toHaveLength(3);
    expect(reports[0]).toMatch(
      /the registry refused tool "mcp__srv__async" .*"\$async".*it is left out/,
    );
    expect(reports[1]).toMatch(
      /the registry refused tool "mcp__srv__redos" .*backreference.*it is left out/,
    );
    expect(reports[2]).toMatch(
      /the registry refused tool "mcp__srv__loop" .*cycle.*it is left out/,
    );
    const bad = await registry.execute({
      callId: 'c',
      name: mcpToolName('srv', 'tree'),
      arguments: { kid: { kid: { n: 'x' } } },
    });
    expect(bad.error?.code).toBe('INVALID_ARGS');
    const hostile = await registry.execute({
      callId: 'd',
      name: mcpToolName('srv', 'plain'),
      arguments: { s: `${'a'.repeat(40)}!` },
    });
    expect(hostile.error?.message).toMatch(/argument "s" must match pattern/);
  });
});
