import { isContentBlock } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorText, mapCallResult, mapContentBlock } from './content';

describe('mapContentBlock', () => {
  it('maps every MCP content type one to one', () => {
    const blocks = [
      {
        type: 'text',
        text: 'hi',
        annotations: { audience: ['user'], priority: 1 },
        _meta: { a: 1 },
      },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
      { type: 'audio', data: 'BBBB', mimeType: 'audio/wav' },
      {
        type: 'resource_link',
        uri: 'file:///x',
        name: 'x',
        title: 'X',
        description: 'd',
        mimeType: 'text/plain',
        size: 4,
      },
      { type: 'resource', resource: { uri: 'mem://t', mimeType: 'text/plain', text: 'abc' } },
      { type: 'resource', resource: { uri: 'mem://b', blob: 'AAEC', _meta: { k: 'v' } } },
    ];
    for (const block of blocks) expect(mapContentBlock(block)).toEqual(block);
  });

  it('drops fields the protocol does not know, and keeps the block', () => {
    expect(
      mapContentBlock({ type: 'resource_link', uri: 'u', name: 'n', icons: [{ src: 'x' }] }),
    ).toEqual({
      type: 'resource_link',
      uri: 'u',
      name: 'n',
    });
  });

  it('turns unknown or malformed blocks into text that says so, for any input', () => {
    expect(mapContentBlock({ type: 'hologram', data: 1 })).toEqual({
      type: 'text',
      text: expect.stringContaining('"hologram"'),
    });
    expect(mapContentBlock({ type: 'image', data: 5 }).type).toBe('text');
    expect(mapContentBlock(null).type).toBe('text');
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(isContentBlock(mapContentBlock(value))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('bounds the text of a huge unknown block', () => {
    const block = mapContentBlock({ type: 'video', data: 'x'.repeat(1_000_000) });
    expect(block.type === 'text' && block.text.length).toBeLessThan(300);
  });

  it('replaces any block it cannot map by a short note naming its type', () => {
    const known = new Set(['text', 'image', 'audio', 'resource_link', 'resource']);
    fc.assert(
      fc.property(fc.string(), fc.anything(), (type, body) => {
        const block = mapContentBlock({ type, body, data: body, text: body, resource: body });
        const note = block.type === 'text' && block.text.startsWith('[the server sent');
        if (known.has(type) && !note) return;
        if (!known.has(type)) {
          expect(block).toEqual({ type: 'text', text: expect.stringContaining('does not know') });
        }
        expect(block.type === 'text' && block.text.length).toBeLessThan(300);
      }),
      { numRuns: 500 },
    );
  });
});

describe('mapCallResult', () => {
  it('keeps structuredContent and renders it as JSON text when no text came', () => {
    expect(mapCallResult({ content: [], structuredContent: { a: 1 } })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
  });

  it('does not duplicate structuredContent when the tool sent text', () => {
    expect(
      mapCallResult({ content: [{ type: 'text', text: 't' }], structuredContent: { a: 1 } }),
    ).toEqual({
      content: [{ type: 'text', text: 't' }],
      structuredContent: { a: 1 },
    });
  });

  it('renders structured content that is not an object as text only', () => {
    expect(mapCallResult({ structuredContent: [1, 2] })).toEqual({
      content: [{ type: 'text', text: '[1,2]' }],
    });
  });

  it('accepts a result without content', () => {
    expect(mapCallResult({})).toEqual({ content: [] });
  });
});

describe('errorText', () => {
  it('joins the text blocks of an error result', () => {
    expect(
      errorText({
        content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }],
      }),
    ).toBe('a\nb');
    expect(errorText({ content: 'nope' })).toBe('');
  });
});
