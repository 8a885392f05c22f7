import type { Context, Hook } from '@deepseek-ai/cordis';

/**
 * The listener records cordis holds for one event, in dispatch order, without copying them.
 *
 * cordis 4 has no public way to read them: `ctx.events.dispatch()` returns callbacks already
 * bound (a fresh function per call, so neither identity nor the owning fiber is left), and the
 * `internal/listener` event misses listeners added before the service loaded and never tells of a
 * removal. The service needs each record's identity (to mirror only what changed), its `ctx` (the
 * owning fiber, for names and effects) and `global`, so it reads cordis's own table, `_hooks` of
 * the root's events service. That private read happens here and nowhere else, and it checks the
 * shape it relies on: a cordis upgrade that changes it fails loudly, here and in
 * `cordis-listeners.test.ts`, rather than letting a policy listener silently stop applying.
 */
export function listenerTable(ctx: Context): (event: string) => readonly Hook[] {
  const table: unknown = (ctx.root.events as unknown as { _hooks?: unknown })._hooks;
  if (typeof table !== 'object' || table === null) {
    throw new Error(
      'dsh-tools: this version of @deepseek-ai/cordis keeps its event listeners where dsh-tools cannot read them (ctx.root.events._hooks is missing), so "tools/execute" listeners could not apply. Install @deepseek-ai/cordis 4.0.x, the version dsh-tools supports.',
    );
  }
  const hooks = table as Record<string, readonly Hook[] | undefined>;
  return (event) => hooks[event] ?? NONE;
}

const NONE: readonly Hook[] = Object.freeze([]);
