import type { Context } from '@deepseek-ai/cordis';
import { type SandboxOptions, sandboxInterceptor } from '@dsh-tools/interceptors-sandbox';
import { createOrFail, installInterceptor, requireObject } from './interceptor-plugin';

/** The cordis plugin object of the sandbox; see {@link Sandbox}. */
export interface SandboxPlugin {
  readonly name: 'sandbox';
  readonly inject: string[];
  apply(ctx: Context, config: SandboxOptions): void;
}

/**
 * The sandbox interceptor of `@dsh-tools/interceptors-sandbox` as a cordis plugin:
 * `ctx.plugin(Sandbox, { mode: 'workspace-write', cwd })`, with `sandboxInterceptor`'s options.
 *
 * It checks every call's path arguments against the mode and the deny lists, and hands the tool
 * body the confined runner as `exec.sandbox` (so a tool registered with `ctx.tools.register` runs
 * its commands with `exec.sandbox.run(argv)` or `requireSandbox(exec)`). It sits between hooks and
 * permission ({@link INTERCEPTOR_PRIORITY}); disposing the plugin removes it. A malformed config
 * fails the plugin with a `TypeError` naming the option, and nothing is installed.
 */
export const Sandbox: SandboxPlugin = {
  name: 'sandbox',
  inject: ['tools'],
  apply(ctx: Context, config: SandboxOptions): void {
    requireObject(
      'Sandbox',
      config,
      "{ mode: 'read-only' | 'workspace-write' | 'full-access', cwd?, roots?, … }",
    );
    const interceptor = createOrFail('Sandbox', () => sandboxInterceptor(config));
    installInterceptor(ctx, interceptor, 'sandbox');
  },
};
