import {
  type ContentBlock,
  errorResult,
  type InterceptedExecution,
  type Interceptor,
  isContentBlock,
  type ToolErrorCode,
  type ToolExecutionResult,
} from '@dsh-tools/protocol';
import { type ChainEntry, runChain, WaterfallError } from '@dsh-tools/waterfall';
import { harnessCallOf } from './harness-call';
import type { ApprovalServiceLike, ToolGuard } from './harness-contract';
import type { HarnessTool } from './harness-definition';
import { stageOf } from './harness-scheduler';
import { isRecord, messageOf } from './values';

type PreArgs = [InterceptedExecution];
type PostArgs = [InterceptedExecution, ToolExecutionResult];

/** A guard and the plugin that added it. */
export interface GuardEntry {
  readonly guard: ToolGuard;
  readonly name: string;
  /** The agent scope it was added in; it then guards that agent's calls only. */
  readonly scope?: object;
}

/** Where the policy stage finds what it runs; read once per call. */
export interface PolicySources {
  /** The `tools/pre-execute` listeners that see this call (its agent's scope), outermost first. */
  pre(exec: InterceptedExecution): readonly ChainEntry<PreArgs, unknown>[];
  /** The `tools/post-execute` listeners that see this call, outermost first. */
  post(exec: InterceptedExecution): readonly ChainEntry<PostArgs, unknown>[];
  /** The guards that apply to this call: every unscoped one, and its agent's. */
  guards(exec: InterceptedExecution): readonly GuardEntry[];
  /** `ctx.approval`, when an approval service is loaded. */
  approval(): ApprovalServiceLike | undefined;
  /** The harness-shaped tool this call runs, if it is one. */
  harnessTool(exec: InterceptedExecution): HarnessTool | undefined;
  /**
   * Reports a dispatch of one of the pipeline's events as cordis reports its own
   * (`internal/dispatch`), when something listens: what the harness's invariant checks watch.
   */
  dispatching?(name: string, args: readonly unknown[]): void;
  /** Whether anything listens to `internal/dispatch`. */
  watched?(): boolean;
}

const ALLOW = Object.freeze({ kind: 'allow' });
const ACCEPT = Object.freeze({ kind: 'accept' });

const describe = (value: unknown): string => {
  try {
    return JSON.stringify(value)?.slice(0, 120) ?? String(value);
  } catch {
    return typeof value;
  }
};

/**
 * Wraps each listener to learn which one decided: the last to return without calling `next()`.
 * The decision is the one the chain returns, so "who" is the innermost listener that settled it.
 */
const tracked = <A extends unknown[]>(
  chain: readonly ChainEntry<A, unknown>[],
  decided: { by?: string },
): ChainEntry<A, unknown>[] =>
  chain.map(({ listener, name }) => ({
    name,
    listener: async (...args: [...A, (...next: A | []) => Promise<unknown>]) => {
      const next = args[args.length - 1] as (...next: A | []) => Promise<unknown>;
      let called = false;
      const own = [
        ...args.slice(0, -1),
        (...rest: A | []) => {
          called = true;
          return next(...rest);
        },
      ] as unknown as Parameters<typeof listener>;
      const decision = await listener(...own);
      if (!called) decided.by = name;
      return decision;
    },
  }));

const byWhom = (by: string | undefined, point: string): string =>
  by === undefined ? `a ${point} listener` : `plugin "${by}" (${point})`;

/** A listener that misused its chain or threw: `INTERCEPTOR_ERROR`, naming it; nothing else runs. */
const listenerFailure = (
  exec: InterceptedExecution,
  point: string,
  error: unknown,
  after: string,
): ToolExecutionResult => {
  const who =
    error instanceof WaterfallError
      ? `${point} listener of plugin "${error.listener}" ${error.message.replace(/^listener "[^"]*" /, '')}`
      : `a ${point} listener failed (${messageOf(error)})`;
  return errorResult(
    exec.callId,
    'INTERCEPTOR_ERROR',
    `tool "${exec.name}": ${who}; ${after}. Fix or unload that plugin.`,
  );
};

const denied = (
  exec: InterceptedExecution,
  message: string,
  details: unknown,
  code: ToolErrorCode = 'DENIED',
): ToolExecutionResult => errorResult(exec.callId, code, message, details);

/**
 * The harness's rule for a call its caller cancelled while it ran: a success becomes `ABORTED`
 * (`tool call aborted`), whatever the body made of its aborted signal; a failure stays.
 */
const cancelled = (
  exec: InterceptedExecution,
  result: ToolExecutionResult,
): ToolExecutionResult => {
  if (result.isError || harnessCallOf(exec)?.callerSignal?.aborted !== true) return result;
  return errorResult(exec.callId, 'ABORTED', 'tool call aborted');
};

/**
 * The DeepSeek Harness's policy points as one interceptor, the outermost of the pipeline (after
 * argument validation, around every `tools/execute` listener and `use()` interceptor):
 * `tools/pre-execute` decisions, then the guards, then `ask` through `ctx.approval`, then the rest
 * of the pipeline, then `tools/post-execute` decisions on its result, then the tool's own
 * `finalizeContent`. A harness plugin can only deny or reshape a result here: it cannot skip
 * validation, the interceptors, or the body's timeout, and every veto names the plugin and the
 * reason. With no listener, guard or finalizer it is one call to `next()`.
 */
export function createPolicyInterceptor(sources: PolicySources): Interceptor {
  const admit = async (
    exec: InterceptedExecution,
    chain: readonly ChainEntry<PreArgs, unknown>[],
  ): Promise<ToolExecutionResult | undefined> => {
    const decided: { by?: string } = {};
    let decision: unknown = ALLOW;
    if (chain.length > 0) {
      try {
        decision = await runChain<PreArgs, unknown>(tracked(chain, decided), [exec], () => ALLOW);
      } catch (error) {
        return listenerFailure(exec, 'tools/pre-execute', error, 'the call did not run');
      }
    }
    const kind = isRecord(decision) ? decision.kind : undefined;
    const reason = isRecord(decision) ? decision.reason : undefined;
    const who = byWhom(decided.by, 'tools/pre-execute');
    const details = { point: 'tools/pre-execute', plugin: decided.by, decision };
    if (kind === 'deny') {
      const why = typeof reason === 'string' && reason !== '' ? reason : 'no reason given';
      return denied(exec, `tool "${exec.name}" was denied by ${who}: ${why}`, details);
    }
    if (kind !== 'allow' && kind !== 'ask') {
      return errorResult(
        exec.callId,
        'INTERCEPTOR_ERROR',
        `tool "${exec.name}": ${who} returned ${describe(decision)}, which is not a decision ({ kind: 'allow' | 'deny' | 'ask' }); the call did not run. Fix or unload that plugin.`,
      );
    }
    for (const { guard, name } of sources.guards(exec)) {
      let verdict: unknown;
      try {
        verdict = guard(exec);
      } catch (error) {
        // A guard exists to deny: one that cannot answer fails closed.
        verdict = `its guard threw (${messageOf(error)})`;
      }
      if (verdict === undefined) continue;
      const why = typeof verdict === 'string' ? verdict : `its guard returned ${describe(verdict)}`;
      return denied(exec, `tool "${exec.name}" was denied by a guard of plugin "${name}": ${why}`, {
        point: 'guard',
        plugin: name,
      });
    }
    if (kind === 'ask') return ask(exec, typeof reason === 'string' ? reason : undefined, who);
    return undefined;
  };

  const ask = async (
    exec: InterceptedExecution,
    reason: string | undefined,
    who: string,
  ): Promise<ToolExecutionResult | undefined> => {
    const asked = `${who} asked for approval${reason === undefined ? '' : ` (${reason})`}`;
    const details = { point: 'tools/pre-execute', decision: 'ask', reason };
    const approval = sources.approval();
    if (approval === undefined) {
      return denied(
        exec,
        `tool "${exec.name}" was denied: ${asked}, but no approval service is loaded (ctx.approval, e.g. @deepseek-ai/dsh-user-approval), so nobody can approve it.`,
        details,
      );
    }
    if (exec.agent === undefined) {
      return denied(
        exec,
        `tool "${exec.name}" was denied: ${asked}, but the call has no agent to ask on behalf of (pass exec.agent).`,
        details,
      );
    }
    let outcome: unknown;
    try {
      outcome = await approval.request({
        agent: exec.agent,
        toolName: exec.name,
        callId: exec.callId,
        ...(reason !== undefined && { reason }),
        ...(exec.signal && { signal: exec.signal }),
      });
    } catch (error) {
      return denied(
        exec,
        `tool "${exec.name}" was denied: ${asked}, and the approval service failed (${messageOf(error)}).`,
        details,
      );
    }
    switch (outcome) {
      case 'allowed-once':
        return undefined;
      case 'rejected':
        return denied(exec, `tool "${exec.name}" was denied: ${asked}, and the user rejected it.`, {
          ...details,
          outcome,
        });
      case 'cancelled':
        return denied(
          exec,
          `tool "${exec.name}" did not run: ${asked}, and the request was withdrawn before anyone answered.`,
          { ...details, outcome },
          exec.signal?.aborted ? 'ABORTED' : 'DENIED',
        );
      default:
        return denied(
          exec,
          `tool "${exec.name}" was denied: ${asked}, and no approver answered (${describe(outcome)}).`,
          { ...details, outcome },
        );
    }
  };

  const review = async (
    exec: InterceptedExecution,
    result: ToolExecutionResult,
    tool: HarnessTool | undefined,
  ): Promise<ToolExecutionResult> => {
    const chain = sources.post(exec);
    if (chain.length === 0) return result;
    const call = harnessCallOf(exec);
    const decided: { by?: string } = {};
    let decision: unknown;
    try {
      decision = await runChain<PostArgs, unknown>(
        tracked(chain, decided),
        [exec, result],
        () => ACCEPT,
      );
    } catch (error) {
      return listenerFailure(exec, 'tools/post-execute', error, 'its result was withheld');
    }
    const who = byWhom(decided.by, 'tools/post-execute');
    const misuse = (what: string) =>
      errorResult(
        exec.callId,
        'INTERCEPTOR_ERROR',
        `tool "${exec.name}": ${who} ${what}; its result was withheld. Fix or unload that plugin.`,
      );
    if (!isRecord(decision)) return misuse(`returned ${describe(decision)}, not a decision`);
    const contexts: unknown = decision.additionalContexts;
    if (call !== undefined && Array.isArray(contexts) && contexts.length > 0) {
      call.decisionContexts = [...contexts];
    }
    if (decision.kind === 'block') {
      if (call !== undefined) {
        call.blocked = true;
        call.policyFailure = true;
      }
      const feedback = decision.feedback;
      const blocks: readonly unknown[] = Array.isArray(feedback) ? feedback : [];
      const text = blocks
        .filter((b): b is { type: 'text'; text: string } => isContentBlock(b) && b.type === 'text')
        .map((b) => b.text)
        .join('\n');
      return denied(
        exec,
        `the result of tool "${exec.name}" was blocked by ${who}: ${text === '' ? 'no feedback given' : text}`,
        { point: 'tools/post-execute', plugin: decided.by, feedback },
      );
    }
    if (decision.kind !== 'accept') return misuse(`returned ${describe(decision)}, not a decision`);
    const { content, value } = decision;
    if (content !== undefined && value !== undefined) {
      return misuse('replaced both content and value (replace one)');
    }
    if (content !== undefined) {
      if (!Array.isArray(content) || !content.every(isContentBlock)) {
        return misuse('replaced the content with something that is not content blocks');
      }
      return { ...result, content: content as ContentBlock[] };
    }
    if (value !== undefined) {
      if (tool === undefined) {
        return misuse(
          'replaced the value of a tool without an output declaration (replace its content instead)',
        );
      }
      try {
        const rendered = tool.render(exec.arguments, value);
        if (call !== undefined) {
          call.value = value;
          call.hasValue = true;
        }
        return 'content' in rendered
          ? { callId: exec.callId, isError: false, ...rendered }
          : { callId: exec.callId, isError: false, content: rendered };
      } catch (error) {
        return misuse(
          `replaced the value with one that fails its tool's output (${messageOf(error)})`,
        );
      }
    }
    return result;
  };

  const finalize = (
    exec: InterceptedExecution,
    result: ToolExecutionResult,
    tool: HarnessTool | undefined,
  ): ToolExecutionResult => {
    const finalizeContent = tool?.finalizeContent;
    if (finalizeContent === undefined) return result;
    let content: unknown;
    try {
      content = finalizeContent(exec, result);
    } catch (error) {
      return errorResult(
        exec.callId,
        'TOOL_ERROR',
        `tool "${exec.name}": finalizeContent threw (${messageOf(error)}); it must not throw.`,
      );
    }
    if (content === undefined) return result;
    if (!Array.isArray(content) || !content.every(isContentBlock)) {
      return errorResult(
        exec.callId,
        'TOOL_ERROR',
        `tool "${exec.name}": finalizeContent returned something that is not content blocks.`,
      );
    }
    return { ...result, content: content as ContentBlock[] };
  };

  return function harnessPolicy(exec, next) {
    const tool = sources.harnessTool(exec);
    const call = harnessCallOf(exec);
    const stage = stageOf(call);
    // Read once here and handed to admit (which ran its own read a moment later before).
    const pre = sources.pre(exec);
    const watched = sources.watched?.() === true;
    if (
      stage === undefined &&
      !watched &&
      tool?.finalizeContent === undefined &&
      pre.length === 0 &&
      sources.post(exec).length === 0 &&
      sources.guards(exec).length === 0
    ) {
      if (call !== undefined && tool === undefined) call.dispatched = !exec.signal?.aborted;
      return call?.callerSignal === undefined ? next() : next().then((r) => cancelled(exec, r));
    }
    const report = watched ? sources.dispatching : undefined;
    return (async () => {
      report?.('tools/pre-execute', [exec]);
      const refused = await admit(exec, pre);
      if (refused !== undefined && call !== undefined) call.policyFailure = true;
      // Scheduled by the harness's loop: the policy steps so far ran in model order; the loop
      // says when the body may start, and when this call's turn to be finalized has come.
      stage?.prepared.resolve(
        refused === undefined ? { kind: 'dispatch' } : { kind: 'held', result: refused },
      );
      let result = refused;
      if (result === undefined) {
        if (stage !== undefined) await stage.dispatchGate.promise;
        if (call !== undefined && tool === undefined) call.dispatched = !exec.signal?.aborted;
        report?.('tools/execute', [exec]);
        result = cancelled(exec, await next());
        stage?.dispatched.resolve(result);
      }
      if (stage !== undefined) await stage.finalizeGate.promise;
      if (refused === undefined) {
        report?.('tools/post-execute', [exec, result]);
        result = cancelled(exec, await review(exec, result, tool));
      }
      return finalize(exec, result, tool);
    })();
  };
}
