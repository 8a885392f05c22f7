import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import {
  type ApprovalDecision,
  type ApprovalGrant,
  errorResult,
  type InterceptedExecution,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { decide } from './decide';
import { exampleExecution, listExamples } from './examples';
import { createMemoryGrantStore } from './grants';
import { type ActiveGrant, type Policy, workDirectories } from './policy';
import {
  describeOrigin,
  type ParsedRule,
  PermissionRuleError,
  parseRule,
  parseRuleSets,
} from './rules';
import { analyzeShell } from './shell-analyze';
import { loadShellParser } from './shell-parser';
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

const grantOrigin = (g: PermissionGrant): ParsedRule =>
  parseRule(g.rule, 'allow', { list: 'allow', index: 0, source: `grant ${g.id}` }, '', '');

/** Escapes one word for a rule specifier (backslash before anything the rule reader treats specially). */
const escapeSpecWord = (word: string): string => word.replace(/[\\'"*\s()]/g, (c) => `\\${c}`);

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

  // Asks wait in one line, so a person sees one question at a time.
  let queue: Promise<void> = Promise.resolve();

  const denied = (
    exec: InterceptedExecution,
    message: string,
    decision: PermissionDecision,
  ): ToolExecutionResult => errorResult(exec.callId, 'DENIED', message, { permission: decision });

  const ruleText = (d: PermissionDecision): string | undefined =>
    d.decidedBy.kind === 'rule' ? d.decidedBy.rule : undefined;

  const denialMessage = (exec: InterceptedExecution, d: PermissionDecision): string => {
    const tool = JSON.stringify(exec.name);
    if (d.decidedBy.kind === 'rule' && d.decidedBy.origin.list === 'deny') {
      return `Permission denied for tool ${tool}: ${d.reason}. Do not retry this call or try to get around the rule; if it is needed, ask the user to change rule ${JSON.stringify(d.decidedBy.rule)} in ${describeOrigin(d.decidedBy.origin)}.`;
    }
    if (d.mode === 'plan' && d.decidedBy.kind === 'mode') {
      return `Tool ${tool} cannot run: the session is in plan mode, where only read-only tools run and nothing is changed. Finish the plan and present it; the user leaves plan mode by switching the permission mode (for example to "default" or "acceptEdits") before it is carried out.`;
    }
    if (d.mode === 'plan') {
      return `Tool ${tool} cannot run in plan mode without asking, and plan mode never asks: ${d.reason}. Present the plan; the user leaves plan mode to carry it out.`;
    }
    return `Permission denied for tool ${tool}: ${d.reason}. To run it, the user can add an allow rule for it or switch to a mode that asks.`;
  };

  type Answer =
    | { kind: 'allow'; grant?: ApprovalGrant }
    | { kind: 'deny'; message: string }
    | { kind: 'aborted' };

  const askPerson = async (exec: InterceptedExecution, d: PermissionDecision): Promise<Answer> => {
    const approve = options.approve;
    const tool = JSON.stringify(exec.name);
    if (typeof approve !== 'function') {
      return {
        kind: 'deny',
        message: `Permission denied for tool ${tool}: it needs approval (${d.reason}), but no approver is configured, so it is denied (fail closed). The user can add an allow rule for it.`,
      };
    }
    const callSignal = exec.signal;
    if (callSignal?.aborted) return { kind: 'aborted' };
    const previous = queue;
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    queue = previous.then(() => mine);
    try {
      if (callSignal) {
        let onAbort!: () => void;
        const aborted = new Promise<'aborted'>((r) => {
          onAbort = () => r('aborted');
          callSignal.addEventListener('abort', onAbort, { once: true });
        });
        const turn = await Promise.race([previous.then(() => 'turn' as const), aborted]);
        callSignal.removeEventListener('abort', onAbort);
        if (turn === 'aborted') return { kind: 'aborted' };
      } else {
        await previous;
      }
      const controller = new AbortController();
      const onCallAbort = () => controller.abort(callSignal?.reason);
      callSignal?.addEventListener('abort', onCallAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const stop = new Promise<'timeout' | 'aborted'>((r) => {
          if (approveTimeoutMs > 0) {
            timer = setTimeout(() => {
              controller.abort(new Error('approval timed out'));
              r('timeout');
            }, approveTimeoutMs);
          }
          controller.signal.addEventListener(
            'abort',
            () => r(callSignal?.aborted ? 'aborted' : 'timeout'),
            { once: true },
          );
        });
        const rule = ruleText(d);
        const origin = d.decidedBy.kind === 'rule' ? describeOrigin(d.decidedBy.origin) : undefined;
        let answer: ApprovalDecision | 'timeout' | 'aborted';
        try {
          answer = await Promise.race([
            Promise.resolve().then(() =>
              approve({
                exec,
                tool: exec.tool,
                asker: 'permission',
                reason: d.reason,
                ...(rule !== undefined && { rule }),
                ...(origin !== undefined && { ruleSource: origin }),
                signal: controller.signal,
              }),
            ),
            stop,
          ]);
        } catch (error) {
          controller.abort(error);
          return {
            kind: 'deny',
            message: `Permission denied for tool ${tool}: it needs approval (${d.reason}), but the approver failed (${error instanceof Error ? error.message : String(error)}), so it is denied (fail closed). Try again later or ask the user.`,
          };
        }
        if (answer === 'aborted') return { kind: 'aborted' };
        if (answer === 'timeout') {
          return {
            kind: 'deny',
            message: `Permission denied for tool ${tool}: it needs approval (${d.reason}), but no answer came within ${approveTimeoutMs} ms, so it is denied (fail closed). Ask the user before trying again.`,
          };
        }
        if (answer !== null && typeof answer === 'object' && answer.kind === 'allow') {
          return answer.grant === undefined
            ? { kind: 'allow' }
            : { kind: 'allow', grant: answer.grant };
        }
        if (answer !== null && typeof answer === 'object' && answer.kind === 'deny') {
          const why =
            typeof answer.reason === 'string' && answer.reason !== ''
              ? answer.reason
              : 'no reason given';
          return {
            kind: 'deny',
            message: `The user denied tool ${tool}: ${why}. (It was asked because ${d.reason}.) Do not retry the same call; adjust the approach or ask the user.`,
          };
        }
        return {
          kind: 'deny',
          message: `Permission denied for tool ${tool}: the approver gave a malformed answer (${JSON.stringify(answer)?.slice(0, 80)}), so it is denied (fail closed).`,
        };
      } finally {
        if (timer) clearTimeout(timer);
        callSignal?.removeEventListener('abort', onCallAbort);
      }
    } finally {
      release();
    }
  };

  /** The rule a grant without one covers: the asking rule, else this exact command, else the tool. */
  const defaultGrantRule = (
    exec: InterceptedExecution,
    d: PermissionDecision,
  ): string | undefined => {
    const rule = ruleText(d);
    if (rule !== undefined && d.decidedBy.kind === 'rule' && d.decidedBy.origin.list === 'ask')
      return rule;
    const commandArg = exec.tool.hints.command;
    if (commandArg === undefined) return exec.name;
    const line = exec.arguments[commandArg];
    if (typeof line !== 'string') return undefined;
    const analysis = analyzeShell(line, cwd, home);
    const only = analysis.commands[0];
    // A grant for "this tool" would allow every command; a shell grant covers exactly this one.
    if (
      analysis.problems.length > 0 ||
      analysis.commands.length !== 1 ||
      analysis.redirects.length > 0 ||
      !only ||
      only.via.length > 0
    )
      return undefined;
    if (!only.argv.every((w) => w.literal && !w.glob)) return undefined;
    return `${exec.name}(${only.argv.map((w) => escapeSpecWord(w.value)).join(' ')})`;
  };

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
            const rule = g.rule ?? defaultGrantRule(exec, decision);
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
