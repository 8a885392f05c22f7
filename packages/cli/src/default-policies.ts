import { type HooksConfig as HooksSettings, hooksInterceptor } from '@dsh-tools/interceptors-hooks';
import { permissionInterceptor } from '@dsh-tools/interceptors-permission';
import { type SandboxOptions, sandboxInterceptor } from '@dsh-tools/interceptors-sandbox';
import { resolveFromConfig } from './config';
import type { PolicyFactories } from './policies';
import { grantStoreOf } from './state-grants';

/**
 * The interceptor packages behind the config's policy sections: `@dsh-tools/interceptors-hooks`
 * for `hooks`, `-sandbox` for `sandbox`, `-permission` for `permissions`. Relative paths resolve
 * against the config file's folder, which is also the hooks' and the permission rules' working
 * directory, as a project's `.claude/settings.json` is for Claude Code. With a `state` section the
 * permission policy's grants live in it, shared by every replica (see `state-grants.ts`).
 */
export const DEFAULT_POLICIES: PolicyFactories = {
  hooks: (hooks, { loaded, approver }) =>
    hooksInterceptor({
      // zod leaves absent optional keys out (never `key: undefined`), which is what the
      // interceptors' exact optional types ask for.
      hooks: [{ source: loaded.file ?? 'embedded config', hooks: hooks as HooksSettings }],
      cwd: loaded.baseDir,
      projectDir: loaded.baseDir,
      ...(loaded.config.permissions?.defaultMode
        ? { permissionMode: loaded.config.permissions.defaultMode }
        : {}),
      ...(approver ? { approve: approver } : {}),
    }),
  sandbox: (sandbox, { loaded }) =>
    sandboxInterceptor({
      ...(sandbox as SandboxOptions),
      cwd: resolveFromConfig(loaded, sandbox.cwd ?? '.'),
      ...(sandbox.roots
        ? { roots: sandbox.roots.map((root) => resolveFromConfig(loaded, root)) }
        : {}),
    }),
  permission: (permissions, { loaded, approver, onPermissionDecision, state, onError }) =>
    permissionInterceptor({
      rules: [
        {
          source: loaded.file ? 'dsh-tools config' : 'embedded dsh-tools config',
          ...(loaded.file ? { file: loaded.file } : {}),
          root: loaded.baseDir,
          settingsDir: loaded.baseDir,
          ...(permissions.allow ? { allow: permissions.allow } : {}),
          ...(permissions.ask ? { ask: permissions.ask } : {}),
          ...(permissions.deny ? { deny: permissions.deny } : {}),
        },
      ],
      cwd: loaded.baseDir,
      ...(permissions.defaultMode ? { mode: permissions.defaultMode } : {}),
      ...(permissions.additionalDirectories
        ? {
            additionalDirectories: permissions.additionalDirectories.map((d) =>
              resolveFromConfig(loaded, d),
            ),
          }
        : {}),
      ...(approver ? { approve: approver } : {}),
      ...(onPermissionDecision ? { onDecision: onPermissionDecision } : {}),
      ...(state ? { grants: grantStoreOf(state, onError) } : {}),
      ...(onError ? { onError } : {}),
    }),
};
