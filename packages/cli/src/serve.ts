import { randomUUID } from 'node:crypto';
import type {
  ApprovalDecision,
  Approver,
  ToolExecutionResult,
  ToolHints,
} from '@dsh-tools/protocol';
import {
  type CallToolResult,
  type McpServerFactory,
  Server,
  type ServerContext,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import { approvalQuestion } from './approvers';
import type { Gateway } from './gateway';

/** One MCP request in flight, through which its call's questions are asked. */
interface AskChannel {
  readonly server: Server;
  readonly ctx: ServerContext;
}

/**
 * Turns the policies' `ask` into MCP elicitation: while a `tools/call` runs, its questions go to
 * the client that made it, as a form with one boolean ("allow"). A client that did not declare
 * the `elicitation` capability cannot be asked, so the call is denied, saying so; so is a
 * 2026-07-28 client for now (its multi-round-trip `input_required` flow is not implemented).
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
    if (channel.ctx.mcpReq.envelope !== undefined) {
      return {
        kind: 'deny',
        reason:
          'This call needs a person to approve it, and dsh-tools cannot yet ask a client on the 2026-07-28 protocol. Allow it in the gateway config, or connect with a 2025 protocol client that supports elicitation.',
      };
    }
    if (!channel.server.getClientCapabilities()?.elicitation) {
      return {
        kind: 'deny',
        reason:
          'This call needs a person to approve it, and the MCP client did not declare the elicitation capability, so dsh-tools cannot ask. Allow the call in the gateway config (permissions.allow), or use a client that supports elicitation.',
      };
    }
    try {
      const answer = await channel.ctx.mcpReq.elicitInput(
        {
          mode: 'form',
          message: approvalQuestion(request),
          requestedSchema: {
            type: 'object',
            properties: { allow: { type: 'boolean', title: 'Allow this call', default: false } },
            required: ['allow'],
          },
        },
        { signal: request.signal },
      );
      if (answer.action === 'accept' && answer.content?.allow === true) return { kind: 'allow' };
      return {
        kind: 'deny',
        reason: `The user ${answer.action === 'accept' ? 'did not allow' : answer.action === 'decline' ? 'declined' : 'cancelled'} this call.`,
      };
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

/** The servers made by one factory, told when the registry's tools change. */
export interface GatewayServerFactory {
  /** Makes one low-level MCP `Server` over the gateway's registry. */
  readonly factory: McpServerFactory;
  /** The servers currently connected. */
  readonly live: ReadonlySet<Server>;
  /** Stops following the registry. */
  dispose(): void;
}

let callCounter = 0;

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

  const factory: McpServerFactory = () => {
    const server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true } },
      instructions:
        'Tools of the servers configured in dsh-tools, behind its validation and policies.',
    });
    server.setRequestHandler('tools/list', async () => ({ tools: listTools() }));
    server.setRequestHandler('tools/call', async (request, ctx) => {
      callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
      const callId = `mcp-${callCounter}-${String(ctx.mcpReq.id)}`;
      const untrack = approvals?.track(callId, { server, ctx });
      try {
        const result = await registry.execute({
          callId,
          name: request.params.name,
          arguments: request.params.arguments ?? {},
          signal: ctx.mcpReq.signal,
        });
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

  return { factory, live, dispose: unsubscribe };
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
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const made = createGatewayServerFactory(gateway, options.approvals);
  const handle = serveStdio(made.factory, { onerror: (e) => options.onError?.(e) });
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
