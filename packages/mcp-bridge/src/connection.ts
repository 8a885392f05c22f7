import { AsyncLocalStorage } from 'node:async_hooks';
import type { StreamableHTTPClientTransport, Transport } from '@modelcontextprotocol/client';
import { isConnectionError, isTimeout, STREAM_ENDED } from './call-errors';
import { asError, indent, summarize, systemCode, withCauses } from './format';
import { DEFAULT_MAX_MESSAGE_BYTES, NO_LIMIT } from './limits';
import { ProcessTransport } from './process-transport';
import { loadedSdk, loadSdk } from './sdk';
import type { CallInFlight, Connection, McpHttpServerConfig, McpServerConfig } from './types';

const CLIENT_INFO = { name: 'dsh-tools-mcp-bridge', version: '0.0.0' };

/** Carries a call's record from the bridge's body into the HTTP transport's send. */
export const callContext: AsyncLocalStorage<CallInFlight> = new AsyncLocalStorage<CallInFlight>();

/** What a connection tells its owner, and how long it may take to open. */
export interface ConnectionOwner {
  /** The startup bound of the handshake, ms. */
  readonly startupMs: number;
  /** Aborted by `close()`: a handshake that hangs must not hold it. */
  readonly signal: AbortSignal;
  /** Called as soon as the connection exists, before the handshake (for its stderr on failure). */
  created(conn: Connection): void;
  /** The server announced `tools/list_changed` on this (live) connection. */
  listChanged(conn: Connection): void;
  /** The connection was found lost: closed, crashed, or its HTTP session gone. */
  lost(conn: Connection, error: Error): void;
}

/**
 * Starts the server's transport (a process in its own group, or a Streamable HTTP session) and
 * finishes the MCP handshake. Rejects, with the connection shut down, when either fails. The
 * first call loads the MCP client SDK (`sdk.ts`).
 */
export async function openConnection(
  config: McpServerConfig,
  owner: ConnectionOwner,
): Promise<Connection> {
  const { Client, StreamableHTTPClientTransport } = await loadSdk();
  let transport: Transport;
  let proc: ProcessTransport | undefined;
  let http: StreamableHTTPClientTransport | undefined;
  if ('command' in config && config.command !== undefined) {
    proc = new ProcessTransport({
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      maxLineBytes: config.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    transport = proc;
  } else {
    const h = config as McpHttpServerConfig;
    http = new StreamableHTTPClientTransport(new URL(String(h.url)), {
      ...(h.headers ? { requestInit: { headers: { ...h.headers } } } : {}),
      fetch: boundedFetch(h.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES),
      // The bridge reconnects whole sessions itself; the SDK's own retries would only delay that.
      reconnectionOptions: {
        initialReconnectionDelay: 250,
        maxReconnectionDelay: 2000,
        reconnectionDelayGrowFactor: 2,
        maxRetries: 2,
      },
    });
    transport = http;
  }
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  const conn: Connection = {
    client,
    transport,
    process: proc,
    http,
    dead: false,
    changedEarly: false,
    shutDown: false,
    ownExit: undefined,
  };
  owner.created(conn);
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    if (!conn.dead) owner.listChanged(conn);
  });
  client.onclose = () => owner.lost(conn, new Error('the connection closed'));
  client.onerror = (error) => {
    // Mostly noise that calls report better themselves, with one exception: over HTTP, the
    // server's event stream failing to come back is how an outage shows while no call runs.
    if (http && /Maximum reconnection attempts/.test(error.message)) owner.lost(conn, error);
  };
  try {
    // The SDK bounds the initialize request, but not the send of "initialized" after it, nor the
    // transport's start: the whole handshake gets the startup bound, whatever the server does.
    await withinDeadline(
      client.connect(transport, { timeout: owner.startupMs, signal: owner.signal }),
      owner.startupMs,
    );
  } catch (error) {
    await shutdownConnection(conn);
    throw error;
  }
  if (http) watchCallStreams(http, conn, owner, Math.min(owner.startupMs, 5000));
  return conn;
}

/**
 * `promise`, or a timeout `SdkError` (what the SDK's own timeouts throw, so `isTimeout` knows it)
 * once `ms` have passed. Only called once a connect has loaded the SDK.
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (ms >= NO_LIMIT) return promise;
  const sdk = loadedSdk();
  if (sdk === undefined) throw new Error('withinDeadline: the MCP client SDK is not loaded yet');
  const { SdkError, SdkErrorCode } = sdk;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: ms })),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The SDK leaves a call pending when the server's response stream for it ends without an
 * answer and cannot be resumed (the server crashed mid-call, a proxy cut the stream, the stream
 * carried garbage or grew over the limit): only the call's timeout would end it. So every call
 * asks to hear of its stream's end. One broken stream fails its own call only: the bridge pings
 * the server, and only when the server cannot be reached is the connection lost (which settles
 * every pending call at once and starts reconnecting); otherwise that one call is answered with
 * an error saying its stream ended.
 */
function watchCallStreams(
  http: StreamableHTTPClientTransport,
  conn: Connection,
  owner: Pick<ConnectionOwner, 'lost'>,
  probeMs: number,
): void {
  const unanswered = new Set<string | number>();
  const deliver = http.onmessage;
  http.onmessage = (message) => {
    if ('id' in message && ('result' in message || 'error' in message)) {
      unanswered.delete(message.id as string | number);
    }
    deliver?.(message);
  };
  const send = http.send.bind(http);
  http.send = (message, options) => {
    const call = callContext.getStore();
    if (
      call === undefined ||
      Array.isArray(message) ||
      !('method' in message) ||
      message.method !== 'tools/call' ||
      !('id' in message) ||
      options?.onRequestStreamEnd !== undefined
    ) {
      return send(message, options);
    }
    const id = message.id;
    unanswered.add(id);
    return send(message, {
      ...options,
      onRequestStreamEnd: () => {
        if (!unanswered.has(id) || call.settled) return;
        void conn.client
          .ping({ timeout: probeMs })
          .then(
            () => true,
            (error: unknown) => !(isConnectionError(error) || isTimeout(error)),
          )
          .then((reachable) => {
            if (!unanswered.delete(id) || call.settled || conn.dead) return;
            if (!reachable) {
              owner.lost(
                conn,
                new Error('the server ended the response stream of a call and does not answer'),
              );
              return;
            }
            http.onmessage?.({
              jsonrpc: '2.0',
              id,
              error: {
                code: STREAM_ENDED,
                message: call.failure
                  ? call.failure.message
                  : 'the server ended the response stream of the call without answering it (cut, or not valid JSON)',
              },
            });
          });
      },
    });
  };
}

/**
 * `fetch` for the HTTP transport: every request of a call is aborted when the call settles (so
 * a stalled or endless response stream is not left open until `close()`), and every response is
 * bounded: a JSON body at `maxBytes` in all, an event stream at `maxBytes` per event. A response
 * over the limit is cut, and its call fails with a message naming the size and the limit.
 */
function boundedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const call = callContext.getStore();
    const controller = new AbortController();
    const outer = init?.signal ?? undefined;
    // The transport's own signal is shared by every request: the link is removed once this
    // request is done, or listeners would pile up on it for the session's life.
    const onAbort = () => controller.abort(outer?.reason);
    const release = () => outer?.removeEventListener('abort', onAbort);
    if (outer) {
      if (outer.aborted) controller.abort(outer.reason);
      else outer.addEventListener('abort', onAbort, { once: true });
    }
    controller.signal.addEventListener('abort', release, { once: true });
    if (call) {
      if (call.settled) controller.abort();
      else call.aborts.push(() => controller.abort());
    }
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: controller.signal });
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    const tooLarge = (seen: string) => {
      const error = new Error(
        `the server's HTTP response was larger than the limit of ${maxBytes} bytes (${seen}); it was cut. Raise "maxMessageBytes" if such answers are expected`,
      );
      if (call) call.failure = error;
      return error;
    };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      controller.abort();
      release();
      throw tooLarge(`${declared} bytes announced`);
    }
    const events = /text\/event-stream/i.test(response.headers.get('content-type') ?? '');
    let seen = 0;
    let total = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          total += chunk.byteLength;
          // An event stream may rightly run long: what is bounded is each event.
          const end = events ? lastEventEnd(chunk) : -1;
          seen = end === -1 ? seen + chunk.byteLength : chunk.byteLength - end;
          if (seen > maxBytes) {
            out.error(tooLarge(`${total} bytes read${events ? ' in one event' : ''}`));
            controller.abort();
            return;
          }
          out.enqueue(chunk);
        },
        flush: release,
      }),
    );
    return new Response(limited, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Where the last blank line (end of an event) in `chunk` ends, or -1. */
function lastEventEnd(chunk: Uint8Array): number {
  for (let i = chunk.length - 1; i > 0; i--) {
    if (chunk[i] === 10 && (chunk[i - 1] === 10 || (chunk[i - 1] === 13 && chunk[i - 2] === 10))) {
      return i + 1;
    }
  }
  return -1;
}

/** Ends one connection: the HTTP session is deleted, the process group killed. */
export async function shutdownConnection(conn: Connection): Promise<void> {
  conn.dead = true;
  if (!conn.shutDown) {
    conn.shutDown = true;
    conn.ownExit = conn.process?.exit;
  }
  if (conn.http?.sessionId) {
    await Promise.race([
      conn.http.terminateSession().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 1000).unref()),
    ]);
  }
  await conn.client.close().catch(() => {});
  // client.close() closes the transport, but not when connect() never got that far.
  await conn.transport.close().catch(() => {});
}

/** What a system code at connect most likely means, said in the startup error. */
const HTTP_HINTS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing accepts connections at that host and port: is the server running?',
  ENOTFOUND: 'the host name does not resolve: check its spelling and your DNS',
  EAI_AGAIN: 'the host name could not be resolved just now: check your DNS or network',
  ECONNRESET: 'the server or a proxy cut the connection',
  ETIMEDOUT: 'the host did not answer: check the address and any firewall',
  EHOSTUNREACH: 'the host cannot be reached from here',
  ENETUNREACH: 'the network of that host cannot be reached from here',
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
};
const BAD_PORT =
  'fetch refuses that port, which is reserved for another protocol: use another port';

/**
 * Why a server could not be started, for `connectMcpServer`'s rejection: the command or URL, the
 * cause in words (a timeout, a missing command, the server's own exit, a failed listing), the
 * last lines of its stderr, and what to check next. `opened` is the connection whose handshake
 * finished (its listing failed), `last` the newest one started, whose process tells the story.
 */
export function startupError(
  config: McpServerConfig,
  error: unknown,
  opened: Connection | undefined,
  last: Connection | undefined,
  startupMs: number,
): Error {
  const what =
    'command' in config && config.command !== undefined
      ? `${config.command}${config.args?.length ? ` ${config.args.join(' ')}` : ''}`
      : String((config as McpHttpServerConfig).url);
  const proc = last?.process;
  // Only an exit of the server's own: one the bridge caused by shutting it down says nothing.
  const exit = last?.shutDown ? last.ownExit : proc?.exit;
  const code = (error as { code?: unknown } | undefined)?.code;
  let reason: string;
  if (proc?.failure) {
    reason = `broke the protocol during startup: ${proc.failure.message}`;
  } else if (isTimeout(error)) {
    reason = proc?.stdoutEnded
      ? `closed its stdout and did not finish starting within ${startupMs} ms (it can no longer answer the MCP handshake or tools/list); check why it closes its stdout`
      : `did not finish starting within ${startupMs} ms (no answer to the MCP handshake or tools/list); raise "startupTimeoutMs" if it is just slow`;
  } else if (code === 'ENOENT' || code === 'EACCES') {
    reason = `could not be started: ${code === 'ENOENT' ? 'command not found' : 'permission denied'} (${asError(error).message})`;
  } else if (exit) {
    reason = `exited during startup (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
  } else if (opened) {
    reason = `started, but listing its tools failed: ${summarize(asError(error).message, 600)}`;
  } else {
    const hint =
      HTTP_HINTS[systemCode(error) ?? ''] ?? (/bad port/.test(withCauses(error)) ? BAD_PORT : '');
    reason = `could not be started: ${summarize(withCauses(error), 600)}${hint ? ` (${hint})` : ''}`;
  }
  const tail = proc?.stderrTail.trim();
  const stderr = tail ? `\nLast lines of its stderr:\n${indent(tail)}` : '';
  const next =
    'command' in config && config.command !== undefined
      ? 'Check the command, its arguments and environment, or run it by hand to see its full output.'
      : 'Check that the server is running and that the URL and headers are right.';
  return new Error(
    `MCP server "${config.name}" (${what}) ${reason.replace(/\.$/, '')}.${stderr}\n${next}`,
    { cause: error },
  );
}
