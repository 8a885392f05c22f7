/**
 * The DeepSeek Harness's tool extension points, as the cordis service accepts them. The shapes
 * follow the published `@deepseek-ai/dsh-tools` types (its README and `.d.ts`); only what a
 * plugin writes or reads is declared here, so that a plugin written for the harness compiles and
 * runs against `dsh-tools/cordis` unchanged.
 */
import type {
  ContentBlock,
  InterceptedExecution,
  ToolExecutionResult,
  ToolSchema,
} from '@dsh-tools/protocol';

/**
 * What a `tools/pre-execute` listener decides: `allow` runs the call, `deny` fails it `DENIED`
 * with the reason, `ask` runs it only when the `approval` service answers `allowed-once`.
 */
export type PreToolDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'ask'; readonly reason?: string };

/**
 * What a `tools/post-execute` listener decides about a dispatched result: `accept` keeps it
 * (optionally replacing its `content`, or, for a tool with an `output` declaration, its JSON
 * `value`, which is validated and rendered again); `block` turns it into a `DENIED` failure whose
 * message is the feedback.
 */
export type PostToolDecision =
  | {
      readonly kind: 'accept';
      readonly content?: readonly ContentBlock[];
      readonly value?: unknown;
      readonly additionalContexts?: readonly unknown[];
    }
  | {
      readonly kind: 'block';
      readonly feedback: readonly ContentBlock[];
      readonly additionalContexts?: readonly unknown[];
    };

/**
 * A monotonic check after every `tools/pre-execute` listener: a returned string denies the call
 * (`DENIED`, that reason), `undefined` leaves it alone. No guard can allow what another denied.
 */
export type ToolGuard = (exec: InterceptedExecution) => string | undefined;

/**
 * The output declaration of a harness-shaped tool: the body returns a JSON value, validated
 * against `schema` (a JSON Schema), then `render` turns it into the content the model sees.
 */
export interface HarnessToolOutput {
  readonly schema: { readonly [keyword: string]: unknown } | boolean;
  render(args: unknown, value: unknown): ContentBlock[];
  presentationMeta?(args: unknown, value: unknown): unknown;
}

/**
 * A tool definition written for the DeepSeek Harness's `ToolRuntime`: `execute` returns a JSON
 * value instead of content blocks, and `output` says how to check and render it.
 * `presentCall` / `presentResult` are kept on the definition for UIs (`ctx.tools.get(name)`);
 * `finalizeContent` runs once on every outcome after argument validation.
 */
export interface HarnessToolDefinition extends ToolSchema {
  readonly output: HarnessToolOutput;
  // biome-ignore lint/suspicious/noExplicitAny: harness tools type their own arguments
  execute(args: any, exec: any): Promise<unknown> | unknown;
  finalizeContent?(
    exec: InterceptedExecution,
    result: ToolExecutionResult,
  ): ContentBlock[] | undefined;
  readonly timeoutMs?: number;
  isConcurrencySafe?(args: unknown): boolean;
  presentCall?(args: unknown): unknown;
  presentResult?(args: unknown, result: unknown): unknown;
}

/** What the `approval` service (`@deepseek-ai/dsh-user-approval`) answers. */
export type ApprovalOutcome = 'allowed-once' | 'rejected' | 'cancelled' | 'unavailable';

/** The part of `ctx.approval` the service uses when a `tools/pre-execute` listener asks. */
export interface ApprovalServiceLike {
  request(request: {
    readonly agent: unknown;
    readonly toolName: string;
    readonly callId?: string;
    readonly reason?: string;
    readonly signal?: AbortSignal;
  }): Promise<ApprovalOutcome>;
}
