/**
 * The hosts the behaviour suite runs on. Test-only (under test/, never
 * built or published). Each host maps the suite's verbs to what a user of that host writes.
 */
import { Context } from '@deepseek-ai/cordis';
import type { ToolExecution, ToolExecutionResult } from '@dsh-tools/protocol';
import { createToolRegistry, type RegistryErrorInfo } from '@dsh-tools/registry';
import { ToolRegistry } from '../src/cordis';
import type { HostFactory, RegistryHost } from './behaviour-suite';

type Errors = { error: unknown; info: RegistryErrorInfo }[];

/** The standalone registry, as a host app without cordis uses it. */
export const standaloneHost: HostFactory = async (options) => {
  const errors: Errors = [];
  const registry = createToolRegistry({
    ...options,
    onError: (error, info) => errors.push({ error, info }),
  });
  const host: RegistryHost = {
    register: async (definition) => {
      const dispose = registry.register(definition);
      return async () => dispose();
    },
    use: async (interceptor, { name }) => {
      const dispose = registry.use(interceptor, { name });
      return async () => dispose();
    },
    onResult: async (listener) => {
      const dispose = registry.on('result', listener);
      return async () => dispose();
    },
    onChange: async (listener) => {
      const dispose = registry.on('change', listener);
      return async () => dispose();
    },
    execute: (exec) => registry.execute(exec),
    executeAll: (execs, opts) => registry.executeAll(execs, opts),
    schemas: () => registry.schemas(),
    has: (name) => registry.has(name),
    errors,
    close: async () => {},
  };
  return host;
};

/**
 * The cordis service, as a cordis app uses it: every registration is a plugin of its own (named
 * after the interceptor, so error messages match the standalone host's), and disposing means
 * disposing that plugin's fiber. With `via: 'use'` interceptors go through `ctx.tools.use()`
 * instead of `ctx.on('tools/execute')`.
 */
export const cordisHost =
  (via: 'event' | 'use' = 'event'): HostFactory =>
  async (options) => {
    const errors: Errors = [];
    const root = new Context();
    await root.plugin(ToolRegistry, {
      ...options,
      onError: (error, info) => errors.push({ error, info }),
    });
    const load = async (name: string, apply: (ctx: Context) => void) => {
      const fiber = await root.plugin({ name, inject: ['tools'], apply });
      return () => fiber.dispose();
    };
    const host: RegistryHost = {
      register: (definition) =>
        load(`tool-plugin`, (ctx) => {
          ctx.tools.register(definition);
        }),
      use: (interceptor, { name }) =>
        load(name, (ctx) => {
          if (via === 'use') ctx.tools.use(interceptor, { name });
          else ctx.on('tools/execute', interceptor);
        }),
      onResult: (listener, name) =>
        load(name, (ctx) => {
          // The cordis event passes the call first (the DeepSeek Harness's order); the suite's
          // listeners take the registry's order.
          ctx.on('tools/result', (exec, result) => listener(result, exec));
        }),
      onChange: (listener, name) =>
        load(name, (ctx) => {
          ctx.on('tools/change', listener);
        }),
      execute: (exec: ToolExecution): Promise<ToolExecutionResult> => root.tools.execute(exec),
      executeAll: (execs, opts) => root.tools.executeAll(execs, opts),
      schemas: () => root.tools.schemas(),
      has: (name) => root.tools.has(name),
      errors,
      close: () => root.fiber.dispose(),
    };
    return host;
  };
