/**
 * `@deepseek-ai/dsh-system-prompt` on both tools services: the tool schemas reach the assembled
 * prompt, follow registration and disposal, and (on ours) every change is signalled with the
 * service's own `system-prompt/change`, so a host that caches the prompt rebuilds it.
 */
import type { Context } from '@deepseek-ai/cordis';
import { defineTool } from '@deepseek-ai/dsh-tools';
import { afterEach, describe, expect, it } from 'vitest';
import { boot, type HOSTS, type Host } from '../test/hosts';

type Assembly = { tools: { name: string; description: string; parameters: unknown }[] };
const assemble = (root: Context) =>
  (root as unknown as { systemPrompt: { assemble(): Promise<Assembly> } }).systemPrompt.assemble();

/** A harness-shaped tool, built with upstream's own `defineTool`. */
const readNote = defineTool({
  name: 'read_note',
  description: 'Read a note by title.',
  parameters: { title: { type: 'string', required: true, description: 'The note title' } },
  output: { schema: { type: 'string' }, render: (_args, value) => [{ type: 'text', text: value }] },
  execute: async (args) => `note: ${args.title}`,
});

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** What one host does with the system prompt across a tool plugin's life. */
async function scenario(name: (typeof HOSTS)[number]) {
  const host = await boot(name);
  hosts.push(host);
  let changes = 0;
  host.root.on('system-prompt/change', () => {
    changes++;
  });
  const before = (await assemble(host.root)).tools.map((t) => t.name);
  const fiber = await host.root.plugin({
    name: 'notes',
    inject: ['tools'],
    apply: (ctx: Context) => {
      (ctx as unknown as { tools: { register(d: unknown): void } }).tools.register(readNote);
    },
  });
  const during = (await assemble(host.root)).tools;
  const changesAfterRegister = changes;
  const call = await host.call('read_note', { title: 'milk' });
  await fiber.dispose();
  const after = (await assemble(host.root)).tools.map((t) => t.name);
  return { before, during, after, call, changesAfterRegister, changes };
}

describe('dsh-system-prompt', () => {
  it('assembles the same tool schemas on both services, following the tool plugin', async () => {
    const upstream = await scenario('upstream');
    const ours = await scenario('ours');
    expect(upstream.before).toEqual([]);
    expect(upstream.during).toEqual([
      {
        name: 'read_note',
        description: 'Read a note by title.',
        parameters: expect.objectContaining({ type: 'object', required: ['title'] }),
      },
    ]);
    expect(upstream.after).toEqual([]);
    expect(ours.before).toEqual(upstream.before);
    expect(ours.during).toEqual(upstream.during);
    expect(ours.after).toEqual(upstream.after);
    expect(ours.call).toEqual(upstream.call);
    expect(ours.call).toEqual({ isError: false, text: 'note: milk', code: undefined });
  });

  it('signals system-prompt/change on register and dispose on ours (upstream emits only tools/change)', async () => {
    const upstream = await scenario('upstream');
    const ours = await scenario('ours');
    expect(ours.changesAfterRegister).toBe(1);
    expect(ours.changes).toBe(2);
    // Recorded so that the difference is visible when upstream changes: today its registry tells
    // only `tools/change`, and the prompt service learns of tools at the next assembly.
    expect(upstream.changes).toBe(0);
  });
});
