import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import type { Gateway } from '../src/gateway';
import { TrailRecorder } from '../src/policies';

/**
 * A gateway over a bare registry (no config, no servers, no policies), for tests of the layers
 * in front of it (HTTP, stdio): optionally with the `echo` tool that answers with its `text`.
 */
export function bareGateway(
  options: { echo?: boolean } = {},
): Gateway & { registry: ToolRegistry } {
  const registry = createToolRegistry({ onError: () => {} });
  if (options.echo) {
    registry.register({
      name: 'echo',
      description: 'Echoes text',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: ({ text }) => [{ type: 'text', text: String(text) }],
    });
  }
  return {
    registry,
    servers: new Map(),
    failures: [],
    policies: [],
    trails: new TrailRecorder(),
    close: async () => {},
  };
}
