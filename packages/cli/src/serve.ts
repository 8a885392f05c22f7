import { randomUUID } from 'node:crypto';
import type { ToolExecutionResult, ToolHints } from '@dsh-tools/protocol';
import {
  type CallToolResult,
  type McpServerFactory,
  Server,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import type { Gateway } from './gateway';

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
export function createGatewayServerFactory(gateway: Gateway): GatewayServerFactory {
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
      const result = await registry.execute({
        callId: `mcp-${callCounter}-${String(ctx.mcpReq.id)}`,
        name: request.params.name,
        arguments: request.params.arguments ?? {},
        signal: ctx.mcpReq.signal,
      });
      return server.projectCallToolResult(toCallResult(result), undefined);
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
  const made = createGatewayServerFactory(gateway);
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
