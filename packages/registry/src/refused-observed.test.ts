import type { ToolExecution } from '@dsh-tools/protocol';
import { textContent } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from './index';

describe('observers of a refused call see who made it', () => {
  it.each([
    ['an unknown tool', 'reed', { path: 'a' }, 'UNKNOWN_TOOL'],
    ['invalid arguments', 'read', { path: 1 }, 'INVALID_ARGS'],
  ])(
    '%s: the agent and the host extension fields reach the result observers',
    async (_, name, args, code) => {
      const registry = createToolRegistry();
      registry.register({
        name: 'read',
        description: 'Reads',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' } },
          required: ['path'],
        },
        execute: () => [textContent('x')],
      });
      const seen: ToolExecution[] = [];
      registry.on('result', (_result, exec) => seen.push(exec));
      const marker = Symbol('marker');
      const result = await registry.execute({
        callId: 'c1',
        name,
        arguments: args,
        agent: { id: 'agent-7' },
        identity: 'alice',
        [marker]: true,
      } as never);
      expect(result.error?.code).toBe(code);
      expect(seen).toHaveLength(1);
      const exec = seen[0] as ToolExecution & { identity?: string; [marker]?: boolean };
      expect(exec).toMatchObject({
        callId: 'c1',
        name,
        identity: 'alice',
        agent: { id: 'agent-7' },
      });
      expect(exec[marker]).toBe(true);
    },
  );

  it('a call whose own fields cannot be read is shown without them (nothing of it was trusted)', async () => {
    const registry = createToolRegistry();
    const seen: ToolExecution[] = [];
    registry.on('result', (_result, exec) => seen.push(exec));
    await registry.execute({ callId: 'c2', name: 42, arguments: {}, identity: 'mallory' } as never);
    expect((seen[0] as { identity?: string }).identity).toBeUndefined();
  });
});
