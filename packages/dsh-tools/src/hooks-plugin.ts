import type { Context } from '@deepseek-ai/cordis';
import { type HooksInterceptorOptions, hooksInterceptor } from '@dsh-tools/interceptors-hooks';
import { createOrFail, installInterceptor, requireObject } from './interceptor-plugin';

/** The cordis plugin object of the command hooks; see {@link Hooks}. */
export interface HooksPlugin {
  readonly name: 'hooks';
  readonly inject: string[];
  apply(ctx: Context, config: HooksInterceptorOptions): void;
}

/**
 * The hooks interceptor of `@dsh-tools/interceptors-hooks` as a cordis plugin:
 * `ctx.plugin(Hooks, { hooks: await loadClaudeCodeHooks(), cwd })`, with `hooksInterceptor`'s
 * options (Claude Code's `PreToolUse` / `PostToolUse` command hooks, run unchanged, failing closed).
 *
 * It is the outermost of the interceptor plugins ({@link INTERCEPTOR_PRIORITY}), so a hook's
 * `updatedInput` is judged by sandbox and permission; disposing the plugin removes it. A malformed
 * config fails the plugin with a `TypeError` naming the entry, and nothing is installed.
 */
export const Hooks: HooksPlugin = {
  name: 'hooks',
  inject: ['tools'],
  apply(ctx: Context, config: HooksInterceptorOptions): void {
    requireObject('Hooks', config, '{ hooks, cwd?, approve?, onHookRun?, … }');
    const interceptor = createOrFail('Hooks', () => hooksInterceptor(config));
    installInterceptor(ctx, interceptor, 'hooks');
  },
};
