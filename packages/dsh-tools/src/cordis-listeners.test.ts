import { createRequire } from 'node:module';
import { Context } from '@deepseek-ai/cordis';
import { describe, expect, it } from 'vitest';
import { listenerTable } from './cordis-listeners';

const require = createRequire(import.meta.url);

/** A listener `ctx.on('tools/execute', …)` registers from a plugin of its own. */
async function listen(
  root: Context,
  name: string,
  options: { prepend?: boolean; global?: boolean } = {},
) {
  const listener = () => name;
  const fiber = await root.plugin({
    name,
    apply(ctx: Context) {
      ctx.on('tools/execute', listener as never, options);
    },
  });
  return { listener, fiber };
}

describe('listenerTable: the one read of cordis internals', () => {
  it('is written for cordis 4.0: an upgrade must re-check listenerTable before this passes', () => {
    // Fails on purpose when cordis moves: the shape below is cordis 4.0's, read from its source.
    const { version } = require('@deepseek-ai/cordis/package.json') as { version: string };
    expect(version).toMatch(/^4\.0\./);
  });

  it("sees every ctx.on listener in dispatch order, with its owner's fiber, identity kept between reads", async () => {
    const root = new Context();
    const before = await listen(root, 'outer');
    const inner = await listen(root, 'inner');
    await listen(root, 'first', { prepend: true });
    await listen(root, 'everywhere', { global: true });
    const read = listenerTable(root);
    const hooks = read('tools/execute');
    expect(hooks.map((h) => h.ctx.fiber.name)).toEqual(['first', 'outer', 'inner', 'everywhere']);
    expect(hooks.map((h) => Boolean(h.global))).toEqual([false, false, false, true]);
    // cordis stores each listener wrapped; calling the record runs the listener.
    expect(hooks.map((h) => h.callback())).toEqual(['first', 'outer', 'inner', 'everywhere']);
    expect(read('tools/execute')).toBe(hooks);
    // A table read from any context is the root's.
    expect(listenerTable(before.fiber.ctx)('tools/execute')).toBe(hooks);
    await inner.fiber.dispose();
    expect(read('tools/execute').map((h) => h.ctx.fiber.name)).toEqual([
      'first',
      'outer',
      'everywhere',
    ]);
  });

  it('answers an event nobody listens to with an empty, frozen list', () => {
    const none = listenerTable(new Context())('tools/nothing');
    expect(none).toEqual([]);
    expect(Object.isFrozen(none)).toBe(true);
  });

  it('fails loudly, saying which cordis to install, when the table is not where cordis 4.0 keeps it', () => {
    // A stand-in for a future cordis: the real one cannot be made to lack its own table.
    const future = { root: { events: {} } } as unknown as Context;
    expect(() => listenerTable(future)).toThrow(
      /ctx\.root\.events\._hooks is missing.*Install @deepseek-ai\/cordis 4\.0\.x/,
    );
  });
});
