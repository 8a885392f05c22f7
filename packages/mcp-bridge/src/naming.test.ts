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

  it('keeps a plain name of 63 or exactly 64 characters, and normalizes one of 65', () => {
    // Server and tool parts of every split that adds up to 63, 64 or 65 characters in all.
    const atTheLimit = fc
      .constantFrom(63, 64, 65)
      .chain((total) =>
        fc
          .integer({ min: 1, max: total - 'mcp____'.length - 1 })
          .chain((serverLength) =>
            fc.tuple(
              fc.constant(total),
              fc.stringMatching(new RegExp(`^[A-Za-z0-9-]{${serverLength}}$`)),
              fc.stringMatching(
                new RegExp(`^[A-Za-z0-9-][A-Za-z0-9_-]{${total - 7 - serverLength - 1}}$`),
              ),
            ),
          ),
      );
    fc.assert(
      fc.property(atTheLimit, ([total, server, tool]) => {
        const plain = `mcp__${server}__${tool}`;
        expect(plain).toHaveLength(total);
        const name = mcpToolName(server, tool);
        if (total <= 64) {
          expect(name).toBe(plain);
          expect(parseMcpToolName(name)).toEqual({ server, tool });
        } else {
          expect(name).not.toBe(plain);
          expect(name).toMatch(/^mcp__[A-Za-z0-9-_]+___[A-Za-z0-9_-]*_[0-9a-f]{10}$/);
          expect(name.length).toBeLessThanOrEqual(64);
          expect(parseMcpToolName(plain)).toBeUndefined();
        }
      }),
      { numRuns: 1000 },
    );
    // The exact split a person would try first.
    const server = 's'.repeat(20);
    const tool = 't'.repeat(64 - 'mcp____'.length - 20);
    expect(mcpToolName(server, tool)).toBe(`mcp__${server}__${tool}`);
    expect(mcpToolName(server, `${tool}t`)).toMatch(/^mcp__s{20}___t+_[0-9a-f]{10}$/);
  });

  it('uses every character of room: a long normalized name is exactly 64, its server part 20', () => {
    const long = fc.string({ minLength: 1, maxLength: 10 }).map((s) => `${'q'.repeat(64)}.${s}`);
    fc.assert(
      fc.property(long, long, (server, tool) => {
        const name = mcpToolName(server, tool);
        expect(name).toHaveLength(64);
        expect(name).toMatch(/^mcp__q{20}___q{25}_[0-9a-f]{10}$/);
      }),
    );
  });

  it('holds TOOL_NAME_PATTERN to 1 to 64 characters', () => {
    expect(TOOL_NAME_PATTERN.test('a'.repeat(64))).toBe(true);
    expect(TOOL_NAME_PATTERN.test('a'.repeat(65))).toBe(false);
    expect(TOOL_NAME_PATTERN.test('')).toBe(false);
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
