import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NodeIncomingMessageLike } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  classifyInboundRequest,
  isJsonContentType,
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { LeanCallSink, LeanTransport } from './serve-lean-calls';
import { LAST_BATCH_VERSION } from './serve-stdio-wire';

/**
 * The HTTP side of the lean path. The SDK serves a Streamable HTTP request by turning Node's
 * request into a web `Request` (headers copied, the body read into a stream, teed once more to
 * tell the protocol eras apart), running it through its transport's checks and schemas, and
 * writing a web `Response` stream back; a profile of `serve --http` found that, not the gateway,
 * to be most of a call's CPU. A 2025-era `tools/call` on an open session, in the plain shape the
 * stdio lean path takes, is answered here on Node's own request and response instead. Every
 * other request, and every one of these that fails a check the SDK transport makes, is replayed
 * to the SDK unchanged, so its answers (and errors) stay the SDK's.
 */

/** A request body read in full: its bytes, or `undefined` when it passed `max` bytes. */
export async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > max) return undefined;
    chunks.push(bytes);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
}

/**
 * The request as the SDK's Node adapter reads it, its body (already read here) replayed, and the
 * identity the gateway checked attached as `auth` (the adapter passes it to the handler).
 */
export function replayRequest(
  req: IncomingMessage,
  body: Buffer | undefined,
  auth: AuthInfo,
): NodeIncomingMessageLike {
  return {
    method: req.method,
    url: req.url,
    headers: req.headers,
    auth,
    async *[Symbol.asyncIterator]() {
      if (body !== undefined && body.length > 0) yield body;
    },
  } as NodeIncomingMessageLike;
}

/** The body as JSON, or `undefined` when it is not (the SDK then answers its parse error). */
export function parseBody(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a JSON-RPC batch is refused on a connection that negotiated `version` (the MCP spec removed
 * batching after 2025-03-26), or `undefined` when the version allows it. Over HTTP a session's
 * version is the one its `initialize` negotiated; before that, the request's
 * `MCP-Protocol-Version` header (absent means 2025-03-26, as the spec says a server assumes).
 */
export function batchRefusal(version: string | undefined): string | undefined {
  if (version === undefined || version <= LAST_BATCH_VERSION) return undefined;
  return `Invalid Request: a JSON-RPC batch is refused because this session uses MCP protocol version ${version}, which removed batching (it was last allowed in ${LAST_BATCH_VERSION}). Send each message in its own POST.`;
}

/** The version a batch is judged by: the session's, else the request's header. */
export function batchVersion(
  req: IncomingMessage,
  session: LeanTransport | undefined,
): string | undefined {
  return session?.protocolVersion ?? header(req, 'mcp-protocol-version');
}

/**
 * Whether a POST carrying `body` on an open session may be answered by the lean path: every
 * check the SDK transport makes before it runs a request passes (it accepts both response types,
 * sends JSON, names a protocol version the server speaks), and the SDK's own classifier routes it
 * to the 2025-era transport.
 */
export function leanEligible(req: IncomingMessage, body: unknown): boolean {
  const accept = header(req, 'accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(header(req, 'content-type') ?? null)) return false;
  const version = header(req, 'mcp-protocol-version');
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return false;
  const method = header(req, 'mcp-method');
  const name = header(req, 'mcp-name');
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    ...(version !== undefined ? { protocolVersionHeader: version } : {}),
    ...(method !== undefined ? { mcpMethodHeader: method } : {}),
    ...(name !== undefined ? { mcpNameHeader: name } : {}),
    body,
  });
  return outcome.kind === 'legacy';
}

/** The SDK's keep-alive period on a response stream (`keepAliveMs`' default). */
const KEEP_ALIVE_MS = 15_000;

/**
 * A call's response stream, written as the SDK transport writes one: `text/event-stream` with the
 * session's id, each message an `event: message` with its JSON as `data`, a keep-alive comment
 * while the call runs, ended after the response. Nothing is written until the first message (or
 * keep-alive, which `arm` starts), so a sink never used leaves the response untouched, and a quick call's
 * head and answer leave in one write.
 */
export function sseSink(
  res: ServerResponse,
  sessionId: string,
  eventId?: (seq: number) => string,
): LeanCallSink & { /** Starts the keep-alives, once the sink is in use. */ arm(): void } {
  let started = false;
  // With event ids (replicas sharing a store), a client whose stream breaks asks any replica to
  // resume it (GET with Last-Event-ID), which can then say what became of the call.
  let seq = 0;
  const idLine = () => (eventId ? `id: ${eventId(seq++)}\n` : '');
  const start = () => {
    if (started) return;
    started = true;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': sessionId,
    });
  };
  const open = () => !res.writableEnded && !res.destroyed;
  let keepAlive: NodeJS.Timeout | undefined;
  return {
    arm() {
      if (eventId && seq === 0 && open()) {
        // The priming event: an id before anything else, so that even a stream that breaks
        // before its first message is resumed.
        start();
        res.write(`${idLine()}data: \n\n`);
      }
      keepAlive ??= setInterval(() => {
        if (!open()) return;
        start();
        res.write(': keepalive\n\n');
      }, KEEP_ALIVE_MS);
      keepAlive.unref();
    },
    write(message: JSONRPCMessage) {
      if (!open()) return false;
      start();
      res.write(`${idLine()}event: message\ndata: ${JSON.stringify(message)}\n\n`);
      return true;
    },
    end() {
      clearInterval(keepAlive);
      if (!open()) return;
      start();
      res.end();
    },
  };
}

/** The id and tool of a single `tools/call` request body, or `undefined` for anything else. */
export function toolCallOf(body: unknown): { id: string | number; name: string } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const m = body as { method?: unknown; id?: unknown; params?: { name?: unknown } | null };
  if (m.method !== 'tools/call') return undefined;
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return undefined;
  const name = typeof m.params === 'object' && m.params !== null ? m.params.name : undefined;
  return typeof name === 'string' ? { id: m.id, name } : undefined;
}
