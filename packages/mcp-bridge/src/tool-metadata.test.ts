import { createToolRegistry } from '@dsh-tools/registry';
import { describe, expect, it } from 'vitest';
import { type ToolCaller, toolRecord } from './tool-definitions';
import { mcpToolMetadata } from './tool-metadata';
import type { ListedTool } from './types';

const noCall: ToolCaller = () => {
  throw new Error('not called in these tests');
};

const full = {
  name: 'read_text_file',
  title: 'Read Text File',
  description: 'Reads a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  outputSchema: {
    type: 'object',
    properties: { content: { type: 'string' } },
    required: ['content'],
  },
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }, { nosrc: true }],
  _meta: { 'example.com/x': 1 },
  annotations: { readOnlyHint: true, title: 'Read' },
} as unknown as ListedTool;

describe('bridged tool metadata', () => {
  it('keeps title, outputSchema, icons, _meta and annotations as sent, on the definition the registry holds', () => {
    const record = toolRecord('mcp__fs__read_text_file', full, { name: 'fs' }, noCall);
    const registry = createToolRegistry();
    registry.register(record.definition);
    const meta = mcpToolMetadata(registry.get('mcp__fs__read_text_file'));
    expect(meta).toEqual({
      tool: 'read_text_file',
      server: 'fs',
      trusted: false,
      title: 'Read Text File',
      outputSchema: full.outputSchema,
      // An icon without a src is not an icon.
      icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
      _meta: { 'example.com/x': 1 },
      annotations: { readOnlyHint: true, title: 'Read' },
    });
    // Untrusted: the annotations are kept for a client to see, but never became hints.
    expect(record.definition.hints).toEqual({});
    // Never a field a model or a JSON dump sees.
    expect(JSON.stringify(record.definition)).not.toContain('Read Text File');
  });

  it('marks a trusted server trusted, and its annotations become hints', () => {
    const record = toolRecord('mcp__fs__r', full, { name: 'fs', trust: true }, noCall);
    expect(mcpToolMetadata(record.definition)?.trusted).toBe(true);
    expect(record.definition.hints?.readOnly).toBe(true);
  });

  it('leaves out fields of the wrong shape, and a local tool has none', () => {
    const odd = {
      name: 't',
      title: 5,
      outputSchema: { type: 'string' },
      icons: 'x',
      _meta: [1],
      annotations: null,
    } as unknown as ListedTool;
    expect(mcpToolMetadata(toolRecord('mcp__s__t', odd, { name: 's' }, noCall).definition)).toEqual(
      { tool: 't', server: 's', trusted: false },
    );
    expect(mcpToolMetadata({ name: 'local' })).toBeUndefined();
    expect(mcpToolMetadata(undefined)).toBeUndefined();
  });

  it('a changed title or output schema changes the tool (it is re-registered)', () => {
    const a = toolRecord('mcp__s__t', full, { name: 's' }, noCall);
    const b = toolRecord(
      'mcp__s__t',
      { ...full, title: 'Other' } as unknown as ListedTool,
      { name: 's' },
      noCall,
    );
    const c = toolRecord(
      'mcp__s__t',
      { ...full, outputSchema: { type: 'object' } } as unknown as ListedTool,
      { name: 's' },
      noCall,
    );
    expect(new Set([a.key, b.key, c.key]).size).toBe(3);
  });
});
