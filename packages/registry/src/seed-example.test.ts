import { defineTool } from '@dsh-tools/define-tool';
import { textContent } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from './index';

// The seed API's example, end to end: a defineTool() tool with a SchemaSpec, registered, listed,
// called, and called wrongly.
describe('seed example', () => {
  it('registers a defineTool tool and runs it', async () => {
    const registry = createToolRegistry();
    const readFile = defineTool({
      name: 'read_file',
      description: 'Reads a file',
      parameters: {
        path: { type: 'string', required: true, path: 'read' },
        limit: { type: 'integer', minimum: 1 },
      },
      execute: async ({ path, limit }) => [textContent(`${path}:${limit ?? 'all'}`)],
    });
    const dispose = registry.register(readFile);
    expect(registry.schemas()).toEqual([
      expect.objectContaining({ name: 'read_file', description: 'Reads a file' }),
    ]);
    expect(registry.schemas()[0]?.parameters).toMatchObject({
      type: 'object',
      required: ['path'],
    });
    const ok = await registry.execute({
      callId: '1',
      name: 'read_file',
      arguments: { path: '/a', limit: 2 },
    });
    expect(ok).toEqual({ callId: '1', content: [textContent('/a:2')], isError: false });
    const bad = await registry.execute({ callId: '2', name: 'read_file', arguments: { limit: 0 } });
    expect(bad.error?.code).toBe('INVALID_ARGS');
    expect(bad.error?.message).toContain('argument "path" is required');
    expect(bad.error?.message).toContain('argument "limit" must be >= 1');
    expect(registry.get('read_file')?.hints?.paths).toEqual([{ arg: 'path', access: 'read' }]);
    dispose();
    expect(registry.schemas()).toEqual([]);
  });
});
