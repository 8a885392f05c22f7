import type { ToolChangeEvent, ToolDefinition } from '@dsh-tools/protocol';
import type {
  Client,
  StreamableHTTPClientTransport,
  Transport,
} from '@modelcontextprotocol/client';
import type { ProcessExit, ProcessTransport } from './process-transport';

/** Which of a server's tools to bridge: an exact name, a `*` glob (`read_*`), or a RegExp. */
export type McpToolFilter = string | RegExp;

/** Exponential backoff between reconnection attempts, bounded by attempts and by total time. */
export interface McpReconnectPolicy {
  /** Attempts after a connection is lost before giving up (default 8). */
  readonly maxAttempts?: number;
  /** Delay before the first attempt, ms (default 250). */
  readonly initialDelayMs?: number;
  /** Upper bound of one delay, ms (default 30 000). */
  readonly maxDelayMs?: number;
  /** Growth of the delay from one attempt to the next (default 2). */
  readonly factor?: number;
  /** Total time spent reconnecting before giving up, ms (default 300 000). */
  readonly budgetMs?: number;
}

/** Settings every server has, whatever its transport. */
export interface McpServerConfigBase {
  /** Names the server in tool names (`mcp__<name>__<tool>`), messages and events. */
  readonly name: string;
  /** Only these tools are bridged (default: all). */
  readonly include?: readonly McpToolFilter[];
  /** These tools are never bridged; applied after `include`. */
  readonly exclude?: readonly McpToolFilter[];
  /**
   * Time limit of one call without any sign of life, ms (default 60 000; 0 = none). Every progress
   * notification from the server starts it again, so a long operation that reports progress is
   * never cut off while a silent, hung one is.
   */
  readonly timeoutMs?: number;
  /** Hard limit of one call even while it reports progress, ms (default: none). */
  readonly maxTotalTimeoutMs?: number;
  /**
   * Time to start the server and finish the MCP handshake, and then to list its tools, ms
   * (default 30 000; 0 = none, like `timeoutMs`). The listing is bounded as a whole, every page
   * included, so a server that hands out fresh cursors slowly cannot hold `connect` forever; each
   * later listing (a refresh) has the same bound.
   */
  readonly startupTimeoutMs?: number;
  /**
   * Largest message accepted from the server, bytes (default 64 MiB): one stdio line, or one HTTP
   * response body or event. A larger one is refused with a message naming its size and this
   * limit, so a hostile server cannot make the host buffer without bound.
   */
  readonly maxMessageBytes?: number;
  /**
   * What to do when the connection is lost; `false` gives up at once (default: backoff). Unknown
   * fields and out-of-range values are rejected by `connectMcpServer`.
   */
  readonly reconnect?: McpReconnectPolicy | false;
  /**
   * Whether the server's tool annotations are believed. Annotations are claims made by the
   * server; a host that has not vetted the server must not let them relax its policies, so by
   * default (false) bridged tools carry no hints and policies treat them as unknown. Only the
   * boolean `true` trusts; any other non-boolean (`"false"` from a JSON file) is rejected.
   */
  readonly trust?: boolean;
  /**
   * Throttle of `tools/list_changed`, ms (default 50). Not a quiet period: the first notification
   * starts the timer and the listing runs when it fires, however many more arrive meanwhile.
   */
  readonly listChangedDebounceMs?: number;
  /** Called with every progress notification of a call. */
  readonly onProgress?: (event: McpProgressEvent) => void;
  /** Problems the bridge contained: a failed background refresh, a skipped tool. Default: console.warn. */
  readonly onError?: (error: Error) => void;
}

/** A server started as a child process that speaks MCP on stdin/stdout. */
export interface McpStdioServerConfig extends McpServerConfigBase {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to a safe default environment (PATH, HOME, USER, SHELL, TERM, LOGNAME). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly url?: never;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig extends McpServerConfigBase {
  readonly url: string | URL;
  /** Sent with every request (an `Authorization` header, say). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly command?: never;
}

/** How to reach one MCP server: stdio (`command`) or Streamable HTTP (`url`). */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * Where the connection stands. `connected`: calls go through. `reconnecting`: the connection was
 * lost, tools stay registered and fail fast with `UNAVAILABLE`. `failed`: reconnecting gave up
 * (or was disabled); tools stay registered and fail fast until `reconnect()`. `closed`: `close()`
 * ran and the tools are gone.
 */
export type McpServerStatus = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed';

/** One change of status. */
export interface McpStatusEvent {
  readonly server: string;
  readonly status: McpServerStatus;
  readonly previous: McpServerStatus;
  /** Why the connection was lost or an attempt failed. */
  readonly error?: Error;
  /** The reconnection attempt this event belongs to, from 1. */
  readonly attempt?: number;
}

/** Which tools one refresh added, removed or changed (schema, description or hints). */
export interface McpToolsChangeEvent extends ToolChangeEvent {
  readonly changed: readonly string[];
}

/** Progress reported by the server during a call. */
export interface McpProgressEvent {
  readonly server: string;
  readonly tool: string;
  readonly callId: string;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** One bridged tool: its public name and the server's name for it. */
export interface McpBridgedTool {
  /** The name registered in the registry (what the model calls). */
  readonly name: string;
  /** The name the server knows it by. */
  readonly tool: string;
  readonly description: string;
}

/** A connected server: its tools, its status, and the means to follow and end it. */
export interface McpServerHandle {
  readonly name: string;
  readonly status: McpServerStatus;
  /** The tools registered right now, in the server's order. */
  readonly tools: readonly McpBridgedTool[];
  /** The server's process id (stdio servers, while running). */
  readonly pid: number | undefined;
  /** The last lines the server wrote on stderr (stdio servers). */
  readonly stderrTail: string;
  /** Follows status changes; returns an unsubscribe function. */
  on(event: 'status', listener: (event: McpStatusEvent) => void): () => void;
  /** Follows changes of the tool set; returns an unsubscribe function. */
  on(event: 'tools', listener: (event: McpToolsChangeEvent) => void): () => void;
  /**
   * Lists the tools again now and applies the difference. Rejects, changing nothing, when the
   * listing fails; a tool the registry refuses is reported through `onError` and left out (or
   * keeps its previous version) while the rest is applied. While `reconnecting` or `failed`, and
   * after `close()`, it resolves without listing (a reconnect lists anyway).
   */
  refresh(): Promise<void>;
  /** After `failed`: starts reconnecting again with a fresh budget. */
  reconnect(): Promise<void>;
  /**
   * Unregisters the tools, ends the session and kills the server's process group; a reconnect
   * attempt in progress is aborted and its process killed too. Idempotent.
   */
  close(): Promise<void>;
}

// ---- records the bridge's parts share (not exported from the package) ----------------------

/** A tool as listed on the wire, before its fields are checked (see `tool-definitions.ts`). */
export interface ListedTool {
  readonly name: string;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
  readonly icons?: unknown;
  readonly _meta?: unknown;
  readonly annotations?: unknown;
}

/**
 * One server tool as the bridge holds it: built from a listing (desired) and, once the registry
 * took it, registered (current). Distinct from the registry's and the waterfall's own records.
 */
export interface ToolRecord {
  /** The server's name for the tool. */
  readonly tool: string;
  readonly definition: ToolDefinition;
  /** Compared between listings to tell a changed tool from an unchanged one. */
  readonly key: string;
  /** Unregisters the tool; set when the registry takes it. */
  dispose: () => void;
}

/** One session with a server, from the start of its transport to its shutdown. */
export interface Connection {
  readonly client: Client;
  readonly transport: Transport;
  readonly process: ProcessTransport | undefined;
  readonly http: StreamableHTTPClientTransport | undefined;
  /** Set once the bridge stops using this connection (lost or closed). */
  dead: boolean;
  /** `tools/list_changed` arrived before the connection became the current one (during its first listing). */
  changedEarly: boolean;
  /** Set when the bridge starts shutting this connection down. */
  shutDown: boolean;
  /** How the process ended before the bridge shut it down, if it had: the server's own exit. */
  ownExit: ProcessExit | undefined;
}

/** One call in flight over HTTP, as the transport's send sees it (see `connection.ts`). */
export interface CallInFlight {
  settled: boolean;
  /** Aborts this call's HTTP requests: run when the call settles, so no response stays open. */
  readonly aborts: (() => void)[];
  /** Why this call's HTTP response was cut (over `maxMessageBytes`), for its own error. */
  failure?: Error | undefined;
}
