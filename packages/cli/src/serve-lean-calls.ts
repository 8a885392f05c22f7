import { isRecord } from '@dsh-tools/policy-kit';
import type {
  CallToolResult,
  JSONRPCMessage,
  MessageExtraInfo,
  RequestId,
  Server,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

/** What a `tools/call` taken off the wire ended in: a result, or what the handler threw. */
export type LeanOutcome =
  | { readonly result: CallToolResult }
  | { readonly error: unknown; readonly result?: undefined };

/** How the lean path reaches the gateway (see {@link leanToolCalls}). */
export interface LeanCallRoute {
  /**
   * The instance serving this connection when a `tools/call` may skip the SDK's request handling:
   * a 2025-era connection past its `initialize`. `undefined` sends every message to the SDK.
   */
  server(): Server | undefined;
  /**
   * Runs one call as the SDK `tools/call` handler would, and projects its result for the wire.
   * `identity` is the client the connection was authenticated as (HTTP), if any.
   */
  callTool(
    server: Server,
    id: RequestId,
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    identity?: string,
  ): Promise<CallToolResult>;
  /** Has `server`'s `tools/call` handler answer request `id` with `outcome` instead of running it. */
  handOver(server: Server, id: RequestId, outcome: LeanOutcome): void;
}

/**
 * Where the messages of one call taken off an HTTP request go (its own response stream): the
 * call's server-to-client requests and notifications, then its response, after which it ends.
 */
export interface LeanCallSink {
  /** Writes one message of the call; `false` once the stream is gone (the client left). */
  write(message: JSONRPCMessage): boolean;
  /** Ends the stream (after the response, or when the connection closes). */
  end(): void;
}

/** A wrapped wire that can also be handed a `tools/call` read elsewhere (see {@link leanToolCalls}). */
export interface LeanTransport extends Transport {
  /**
   * Runs `message` on the lean path with `sink` as its stream, when it is a `tools/call` the lean
   * path takes and the connection is past its handshake. `false` (nothing done) otherwise: the
   * caller gives the message to the SDK as it came.
   */
  takeCall(message: unknown, sink: LeanCallSink): boolean;
  /** Aborts the call of request `id` taken with {@link takeCall} (its client went away). */
  abandon(id: RequestId, reason: string): void;
  /**
   * Cancels request `id` of the SDK path as a `notifications/cancelled` from the client would:
   * its handler's signal aborts and it is not answered (its client went away).
   */
  cancel(id: RequestId, reason: string): void;
  /** The protocol version the connection negotiated in its `initialize`, once it has. */
  readonly protocolVersion: string | undefined;
}

/** A `tools/call` in the one shape the lean path takes. */
interface LeanRequest {
  readonly jsonrpc: '2.0';
  readonly id: RequestId;
  readonly method: 'tools/call';
  readonly params: { readonly name: string; readonly arguments?: Record<string, unknown> };
}

const isRequestId = (value: unknown): value is RequestId =>
  typeof value === 'string' || Number.isSafeInteger(value);

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether `message` is a `tools/call` the SDK server is sure to accept as it is: the request
 * schema's own shape and nothing more (no `_meta`, no task, no other key). Anything else takes the
 * SDK path, so a malformed or unusual request gets exactly the answer it got before.
 */
function isLeanRequest(message: unknown): message is JSONRPCMessage & LeanRequest {
  const m = message as Partial<Record<string, unknown>>;
  if (m.method !== 'tools/call' || m.jsonrpc !== '2.0' || !isRequestId(m.id)) return false;
  for (const key in m) if (!REQUEST_KEYS.has(key)) return false;
  const { params } = m;
  if (!isRecord(params) || typeof params.name !== 'string') return false;
  for (const key in params) if (key !== 'name' && key !== 'arguments') return false;
  const args = params.arguments;
  if (args === undefined) return true;
  // The SDK copies the arguments through a record schema, where an own "__proto__" key would
  // not survive as a key; such a call keeps the SDK's reading.
  return isRecord(args) && !Object.hasOwn(args, '__proto__');
}

/** The `requestId` and `reason` of a `notifications/cancelled` the SDK would act on. */
function cancellationOf(message: JSONRPCMessage): { id: RequestId; reason?: string } | undefined {
  const m = message as Partial<Record<string, unknown>>;
  if (m.method !== 'notifications/cancelled' || 'id' in m || !isRecord(m.params)) return undefined;
  const { requestId, reason } = m.params;
  if (!isRequestId(requestId) || (reason !== undefined && typeof reason !== 'string')) {
    return undefined;
  }
  return reason === undefined ? { id: requestId } : { id: requestId, reason };
}

/**
 * The wire form of a result made only of text blocks (the common answer), built as the SDK's
 * result schema emits it: `{ content: [{ type, text }], isError }`. `undefined` for any other
 * result, which the SDK validates and encodes itself.
 */
function plainTextResult(result: CallToolResult): CallToolResult | undefined {
  const { content, isError } = result;
  if (typeof isError !== 'boolean' || !Array.isArray(content)) return undefined;
  let keys = 0;
  for (const _ in result) keys++;
  if (keys !== 2) return undefined;
  const blocks: { type: 'text'; text: string }[] = [];
  for (const block of content as unknown[]) {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') {
      return undefined;
    }
    let blockKeys = 0;
    for (const _ in block) blockKeys++;
    if (blockKeys !== 2) return undefined;
    blocks.push({ type: 'text', text: block.text });
  }
  return { content: blocks, isError };
}

/**
 * Wraps the wire of `dsh-tools serve` (stdio, or one HTTP session's transport) so that a 2025-era
 * `tools/call` skips the SDK
 * server's per-request machinery (request and result schemas, context, AbortController), which
 * made a call through the gateway cost about twice a direct one. Such a call runs through
 * `route.callTool` and its text result is written as the SDK would write it; every other message,
 * and every call or result outside the plain shapes above, goes to the SDK server unchanged (a
 * finished call's result is handed over to it with the request, so the SDK validates and encodes
 * it). A `notifications/cancelled` aborts a lean call of that id, and is passed on as well.
 *
 * Over HTTP the wire never sees such a call: `takeCall` is handed it with the call's own response
 * stream, and everything the server sends about the call (a question with its `relatedRequestId`,
 * the response) is written there.
 */
export function leanToolCalls(wire: Transport, route: LeanCallRoute): LeanTransport {
  const running = new Map<RequestId, AbortController>();
  // Calls taken with their own stream: what the SDK server sends about them goes there, not to
  // the wire (whose HTTP transport knows no stream for a request it never read).
  const sinks = new Map<RequestId, LeanCallSink>();
  let negotiated: string | undefined;
  const toSink = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    const m = message as { id?: RequestId; method?: unknown };
    const id = m.method === undefined && m.id !== undefined ? m.id : options?.relatedRequestId;
    return id === undefined ? undefined : sinks.get(id);
  };
  const lean: LeanTransport = {
    async start() {
      wire.onmessage = receive;
      wire.onerror = (error) => lean.onerror?.(error);
      wire.onclose = () => {
        // As the SDK does with its own requests when the connection goes.
        const closed = new Error('Connection closed');
        for (const controller of running.values()) controller.abort(closed);
        running.clear();
        for (const sink of sinks.values()) sink.end();
        sinks.clear();
        lean.onclose?.();
      };
      await wire.start();
    },
    send: async (message: JSONRPCMessage, options?: TransportSendOptions) => {
      const sink = toSink(message, options);
      if (!sink) return wire.send(message, options);
      const m = message as { id?: RequestId; method?: unknown };
      if (m.method === undefined && m.id !== undefined) {
        // The call's response: its stream is done.
        sinks.delete(m.id);
        sink.write(message);
        sink.end();
        return;
      }
      if (!sink.write(message)) {
        throw new Error('the client closed the stream of the call this message belongs to');
      }
    },
    close: () => wire.close(),
    setProtocolVersion: (version: string) => {
      negotiated = version;
      wire.setProtocolVersion?.(version);
    },
    get protocolVersion() {
      return negotiated;
    },
    takeCall(message, sink) {
      const server = route.server();
      if (!server || !isLeanRequest(message) || sinks.has(message.id) || running.has(message.id)) {
        return false;
      }
      sinks.set(message.id, sink);
      void run(server, message);
      return true;
    },
    cancel(id, reason) {
      receive({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason },
      });
    },
    abandon(id, reason) {
      const sink = sinks.get(id);
      if (!sink) return;
      sinks.delete(id);
      running.get(id)?.abort(reason);
      sink.end();
    },
  };

  const deliver = (message: JSONRPCMessage, extra?: MessageExtraInfo) =>
    extra === undefined ? lean.onmessage?.(message) : lean.onmessage?.(message, extra);

  const run = async (server: Server, request: LeanRequest & JSONRPCMessage) => {
    const { id, params } = request;
    const controller = new AbortController();
    running.set(id, controller);
    let outcome: LeanOutcome;
    try {
      outcome = {
        result: await route.callTool(
          server,
          id,
          params.name,
          params.arguments ?? {},
          controller.signal,
        ),
      };
    } catch (error) {
      outcome = { error };
    } finally {
      if (running.get(id) === controller) running.delete(id);
    }
    // A cancelled request is not answered (the SDK's rule too); a stream of its own just ends.
    if (controller.signal.aborted) {
      const sink = sinks.get(id);
      sinks.delete(id);
      sink?.end();
      return;
    }
    const plain = outcome.result && plainTextResult(outcome.result);
    if (plain) {
      await lean
        .send({ result: plain, jsonrpc: '2.0', id })
        .catch((error) => lean.onerror?.(new Error(`Failed to send response: ${error}`)));
      return;
    }
    route.handOver(server, id, outcome);
    deliver(request);
  };

  const receive = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const server = route.server();
    if (server && isLeanRequest(message)) {
      void run(server, message);
      return;
    }
    const cancelled = cancellationOf(message);
    if (cancelled) running.get(cancelled.id)?.abort(cancelled.reason);
    deliver(message, extra);
  };

  return lean;
}
