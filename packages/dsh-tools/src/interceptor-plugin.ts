import type { Context } from '@deepseek-ai/cordis';
import type { Interceptor } from '@dsh-tools/protocol';
import type { ToolRegistry } from './tools-service';

/**
 * Where the interceptor plugins sit in `ctx.tools`' onion (higher runs outer): hooks outermost,
 * then sandbox, then permission, then the body, as the design recommends.
 *
 * All three are below 0, so they run **inside** every `ctx.on('tools/execute')` listener (those
 * sit just above 0) and every `ctx.tools.use()` interceptor of priority 0 or more. Anything that
 * can rewrite a call (a harness plugin's listener, a hook's `updatedInput`) therefore runs before
 * sandbox and permission judge it: the policies see the arguments the body will receive, and no
 * plugin of default priority can change a call after they allowed it. An interceptor that must run
 * inside the policies (just before the body) takes a priority below `permission`.
 */
export const INTERCEPTOR_PRIORITY: {
  readonly hooks: -100;
  readonly sandbox: -200;
  readonly permission: -300;
} = { hooks: -100, sandbox: -200, permission: -300 };

/** The plugins' names, as cordis logs them and as `INTERCEPTOR_ERROR` messages name them. */
export type InterceptorPluginName = 'Permission' | 'Sandbox' | 'Hooks';

/** The error a malformed config fails a plugin with: it names the plugin, then what is wrong. */
export const configError = (
  plugin: InterceptorPluginName,
  problem: string,
  cause?: unknown,
): TypeError =>
  new TypeError(
    `dsh-tools ${plugin} plugin: ${/[.!?]$/.test(problem) ? problem : `${problem}.`} Fix the config passed to ctx.plugin(${plugin}, config).`,
    cause === undefined ? undefined : { cause },
  );

/** Fails at once (registering nothing) unless the config is a plain options object. */
export const requireObject = (
  plugin: InterceptorPluginName,
  config: unknown,
  shape: string,
): void => {
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    const got = config === null ? 'null' : Array.isArray(config) ? 'an array' : typeof config;
    throw configError(
      plugin,
      `the config must be the interceptor's options, ${shape} (got ${got}).`,
    );
  }
};

/**
 * Runs the interceptor's factory on the config; its own error (which names the option) becomes the
 * plugin's, prefixed with the plugin's name, so the failed load says which plugin to fix.
 */
export const createOrFail = <T>(plugin: InterceptorPluginName, create: () => T): T => {
  try {
    return create();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw configError(plugin, message, error);
  }
};

/**
 * Installs an interceptor in `ctx.tools` as an effect of the plugin's fiber: disposing the plugin
 * (or losing the `tools` service) removes it.
 */
export const installInterceptor = (
  ctx: Context,
  interceptor: Interceptor,
  name: 'hooks' | 'sandbox' | 'permission',
): void => {
  const tools: ToolRegistry = ctx.tools;
  tools.use(interceptor, { name, priority: INTERCEPTOR_PRIORITY[name] });
};
