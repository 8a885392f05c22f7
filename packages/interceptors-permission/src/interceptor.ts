import {
  errorResult,
  type InterceptedExecution,
  type NarrowableSandbox,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { decide } from './decide/decide';
import { checkExamples } from './decide/examples';
import { honoursExclude, joinExclusions, readExclusion } from './decide/exclusion';
import { narrowableSandbox, sandboxNarrowing } from './decide/narrowing';
import { checkMode, readOptions } from './decide/options';
import { createAskPerson, denialMessage } from './grants/approval';
import { createGrantBook, keepApprovedGrant } from './grants/book';
import { createMemoryGrantStore } from './grants/store';
import { loadShellParser } from './shell/parser';
import type {
  PermissionDecision,
  PermissionGrant,
  PermissionInterceptor,
  PermissionMode,
  PermissionOptions,
} from './types';

const message = (error: unknown): string =>
  error instanceof Error ? error.message : String(error);

/**
 * The permission interceptor: allow / ask / deny rules in Claude Code's syntax, enforced modes,
 * approvals with scoped, expiring grants, shell-aware matching and `explain`.
 *
 * Throws at once on a malformed rule or mode (quoting it); the shell parser, the grant store and
 * the policy's `examples` load in the background (`ready`). The returned interceptor itself never
 * throws: every failure is a `DENIED` result whose `error.details.permission` carries the trail.
 */
export function permissionInterceptor(options: PermissionOptions = {}): PermissionInterceptor {
  const read = readOptions(options);
  const { policy, approveTimeoutMs } = read;
  let mode = read.mode;
  const report = (error: unknown) => {
    try {
      options.onError?.(error);
    } catch {
      // A host's error hook that throws must not break a call.
    }
  };
  const told = (
    exec: InterceptedExecution,
    decision: PermissionDecision,
    answer?: 'allow' | 'deny' | 'aborted',
  ) => {
    if (options.onDecision === undefined) return;
    try {
      options.onDecision(exec, decision, answer);
    } catch (error) {
      report(error);
    }
  };
  const book = createGrantBook(options.grants ?? createMemoryGrantStore(), read.now, report);
  let storeError: unknown;
  const ready = (async () => {
    await loadShellParser();
    try {
      await book.load();
    } catch (error) {
      // A store that cannot be read is reported and left alone; the policy works without its grants.
      // (A shared store is asked again before every decision, so its failure now is not kept.)
      if (!book.shared) storeError = error;
      report(error);
    }
    checkExamples(policy, options.examples, mode);
  })();
  let loadError: unknown;
  ready.catch((error) => {
    loadError = error;
  });
  const askPerson = createAskPerson(options, approveTimeoutMs);
  const denied = (exec: InterceptedExecution, text: string, decision: PermissionDecision) =>
    errorResult(exec.callId, 'DENIED', text, { permission: decision });

  /**
   * Decides a call, taking one use of each counted grant an allow relies on before it is final.
   * A grant that no longer applies (another call or process took its last use, it expired, it was
   * revoked) is left out and the call decided again; a store that cannot be asked leaves every
   * grant out. Each round has fewer grants, so this ends.
   */
  const decideAndSpend = async (exec: InterceptedExecution): Promise<PermissionDecision> => {
    let grants = book.shared ? await book.current() : book.active();
    for (;;) {
      const decision = decide(policy, exec, mode, grants);
      if (decision.behavior !== 'allow' || decision.grants.length === 0) return decision;
      const taken = await book.take(decision.grants);
      if ('unavailable' in taken) grants = [];
      else if (taken.refused.length === 0) return decision;
      else grants = grants.filter((g) => !taken.refused.includes(g.grant.id));
    }
  };

  /** Decides, asks when the decision says so, and runs the call only when it is allowed. */
  const interceptor = async (
    exec: InterceptedExecution,
    next: (e?: InterceptedExecution) => Promise<ToolExecutionResult>,
  ): Promise<ToolExecutionResult> => {
    try {
      await ready.catch(() => undefined);
      if (loadError !== undefined) {
        return errorResult(
          exec.callId,
          'DENIED',
          `Permission denied for tool ${JSON.stringify(exec.name)}: the permission policy failed to load (${message(loadError)}). Every call is denied until the policy is fixed.`,
        );
      }
      const decision = await decideAndSpend(exec);
      if (decision.behavior === 'allow') {
        told(exec, decision);
      } else if (decision.behavior === 'deny') {
        told(exec, decision);
        return denied(exec, denialMessage(exec, decision), decision);
      } else {
        const answer = await askPerson(exec, decision);
        told(exec, decision, answer.kind);
        if (answer.kind === 'aborted') {
          return errorResult(
            exec.callId,
            'ABORTED',
            `Tool ${JSON.stringify(exec.name)} was aborted while waiting for approval.`,
          );
        }
        if (answer.kind === 'deny') return denied(exec, answer.message, decision);
        if (answer.grant !== undefined)
          keepApprovedGrant(book, exec, decision, answer.grant, policy, report);
      }
    } catch (error) {
      return errorResult(
        exec.callId,
        'DENIED',
        `Permission denied for tool ${JSON.stringify(exec.name)}: the permission check failed (${message(error)}), so the call is denied (fail closed).`,
      );
    }
    // One policy, two enforcement points: with a sandbox on the call, this policy's path denies and
    // network rules also narrow the sandbox every process of the call runs in, so a command the
    // analysis misread (or a person allowed) still cannot reach what the rules deny.
    // A directory reader that leaves out what the call's exclusion covers gets the deny rules as
    // one (that is why its directory was not asked about).
    const exclusion = honoursExclude(exec.tool) ? readExclusion(policy, exec) : undefined;
    const sandbox = narrowableSandbox(exec);
    if (sandbox === undefined && exclusion === undefined) return next();
    let narrowed: NarrowableSandbox | undefined;
    try {
      narrowed = sandbox?.narrow(sandboxNarrowing(policy));
    } catch (error) {
      return errorResult(
        exec.callId,
        'DENIED',
        `Permission denied for tool ${JSON.stringify(exec.name)}: the sandbox cannot enforce the permission rules (${message(error)}), so the call is denied (fail closed). Write the rule's path with *, ? and ** only.`,
      );
    }
    return next({
      ...exec,
      ...(narrowed !== undefined && { sandbox: narrowed }),
      ...(exclusion !== undefined && { exclude: joinExclusions(exec.exclude, exclusion) }),
    } as InterceptedExecution);
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
        const decision = decide(policy, exec, mode, await book.current());
        if (decision.behavior === 'deny') return decision;
        const exclusion = honoursExclude(exec.tool) ? readExclusion(policy, exec) : undefined;
        return {
          ...decision,
          enforced: {
            sandbox: sandboxNarrowing(policy),
            ...(exclusion !== undefined && { exclude: exclusion.globs }),
          },
        };
      },
    },
    listGrants: {
      value: async (): Promise<readonly PermissionGrant[]> => {
        await ready.catch(() => undefined);
        if (storeError !== undefined) throw storeError;
        return book.list();
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
        return book.addStored(g.rule, g.by ?? 'host', g.expiresInMs, g.uses);
      },
    },
    revokeGrant: {
      value: async (id: string): Promise<boolean> => {
        await ready.catch(() => undefined);
        return book.revoke(id);
      },
    },
    ready: { value: ready },
  }) as PermissionInterceptor;
}
