import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { ToolExecution } from '@dsh-tools/protocol';
import type { ToolRegistry } from '@dsh-tools/registry';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type McpServerFactory,
  type RequestId,
  type RequestStateCodec,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { Gateway } from './gateway';
import type { CallLimiter } from './limits';
import type { PinBook } from './pins';
import { principalOf } from './principal';
import { type AskRound, type ElicitationApprovals, refusedBy } from './serve-ask';
import type { LeanCallRoute, LeanOutcome } from './serve-lean-calls';
import { GatewayTools } from './serve-tools';
import { inServerSpan } from './serve-trace';
import { sharedSealKey } from './state-sessions';

/** The name and version the gateway gives itself in the MCP handshake. */
export const GATEWAY_INFO = { name: 'dsh-tools-gateway', version: '0.0.0' } as const;

/**
 * The servers made by one factory, told when the registry's tools change; `callTool` and
 * `handOver` are the lean path's way in (2025-era `tools/call`s taken off the wire by
 * `serveGatewayStdio`, run as the SDK handler would run them).
 */
export interface GatewayServerFactory extends Pick<LeanCallRoute, 'callTool' | 'handOver'> {
  /** Makes one low-level MCP `Server` over the gateway's registry. */
  readonly factory: McpServerFactory;
  /** The servers currently connected. */
  readonly live: ReadonlySet<Server>;
  /** Stops following the registry. */
  dispose(): void;
}

/** Options of {@link createGatewayServerFactory}. */
export interface GatewayServerOptions {
  /**
   * The scope of the questions of a server's calls (default: one per server instance, that is
   * one per HTTP session or stdio connection): questions of one scope are put one at a time.
   */
  readonly scopeOf?: (server: Server) => string;
  /**
   * Whether the client `identity` (the `clientId` its HTTP request was authenticated as;
   * `undefined` over stdio) may see and call `tool`. Default: every client every tool.
   */
  readonly allows?: (identity: string | undefined, tool: string) => boolean;
}

/** Who made a request: the client its HTTP request was authenticated as, if any. */
const identityOf = (ctx: ServerContext): string | undefined => ctx.http?.authInfo?.clientId;

let callCounter = 0;

/** A call's id for the registry: unique in this process, and saying which MCP request it was. */
function nextCallId(requestId: RequestId): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `mcp-${callCounter}-${String(requestId)}`;
}

let serverCounter = 0;

/** The answer to a call of a tool the client's allowlist leaves out. */
const notAvailable = (name: string, identity: string | undefined) => ({
  content: [
    {
      type: 'text' as const,
      text: `Error: Tool ${JSON.stringify(name)} is not available to client "${identity}": it is not in that client's "tools" list in the gateway's config. Use one of the tools tools/list shows, or ask the gateway's operator to add it.`,
    },
  ],
  isError: true,
});

/** What a 2026-07-28 client carries between the rounds of one call (sealed by the gateway). */
interface AskState {
  /** The tool and arguments the state belongs to (a digest). */
  readonly call: string;
  /** Question keys the user allowed in earlier rounds. */
  readonly approved: readonly string[];
}

/**
 * The MCP face of a gateway: a factory of low-level SDK `Server`s whose `tools/list` is the
 * registry's tools as their servers describe them (raw JSON Schemas, passed through untouched)
 * and whose `tools/call` runs `registry.execute`, so every call from an MCP client passes
 * validation and the configured policies. A change of the registry (a server's
 * `tools/list_changed`, a reconnect) is announced to every connected client as
 * `notifications/tools/list_changed`.
 *
 * The gateway may still be starting (a promise): the handshake is answered at once, and
 * `tools/list` and `tools/call` wait for it, so a client that gives a server a second to answer
 * (the AI SDK's protocol discovery) is not kept waiting on the upstream servers' start.
 */
export function createGatewayServerFactory(
  gateway: Gateway | Promise<Gateway>,
  approvals?: ElicitationApprovals,
  options: GatewayServerOptions = {},
): GatewayServerFactory {
  const live = new Set<Server>();
  let ready:
    | {
        readonly registry: ToolRegistry;
        readonly tools: GatewayTools;
        readonly pins: PinBook | undefined;
        readonly limits: CallLimiter | undefined;
      }
    | undefined;
  let disposed = false;
  let unsubscribe = () => {};
  const opening = Promise.resolve(gateway).then((built) => {
    ready = {
      registry: built.registry,
      tools: new GatewayTools(built.registry),
      pins: built.pins,
      limits: built.limits,
    };
    if (!disposed) {
      const fromRegistry = built.registry.on('change', announce);
      // A pin approved or revoked (in the lockfile, by another process) changes what is listed.
      built.pins?.on('change', announce);
      unsubscribe = () => {
        fromRegistry();
        built.pins?.off('change', announce);
      };
    }
    return ready;
  });
  // A gateway that fails to start is the caller's to report; each request waiting on it fails.
  opening.catch(() => {});
  const scopes = new WeakMap<Server, string>();
  const scopeOf = (server: Server) => options.scopeOf?.(server) ?? scopes.get(server) ?? 'gateway';
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

  // The state a 2026-07-28 client echoes between rounds says which questions its user allowed;
  // it passes through the client, so it is sealed (HMAC, 10 minutes) and bound to the call's tool
  // and arguments, and to the client: one client's approval never counts for another's call. The
  // key is this process's own, or with a shared state store the replicas' shared one, so that a
  // round answered through another replica verifies there.
  // Kept once made; a failed read of the shared key is not kept, so the next call tries again.
  let codecMade: Promise<RequestStateCodec<AskState>> | undefined;
  const stateCodec = (): Promise<RequestStateCodec<AskState>> => {
    if (!codecMade) {
      const making = Promise.resolve(gateway).then(async (built) =>
        createRequestStateCodec<AskState>({
          key: built.state ? await sharedSealKey(built.state) : randomBytes(32),
          bind: (ctx) =>
            `${ctx.mcpReq.method}\0${principalOf((ctx as ServerContext).http?.authInfo) ?? ''}`,
        }),
      );
      codecMade = making;
      making.catch(() => {
        if (codecMade === making) codecMade = undefined;
      });
    }
    return codecMade;
  };
  const { allows } = options;
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
      requestState: { verify: async (state, ctx) => (await stateCodec()).verify(state, ctx) },
    });
    serverCounter = (serverCounter + 1) % Number.MAX_SAFE_INTEGER;
    scopes.set(server, `connection-${serverCounter}`);
    server.setRequestHandler('tools/list', async (_request, ctx) => {
      const { tools, registry, pins } = ready ?? (await opening);
      // A tool its server changed since it was pinned is held back: not listed, its calls refused.
      const all = pins
        ? tools
            .list()
            .filter((tool) => pins.refusal(tool.name, registry.get(tool.name)) === undefined)
        : tools.list();
      if (!allows) return { tools: all };
      const identity = identityOf(ctx);
      return { tools: all.filter((tool) => allows(identity, tool.name)) };
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const handed = takeHandedOver(server, ctx.mcpReq.id);
      if (handed) {
        if (handed.result) return handed.result;
        throw handed.error;
      }
      const { registry, tools } = ready ?? (await opening);
      const callId = nextCallId(ctx.mcpReq.id);
      const { name } = request.params;
      const args = request.params.arguments ?? {};
      const identity = identityOf(ctx);
      if (allows && !allows(identity, name)) return notAvailable(name, identity);
      let round: AskRound | undefined;
      let digest = '';
      if (approvals && ctx.mcpReq.envelope !== undefined) {
        digest = callDigest(name, args);
        const opened = openRound(ctx, digest);
        if (typeof opened === 'string') {
          return { content: [{ type: 'text', text: `Error: ${opened}` }], isError: true };
        }
        round = opened;
      }
      const relatedRequestId = ctx.mcpReq.id;
      const untrack = approvals?.track(callId, {
        server,
        scope: scopeOf(server),
        ...(identity !== undefined ? { identity } : {}),
        // On the call's own stream: without relatedRequestId the SDK sends a server-to-client
        // request on the session's standalone GET stream, which a client need not open.
        elicitInput: (params, opts) =>
          ctx.mcpReq.elicitInput(params, { ...opts, relatedRequestId }),
        ...(round ? { round } : {}),
      });
      try {
        // The gateway client travels on the call as `identity`: the audit trail names it.
        let result = await inServerSpan(name, request.params._meta, identity, () =>
          registry.execute({
            callId,
            name,
            arguments: args,
            signal: ctx.mcpReq.signal,
            ...(identity !== undefined ? { identity } : {}),
          } as ToolExecution),
        );
        if (round && round.pending.size > 0) {
          // The round ends in a question and the client sends the call again: it counts once.
          (ready ?? (await opening)).limits?.refund(identity, name);
          return inputRequired({
            inputRequests: Object.fromEntries(round.pending),
            requestState: await (await stateCodec()).mint(
              { call: digest, approved: [...round.approved] },
              ctx,
            ),
          });
        }
        if (approvals) result = approvals.settle(callId, result);
        return server.projectCallToolResult(tools.toCallResult(name, result), undefined);
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

  function announce() {
    for (const server of live) {
      // Clients that have not finished the handshake, or are gone, are not told.
      server.sendToolListChanged().catch(() => {});
    }
  }

  const callTool: GatewayServerFactory['callTool'] = async (
    server,
    id,
    name,
    args,
    signal,
    identity,
  ) => {
    const { registry, tools } = ready ?? (await opening);
    if (allows && !allows(identity, name)) return notAvailable(name, identity);
    const callId = nextCallId(id);
    // What ctx.mcpReq.elicitInput does for the SDK path, on this call's stream.
    const untrack = approvals?.track(callId, {
      server,
      scope: scopeOf(server),
      ...(identity !== undefined ? { identity } : {}),
      elicitInput: (params, opts) => server.elicitInput(params, { ...opts, relatedRequestId: id }),
    });
    try {
      let result = await inServerSpan(name, undefined, identity, () =>
        registry.execute({
          callId,
          name,
          arguments: args,
          signal,
          ...(identity !== undefined ? { identity } : {}),
        } as ToolExecution),
      );
      if (approvals) result = approvals.settle(callId, result);
      return server.projectCallToolResult(tools.toCallResult(name, result), undefined);
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

  const dispose = () => {
    disposed = true;
    unsubscribe();
  };
  return { factory, live, dispose, callTool, handOver };
}

/** A fresh id for a session (the SDK's generator for Streamable HTTP sessions). */
export const newSessionId = (): string => randomUUID();
