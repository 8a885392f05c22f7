import type {
  Approver,
  InterceptedExecution,
  Interceptor,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import type { PermissionVerdict } from './audit-record';
import type { HooksConfig, LoadedConfig, PermissionsConfig, SandboxConfig } from './config';
import type { SharedState } from './state-redis';

/** What a policy factory is given beside its own section of the config. */
export interface PolicyContext {
  /** The loaded config (its file and base directory resolve relative paths). */
  readonly loaded: LoadedConfig;
  /** Who answers `ask` decisions; absent: every ask is denied, saying so. */
  readonly approver?: Approver;
  /** Told of every permission decision (the audit trail's rule and source of a call). */
  readonly onPermissionDecision?: (
    exec: InterceptedExecution,
    decision: PermissionVerdict,
    answer?: 'allow' | 'deny' | 'aborted',
  ) => void;
  /** The state store several replicas share (the config's `state`), when there is one. */
  readonly state?: SharedState;
  /** Receives problems a policy contains (a grant store that failed): the gateway's `onError`. */
  readonly onError?: (error: unknown) => void;
}

/**
 * Where the permission, sandbox and hooks interceptors plug in: one factory per config section.
 * Each turns its section into an `Interceptor`; `buildGateway` installs them outermost first in
 * the order the design recommends: hooks, sandbox, permission, then the tool body.
 */
export interface PolicyFactories {
  readonly hooks?: (hooks: HooksConfig, context: PolicyContext) => Interceptor;
  readonly sandbox?: (sandbox: SandboxConfig, context: PolicyContext) => Interceptor;
  readonly permission?: (permissions: PermissionsConfig, context: PolicyContext) => Interceptor;
}

/** The config sections that are policies, in the order they wrap a call (outermost first). */
export const POLICY_ORDER = [
  { layer: 'hooks', section: 'hooks', priority: 300 },
  { layer: 'sandbox', section: 'sandbox', priority: 200 },
  { layer: 'permission', section: 'permissions', priority: 100 },
] as const;

/** A policy layer's name in a decision trail. */
export type PolicyLayer = (typeof POLICY_ORDER)[number]['layer'];

/**
 * A config asks for a policy this build cannot enforce. Running without it would silently drop a
 * deny rule or a sandbox, so the gateway refuses to start instead.
 */
export class PolicyUnavailableError extends Error {
  override readonly name = 'PolicyUnavailableError';
  readonly section: string;
  constructor(file: string, section: string, layer: string) {
    super(
      `${file} has a "${section}" section, but no ${layer} interceptor is available to enforce it ` +
        '(the policies passed to buildGateway() have none). ' +
        `Pass a "${layer}" factory, or remove the "${section}" section to run without it.`,
    );
    this.section = section;
  }
}

/** A policy section the interceptor refused (a malformed rule, a sandbox option out of range). */
export class PolicyConfigError extends Error {
  override readonly name = 'PolicyConfigError';
  readonly section: string;
  constructor(file: string, section: string, cause: unknown) {
    super(
      `The "${section}" section of ${file} cannot be used: ${cause instanceof Error ? cause.message : String(cause)} Fix it and run the command again.`,
      { cause },
    );
    this.section = section;
  }
}

/** One step of a call's way through the gateway. */
export interface TrailStep {
  /** `registry` (checks and validation), a policy layer, or `tool` (the body). */
  readonly layer: 'registry' | PolicyLayer | 'tool';
  /**
   * `passed`: the layer let the call through with the same arguments (possibly with an extension
   * attached, such as the sandbox's runner); `rewrote`: it passed on changed arguments; `vetoed`: it answered without calling on; `ran`/`failed`: the tool body's outcome;
   * `refused`: the registry stopped the call before any policy (unknown tool, invalid arguments).
   */
  readonly outcome: 'passed' | 'rewrote' | 'vetoed' | 'ran' | 'failed' | 'refused';
  readonly code?: string;
  readonly message?: string;
  /** Milliseconds spent in the layer, its inner layers included. */
  readonly ms: number;
}

/** Records the decision trail of calls, by call id, for those who ask for it. */
export class TrailRecorder {
  readonly #trails = new Map<string, TrailStep[]>();

  /** Starts recording the call `callId`. */
  begin(callId: string): void {
    this.#trails.set(callId, []);
  }

  /** The steps recorded for `callId` (outermost first), and forgets them. */
  take(callId: string, result: ToolExecutionResult): TrailStep[] {
    const steps = this.#trails.get(callId) ?? [];
    this.#trails.delete(callId);
    if (steps.length === 0 && result.isError) {
      steps.push({
        layer: 'registry',
        outcome: 'refused',
        ...(result.error ? { code: result.error.code, message: result.error.message } : {}),
        ms: 0,
      });
    }
    // Steps are pushed as layers finish (innermost first); a trail reads outermost first.
    return steps.reverse();
  }

  /** Wraps a policy so that what it does with each recorded call lands in the trail. */
  wrap(layer: PolicyLayer, policy: Interceptor): Interceptor {
    return async (exec, next) => {
      const steps = this.#trails.get(exec.callId);
      if (!steps) return policy(exec, next);
      const started = performance.now();
      const seen: { calledOn: boolean; changed: InterceptedExecution | undefined } = {
        calledOn: false,
        changed: undefined,
      };
      const result = await policy(exec, (changed) => {
        seen.calledOn = true;
        seen.changed = changed;
        return next(changed);
      });
      const ms = performance.now() - started;
      const { calledOn } = seen;
      // Attaching an extension (the sandbox's runner) is not a rewrite; new arguments are.
      const rewrote =
        calledOn && seen.changed !== undefined && seen.changed.arguments !== exec.arguments;
      steps.push({
        layer,
        outcome: !calledOn ? 'vetoed' : rewrote ? 'rewrote' : 'passed',
        ...(!calledOn && result.error
          ? { code: result.error.code, message: result.error.message }
          : {}),
        ms,
      });
      return result;
    };
  }

  /** The innermost interceptor: it sees the call reach the tool body and how the body did. */
  body(): Interceptor {
    return async (exec, next) => {
      const steps = this.#trails.get(exec.callId);
      if (!steps) return next();
      const started = performance.now();
      const result = await next();
      steps.push({
        layer: 'tool',
        outcome: result.isError ? 'failed' : 'ran',
        ...(result.error ? { code: result.error.code, message: result.error.message } : {}),
        ms: performance.now() - started,
      });
      return result;
    };
  }
}
