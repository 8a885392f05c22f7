import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  parseJSONRPCMessage,
  type RequestId,
  type Transport,
} from '@modelcontextprotocol/server';

/** The largest line read (as the SDK's stdio transport): past it the connection is closed. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * The newest protocol version whose clients may send JSON-RPC batches: 2025-03-26 requires a
 * server to accept them, 2025-06-18 removed them. Versions are dates, so they compare as text.
 */
export const LAST_BATCH_VERSION = '2025-03-26';

const INVALID_REQUEST = -32600;
const PARSE_ERROR = -32700;

/** One batch the client sent: the responses it is owed, collected until every one is written. */
interface Batch {
  readonly waiting: Set<RequestId>;
  readonly responses: JSONRPCMessage[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const idOf = (v: unknown): RequestId | null => {
  const id = isObj(v) ? v.id : undefined;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : null;
};
const errorMessage = (id: RequestId | null, code: number, message: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, error: { code, message } }) as unknown as JSONRPCMessage;

/** Options of {@link createStdioWire}. */
export interface StdioWireOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
}

/**
 * The gateway's stdio wire: newline-delimited JSON-RPC as the SDK's `StdioServerTransport` reads
 * it, plus what that transport drops without a word. A JSON-RPC batch (an array) from a client
 * that negotiated 2025-03-26 or earlier is taken apart, each member delivered on its own, and
 * the responses to its requests written back as one array once all are answered (JSON-RPC 2.0:
 * an empty batch, or an invalid member, is answered with an Invalid Request error). A batch on a
 * later protocol version, or before `initialize`, is refused with one error saying why. A line
 * that is not JSON gets a Parse error; a message that is not JSON-RPC, an Invalid Request.
 */
export function createStdioWire(options: StdioWireOptions = {}): Transport {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  let version: string | undefined;
  let buffered: Buffer | undefined;
  let closed = false;
  const batchOf = new Map<RequestId, Batch>();

  const write = (message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('The stdio wire is closed'));
      if (stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdout.once('drain', resolve);
    });

  const wire: Transport = {
    async start() {
      stdin.on('data', onData);
      stdin.on('error', onError);
      stdin.on('end', onEnd);
      stdin.on('close', onEnd);
    },
    async send(message) {
      const id =
        isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)
          ? message.id
          : undefined;
      const batch = id === undefined ? undefined : batchOf.get(id);
      if (!batch || id === undefined) return write(message);
      batchOf.delete(id);
      batch.waiting.delete(id);
      batch.responses.push(message);
      return flush(batch);
    },
    async close() {
      if (closed) return;
      closed = true;
      stdin.off('data', onData);
      stdin.off('error', onError);
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      (stdin as NodeJS.ReadStream).pause?.();
      buffered = undefined;
      batchOf.clear();
      wire.onclose?.();
    },
    setProtocolVersion(negotiated: string) {
      version = negotiated;
    },
  };

  const flush = async (batch: Batch) => {
    if (batch.waiting.size > 0 || batch.responses.length === 0) return;
    await write(batch.responses);
  };

  const onError = (error: Error) => wire.onerror?.(error);
  const onEnd = () => void wire.close();
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    buffered = buffered ? Buffer.concat([buffered, bytes]) : bytes;
    let newline = buffered.indexOf(10);
    while (newline !== -1 && buffered) {
      const line = buffered.toString('utf8', 0, newline).replace(/\r$/, '');
      buffered = buffered.subarray(newline + 1);
      receiveLine(line);
      newline = buffered?.indexOf(10) ?? -1;
    }
    if (buffered && buffered.length > MAX_LINE_BYTES) {
      wire.onerror?.(
        new Error(`A message over ${MAX_LINE_BYTES} bytes; the connection is closed.`),
      );
      void wire.close();
    }
  };

  const reply = (message: JSONRPCMessage) =>
    void write(message).catch((error) => wire.onerror?.(error));

  const receiveLine = (line: string) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      return reply(errorMessage(null, PARSE_ERROR, `Parse error: ${(error as Error).message}`));
    }
    if (Array.isArray(value)) return receiveBatch(value);
    const message = check(value);
    if ('invalid' in message) {
      // A malformed answer to one of our requests is not answered back (JSON-RPC).
      if (isObj(value) && ('result' in value || 'error' in value)) {
        return wire.onerror?.(new Error(message.invalid));
      }
      return reply(errorMessage(idOf(value), INVALID_REQUEST, message.invalid));
    }
    const cancelled = cancelledId(message.ok);
    if (cancelled !== undefined) settleCancelled(cancelled);
    wire.onmessage?.(message.ok);
  };

  const receiveBatch = (members: unknown[]) => {
    if (version === undefined || version > LAST_BATCH_VERSION) {
      const why =
        version === undefined
          ? 'this connection has not negotiated a protocol version with initialize (send initialize on its own line first: MCP never allows it in a batch)'
          : `this connection negotiated MCP protocol version ${version}, which removed batching (it was last allowed in ${LAST_BATCH_VERSION})`;
      return reply(
        errorMessage(
          null,
          INVALID_REQUEST,
          `Invalid Request: a JSON-RPC batch is refused because ${why}. Send each message on its own line.`,
        ),
      );
    }
    if (members.length === 0) {
      return reply(
        errorMessage(null, INVALID_REQUEST, 'Invalid Request: an empty JSON-RPC batch.'),
      );
    }
    const batch: Batch = { waiting: new Set(), responses: [] };
    const deliver: JSONRPCMessage[] = [];
    for (const member of members) {
      const message = check(member);
      if ('invalid' in message) {
        batch.responses.push(errorMessage(idOf(member), INVALID_REQUEST, message.invalid));
        continue;
      }
      if (isJSONRPCRequest(message.ok)) {
        const { id } = message.ok;
        if (batchOf.has(id) || batch.waiting.has(id)) {
          batch.responses.push(
            errorMessage(
              id,
              INVALID_REQUEST,
              `Invalid Request: id ${JSON.stringify(id)} is already used by a request that has not been answered.`,
            ),
          );
          continue;
        }
        batch.waiting.add(id);
        batchOf.set(id, batch);
      }
      deliver.push(message.ok);
    }
    for (const message of deliver) {
      const cancelled = cancelledId(message);
      if (cancelled !== undefined) settleCancelled(cancelled);
      wire.onmessage?.(message);
    }
    void flush(batch).catch((error) => wire.onerror?.(error));
  };

  // A cancelled request is never answered (MCP), so its batch must not wait for it.
  const settleCancelled = (id: RequestId) => {
    const batch = batchOf.get(id);
    if (!batch) return;
    batchOf.delete(id);
    batch.waiting.delete(id);
    if (batch.waiting.size === 0 && batch.responses.length > 0) {
      void flush(batch).catch((error) => wire.onerror?.(error));
    }
  };

  return wire;
}

function cancelledId(message: JSONRPCMessage): RequestId | undefined {
  const m = message as Obj;
  if (m.method !== 'notifications/cancelled' || !isObj(m.params)) return undefined;
  const id = m.params.requestId;
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as RequestId) : undefined;
}

/** A parsed line as a JSON-RPC message, or why it is not one. */
function check(value: unknown): { ok: JSONRPCMessage } | { invalid: string } {
  try {
    return { ok: parseJSONRPCMessage(value) };
  } catch {
    return {
      invalid:
        'Invalid Request: not a JSON-RPC 2.0 message (a request needs "jsonrpc": "2.0", an "id" and a "method"; a notification, a "method" and no "id").',
    };
  }
}
