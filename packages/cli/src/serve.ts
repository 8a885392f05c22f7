import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type {
  ApprovalDecision,
  Approver,
  ToolExecutionResult,
  ToolHints,
} from '@dsh-tools/protocol';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  type ElicitRequestFormParams,
  type InputRequest,
  inputRequired,
  inputResponse,
  type McpServerFactory,
  type RequestId,
  Server,
  type ServerContext,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { approvalQuestion } from './approvers';
import type { Gateway } from './gateway';
import { type LeanCallRoute, type LeanOutcome, leanToolCalls } from './serve-lean-calls';

/**
 * The questions of one round of a 2026-07-28 (per-request) call. Such a client is not asked
 * while the call waits: the call is answered `input_required` with the questions, and the client
 * calls again with the answers (`inputResponses`) and the state the gateway sealed (`requestState`).
 */
interface AskRound {
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
interface AskChannel {
  readonly server: Server;
  /** Asks the client's user (`ctx.mcpReq.elicitInput`, or the server's own for a lean call). */
  readonly elicitInput: ServerContext['mcpReq']['elicitInput'];
  /** Set for a 2026-07-28 request: its questions go out as `input_required`. */
  readonly round?: AskRound;
}

/** The form a question is put in: one box, "allow". */
const allowForm = (): ElicitRequestFormParams['requestedSchema'] => ({
  type: 'object',
  properties: { allow: { type: 'boolean', title: 'Allow this call', default: false } },
  required: ['allow'],
});

/** A question's key in `inputRequests`: the same question gets the same key in every round. */
const questionKey = (question: string) =>
  `allow-${createHash('sha256').update(question).digest('hex').slice(0, 24)}`;

const NO_ELICITATION =
  'This call needs a person to approve it, and the MCP client did not declare the elicitation capability, so dsh-tools cannot ask. Allow the call in the gateway config (permissions.allow), or use a client that supports elicitation.';

/**
 * How the client's user refused one question (`did not allow`, `declined`, `cancelled`), or
 * `undefined` when they allowed the call: the same reading for both protocol generations.
 */
const refusedBy = (answer: {
  readonly action: string;
  readonly content?: { readonly allow?: unknown } | undefined;
}): string | undefined =>
  answer.action === 'accept'
    ? answer.content?.allow === true
      ? undefined
      : 'did not allow'
    : answer.action === 'decline'
      ? 'declined'
      : 'cancelled';

/** The answer of the client's user to one question, in words for a denial. */
function refusal(action: string): string {
  return `The user ${action} this call.`;
}

/**
 * Turns the policies' `ask` into MCP elicitation: while a `tools/call` runs, its questions go to
 * the client that made it, as a form with one boolean ("allow"). A client that did not declare
 * the `elicitation` capability cannot be asked, so the call is denied, saying so. A 2026-07-28
 * (per-request) client is asked the same question through the multi-round-trip flow: the call is
 * answered `input_required`, and runs when the client calls again with the user's answer.
 */
export interface ElicitationApprovals {
  /** Pass this to `buildGateway({ approver })`. */
  readonly approver: Approver;
  /** Routes the questions of `callId` to `channel` until the returned function is called. */
  track(callId: string, channel: AskChannel): () => void;
}

/** Creates the approver that asks through MCP elicitation (see {@link ElicitationApprovals}). */
export function createElicitationApprovals(): ElicitationApprovals {
  const channels = new Map<string, AskChannel>();
  const approver: Approver = async (request): Promise<ApprovalDecision> => {
    const channel = channels.get(request.exec.callId);
    if (!channel) {
      return {
        kind: 'deny',
        reason: 'dsh-tools serve had no MCP request to ask through for this call.',
      };
    }
    const { round } = channel;
    if (round) {
      if (!round.canElicit) return { kind: 'deny', reason: NO_ELICITATION };
      const message = approvalQuestion(request);
      const key = questionKey(message);
      if (round.approved.has(key)) return { kind: 'allow' };
      const refused = round.refused.get(key);
      if (refused !== undefined) return { kind: 'deny', reason: refusal(refused) };
      round.pending.set(
        key,
        inputRequired.elicit({ mode: 'form', message, requestedSchema: allowForm() }),
      );
      // Not the call's final answer: the tools/call handler sees the pending question and answers
      // input_required instead, so this denial never reaches the client.
      return { kind: 'deny', reason: 'dsh-tools is asking the MCP client (input_required).' };
    }
    if (!channel.server.getClientCapabilities()?.elicitation) {
      return { kind: 'deny', reason: NO_ELICITATION };
    }
    try {
      const answer = await channel.elicitInput(
        { mode: 'form', message: approvalQuestion(request), requestedSchema: allowForm() },
        { signal: request.signal },
      );
      const refused = refusedBy(answer);
      return refused === undefined ? { kind: 'allow' } : { kind: 'deny', reason: refusal(refused) };
    } catch (error) {
      return {
        kind: 'deny',
        reason: `Asking the MCP client's user failed (${error instanceof Error ? error.message : String(error)}), so the call is denied.`,
      };
    }
  };
  return {
    approver,
    track(callId, channel) {
      channels.set(callId, channel);
      return () => channels.delete(callId);
    },
  };
}

/** The name and version the gateway gives itself in the MCP handshake. */
export const GATEWAY_INFO = { name: 'dsh-tools-gateway', version: '0.0.0' } as const;

function annotationsOf(hints: ToolHints | undefined): ToolAnnotations | undefined {
  if (!hints) return undefined;
  const out: ToolAnnotations = {};
  if (hints.readOnly !== undefined) out.readOnlyHint = hints.readOnly;
  if (hints.destructive !== undefined) out.destructiveHint = hints.destructive;
  if (hints.idempotent !== undefined) out.idempotentHint = hints.idempotent;
  if (hints.openWorld !== undefined) out.openWorldHint = hints.openWorld;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The servers made by one factory, told when the registry's tools change; `callTool` and
 * `handOver` are the lean path's way in (2025-era `tools/call`s taken off the wire by
 * {@link serveGatewayStdio}, run as the SDK handler would run them).
 */
export interface GatewayServerFactory extends Pick<LeanCallRoute, 'callTool' | 'handOver'> {
  /** Makes one low-level MCP `Server` over the gateway's registry. */
  readonly factory: McpServerFactory;
  /** The servers currently connected. */
  readonly live: ReadonlySet<Server>;
  /** Stops following the registry. */
  dispose(): void;
}

let callCounter = 0;

/** A call's id for the registry: unique in this process, and saying which MCP request it was. */
function nextCallId(requestId: RequestId): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `mcp-${callCounter}-${String(requestId)}`;
}

/** What a 2026-07-28 client carries between the rounds of one call (sealed by the gateway). */
interface AskState {
  /** The tool and arguments the state belongs to (a digest). */
  readonly call: string;
  /** Question keys the user allowed in earlier rounds. */
  readonly approved: readonly string[];
}

/**
 * The MCP face of a gateway: a factory of low-level SDK `Server`s whose `tools/list` is the
 * registry's schemas (raw JSON Schemas, passed through untouched) and whose `tools/call` runs
 * `registry.execute`, so every call from an MCP client passes validation and the configured
 * policies. A change of the registry (a server's `tools/list_changed`, a reconnect) is announced
 * to every connected client as `notifications/tools/list_changed`.
 */
export function createGatewayServerFactory(
  gateway: Gateway,
  approvals?: ElicitationApprovals,
): GatewayServerFactory {
  const { registry } = gateway;
  const live = new Set<Server>();
  // Lean calls whose outcome the SDK is to write, by server and request id: first in, first out,
  // as the SDK runs the handlers of the requests it is given in order.
  const handedOver = new WeakMap<Server, Map<RequestId, LeanOutcome[]>>();
  const takeHandedOver = (server: Server, id: RequestId): LeanOutcome | undefined => {
    const byId = handedOver.get(server);
    const queue = byId?.get(id);
    const outcome = queue?.shift();
    if (queue?.length === 0) byId?.delete(id);
    return outcome;
  };
  let listCache: { schemas: unknown; tools: Tool[] } | undefined;

  const listTools = (): Tool[] => {
    const schemas = registry.schemas();
    // schemas() returns the same array while nothing changed; so does this.
    if (listCache?.schemas === schemas) return listCache.tools;
    const tools = schemas.map((schema) => {
      const annotations = annotationsOf(registry.get(schema.name)?.hints);
      return {
        name: schema.name,
        description: schema.description,
        inputSchema: schema.parameters as Tool['inputSchema'],
        ...(annotations ? { annotations } : {}),
      };
    });
    listCache = { schemas, tools };
    return tools;
  };

  const toCallResult = (result: ToolExecutionResult): CallToolResult => ({
    content: result.content as CallToolResult['content'],
    isError: result.isError,
    ...(result.structuredContent
      ? { structuredContent: result.structuredContent as Record<string, unknown> }
      : {}),
  });

  // The state a 2026-07-28 client echoes between rounds says which questions its user allowed;
  // it passes through the client, so it is sealed (HMAC, a key of this process, 10 minutes) and
  // bound to the call's tool and arguments.
  const stateCodec = createRequestStateCodec<AskState>({
    key: randomBytes(32),
    bind: (ctx) => ctx.mcpReq.method,
  });
  const callDigest = (name: string, args: unknown) =>
    createHash('sha256').update(name).update('\0').update(JSON.stringify(args)).digest('base64url');

  /** The round of a 2026-07-28 request: its earlier answers, from the sealed state and responses. */
  const openRound = (ctx: ServerContext, digest: string): AskRound | string => {
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
      | { elicitation?: unknown }
      | undefined;
    const round: AskRound = {
      canElicit: capabilities?.elicitation !== undefined && capabilities.elicitation !== null,
      approved: new Set(),
      refused: new Map(),
      pending: new Map(),
    };
    const state = ctx.mcpReq.requestState<AskState>();
    if (state !== undefined) {
      if (state.call !== digest) {
        return 'The requestState of this call was issued for another call (another tool or other arguments). Call the tool again without it.';
      }
      for (const key of state.approved) round.approved.add(key);
    }
    for (const key of Object.keys(ctx.mcpReq.inputResponses ?? {})) {
      const answer = inputResponse(ctx.mcpReq.inputResponses, key);
      if (answer.kind !== 'elicit') continue;
      const refused = refusedBy(answer);
      if (refused === undefined) round.approved.add(key);
      else round.refused.set(key, refused);
    }
    return round;
  };

  const factory: McpServerFactory = () => {
    const server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Tools of the servers configured in dsh-tools, behind its validation and policies.',
      requestState: { verify: stateCodec.verify },
    });
    server.setRequestHandler('tools/list', async () => ({ tools: listTools() }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const handed = takeHandedOver(server, ctx.mcpReq.id);
      if (handed) {
        if (handed.result) return handed.result;
        throw handed.error;
      }
      const callId = nextCallId(ctx.mcpReq.id);
      const args = request.params.arguments ?? {};
      let round: AskRound | undefined;
      let digest = '';
      if (approvals && ctx.mcpReq.envelope !== undefined) {
        digest = callDigest(request.params.name, args);
        const opened = openRound(ctx, digest);
        if (typeof opened === 'string') {
          return { content: [{ type: 'text', text: `Error: ${opened}` }], isError: true };
        }
        round = opened;
      }
      const untrack = approvals?.track(callId, {
        server,
        elicitInput: ctx.mcpReq.elicitInput,
        ...(round ? { round } : {}),
      });
      try {
        const result = await registry.execute({
          callId,
          name: request.params.name,
          arguments: args,
          signal: ctx.mcpReq.signal,
        });
        if (round && round.pending.size > 0) {
          return inputRequired({
            inputRequests: Object.fromEntries(round.pending),
            requestState: await stateCodec.mint(
              { call: digest, approved: [...round.approved] },
              ctx,
            ),
          });
        }
        return server.projectCallToolResult(toCallResult(result), undefined);
      } finally {
        untrack?.();
      }
    });
    const previous = server.onclose;
    server.onclose = () => {
      live.delete(server);
      previous?.();
    };
    live.add(server);
    return server;
  };

  const unsubscribe = registry.on('change', () => {
    for (const server of live) {
      // Clients that have not finished the handshake, or are gone, are not told.
      server.sendToolListChanged().catch(() => {});
    }
  });

  const callTool: GatewayServerFactory['callTool'] = async (server, id, name, args, signal) => {
    const callId = nextCallId(id);
    // The SDK's ctx.mcpReq.elicitInput is this same call of the server's.
    const untrack = approvals?.track(callId, {
      server,
      elicitInput: (params, options) => server.elicitInput(params, options),
    });
    try {
      const result = await registry.execute({ callId, name, arguments: args, signal });
      return server.projectCallToolResult(toCallResult(result), undefined);
    } finally {
      untrack?.();
    }
  };

  const handOver: GatewayServerFactory['handOver'] = (server, id, outcome) => {
    let byId = handedOver.get(server);
    if (!byId) {
      byId = new Map();
      handedOver.set(server, byId);
    }
    const queue = byId.get(id);
    if (queue) queue.push(outcome);
    else byId.set(id, [outcome]);
  };

  return { factory, live, dispose: unsubscribe, callTool, handOver };
}

/** Options of {@link serveStdio}. */
export interface ServeStdioOptions {
  /** Out-of-band errors of the transport (default: dropped). */
  readonly onError?: (error: Error) => void;
  /** Where the policies' questions go (the gateway must have been built with its approver). */
  readonly approvals?: ElicitationApprovals;
}

/**
 * Serves the gateway over this process's stdin/stdout. Resolves when the client closes stdin (or
 * `stop()` is called); the gateway itself is left for the caller to close.
 */
export async function serveGatewayStdio(
  gateway: Gateway,
  options: ServeStdioOptions = {},
): Promise<{
  readonly done: Promise<void>;
  stop(): Promise<void>;
}> {
  const { serveStdio, StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const made = createGatewayServerFactory(gateway, options.approvals);
  // The instance of a 2025-era connection: its tools/call requests take the lean path once it is
  // initialized (a 2026-07-28 one keeps the SDK's per-request envelope and state handling).
  let legacy: Server | undefined;
  const factory: McpServerFactory = async (ctx) => {
    const product = await made.factory(ctx);
    if (ctx.era === 'legacy' && product instanceof Server) legacy = product;
    return product;
  };
  const transport = leanToolCalls(new StdioServerTransport(), {
    server: () =>
      legacy?.transport !== undefined && legacy.getClientCapabilities() !== undefined
        ? legacy
        : undefined,
    callTool: made.callTool,
    handOver: made.handOver,
  });
  const handle = serveStdio(factory, { transport, onerror: (e) => options.onError?.(e) });
  let finish: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      made.dispose();
      await handle.close().catch(() => {});
      finish();
    })();
    return stopping;
  };
  process.stdin.once('end', () => void stop());
  process.stdin.once('close', () => void stop());
  return { done, stop };
}

/** A fresh id for a session (the SDK's generator for Streamable HTTP sessions). */
export const newSessionId = (): string => randomUUID();
