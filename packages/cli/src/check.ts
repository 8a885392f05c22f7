import { compileMatcher } from '@dsh-tools/interceptors-hooks';
import type { PermissionDecision, PermissionInterceptor } from '@dsh-tools/interceptors-permission';
import type {
  DenyRule,
  SandboxDescription,
  SandboxRunner,
  SandboxViolationDetails,
} from '@dsh-tools/interceptors-sandbox';
import {
  type ApprovalRequest,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  type ToolExecutionResult,
  textContent,
} from '@dsh-tools/protocol';
import type { HooksConfig, LoadedConfig } from './config';
import { DEFAULT_POLICIES } from './default-policies';
import type { Gateway } from './gateway';
import type { PolicyFactories, PolicyLayer } from './policies';

/** What `check` concludes: the call would run, would be refused, or would ask a person. */
export type CheckVerdict = 'allow' | 'deny' | 'ask';

/** A PreToolUse hook whose matcher selects the checked tool. */
export interface MatchedHook {
  /** `hooks.PreToolUse[i].hooks[j]`, the hook's place in the config. */
  readonly path: string;
  readonly matcher: string;
  readonly command: string;
}

/** What one layer did with the checked call. */
export interface CheckStep {
  /** `client`: the gateway client's `tools` list (`check --client`). */
  readonly layer: 'client' | 'registry' | PolicyLayer;
  /**
   * `passed`, `rewrote` (a hook changed the arguments), `asks` (a person would be asked),
   * `vetoed`, `refused` (the registry: unknown tool, invalid arguments), or `not-run` (hooks
   * that match but were not run: see `--run-hooks`).
   */
  readonly outcome: 'passed' | 'rewrote' | 'asks' | 'vetoed' | 'refused' | 'not-run';
  /** Why, in words a person reads. */
  readonly reason: string;
  /** The rule, mode or hook that decided this step, as written. */
  readonly rule?: string;
  /** Where that rule came from: a field of the config file, a default. */
  readonly source?: string;
  readonly code?: string;
}

/** The report of `dsh-tools check`. */
export interface CheckReport {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The gateway client the call was checked as (`check --client`), with its mode if it has one. */
  readonly client?: { readonly name: string; readonly mode?: string };
  /** The arguments inner layers judged, when a hook rewrote them. */
  readonly effectiveArguments?: Readonly<Record<string, unknown>>;
  readonly config: string | null;
  /** The policy layers configured, outermost first. */
  readonly policies: readonly string[];
  readonly verdict: CheckVerdict;
  /** The step that decided the verdict (the first veto, else the first ask, else none). */
  readonly decidedBy: CheckStep | null;
  /** Every layer in the order the call meets them. */
  readonly steps: readonly CheckStep[];
  readonly hooks: {
    /** Whether the matching PreToolUse hooks were run (`--run-hooks`). */
    readonly ran: boolean;
    readonly matched: readonly MatchedHook[];
  };
  /** The permission policy's own decision with its trail, when a permission section exists. */
  readonly permission?: PermissionDecision;
  /**
   * What every process of the call would run under, when a sandbox is configured and the call
   * gets that far: its mode, writable places, deny globs, network and limits, with the
   * permission rules' narrowing already applied (`narrowedBy` says so).
   */
  readonly sandbox?: SandboxDescription;
}

/** The PreToolUse hooks of `hooks` that select `tool`, with their place in the config. */
export function matchingPreToolUseHooks(
  hooks: HooksConfig | undefined,
  tool: string,
): MatchedHook[] {
  const found: MatchedHook[] = [];
  (hooks?.PreToolUse ?? []).forEach((entry, i) => {
    // The hooks interceptor compiled these matchers when the gateway was built, so they compile.
    if (!compileMatcher(entry.matcher)(tool)) return;
    entry.hooks.forEach((hook, j) => {
      found.push({
        path: `hooks.PreToolUse[${i}].hooks[${j}]`,
        matcher: entry.matcher ?? '*',
        command: hook.command,
      });
    });
  });
  return found;
}

function describeDecider(
  decision: PermissionDecision,
  where: string,
): { rule: string; source: string } {
  const by = decision.decidedBy;
  switch (by.kind) {
    case 'rule':
      return {
        rule: by.rule,
        source: `permissions.${by.origin.list}[${by.origin.index}] in ${by.origin.file ?? by.origin.source}`,
      };
    case 'grant':
      return { rule: by.grant.rule, source: `a grant made by ${by.grant.origin.by}` };
    case 'mode':
      return { rule: `mode "${by.mode}"`, source: where };
    case 'unparsed':
      return { rule: 'a command the parser cannot read', source: 'the permission policy' };
    default:
      return { rule: 'the permission policy', source: 'the permission policy' };
  }
}

/**
 * Where a sandbox deny glob came from: the config's `denyRead` / `denyWrite`, or the sandbox's
 * built-in defaults (secrets such as `.env` and `~/.ssh` are refused without being listed).
 */
function globSource(
  deny: DenyRule | undefined,
  sandbox: {
    denyRead?: readonly string[] | undefined;
    denyWrite?: readonly string[] | undefined;
  },
  file: string,
): string | undefined {
  if (!deny) return undefined;
  const index = sandbox[deny.list]?.indexOf(deny.glob) ?? -1;
  return index >= 0
    ? `sandbox.${deny.list}[${index}] in ${file}`
    : `the sandbox's built-in ${deny.list} list (DEFAULT_${deny.list === 'denyRead' ? 'DENY_READ' : 'DENY_WRITE'})`;
}

/** Collects what each layer does with the one call that `check` sends through the registry. */
class CheckRecorder {
  readonly steps: CheckStep[] = [];
  effective: Readonly<Record<string, unknown>> | undefined;
  permission: PermissionDecision | undefined;
  sandbox: SandboxDescription | undefined;
  matched: MatchedHook[] = [];
}

/**
 * The policy factories of `check`: each layer judges the call as in a real one, but nothing runs
 * and nobody is asked. Hooks are commands with side effects, so by default they are listed, not
 * run (`runHooks` runs the matching PreToolUse hooks, never PostToolUse ones); the sandbox's
 * path checks are pure and run as they are; the permission layer answers with `explain`.
 */
function checkPolicies(
  loaded: LoadedConfig,
  recorder: CheckRecorder,
  runHooks: boolean,
): PolicyFactories {
  const file = loaded.file ?? 'the embedded default config';
  const base = DEFAULT_POLICIES;
  return {
    hooks: (hooks, context) => {
      if (!runHooks) {
        // Built anyway, so that a malformed matcher is refused exactly as `call` refuses it.
        base.hooks?.(hooks, context);
        return async (exec, next) => {
          recorder.matched = matchingPreToolUseHooks(hooks, exec.name);
          if (recorder.matched.length > 0) {
            recorder.steps.push({
              layer: 'hooks',
              outcome: 'not-run',
              reason: `${recorder.matched.length} PreToolUse hook(s) match and would run first; check does not run them (they are commands with side effects): pass --run-hooks to run them.`,
              rule: recorder.matched.map((h) => h.command).join('; '),
              source: `${recorder.matched.map((h) => h.path).join(', ')} in ${file}`,
            });
          }
          return next();
        };
      }
      const asks: ApprovalRequest[] = [];
      const interceptor = base.hooks!(
        // Only PreToolUse: a PostToolUse hook would judge a result that check never produces.
        { ...(hooks.PreToolUse ? { PreToolUse: hooks.PreToolUse } : {}) },
        {
          ...context,
          // A hook's ask is recorded and let through, so that the layers inside are judged too.
          approver: (request) => {
            asks.push(request);
            return { kind: 'allow' };
          },
        },
      );
      return async (exec, next) => {
        recorder.matched = matchingPreToolUseHooks(hooks, exec.name);
        let forwarded: InterceptedExecution | undefined;
        let calledOn = false;
        const result = await interceptor(exec, (changed) => {
          calledOn = true;
          forwarded = changed;
          return next(changed);
        });
        if (recorder.matched.length === 0) return result;
        const source = `${recorder.matched.map((h) => h.path).join(', ')} in ${file}`;
        const rule = recorder.matched.map((h) => h.command).join('; ');
        if (!calledOn) {
          recorder.steps.push({
            layer: 'hooks',
            outcome: 'vetoed',
            reason: result.error?.message ?? 'a PreToolUse hook denied the call',
            rule,
            source,
            ...(result.error ? { code: result.error.code } : {}),
          });
          return result;
        }
        const rewrote = forwarded !== undefined && forwarded.arguments !== exec.arguments;
        if (rewrote) recorder.effective = forwarded!.arguments;
        const ask = asks[0];
        recorder.steps.push({
          layer: 'hooks',
          outcome: ask ? 'asks' : rewrote ? 'rewrote' : 'passed',
          reason: ask
            ? ask.reason
            : rewrote
              ? `a PreToolUse hook rewrote the arguments to ${JSON.stringify(forwarded!.arguments)}`
              : 'the matching PreToolUse hooks let the call through',
          rule: ask?.rule ?? rule,
          source: ask?.ruleSource ?? source,
        });
        return result;
      };
    },
    sandbox: (sandbox, context) => {
      const interceptor = base.sandbox!(sandbox, context);
      const source = `sandbox.mode in ${file}`;
      return async (exec, next) => {
        let calledOn = false;
        const result = await interceptor(exec, (changed) => {
          calledOn = true;
          const runner = changed?.sandbox as SandboxRunner | undefined;
          if (typeof runner?.describe === 'function') recorder.sandbox = runner.describe();
          return next(changed);
        });
        const details = result.error?.details as Partial<SandboxViolationDetails> | undefined;
        const paths = (exec.tool?.hints?.paths ?? [])
          .map((p) => ({ ...p, value: exec.arguments[p.arg] }))
          .filter((p) => typeof p.value === 'string');
        const step: CheckStep = calledOn
          ? {
              layer: 'sandbox',
              outcome: 'passed',
              reason:
                paths.length > 0
                  ? `mode "${sandbox.mode}" permits ${paths.map((p) => `${p.access === 'write' ? 'writing' : 'reading'} "${String(p.value)}"`).join(', ')}`
                  : `mode "${sandbox.mode}" permits this tool (no path arguments to check)`,
              rule: `mode "${sandbox.mode}"`,
              source,
            }
          : {
              layer: 'sandbox',
              outcome: 'vetoed',
              reason: result.error?.message ?? 'the sandbox refused the call',
              ...(details?.rule ? { rule: details.rule } : {}),
              source: globSource(details?.violation?.deny, sandbox, file) ?? source,
              ...(result.error ? { code: result.error.code } : {}),
            };
        recorder.steps.push(step);
        return result;
      };
    },
    permission: (permissions, context) => {
      const policy = base.permission!(permissions, context) as Partial<PermissionInterceptor> &
        Interceptor;
      const where = permissions.defaultMode
        ? `permissions.defaultMode in ${file}`
        : 'the default, as permissions.defaultMode is not set';
      const explain = async (
        exec: InterceptedExecution,
        next: (changed?: InterceptedExecution) => Promise<ToolExecutionResult>,
      ): Promise<ToolExecutionResult> => {
        if (typeof policy.explain !== 'function') {
          throw new Error('the permission interceptor has no explain()');
        }
        const decision = await policy.explain(exec);
        recorder.permission = decision;
        const { rule, source } = describeDecider(decision, where);
        const outcome =
          decision.behavior === 'deny' ? 'vetoed' : decision.behavior === 'ask' ? 'asks' : 'passed';
        recorder.steps.push({
          layer: 'permission',
          outcome,
          reason: decision.reason,
          rule,
          source,
        });
        if (decision.behavior === 'deny') {
          return errorResult(exec.callId, 'DENIED', decision.reason);
        }
        // What the real interceptor would do next: narrow the call's sandbox by the same rules.
        const runner = exec.sandbox as SandboxRunner | undefined;
        if (decision.enforced && typeof runner?.narrow === 'function') {
          try {
            recorder.sandbox = runner.narrow(decision.enforced.sandbox).describe();
          } catch (error) {
            const reason = `the sandbox cannot enforce the permission rules (${error instanceof Error ? error.message : String(error)}), so the call would be denied (fail closed)`;
            recorder.steps.push({ layer: 'permission', outcome: 'vetoed', reason, rule, source });
            return errorResult(exec.callId, 'DENIED', reason);
          }
        }
        return next();
      };
      // The gateway awaits `ready` (the shell parser, the examples) before anything starts.
      return Object.assign(explain, { ready: policy.ready });
    },
  };
}

const LAYER_ORDER: readonly CheckStep['layer'][] = ['hooks', 'sandbox', 'permission', 'registry'];

/** The innermost step of `check`: the call got through every layer, and the tool is not run. */
const stopBeforeTheTool: Interceptor = async (exec) => ({
  callId: exec.callId,
  content: [textContent('(not run: dsh-tools check)')],
  isError: false,
});

/**
 * Decides `tool(args)` through the gateway's registry (so unknown tools and invalid arguments
 * are refused exactly as a call would be) and every configured policy, without running the tool
 * or asking anyone. `build` composes the gateway with the policy factories it is given.
 */
export async function checkCall(
  loaded: LoadedConfig,
  build: (policies: PolicyFactories) => Promise<Gateway>,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  options: { runHooks?: boolean } = {},
): Promise<{ report: CheckReport; gateway: Gateway }> {
  const recorder = new CheckRecorder();
  const gateway = await build(checkPolicies(loaded, recorder, options.runHooks === true));
  gateway.registry.use(stopBeforeTheTool, { name: 'check', priority: -2_000_000 });
  const result = await gateway.registry.execute({
    callId: `check-${Date.now().toString(36)}`,
    name: tool,
    arguments: args as Record<string, unknown>,
  });
  // Layers record as they finish (inner ones first); a report reads in the order a call meets them.
  const steps = recorder.steps.sort(
    (a, b) => LAYER_ORDER.indexOf(a.layer) - LAYER_ORDER.indexOf(b.layer),
  );
  if (steps.length === 0 && result.isError && result.error) {
    steps.push({
      layer: 'registry',
      outcome: 'refused',
      reason: result.error.message,
      code: result.error.code,
      rule:
        result.error.code === 'UNKNOWN_TOOL'
          ? 'the tool must be registered'
          : "the tool's parameters schema",
      source: 'the registry',
    });
  } else if (result.isError && result.error && !steps.some((s) => s.outcome === 'vetoed')) {
    // A hook's rewrite the registry refused when it validated it again.
    steps.push({
      layer: 'registry',
      outcome: 'refused',
      reason: result.error.message,
      code: result.error.code,
      source: 'the registry',
    });
  }
  const decidedBy =
    steps.find((s) => s.outcome === 'vetoed' || s.outcome === 'refused') ??
    steps.find((s) => s.outcome === 'asks') ??
    null;
  const verdict: CheckVerdict =
    decidedBy === null ? 'allow' : decidedBy.outcome === 'asks' ? 'ask' : 'deny';
  const report: CheckReport = {
    tool,
    arguments: args,
    ...(recorder.effective ? { effectiveArguments: recorder.effective } : {}),
    config: loaded.file ?? null,
    policies: gateway.policies,
    verdict,
    decidedBy,
    steps,
    hooks: { ran: options.runHooks === true, matched: recorder.matched },
    ...(recorder.permission ? { permission: recorder.permission } : {}),
    ...(recorder.sandbox ? { sandbox: recorder.sandbox } : {}),
  };
  return { report, gateway };
}
