import type { InterceptedExecution, ToolArgs, ToolExecutionResult } from '@dsh-tools/protocol';
import type { Span } from '@opentelemetry/api';
import { assembleResult } from './assemble-result';
import { callDeadline } from './bound-call';
import { promiseThen } from './intrinsics';
import { type BodyLimits, runBody } from './run-body';
import { chainFailure, type InterceptorChain } from './run-interceptors';
import type {
  CallDeadline,
  CallRequest,
  CallState,
  Checked,
  Extensions,
  Hop,
  Prepared,
  RegisteredTool,
} from './types';
import { validateArguments } from './validate-arguments';

/**
 * One call, from the end of validation to its result: the frozen execution with the tool view
 * attached (the end of *validate the arguments*), and the state its stages share (the arguments
 * before and after any rewrite, the first misuse, the latest result, what is pending under a
 * whole-call deadline, how to stop its body). The interceptor chain asks it to `validate()` a
 * rewrite and to `runBody()`; `run()` is stages 5 to 7 in order. One object per call: every
 * allocation on this path is paid by every call.
 */
export class Call implements Prepared {
  readonly exec: InterceptedExecution;
  /** The call is its own first hop down the chain. */
  readonly state: CallState = this;
  readonly signal: AbortSignal | undefined;
  readonly original: ToolArgs;
  effective: ToolArgs;
  misuse: ToolExecutionResult | undefined = undefined;
  last: ToolExecutionResult | undefined = undefined;
  stop: ((this: CallState, reason: unknown) => void) | undefined = undefined;
  controller: AbortController | undefined = undefined;
  span: Span | undefined = undefined;
  readonly pending: string[] | undefined;
  readonly deadline: CallDeadline | undefined;

  constructor(
    /** The call as the caller gave it, to prepare it again if its tool changes (executeAll). */
    readonly raw: unknown,
    request: CallRequest,
    readonly entry: RegisteredTool,
    args: ToolArgs,
    readonly extensions: Extensions | undefined,
    private readonly limits: BodyLimits,
  ) {
    const { callId, name, agent } = request;
    const deadline = callDeadline(entry.callTimeoutMs, request.signal);
    const signal = deadline ? deadline.controller.signal : request.signal;
    // The registry's fields in a fixed order; extension fields (rare) under them.
    const fields =
      agent === undefined && signal === undefined
        ? { callId, name, arguments: args, tool: entry.view }
        : {
            callId,
            name,
            arguments: args,
            ...(agent !== undefined && { agent }),
            ...(signal !== undefined && { signal }),
            tool: entry.view,
          };
    this.exec = Object.freeze(extensions === undefined ? fields : { ...extensions, ...fields });
    this.signal = signal;
    this.original = args;
    this.effective = args;
    this.pending = deadline ? [] : undefined;
    this.deadline = deadline;
  }

  /** Stage 3 for an interceptor's rewrite: the arguments validated for this call's tool. */
  validate(
    args: unknown,
    preface: string,
  ): ToolExecutionResult | Checked | Promise<ToolExecutionResult | Checked> {
    return validateArguments(this.entry, this.exec.callId, args, this.limits.report, preface);
  }

  /** Stage 6 with the execution that reached the body. */
  runBody(hop: Hop): Promise<ToolExecutionResult> {
    return runBody(this, hop.exec, hop.extensions, this.limits);
  }

  /**
   * Stages 5 to 7: the interceptors around the body, then the result assembled. Never rejects.
   * Not an async function: with no interceptors, the body's promise is the call's.
   */
  run(chain: InterceptorChain): Promise<ToolExecutionResult> {
    if (chain.size === 0) return this.runBody(this);
    return promiseThen.call(
      this.runChain(chain),
      (produced: ToolExecutionResult) => this.assemble(produced),
      (error: unknown) => this.chainFailed(error),
    ) as Promise<ToolExecutionResult>;
  }

  /**
   * Stage 5 alone: what the interceptors (and the body inside them) produced, before stage 7
   * assembles it ({@link assemble}); rejects when the chain itself failed ({@link chainFailed}).
   * For `dispatch`, which assembles in the one reaction it has anyway.
   */
  runChain(chain: InterceptorChain): Promise<ToolExecutionResult> {
    try {
      return chain.run(this);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Stage 7: what the chain produced as the call's result (its first misuse wins). */
  assemble(produced: ToolExecutionResult): ToolExecutionResult {
    return assembleResult(this, produced);
  }

  /** Stage 7 for a chain that failed (a misuse of `next()`): the result that says so. */
  chainFailed(error: unknown): ToolExecutionResult {
    return assembleResult(this, chainFailure(error, this));
  }
}

/** A validated call as a {@link Call}, or the result of a call that failed validation. */
export const callOf = (
  request: CallRequest,
  entry: RegisteredTool,
  checked: ToolExecutionResult | Checked,
  limits: BodyLimits,
): Call | ToolExecutionResult =>
  'value' in checked
    ? new Call(request.raw, request, entry, checked.value, request.extensions, limits)
    : checked;
