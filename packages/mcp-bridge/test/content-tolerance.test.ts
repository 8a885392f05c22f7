import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServer, type McpServerHandle } from '../src/index';
import { call, FAULT_SERVER, newRegistry, text } from './helpers';

const registry = newRegistry();
let handle: McpServerHandle;

beforeAll(async () => {
  handle = await connectMcpServer(registry, {
    name: 'blocks',
    command: process.execPath,
    args: [FAULT_SERVER, 'stdio'],
    env: { FAULT_START: 'raw' },
    onError: () => {},
  });
});
afterAll(() => handle.close());

const KNOWN = [
  { type: 'text', text: 'first' },
  { type: 'image', data: 'AAAA', mimeType: 'image/png' },
  { type: 'resource', resource: { uri: 'mem://t', text: 'abc' } },
];

// Blocks no version of the SDK's schema accepts: unknown types (with huge bodies), and known
// types missing what they need. Each must become a short note, and the call must succeed.
const HOSTILE: readonly [unknown, RegExp][] = [
  [
    { type: 'hologram', data: 'x'.repeat(200_000) },
    /type "hologram", which this bridge does not know/,
  ],
  [{ type: 'x'.repeat(5000) }, /type "x{60}…", which this bridge does not know/],
  [{ type: 42 }, /type number, which this bridge does not know/],
  [{ noType: true }, /type undefined, which this bridge does not know/],
  [{ type: 'image', data: 5 }, /malformed "image" content block/],
  [{ type: 'text' }, /malformed "text" content block/],
  [{ type: 'resource', resource: { uri: 'u' } }, /malformed "resource" content block/],
  [{ type: 'resource_link', uri: 1, name: 'n' }, /malformed "resource_link" content block/],
  ['a string', /not an object/],
  [null, /not an object/],
  [[1, 2], /not an object \(array\)/],
];

describe('a result with blocks the SDK would reject is still a success', () => {
  it('keeps every known block in order and notes each unknown or malformed one briefly', async () => {
    const content = [KNOWN[0], ...HOSTILE.map(([block]) => block), KNOWN[1], KNOWN[2]];
    const result = await call(registry, 'mcp__blocks__as-given', { result: { content } });
    expect(result.isError).toBe(false);
    expect(result.content).toHaveLength(content.length);
    expect(result.content[0]).toEqual(KNOWN[0]);
    expect(result.content.slice(-2)).toEqual([KNOWN[1], KNOWN[2]]);
    HOSTILE.forEach(([, note], i) => {
      const block = result.content[i + 1];
      expect(block?.type).toBe('text');
      const said = block?.type === 'text' ? block.text : '';
      expect(said).toMatch(note);
      expect(said.length).toBeLessThan(300);
    });
  });

  it('each hostile block alone: success, one short note', async () => {
    for (const [block, note] of HOSTILE) {
      const result = await call(registry, 'mcp__blocks__as-given', {
        result: { content: [block] },
      });
      expect(result.isError).toBe(false);
      expect(text(result)).toMatch(note);
      expect(text(result).length).toBeLessThan(300);
    }
  });

  it('notes content that is not a list, and keeps structuredContent', async () => {
    const result = await call(registry, 'mcp__blocks__as-given', {
      result: { content: 'just a string', structuredContent: { ok: true } },
    });
    expect(result.isError).toBe(false);
    expect(text(result)).toMatch(/"content" that is not a list/);
    expect(result.structuredContent).toEqual({ ok: true });
  });
});

describe('a result that is not a result', () => {
  it('fails that call at once with a short message, not a timeout or a validation dump', async () => {
    for (const odd of [null, 'text', 42, [1, 2]]) {
      const result = await call(registry, 'mcp__blocks__as-given', { result: odd });
      expect(result.error?.code).toBe('MCP_ERROR');
      expect(text(result)).toMatch(/a result that is not an object/);
      expect(text(result).length).toBeLessThan(400);
    }
  });

  it('keeps isError results as MCP_ERROR with the server text, unknown blocks and all', async () => {
    const result = await call(registry, 'mcp__blocks__as-given', {
      result: {
        isError: true,
        content: [{ type: 'hologram' }, { type: 'text', text: 'it broke' }],
      },
    });
    expect(result.error?.code).toBe('MCP_ERROR');
    expect(text(result)).toContain('it broke');
  });
});
