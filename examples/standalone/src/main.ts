/**
 * The root README's "One tool call" example, kept runnable: `pnpm --filter
 * @dsh-tools/example-standalone start` (after `pnpm build`) prints the schemas and three results.
 */
import { defineTool } from '@dsh-tools/define-tool';
import { createToolRegistry } from '@dsh-tools/registry';

export const registry = createToolRegistry({ timeoutMs: 30_000 });

registry.register(
  defineTool({
    name: 'add',
    description: 'Add two numbers',
    parameters: {
      a: { type: 'number', required: true },
      b: { type: 'number', required: true },
    },
    async execute({ a, b }) {
      return [{ type: 'text', text: String(a + b) }];
    },
  }),
);

registry.register(
  defineTool({
    name: 'delete_file',
    description: 'Delete a file',
    parameters: { path: { type: 'string', path: 'write', required: true } },
    hints: { destructive: true },
    async execute({ path }) {
      throw new Error(`refusing to really delete ${path} in an example`);
    },
  }),
);

registry.use(
  async (exec, next) => {
    if (exec.tool.hints.destructive) {
      return {
        callId: exec.callId,
        content: [{ type: 'text', text: `Error: ${exec.name} is destructive; denied` }],
        isError: true,
        error: { code: 'DENIED', message: `${exec.name} is destructive; denied` },
      };
    }
    return next();
  },
  { name: 'no-destructive' },
);

/** Runs the example's calls and returns one line per step. */
export async function main(): Promise<string[]> {
  const lines = [`schemas ${JSON.stringify(registry.schemas().map((s) => s.name))}`];
  for (const call of [
    { callId: 'c1', name: 'add', arguments: { a: 1, b: 2 } },
    { callId: 'c2', name: 'add', arguments: { a: 1, b: 'two' } },
    { callId: 'c3', name: 'delete_file', arguments: { path: '/etc/passwd' } },
  ]) {
    const result = await registry.execute(call);
    const text = result.content.map((block) => (block.type === 'text' ? block.text : block.type));
    lines.push(`${call.callId} ${result.error?.code ?? 'ok'} ${text.join(' ')}`);
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await main()) console.log(line);
}
