import { dirname, join } from 'node:path';
import {
  connectMcpServer,
  type McpServerConfig,
  type McpServerHandle,
} from '@dsh-tools/mcp-bridge';
import {
  type Approver,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
} from '@dsh-tools/protocol';
import { createToolRegistry, type ToolRegistry } from '@dsh-tools/registry';
import { AuditLog } from './audit-log';
import { attachAudit } from './audit-record';
import type { LoadedConfig, McpServerEntry, PermissionsConfig } from './config';
import { resolveFromConfig } from './config';
import { DEFAULT_POLICIES } from './default-policies';
import { createExampleTools } from './example-tools';
import { type CallLimiter, createLimiter } from './limits';
import { PINS_FILE, PinBook } from './pins';
import {
  POLICY_ORDER,
  PolicyConfigError,
  type PolicyContext,
  type PolicyFactories,
  type PolicyLayer,
  PolicyUnavailableError,
  TrailRecorder,
} from './policies';
import { openSharedState, type SharedState } from './state-redis';

/** How the connection of one configured server is going, for a progress line. */
export type ServerProgressEvent =
  | { readonly server: string; readonly phase: 'connecting' }
  | {
      readonly server: string;
      readonly phase: 'connected';
      readonly tools: number;
      readonly ms: number;
    }
  | {
      readonly server: string;
      readonly phase: 'failed';
      readonly error: Error;
      readonly ms: number;
    };

/** A configured server that could not be connected. */
export interface ServerFailure {
  readonly server: string;
  readonly error: Error;
}

/** Options of {@link buildGateway}. */
export interface BuildGatewayOptions {
  /**
   * Interceptor factories for the `hooks`, `sandbox` and `permissions` sections (default
   * {@link DEFAULT_POLICIES}: the `@dsh-tools/interceptors-*` packages).
   */
  readonly policies?: PolicyFactories;
  /** Who answers `ask` decisions of the policies. */
  readonly approver?: Approver;
  /** Follows each server's connection (the CLI prints a progress line on stderr). */
  readonly onServer?: (event: ServerProgressEvent) => void;
  /** Problems contained by the registry and the bridges (default: dropped). */
  readonly onError?: (error: unknown) => void;
  /** Records a decision trail for calls begun with `gateway.trails.begin(callId)`. */
  readonly recordTrails?: boolean;
  /** The registry's default body time limit, ms (default 0: none; bridged tools use their server's). */
  readonly timeoutMs?: number;
  /**
   * Who a call's questions belong to (a session, a connection), or `undefined` for the shared
   * scope. A policy that asks one question at a time (the permission interceptor does, so that a
   * person sees one at a time) does so per scope: one client's unanswered question never holds
   * up another's. Without it, every call shares one scope.
   */
  readonly askScope?: (exec: InterceptedExecution) => string | undefined;
  /**
   * The permission mode a call runs in when it is not the config's `defaultMode` (a gateway
   * client's own mode), or `undefined` for the config's. Needs a `permissions` section.
   */
  readonly modeOf?: (exec: InterceptedExecution) => PermissionMode | undefined;
  /**
   * How the tool pins are kept: `record` writes new pins to the lockfile (default true; `inspect`
   * and `check` only read), `watch` follows the file so an approval made by another process
   * applies at once (`serve`).
   */
  readonly pins?: { readonly record?: boolean; readonly watch?: boolean };
  /**
   * A state store to share with other replicas, already connected (the gateway does not close
   * it). Absent: the config's `state` section is connected to (and closed with the gateway).
   */
  readonly state?: SharedState;
}

/** A permission mode, as the config's `permissions.defaultMode` names it. */
export type PermissionMode = NonNullable<PermissionsConfig['defaultMode']>;

/** A registry composed from a config: local tools, MCP servers and policies. */
export interface Gateway {
  readonly registry: ToolRegistry;
  /** The connected servers, by config name. */
  readonly servers: ReadonlyMap<string, McpServerHandle>;
  /** The configured servers that failed to connect, with why. */
  readonly failures: readonly ServerFailure[];
  /** The policy layers installed, outermost first. */
  readonly policies: readonly string[];
  /** Decision trails of recorded calls (with `recordTrails`). */
  readonly trails: TrailRecorder;
  /** The audit trail every call is recorded in (the config's `audit` section), if any. */
  readonly audit?: AuditLog;
  /** The tool pins (a config file's `dsh-tools.lock.json`), unless `pins` is `off`. */
  readonly pins?: PinBook;
  /** The limits per client and tool (the config's `limits`, and clients' own), if any. */
  readonly limits?: CallLimiter;
  /** The state store shared with other replicas (the config's `state`), if any. */
  readonly state?: SharedState;
  /** Closes every server (their processes end) and removes their tools. Idempotent. */
  close(): Promise<void>;
}

function toBridgeConfig(
  name: string,
  entry: McpServerEntry,
  loaded: LoadedConfig,
  onError: (e: Error) => void,
): McpServerConfig {
  const common = {
    name,
    onError,
    ...(entry.timeoutMs !== undefined ? { timeoutMs: entry.timeoutMs } : {}),
    ...(entry.maxTotalTimeoutMs !== undefined
      ? { maxTotalTimeoutMs: entry.maxTotalTimeoutMs }
      : {}),
    ...(entry.startupTimeoutMs !== undefined ? { startupTimeoutMs: entry.startupTimeoutMs } : {}),
    ...(entry.trust !== undefined ? { trust: entry.trust } : {}),
    ...(entry.include ? { include: entry.include } : {}),
    ...(entry.exclude ? { exclude: entry.exclude } : {}),
  };
  if (entry.type === 'http') {
    return { ...common, url: entry.url, ...(entry.headers ? { headers: entry.headers } : {}) };
  }
  return {
    ...common,
    command: entry.command,
    ...(entry.args ? { args: entry.args } : {}),
    ...(entry.env ? { env: entry.env } : {}),
    // A server's cwd is relative to the config file, like every path in it.
    cwd: entry.cwd ? resolveFromConfig(loaded, entry.cwd) : loaded.baseDir,
  };
}

/**
 * A policy with one instance per scope (and permission mode) while that scope has calls in
 * flight (`make` builds one: a permission interceptor costs tens of microseconds), `shared` for
 * calls of no scope. The
 * permission interceptor queues its questions so that a person sees one at a time; per scope,
 * that queue is per client instead of one for the whole gateway.
 */
function perScope(
  shared: Interceptor,
  scopeOf: (
    exec: InterceptedExecution,
  ) => { readonly key: string; readonly mode: PermissionMode | undefined } | undefined,
  make: (mode: PermissionMode | undefined) => Promise<Interceptor>,
): Interceptor {
  const scoped = new Map<string, { interceptor: Promise<Interceptor>; calls: number }>();
  return async (exec, next) => {
    const found = scopeOf(exec);
    if (found === undefined) return shared(exec, next);
    const scope = found.key;
    let entry = scoped.get(scope);
    if (!entry) {
      // Idle scopes are kept for the next call (a connection calls again), up to a bound: the
      // oldest idle one goes first. One with calls in flight is never dropped, so its queue holds.
      if (scoped.size >= MAX_IDLE_SCOPES) {
        for (const [key, held] of scoped) {
          if (held.calls === 0) {
            scoped.delete(key);
            break;
          }
        }
      }
      entry = { interceptor: make(found.mode), calls: 0 };
      scoped.set(scope, entry);
    }
    entry.calls++;
    try {
      return await (await entry.interceptor)(exec, next);
    } finally {
      entry.calls--;
    }
  };
}

/** How many scopes' policies {@link perScope} keeps while they have no call in flight. */
const MAX_IDLE_SCOPES = 256;

/**
 * Composes the registry a config describes: the example tools (if enabled), every MCP server
 * (connected in parallel; one that fails is reported in `failures`, the others still serve),
 * and the policy interceptors, hooks outermost, then sandbox, then permission.
 *
 * A config section for which no policy factory is given is refused with a
 * {@link PolicyUnavailableError} before any server starts: a gateway that silently ignored a
 * `deny` rule would be worse than none.
 */
export async function buildGateway(
  loaded: LoadedConfig,
  options: BuildGatewayOptions = {},
): Promise<Gateway> {
  const { config } = loaded;
  const label = loaded.file ?? 'the embedded default config';
  const factories = options.policies ?? DEFAULT_POLICIES;
  const onError = options.onError ?? (() => {});
  // The audit trail is opened first (a file that is not one refuses the gateway before anything
  // starts); the permission policy tells it each decision through the context.
  const audit = config.audit
    ? new AuditLog({
        file: resolveFromConfig(loaded, config.audit.file),
        ...(config.audit.maxBytes !== undefined ? { maxBytes: config.audit.maxBytes } : {}),
        ...(config.audit.fsync !== undefined ? { fsync: config.audit.fsync } : {}),
      })
    : undefined;
  let audited: ReturnType<typeof attachAudit> | undefined;
  // The shared store is reached before anything starts: a replica never runs on a store it cannot
  // use (its grants, pins and limits would silently be its own).
  const state = options.state ?? (config.state ? await openSharedState(config.state) : undefined);
  const context: PolicyContext = {
    loaded,
    ...(state ? { state } : {}),
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.approver ? { approver: options.approver } : {}),
    ...(audit
      ? {
          onPermissionDecision: (exec, decision, answer) =>
            audited?.onPermissionDecision(exec, decision, answer),
        }
      : {}),
  };

  // Every policy is built (and loaded) before anything starts, so a refusal leaves nothing running.
  const installs: { layer: PolicyLayer; priority: number; interceptor: Interceptor }[] = [];
  for (const { layer, section, priority } of POLICY_ORDER) {
    const settings = config[section];
    if (settings === undefined) continue;
    const factory = factories[layer] as
      | ((s: typeof settings, c: typeof context) => Interceptor)
      | undefined;
    if (!factory) throw new PolicyUnavailableError(label, section, layer);
    let interceptor: Interceptor;
    try {
      interceptor = factory(settings, context);
      // The permission interceptor loads its shell parser and checks its rules asynchronously.
      await (interceptor as { ready?: Promise<void> }).ready;
    } catch (error) {
      throw new PolicyConfigError(label, section, error);
    }
    installs.push({ layer, priority, interceptor });
  }

  // The pins are read before anything starts: a lockfile that is not one refuses the gateway.
  const pinMode = config.pins ?? 'tofu';
  const pins =
    loaded.file !== undefined && pinMode !== 'off'
      ? await PinBook.open(join(dirname(loaded.file), PINS_FILE), {
          mode: pinMode,
          record: options.pins?.record ?? true,
          watch: options.pins?.watch ?? false,
          onError: (error) => onError(error),
          ...(state ? { state } : {}),
        })
      : undefined;

  const registry = createToolRegistry({
    onError: (error) => onError(error),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
  if (pins) {
    // Outermost: a tool held back is refused before any policy or hook sees the call.
    registry.use(
      (exec, next) => {
        const refusal = pins.refusal(exec.name, registry.get(exec.name));
        return refusal === undefined ? next() : errorResult(exec.callId, 'DENIED', refusal);
      },
      { name: 'pins', priority: 1_000_000 },
    );
    // A tool is pinned (under tofu) or held when first seen, not at its first call.
    registry.on('change', () => {
      for (const { name } of registry.schemas()) pins.statusOf(registry.get(name));
    });
  }
  if (audit) {
    audited = attachAudit(registry, {
      log: audit,
      // The gateway client a call came from: `serve` passes it on the call as `identity`.
      identityOf: (exec) => {
        const identity = (exec as { identity?: unknown }).identity;
        return typeof identity === 'string' ? identity : undefined;
      },
      onError,
    });
  }
  // Limits per client (and per tool), counted before any policy runs: a refused call costs nothing.
  const clientLimits = new Map(
    (config.clients ?? []).flatMap((c) => (c.limits ? [[c.name, c.limits] as const] : [])),
  );
  const limits =
    config.limits || clientLimits.size > 0
      ? createLimiter(config.limits, clientLimits, state)
      : undefined;
  if (limits) {
    registry.use(
      limits.interceptor((exec) => (typeof exec.identity === 'string' ? exec.identity : undefined)),
      { name: 'limits', priority: 999_999 },
    );
  }
  const trails = new TrailRecorder();
  for (const install of installs) {
    const { layer, priority } = install;
    const { askScope, modeOf } = options;
    const interceptor =
      (askScope || modeOf) && layer === 'permission' && config.permissions
        ? perScope(
            install.interceptor,
            (exec) => {
              const scope = askScope?.(exec);
              const mode = modeOf?.(exec);
              return scope === undefined && mode === undefined
                ? undefined
                : { key: `${scope ?? ''}\0${mode ?? ''}`, mode };
            },
            async (mode) => {
              const factory = factories.permission as NonNullable<PolicyFactories['permission']>;
              const settings = config.permissions as PermissionsConfig;
              const own = factory(mode ? { ...settings, defaultMode: mode } : settings, context);
              await (own as { ready?: Promise<void> }).ready;
              return own;
            },
          )
        : install.interceptor;
    registry.use(options.recordTrails ? trails.wrap(layer, interceptor) : interceptor, {
      name: layer,
      priority,
    });
  }
  if (options.recordTrails) registry.use(trails.body(), { name: 'trail', priority: -1_000_000 });

  if (config.exampleTools) {
    const settings = config.exampleTools === true ? {} : config.exampleTools;
    for (const tool of createExampleTools({
      root: resolveFromConfig(loaded, settings.cwd ?? '.'),
      ...(settings.writable !== undefined ? { writable: settings.writable } : {}),
    })) {
      registry.register(tool);
    }
  }

  const servers = new Map<string, McpServerHandle>();
  const failures: ServerFailure[] = [];
  await Promise.all(
    Object.entries(config.mcpServers).map(async ([name, entry]) => {
      options.onServer?.({ server: name, phase: 'connecting' });
      const started = performance.now();
      try {
        const handle = await connectMcpServer(
          registry,
          toBridgeConfig(name, entry, loaded, onError),
        );
        servers.set(name, handle);
        options.onServer?.({
          server: name,
          phase: 'connected',
          tools: handle.tools.length,
          ms: performance.now() - started,
        });
      } catch (error) {
        const err = error instanceof Error ? error : new Error(String(error));
        failures.push({ server: name, error: err });
        options.onServer?.({
          server: name,
          phase: 'failed',
          error: err,
          ms: performance.now() - started,
        });
      }
    }),
  );

  let closing: Promise<void> | undefined;
  return {
    registry,
    servers,
    failures,
    policies: installs.map((i) => i.layer),
    trails,
    ...(audit ? { audit } : {}),
    ...(pins ? { pins } : {}),
    ...(limits ? { limits } : {}),
    ...(state ? { state } : {}),
    close() {
      closing ??= Promise.allSettled([...servers.values()].map((s) => s.close())).then(async () => {
        audit?.close();
        pins?.close();
        await pins?.flushed();
        if (!options.state) await state?.close();
      });
      return closing;
    },
  };
}
