import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import {
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { decide } from './decide/decide';
import { exampleExecution, listExamples } from './decide/examples';
import { type ActiveGrant, type Policy, workDirectories } from './decide/policy';
import { PermissionRuleError, parseRuleSets } from './decide/rules';
import { createAskPerson, denialMessage, ruleText } from './grants/approval';
import { defaultGrantRule, grantOrigin } from './grants/rules';
import { createMemoryGrantStore } from './grants/store';
import { loadShellParser } from './shell/parser';
import {
  PERMISSION_MODES,
  type PermissionDecision,
  type PermissionGrant,
  type PermissionInterceptor,
  type PermissionMode,
  type PermissionOptions,
} from './types';

const DEFAULT_APPROVE_TIMEOUT_MS = 300_000;

const checkMode = (mode: unknown): PermissionMode => {
  if (!PERMISSION_MODES.includes(mode as PermissionMode)) {
    throw new PermissionRuleError(
      `Permission mode ${JSON.stringify(mode)} is not one of ${PERMISSION_MODES.join(', ')}.`,
    );
  }
  return mode as PermissionMode;
};

/**
 * The permission interceptor: allow / ask / deny rules in Claude Code's syntax, enforced modes,
 * approvals with scoped, expiring grants, shell-aware matching and `explain`.
 *
 * Throws at once on a malformed rule or mode (quoting it); the shell parser, the grant store and
 * the policy's `examples` load in the background (`ready`). The returned interceptor itself never
 * throws: every failure is a `DENIED` result whose `error.details.permission` carries the trail.
 */
export function permissionInterceptor(options: PermissionOptions = {}): PermissionInterceptor {
  if (options === null || typeof options !== 'object') {
    throw new PermissionRuleError('permissionInterceptor: options must be an object.');
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = options.home ?? homedir();
  const now = options.now ?? Date.now;
  const rules = parseRuleSets(options.rules, cwd);
  let mode = checkMode(options.mode ?? 'default');
  const additional = (options.additionalDirectories ?? []).map((d) => {
    if (typeof d !== 'string' || d === '')
      throw new PermissionRuleError('additionalDirectories must hold non-empty paths.');
    return resolve(cwd, d);
  });
  const approveTimeoutMs = options.approveTimeoutMs ?? DEFAULT_APPROVE_TIMEOUT_MS;
  if (!(Number.isFinite(approveTimeoutMs) && approveTimeoutMs >= 0)) {
    throw new PermissionRuleError(
      `approveTimeoutMs must be a number >= 0 (got ${approveTimeoutMs}).`,
    );
  }
  const cacheSize = options.parseCacheSize ?? 256;
  if (!(Number.isInteger(cacheSize) && cacheSize >= 0)) {
    throw new PermissionRuleError(`parseCacheSize must be a whole number >= 0 (got ${cacheSize}).`);
  }
  const policy: Policy = {
    rules,
    cwd,
    home,
    workDirs: workDirectories(cwd, additional, home),
    parseCache: { size: cacheSize, entries: new Map() },
  };
  const store = options.grants ?? createMemoryGrantStore();
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // A host's error hook that throws must not break a call.
    }
  };

  let grants: ActiveGrant[] = [];
  let storeError: unknown;
  let saving: Promise<void> = Promise.resolve();
  const persist = () => {
    const snapshot = grants.map((g) => g.grant);
    saving = saving.then(() => store.save(snapshot)).catch(report);
    return saving;
  };
  const activeGrants = (): ActiveGrant[] => {
    const t = now();
    const live = grants.filter(
      (g) => (g.grant.expiresAt === undefined || g.grant.expiresAt > t) && g.grant.usesLeft !== 0,
    );
    if (live.length !== grants.length) {
      grants = live;
      void persist();
    }
    return live;
  };

  const ready = (async () => {
    await loadShellParser();
    try {
      grants = [];
      for (const grant of await store.load()) {
        try {
          grants.push({ grant, rule: grantOrigin(grant) });
        } catch (error) {
          report(error);
        }
      }
    } catch (error) {
      // A store that cannot be read is reported and left alone; the policy works without its grants.
      storeError = error;
      report(error);
    }
    const failures: string[] = [];
    for (const { expect, example } of listExamples(options.examples)) {
      let got: PermissionDecision;
      try {
        got = decide(policy, exampleExecution(example), mode, []);
      } catch (error) {
        failures.push(`${JSON.stringify(example)}: ${(error as Error).message}`);
        continue;
      }
      if (got.behavior !== expect) {
        failures.push(
          `${JSON.stringify(example)} should be ${expect} but is ${got.behavior}: ${got.reason}`,
        );
      }
    }
    if (failures.length > 0) {
      throw new PermissionRuleError(
        `Permission policy examples fail (mode "${mode}"):\n- ${failures.join('\n- ')}`,
      );
    }
  })();
  let loadError: unknown;
  ready.catch((error) => {
    loadError = error;
  });

  const addGrant = (
    rule: string,
    by: string,
    expiresInMs: number | undefined,
    uses: number | undefined,
    question?: PermissionGrant['origin']['question'],
  ): PermissionGrant => {
    if (expiresInMs !== undefined && !(Number.isFinite(expiresInMs) && expiresInMs > 0)) {
      throw new PermissionRuleError(
        `A grant's expiresInMs must be a number > 0 (got ${expiresInMs}).`,
      );
    }
    if (uses !== undefined && !(Number.isInteger(uses) && uses > 0)) {
      throw new PermissionRuleError(`A grant's uses must be a whole number > 0 (got ${uses}).`);
    }
    const at = now();
    const grant: PermissionGrant = {
      id: randomUUID(),
      rule,
      ...(expiresInMs !== undefined && { expiresAt: at + expiresInMs }),
      ...(uses !== undefined && { usesLeft: uses }),
      origin: { by, at, ...(question && { question }) },
    };
    const parsed = grantOrigin(grant);
    grants = [...grants, { grant, rule: parsed }];
    void persist();
    return grant;
  };

  const consume = (used: readonly PermissionGrant[]) => {
    if (used.length === 0) return;
    let changed = false;
    grants = grants.flatMap((g) => {
      if (!used.includes(g.grant) || g.grant.usesLeft === undefined) return [g];
      changed = true;
      const left = g.grant.usesLeft - 1;
      return left <= 0 ? [] : [{ ...g, grant: { ...g.grant, usesLeft: left } }];
    });
    if (changed) void persist();
  };

  const askPerson = createAskPerson(options, approveTimeoutMs);

  const denied = (
    exec: InterceptedExecution,
    message: string,
    decision: PermissionDecision,
  ): ToolExecutionResult => errorResult(exec.callId, 'DENIED', message, { permission: decision });

  const interceptor = async (
    exec: InterceptedExecution,
    next: (e?: InterceptedExecution) => Promise<ToolExecutionResult>,
  ): Promise<ToolExecutionResult> => {
    let decision: PermissionDecision;
    try {
      await ready.catch(() => undefined);
      if (loadError !== undefined) {
        return errorResult(
          exec.callId,
          'DENIED',
          `Permission denied for tool ${JSON.stringify(exec.name)}: the permission policy failed to load (${(loadError as Error).message ?? String(loadError)}). Every call is denied until the policy is fixed.`,
        );
      }
      decision = decide(policy, exec, mode, activeGrants());
      if (decision.behavior === 'allow') consume(decision.grants);
      else if (decision.behavior === 'deny')
        return denied(exec, denialMessage(exec, decision), decision);
      else {
        const answer = await askPerson(exec, decision);
        if (answer.kind === 'aborted') {
          return errorResult(
            exec.callId,
            'ABORTED',
            `Tool ${JSON.stringify(exec.name)} was aborted while waiting for approval.`,
          );
        }
        if (answer.kind === 'deny') return denied(exec, answer.message, decision);
        if (answer.grant !== undefined) {
          try {
            const g = answer.grant;
            const rule = g.rule ?? defaultGrantRule(exec, decision, cwd, home);
            if (rule !== undefined) {
              addGrant(rule, 'approver', g.expiresInMs, g.uses, {
                callId: exec.callId,
                tool: exec.name,
                reason: decision.reason,
                ...(ruleText(decision) !== undefined && { rule: ruleText(decision) as string }),
              });
            } else {
              report(
                new Error(
                  `Grant for tool "${exec.name}" not stored: the command is compound or not fully understood, so it was allowed once.`,
                ),
              );
            }
          } catch (error) {
            // The person allowed this call; a grant that cannot be kept only affects later calls.
            report(error);
          }
        }
      }
    } catch (error) {
      return errorResult(
        exec.callId,
        'DENIED',
        `Permission denied for tool ${JSON.stringify(exec.name)}: the permission check failed (${error instanceof Error ? error.message : String(error)}), so the call is denied (fail closed).`,
      );
    }
    return next();
  };

  return Object.defineProperties(interceptor, {
    mode: { get: () => mode, enumerable: true },
    setMode: {
      value: (next: PermissionMode) => {
        mode = checkMode(next);
      },
    },
    explain: {
      value: async (exec: InterceptedExecution): Promise<PermissionDecision> => {
        await ready;
        return decide(policy, exec, mode, activeGrants());
      },
    },
    listGrants: {
      value: async (): Promise<readonly PermissionGrant[]> => {
        await ready.catch(() => undefined);
        if (storeError !== undefined) throw storeError;
        return activeGrants().map((g) => g.grant);
      },
    },
    addGrant: {
      value: async (g: {
        rule: string;
        expiresInMs?: number;
        uses?: number;
        by?: string;
      }): Promise<PermissionGrant> => {
        await ready.catch(() => undefined);
        const grant = addGrant(g.rule, g.by ?? 'host', g.expiresInMs, g.uses);
        await saving;
        return grant;
      },
    },
    revokeGrant: {
      value: async (id: string): Promise<boolean> => {
        await ready.catch(() => undefined);
        const before = grants.length;
        grants = grants.filter((g) => g.grant.id !== id);
        if (grants.length === before) return false;
        await persist();
        return true;
      },
    },
    ready: { value: ready },
  }) as PermissionInterceptor;
}
