import { type Context, Service } from '@deepseek-ai/cordis';
import {
  type PermissionDecision,
  type PermissionGrant,
  type PermissionInterceptor,
  type PermissionMode,
  type PermissionOptions,
  permissionInterceptor,
} from '@dsh-tools/interceptors-permission';
import type { InterceptedExecution } from '@dsh-tools/protocol';
import { configError, createOrFail, installInterceptor, requireObject } from './interceptor-plugin';

declare module '@deepseek-ai/cordis' {
  interface Context {
    /** The permission policy's controls, provided by the {@link Permission} plugin. */
    permission: Permission;
  }
}

/** Options the factory takes as given and would only trip over later: checked here, by name. */
const FIELD_KINDS: ReadonlyArray<readonly [keyof PermissionOptions, 'string' | 'function']> = [
  ['cwd', 'string'],
  ['home', 'string'],
  ['approve', 'function'],
  ['now', 'function'],
  ['onError', 'function'],
];

const checkFields = (config: PermissionOptions): void => {
  for (const [field, kind] of FIELD_KINDS) {
    const value: unknown = config[field];
    if (value !== undefined && typeof value !== kind) {
      throw configError(
        'Permission',
        `option "${field}" must be a ${kind} (got ${value === null ? 'null' : typeof value}).`,
      );
    }
  }
  const grants: unknown = config.grants;
  if (
    grants !== undefined &&
    (typeof grants !== 'object' ||
      grants === null ||
      typeof (grants as { load?: unknown }).load !== 'function' ||
      typeof (grants as { save?: unknown }).save !== 'function')
  ) {
    throw configError(
      'Permission',
      'option "grants" must be a GrantStore ({ load(), save(grants) }), such as createMemoryGrantStore() or createJsonFileGrantStore(file).',
    );
  }
};

/**
 * The permission interceptor of `@dsh-tools/interceptors-permission` as a cordis plugin, and its
 * controls as the service `ctx.permission`: `ctx.plugin(Permission, { rules, mode, approve })`,
 * with `permissionInterceptor`'s options (`...await loadClaudeSettings()` fills `rules` and `mode`
 * from Claude Code's settings files). Without a config it is the factory's default policy: no
 * rules, mode `default`, no approver (so whatever would ask is denied).
 *
 * The interceptor is the innermost of the interceptor plugins ({@link INTERCEPTOR_PRIORITY}), so it
 * judges each call as hooks rewrote it and sandbox let it through. The host reaches the policy
 * through the service: `ctx.permission.setMode('plan')`, `await ctx.permission.explain(exec)`,
 * `listGrants()`, `addGrant()`, `revokeGrant()`. The plugin settles once the policy is loaded
 * (`ready`: shell parser, grant store, examples checked). A malformed config, or a policy that does
 * not load (an example decided otherwise, an unreadable grant file), fails the plugin with a
 * `TypeError` naming the plugin and the option, and leaves no interceptor installed: an app must not
 * go on without its policy. Disposing the plugin removes the interceptor and the service.
 */
export class Permission extends Service {
  /** cordis: the service needs `ctx.tools` to install its interceptor in. */
  static readonly inject: string[] = ['tools'];

  /** The interceptor, whose host controls the service's methods forward to. */
  private readonly interceptor: PermissionInterceptor;

  constructor(ctx: Context, config: PermissionOptions = {}) {
    // Everything that can fail runs before `super`, which provides the service: a bad config
    // leaves neither a service nor an interceptor behind.
    requireObject('Permission', config, '{ rules?, mode?, cwd?, approve?, grants?, examples?, … }');
    checkFields(config);
    const interceptor = createOrFail('Permission', () => permissionInterceptor(config));
    super(ctx, 'permission');
    this.interceptor = interceptor;
    // Installed at once, so calls made while the policy loads wait for it rather than run unchecked.
    installInterceptor(ctx, interceptor, 'permission');
  }

  /** cordis runs this after construction: the plugin settles once the policy has loaded. */
  async [Service.init](): Promise<void> {
    try {
      await this.interceptor.ready;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw configError('Permission', `the policy did not load: ${message}`, error);
    }
  }

  /** The current mode. */
  get mode(): PermissionMode {
    return this.interceptor.mode;
  }

  /** Changes the mode; calls already past the check are not affected. Throws on an unknown mode. */
  setMode(mode: PermissionMode): void {
    this.interceptor.setMode(mode);
  }

  /** Decides a call without running it or asking anyone, with the full trail. */
  explain(exec: InterceptedExecution): Promise<PermissionDecision> {
    return this.interceptor.explain(exec);
  }

  /** Current grants (expired and used-up ones are dropped). */
  listGrants(): Promise<readonly PermissionGrant[]> {
    return this.interceptor.listGrants();
  }

  /** Adds a grant as the host (`by` defaults to `host`). Rejects on a malformed rule. */
  addGrant(grant: Parameters<PermissionInterceptor['addGrant']>[0]): Promise<PermissionGrant> {
    return this.interceptor.addGrant(grant);
  }

  /** Revokes a grant; resolves with whether it existed. */
  revokeGrant(id: string): Promise<boolean> {
    return this.interceptor.revokeGrant(id);
  }
}
