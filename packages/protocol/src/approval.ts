import type { InterceptedExecution, ToolView } from './tool';

/**
 * A question put to a person (or a policy acting for one) by an interceptor that may not decide a
 * call alone: the permission interceptor's `ask` rules and modes, a hook's `ask` decision. One
 * shape for every asker, so a host passes the same `approve` function to all of them.
 */
export interface ApprovalRequest {
  /** The call in question, validated and frozen, with its tool attached. */
  readonly exec: InterceptedExecution;
  /** The tool as policies see it (schema, hints, source). */
  readonly tool: ToolView;
  /** Who asks: `permission`, `hooks`, ... */
  readonly asker: string;
  /** Why the call needs an answer, in words a person reads. */
  readonly reason: string;
  /** The rule (or hook) that asked, as written where it came from: `Bash(git push:*)`. */
  readonly rule?: string;
  /** Where that rule came from: a settings file, an option, a hook command. */
  readonly ruleSource?: string;
  /** Aborts when the question is moot: the call was aborted, or the asker stopped waiting. */
  readonly signal: AbortSignal;
}

/**
 * How long an "allow" lasts beyond this call. Grants replace "always allow forever": each has a
 * scope, and may expire or run out.
 */
export interface ApprovalGrant {
  /** The rule the grant allows (`Bash(npm test:*)`); default: the asking rule, else this tool. */
  readonly rule?: string;
  /** Milliseconds until the grant expires; absent = until revoked. */
  readonly expiresInMs?: number;
  /** How many further calls it allows; absent = unlimited. */
  readonly uses?: number;
}

/** The answer to an {@link ApprovalRequest}. A denial's reason is what the model reads. */
export type ApprovalDecision =
  | { readonly kind: 'allow'; readonly grant?: ApprovalGrant }
  | { readonly kind: 'deny'; readonly reason?: string };

/**
 * Answers approval questions. Askers fail closed: no approver, a throw, a rejection, a malformed
 * answer or no answer in time all deny, saying why.
 */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision> | ApprovalDecision;
