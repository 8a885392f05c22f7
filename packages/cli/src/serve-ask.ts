import { createHash } from 'node:crypto';
import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import {
  type ElicitRequestFormParams,
  type InputRequest,
  inputRequired,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { approvalQuestion } from './approvers';

/**
 * The questions of one round of a 2026-07-28 (per-request) call. Such a client is not asked
 * while the call waits: the call is answered `input_required` with the questions, and the client
 * calls again with the answers (`inputResponses`) and the state the gateway sealed (`requestState`).
 */
export interface AskRound {
  /** Whether the client declared `elicitation` in this request's capabilities. */
  readonly canElicit: boolean;
  /** Questions the user allowed, in this round or an earlier one (by question key). */
  readonly approved: Set<string>;
  /** Questions the user refused, with how (`declined`, `cancelled`, `did not allow`). */
  readonly refused: Map<string, string>;
  /** Questions to put to the client in an `input_required` answer. */
  readonly pending: Map<string, InputRequest>;
}

/** One MCP request in flight, through which its call's questions are asked. */
export interface AskChannel {
  readonly server: Server;
  /**
   * Asks the client's user. Bound to the request that made the call (`relatedRequestId`), so over
   * Streamable HTTP the question travels on that POST's own response stream: a client that never
   * opened the optional GET stream is still asked.
   */
  readonly elicitInput: ServerContext['mcpReq']['elicitInput'];
  /** Set for a 2026-07-28 request: its questions go out as `input_required`. */
  readonly round?: AskRound;
  /**
   * Who the call belongs to (an HTTP session, a stdio connection). Questions of one scope are put
   * one at a time; those of different scopes at once, so that no client waits on another's user.
   */
  readonly scope: string;
  /** The client the call came from (its authenticated name), when it has one. */
  readonly identity?: string;
}

/** The form a question is put in: one box, "allow". */
export const allowForm = (): ElicitRequestFormParams['requestedSchema'] => ({
  type: 'object',
  properties: { allow: { type: 'boolean', title: 'Allow this call', default: false } },
  required: ['allow'],
});

/** A question's key in `inputRequests`: the same question gets the same key in every round. */
export const questionKey = (question: string): string =>
  `allow-${createHash('sha256').update(question).digest('hex').slice(0, 24)}`;

/**
 * How the client's user refused one question, in words that complete "The user denied tool X:
 * …" (no final period: the asker adds its own), or `undefined` when they allowed the call. The
 * same reading for both protocol generations.
 */
export const refusedBy = (answer: {
  readonly action: string;
  readonly content?: { readonly allow?: unknown } | undefined;
}): string | undefined =>
  answer.action === 'accept'
    ? answer.content?.allow === true
      ? undefined
      : 'they answered the question in the MCP client without ticking "Allow this call"'
    : answer.action === 'decline'
      ? 'they declined the question in the MCP client'
      : 'they cancelled the question in the MCP client';

/** What the rule that asked says, for a message: `rule "X" (in its source)`, or the asker. */
function askedBy(request: ApprovalRequest): string {
  if (request.rule === undefined) return `the ${request.asker} policy`;
  const where = request.ruleSource ? ` in ${request.ruleSource}` : '';
  return request.asker === 'hooks'
    ? `the PreToolUse hook ${JSON.stringify(request.rule)}${where}`
    : `rule ${JSON.stringify(request.rule)}${where}`;
}

/** What a person can do about a call that needs approval where no one can be asked. */
function nextSteps(request: ApprovalRequest): string {
  const name = JSON.stringify(request.exec.name);
  return request.asker === 'hooks'
    ? `have the hook answer "allow" for ${name}, or connect with an MCP client that supports elicitation`
    : `add an allow rule for ${name} to permissions.allow in the gateway's config, or connect with an MCP client that supports elicitation`;
}

/** The denial of a call nobody could be asked about: no elicitation capability. */
export function noElicitationMessage(request: ApprovalRequest): string {
  return `Permission denied for tool ${JSON.stringify(request.exec.name)}: ${askedBy(request)} needs a person to approve the call, and the MCP client did not declare the elicitation capability, so no one was asked. To run it, ${nextSteps(request)}.`;
}

/** The denial of a call whose question went out but got no answer (a timeout, a client error). */
export function askFailedMessage(request: ApprovalRequest, why: string): string {
  return `Permission denied for tool ${JSON.stringify(request.exec.name)}: ${askedBy(request)} needs a person to approve the call; the question went to the MCP client, but no answer came back (${why}), so the call is denied (fail closed). Try the call again when the user can answer, or ${nextSteps(request)}.`;
}

/**
 * Turns the policies' `ask` into MCP elicitation: while a `tools/call` runs, its questions go to
 * the client that made it, on that call's own stream, as a form with one boolean ("allow"). A
 * client that did not declare the `elicitation` capability cannot be asked, so the call is
 * denied, saying so. A 2026-07-28 (per-request) client is asked the same question through the
 * multi-round-trip flow: the call is answered `input_required`, and runs when the client calls
 * again with the user's answer.
 */
export interface ElicitationApprovals {
  /** Pass this to `buildGateway({ approver })`. */
  readonly approver: Approver;
  /** Routes the questions of `callId` to `channel` until the returned function is called. */
  track(callId: string, channel: AskChannel): () => void;
  /** The scope of a call being tracked (pass as `buildGateway({ askScope })`). */
  scopeOf(callId: string): string | undefined;
  /** The client a call being tracked came from. */
  identityOf(callId: string): string | undefined;
  /**
   * The call's result, its denial replaced by a true one when nobody could be asked (the
   * permission policy words an approver's "no" as the user's, which it was not). Forgets the call.
   */
  settle(callId: string, result: ToolExecutionResult): ToolExecutionResult;
}

/** Creates the approver that asks through MCP elicitation (see {@link ElicitationApprovals}). */
export function createElicitationApprovals(): ElicitationApprovals {
  const channels = new Map<string, AskChannel>();
  // Calls denied without anyone answering: the message that says so, by call id.
  const unasked = new Map<string, string>();
  const notAsked = (callId: string, message: string): ApprovalDecision => {
    unasked.set(callId, message);
    return { kind: 'deny', reason: message };
  };
  const approver: Approver = async (request): Promise<ApprovalDecision> => {
    const { callId } = request.exec;
    const channel = channels.get(callId);
    if (!channel) {
      return notAsked(
        callId,
        `Permission denied for tool ${JSON.stringify(request.exec.name)}: ${askedBy(request)} needs a person to approve the call, and dsh-tools serve had no MCP request to ask through, so no one was asked. Call the tool again through the gateway.`,
      );
    }
    const { round } = channel;
    if (round) {
      if (!round.canElicit) return notAsked(callId, noElicitationMessage(request));
      const message = approvalQuestion(request);
      const key = questionKey(message);
      if (round.approved.has(key)) return { kind: 'allow' };
      const refused = round.refused.get(key);
      if (refused !== undefined) return { kind: 'deny', reason: refused };
      round.pending.set(
        key,
        inputRequired.elicit({ mode: 'form', message, requestedSchema: allowForm() }),
      );
      // Not the call's final answer: the tools/call handler sees the pending question and answers
      // input_required instead, so this denial never reaches the client.
      return { kind: 'deny', reason: 'dsh-tools is asking the MCP client (input_required)' };
    }
    if (!channel.server.getClientCapabilities()?.elicitation) {
      return notAsked(callId, noElicitationMessage(request));
    }
    try {
      const answer = await channel.elicitInput(
        { mode: 'form', message: approvalQuestion(request), requestedSchema: allowForm() },
        { signal: request.signal },
      );
      const refused = refusedBy(answer);
      return refused === undefined ? { kind: 'allow' } : { kind: 'deny', reason: refused };
    } catch (error) {
      return notAsked(
        callId,
        askFailedMessage(request, error instanceof Error ? error.message : String(error)),
      );
    }
  };
  return {
    approver,
    track(callId, channel) {
      channels.set(callId, channel);
      return () => {
        channels.delete(callId);
        unasked.delete(callId);
      };
    },
    scopeOf: (callId) => channels.get(callId)?.scope,
    identityOf: (callId) => channels.get(callId)?.identity,
    settle(callId, result) {
      const message = unasked.get(callId);
      unasked.delete(callId);
      if (message === undefined || result.error?.code !== 'DENIED') return result;
      return {
        ...result,
        content: [{ type: 'text', text: `Error: ${message}` }],
        error: { ...result.error, message },
      };
    },
  };
}
