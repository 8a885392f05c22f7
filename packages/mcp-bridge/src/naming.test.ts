import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpToolName, parseMcpToolName, TOOL_NAME_PATTERN } from './naming';

/** Names as servers really send them, plus the characters that make normalizing necessary. */
const part = fc.oneof(
  fc.string({ minLength: 1, maxLength: 80 }),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/),
  fc.constantFrom(
    'a',
    'a_',
    '_a',
    'a__b',
    'a.b',
    'a b',
    'a_b',
    'é',
    'e',
    '__',
    '-',
    '😀',
    'x'.repeat(70),
  ),
);

describe('mcpToolName', () => {
  it('always meets the function-name rule', () => {
    fc.assert(
      fc.property(part, part, (server, tool) => {
        expect(mcpToolName(server, tool)).toMatch(TOOL_NAME_PATTERN);
      }),
      { numRuns: 2000 },
    );
  });

  it('never maps two distinct pairs to one name, and a table of names recovers every pair', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(part, part), {
          minLength: 2,
          maxLength: 60,
          selector: (p) => JSON.stringify(p),
        }),
        (pairs) => {
          const reverse = new Map<string, readonly [string, string]>();
          for (const pair of pairs) {
            const name = mcpToolName(pair[0], pair[1]);
            expect(
              reverse.has(name),
              `${JSON.stringify(pair)} and ${JSON.stringify(reverse.get(name))} -> ${name}`,
            ).toBe(false);
            reverse.set(name, pair);
          }
          for (const pair of pairs) expect(reverse.get(mcpToolName(pair[0], pair[1]))).toBe(pair);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps an already-valid name that fits unchanged, and parses it back', () => {
    const plainServer = fc.stringMatching(/^[A-Za-z0-9-]{1,8}(?:_[A-Za-z0-9-]{1,8}){0,2}$/);
    const plainTool = fc.stringMatching(/^[A-Za-z0-9-][A-Za-z0-9_-]{0,30}$/);
    fc.assert(
      fc.property(plainServer, plainTool, (server, tool) => {
        const name = mcpToolName(server, tool);
        expect(name).toBe(`mcp__${server}__${tool}`);
        expect(parseMcpToolName(name)).toEqual({ server, tool });
      }),
      { numRuns: 1000 },
    );
  });

  it('parses back every name it made unchanged, and no normalized one', () => {
    fc.assert(
      fc.property(part, part, (server, tool) => {
        const name = mcpToolName(server, tool);
        const parsed = parseMcpToolName(name);
        if (name === `mcp__${server}__${tool}`) expect(parsed).toEqual({ server, tool });
        else expect(parsed).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('normalizes with a hash when the plain name would be ambiguous, invalid or long', () => {
    // The classic merge: both would read "mcp__a_b__c" after replacing the dot.
    expect(mcpToolName('a', 'b.c')).not.toBe(mcpToolName('a', 'b_c'));
    expect(mcpToolName('a', 'b_c')).toBe('mcp__a__b_c');
    expect(mcpToolName('a', 'b.c')).toMatch(/^mcp__a___b_c_[0-9a-f]{10}$/);
    // Where the separator falls must not be a matter of taste: (a_, b) vs (a, _b).
    expect(mcpToolName('a_', 'b')).not.toBe(mcpToolName('a', '_b'));
    expect(mcpToolName('a__b', 'c')).not.toBe(mcpToolName('a', 'b__c'));
    const long = mcpToolName('server', 'x'.repeat(200));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long.startsWith('mcp__server___xxx')).toBe(true);
    expect(mcpToolName('fs', 'ünïcödé')).toMatch(/^mcp__fs___unicode_[0-9a-f]{10}$/);
    expect(mcpToolName('', '')).toMatch(TOOL_NAME_PATTERN);
  });

  it('copes with huge and non-string input', () => {
    const huge = mcpToolName('s'.repeat(1_000_000), '\u0000'.repeat(1_000_000));
    expect(huge).toMatch(TOOL_NAME_PATTERN);
    expect(() => mcpToolName(42 as unknown as string, 't')).toThrow(/must be strings/);
    expect(parseMcpToolName(null as unknown as string)).toBeUndefined();
    expect(parseMcpToolName('x'.repeat(1_000_000))).toBeUndefined();
  });

  it('does not parse names that are not MCP tool names', () => {
    for (const name of [
      'read_file',
      'mcp__',
      'mcp____x',
      'mcp__a__',
      'mcp__a',
      `mcp__a__${'x'.repeat(80)}`,
    ]) {
      expect(parseMcpToolName(name)).toBeUndefined();
    }
  });
});
