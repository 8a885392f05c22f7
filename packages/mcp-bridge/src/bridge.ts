import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type BodyExecution,
  type ObjectJsonSchema,
  type ToolArgs,
  type ToolDefinition,
  ToolError,
  type ToolHints,
  type ToolRegistryLike,
} from '@dsh-tools/protocol';
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  type StandardSchemaV1,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { errorText, mapCallResult } from './content';
import { mcpToolName } from './naming';
import { type ProcessExit, ProcessTransport } from './process-transport';
import type {
  McpBridgedTool,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerHandle,
  McpServerStatus,
  McpStatusEvent,
  McpStdioServerConfig,
  McpToolFilter,
  McpToolsChangeEvent,
} from './types';

const CLIENT_INFO = { name: 'dsh-tools-mcp-bridge', version: '0.0.0' };
const DEFAULT_TIMEOUT = 60_000;
const DEFAULT_STARTUP_TIMEOUT = 30_000;
/** setTimeout fires at once above this; "no limit" is this. */
const NO_LIMIT = 2_147_483_647;
/** At most this many `tools/list` pages in one listing. */
const MAX_PAGES = 1_000;
/** At most this many tools from one server (documented in the README). */
const MAX_TOOLS = 10_000;
const MAX_DESCRIPTION = 16_384;

interface Connection {
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

interface Entry {
  readonly tool: string;
  readonly definition: ToolDefinition;
  /** Compared between listings to tell a changed tool from an unchanged one. */
  readonly key: string;
  dispose: () => void;
}

type Listener<E> = (event: E) => void;

/**
 * Connects one MCP server and registers its tools in `registry` as `mcp__<server>__<tool>`.
 *
 * Resolves once the server has started, finished the MCP handshake and had its tools listed and
 * registered; rejects (after stopping the server) when any of that fails, with the tail of a stdio
 * server's stderr in the message. From then on the bridge follows `tools/list_changed`, survives
 * crashes and dropped sessions by reconnecting with backoff, and keeps the tools registered
 * throughout, failing calls fast with `UNAVAILABLE` while the server is away.
 *
 * Bridged tools carry `timeoutMs: 0` so that the registry never times them out itself: the bridge
 * owns the per-call limit (`config.timeoutMs`) because every progress notification resets it.
 */
export async function connectMcpServer(
  registry: ToolRegistryLike,
  config: McpServerConfig,
): Promise<McpServerHandle> {
  const bridge = new Bridge(registry, checkConfig(config));
  await bridge.start();
  return bridge.handle();
}

function checkConfig(config: McpServerConfig): McpServerConfig {
  if (typeof config !== 'object' || config === null) {
    throw new TypeError(
      'connectMcpServer: config must be an object like { name, command } or { name, url }.',
    );
  }
  const name = (config as { name?: unknown }).name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) {
    throw new TypeError(
      `connectMcpServer: "name" must be a non-empty string of at most 256 characters (got ${describe(name)}).`,
    );
  }
  const hasCommand = 'command' in config && config.command !== undefined;
  const hasUrl = 'url' in config && config.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new TypeError(
      `connectMcpServer: server "${name}" needs exactly one of "command" (stdio) or "url" (Streamable HTTP).`,
    );
  }
  if (hasCommand) {
    const c = config as McpStdioServerConfig;
    if (typeof c.command !== 'string' || c.command === '') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "command" must be a non-empty string.`,
      );
    }
    if (
      c.args !== undefined &&
      (!Array.isArray(c.args) || c.args.some((a) => typeof a !== 'string'))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "args" must be an array of strings.`,
      );
    }
    if (c.env !== undefined && !isStringRecord(c.env)) {
      throw new TypeError(`connectMcpServer: server "${name}": "env" must map names to strings.`);
    }
  } else {
    const c = config as McpHttpServerConfig;
    let url: URL;
    try {
      url = new URL(String(c.url));
    } catch {
      throw new TypeError(
        `connectMcpServer: server "${name}": "url" is not a URL (got ${describe(c.url)}).`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "url" must be http: or https: (got ${url.protocol}).`,
      );
    }
    if (c.headers !== undefined && !isStringRecord(c.headers)) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "headers" must map names to strings.`,
      );
    }
  }
  for (const key of [
    'timeoutMs',
    'maxTotalTimeoutMs',
    'startupTimeoutMs',
    'listChangedDebounceMs',
  ] as const) {
    const value = config[key];
    if (
      value !== undefined &&
      !(typeof value === 'number' && value >= 0 && Number.isFinite(value))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be a number >= 0 (got ${describe(value)}).`,
      );
    }
  }
  if (config.trust !== undefined && typeof config.trust !== 'boolean') {
    throw new TypeError(
      `connectMcpServer: server "${name}": "trust" must be true or false (got ${describe(config.trust)}); a string such as "false" is not accepted, so that a config cannot trust a server by accident.`,
    );
  }
  checkReconnect(name, config.reconnect);
  for (const key of ['onProgress', 'onError'] as const) {
    if (config[key] !== undefined && typeof config[key] !== 'function') {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be a function (got ${describe(config[key])}).`,
      );
    }
  }
  for (const key of ['include', 'exclude'] as const) {
    const list = config[key];
    if (
      list !== undefined &&
      (!Array.isArray(list) || list.some((f) => typeof f !== 'string' && !(f instanceof RegExp)))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "${key}" must be an array of strings or RegExps.`,
      );
    }
  }
  return config;
}

/** The reconnect policy's own fields, each a number within its range. */
const RECONNECT_FIELDS: Readonly<Record<string, { min: number; integer?: boolean }>> = {
  maxAttempts: { min: 0, integer: true },
  initialDelayMs: { min: 0 },
  maxDelayMs: { min: 0 },
  factor: { min: 1 },
  budgetMs: { min: 0 },
};

function checkReconnect(name: string, policy: unknown): void {
  if (policy === undefined || policy === false) return;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new TypeError(
      `connectMcpServer: server "${name}": "reconnect" must be false or an object like { maxAttempts: 8 } (got ${describe(policy)}); use {} for the defaults.`,
    );
  }
  for (const [key, value] of Object.entries(policy)) {
    const rule = Object.hasOwn(RECONNECT_FIELDS, key) ? RECONNECT_FIELDS[key] : undefined;
    if (!rule) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "reconnect" has an unknown field ${describe(key)}; the fields are ${Object.keys(RECONNECT_FIELDS).join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    if (
      typeof value !== 'number' ||
      !Number.isFinite(value) ||
      value < rule.min ||
      (rule.integer && !Number.isInteger(value))
    ) {
      throw new TypeError(
        `connectMcpServer: server "${name}": "reconnect.${key}" must be ${rule.integer ? 'an integer' : 'a number'} >= ${rule.min} (got ${typeof value === 'number' ? String(value) : describe(value)}).`,
      );
    }
  }
}

const isStringRecord = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');

function describe(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return value === null ? 'null' : typeof value;
}

function matches(filter: McpToolFilter, name: string): boolean {
  if (filter instanceof RegExp) {
    filter.lastIndex = 0;
    return filter.test(name);
  }
  if (!filter.includes('*')) return filter === name;
  const pattern = filter.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${pattern.join('.*')}$`).test(name);
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

class Bridge {
  readonly #registry: ToolRegistryLike;
  readonly #config: McpServerConfig;
  readonly #server: string;
  #status: McpServerStatus = 'connecting';
  #conn: Connection | undefined;
  /** The last connection that existed, for pid / stderr after it ended. */
  #lastConn: Connection | undefined;
  #entries = new Map<string, Entry>();
  readonly #statusListeners = new Set<Listener<McpStatusEvent>>();
  readonly #toolListeners = new Set<Listener<McpToolsChangeEvent>>();
  #refreshTimer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  #reconnecting: Promise<void> | undefined;
  readonly #lifetime = new AbortController();
  #closing: Promise<void> | undefined;

  constructor(registry: ToolRegistryLike, config: McpServerConfig) {
    this.#registry = registry;
    this.#config = config;
    this.#server = config.name;
  }

  handle(): McpServerHandle {
    const bridge = this;
    return {
      name: this.#server,
      get status() {
        return bridge.#status;
      },
      get tools(): readonly McpBridgedTool[] {
        return [...bridge.#entries.entries()].map(([name, e]) => ({
          name,
          tool: e.tool,
          description: e.definition.description,
        }));
      },
      get pid() {
        const conn = bridge.#conn ?? bridge.#lastConn;
        return conn?.process?.exit ? undefined : conn?.process?.pid;
      },
      get stderrTail() {
        return (bridge.#conn ?? bridge.#lastConn)?.process?.stderrTail ?? '';
      },
      on: ((event: 'status' | 'tools', listener: Listener<never>) => {
        const set = (event === 'status' ? this.#statusListeners : this.#toolListeners) as Set<
          Listener<never>
        >;
        if (event !== 'status' && event !== 'tools') {
          throw new TypeError(
            `McpServerHandle.on: unknown event ${describe(event)}; use "status" or "tools".`,
          );
        }
        set.add(listener);
        return () => void set.delete(listener);
      }) as McpServerHandle['on'],
      refresh: () => this.#refreshNow(),
      reconnect: () => this.#manualReconnect(),
      close: () => this.#close(),
    };
  }

  // ---- lifecycle -------------------------------------------------------------------------

  async start(): Promise<void> {
    let conn: Connection | undefined;
    try {
      conn = await this.#open();
      await this.#sync(conn);
    } catch (error) {
      // Built before the shutdown, which would otherwise pass its own SIGTERM for the cause.
      const failure = this.#startupError(error, conn);
      if (conn) await this.#shutdown(conn);
      this.#setStatus('failed', { error: asError(error) });
      throw failure;
    }
    this.#becomeCurrent(conn);
  }

  /** Makes `conn` the connection in use, and lists again if the tools changed during its first listing. */
  #becomeCurrent(conn: Connection): void {
    this.#conn = conn;
    this.#setStatus('connected');
    if (conn.changedEarly) this.#scheduleRefresh();
  }

  #startupError(error: unknown, conn: Connection | undefined): Error {
    const c = this.#config;
    const what =
      'command' in c && c.command !== undefined
        ? `${c.command}${c.args?.length ? ` ${c.args.join(' ')}` : ''}`
        : String((c as McpHttpServerConfig).url);
    const last = conn ?? this.#lastConn;
    const proc = last?.process;
    // Only an exit of the server's own: one the bridge caused by shutting it down says nothing.
    const exit = last?.shutDown ? last.ownExit : proc?.exit;
    const code = (error as { code?: unknown } | undefined)?.code;
    let reason: string;
    if (isTimeout(error)) {
      reason = `did not finish starting within ${this.#startupTimeout()} ms (no answer to the MCP handshake or tools/list); raise "startupTimeoutMs" if it is just slow`;
    } else if (code === 'ENOENT' || code === 'EACCES') {
      reason = `could not be started: ${code === 'ENOENT' ? 'command not found' : 'permission denied'} (${asError(error).message})`;
    } else if (exit) {
      reason = `exited during startup (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`;
    } else if (conn) {
      reason = `started, but listing its tools failed: ${asError(error).message}`;
    } else {
      reason = `could not be started: ${asError(error).message}`;
    }
    const tail = proc?.stderrTail.trim();
    const stderr = tail ? `\nLast lines of its stderr:\n${indent(tail)}` : '';
    const next =
      'command' in c && c.command !== undefined
        ? 'Check the command, its arguments and environment, or run it by hand to see its full output.'
        : 'Check that the server is running and that the URL and headers are right.';
    return new Error(
      `MCP server "${this.#server}" (${what}) ${reason.replace(/\.$/, '')}.${stderr}\n${next}`,
      { cause: error },
    );
  }

  /** The startup bound, ms; `startupTimeoutMs: 0` means none, like `timeoutMs: 0`. */
  #startupTimeout(): number {
    const ms = this.#config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT;
    return ms === 0 ? NO_LIMIT : Math.min(ms, NO_LIMIT);
  }

  async #open(): Promise<Connection> {
    const c = this.#config;
    let transport: Transport;
    let proc: ProcessTransport | undefined;
    let http: StreamableHTTPClientTransport | undefined;
    if ('command' in c && c.command !== undefined) {
      proc = new ProcessTransport({
        command: c.command,
        ...(c.args ? { args: c.args } : {}),
        ...(c.env ? { env: c.env } : {}),
        ...(c.cwd ? { cwd: c.cwd } : {}),
      });
      transport = proc;
    } else {
      const h = c as McpHttpServerConfig;
      http = new StreamableHTTPClientTransport(new URL(String(h.url)), {
        ...(h.headers ? { requestInit: { headers: { ...h.headers } } } : {}),
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
    this.#lastConn = conn;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      if (conn.dead) return;
      // During the first listing of a connection the change may postdate the page already read:
      // remember it, and list again once the connection is in use.
      if (conn === this.#conn) this.#scheduleRefresh();
      else conn.changedEarly = true;
    });
    client.onclose = () => this.#lost(conn, new Error('the connection closed'));
    client.onerror = (error) => {
      // Mostly noise that calls report better themselves, with one exception: over HTTP, the
      // server's event stream failing to come back is how an outage shows while no call runs.
      if (http && /Maximum reconnection attempts/.test(error.message)) this.#lost(conn, error);
    };
    try {
      // The lifetime signal: close() must not wait out a handshake that hangs.
      await client.connect(transport, {
        timeout: this.#startupTimeout(),
        signal: this.#lifetime.signal,
      });
    } catch (error) {
      await this.#shutdown(conn);
      throw error;
    }
    if (http) this.#watchCallStreams(http, conn);
    return conn;
  }

  /**
   * The SDK leaves a call pending when the server's response stream for it ends without an
   * answer and cannot be resumed (the server crashed mid-call, a proxy cut the stream): only the
   * call's timeout would end it, a minute later. So every call asks to hear of its stream's end,
   * and a stream that ended while its call is still unanswered and unsettled counts as a lost
   * connection, which settles every pending call at once and starts reconnecting.
   */
  #watchCallStreams(http: StreamableHTTPClientTransport, conn: Connection): void {
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
          if (!unanswered.delete(id) || call.settled) return;
          this.#lost(
            conn,
            new Error('the server ended the response stream of a call without answering it'),
          );
        },
      });
    };
  }

  /** Ends one connection: the HTTP session is deleted, the process group killed. */
  async #shutdown(conn: Connection): Promise<void> {
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

  /** A connection was found lost (closed, crashed, or its HTTP session gone). */
  #lost(conn: Connection, error: Error): void {
    if (conn.dead) return;
    conn.dead = true;
    if (conn !== this.#conn) return;
    this.#conn = undefined;
    void this.#shutdown(conn);
    if (this.#closing) return;
    if (this.#config.reconnect === false) {
      this.#setStatus('failed', { error });
      return;
    }
    this.#reconnecting ??= this.#reconnectLoop(error).finally(() => {
      this.#reconnecting = undefined;
    });
  }

  async #reconnectLoop(cause: Error): Promise<void> {
    const policy = this.#config.reconnect || {};
    const maxAttempts = policy.maxAttempts ?? 8;
    const initial = policy.initialDelayMs ?? 250;
    const maxDelay = policy.maxDelayMs ?? 30_000;
    const factor = policy.factor ?? 2;
    const budget = policy.budgetMs ?? 300_000;
    const started = Date.now();
    let lastError = cause;
    this.#setStatus('reconnecting', { error: cause, attempt: 1 });
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const base = Math.min(maxDelay, initial * factor ** (attempt - 1));
      // Jitter, so that many bridges to one restarted server do not all knock at once.
      const delay = base / 2 + Math.random() * (base / 2);
      if (Date.now() - started + delay > budget) break;
      await sleep(delay, this.#lifetime.signal);
      if (this.#closing) return;
      if (attempt > 1) this.#setStatus('reconnecting', { error: lastError, attempt });
      let conn: Connection | undefined;
      try {
        conn = await this.#open();
        await this.#sync(conn);
      } catch (error) {
        lastError = asError(error);
        if (conn) await this.#shutdown(conn);
        if (this.#closing) return;
        continue;
      }
      if (this.#closing) {
        await this.#shutdown(conn);
        return;
      }
      this.#becomeCurrent(conn);
      return;
    }
    this.#setStatus('failed', { error: lastError });
  }

  async #manualReconnect(): Promise<void> {
    if (this.#closing)
      throw new Error(`MCP server "${this.#server}" is closed; connect it again instead.`);
    if (this.#status === 'connected' || this.#status === 'reconnecting') return this.#reconnecting;
    this.#reconnecting ??= this.#reconnectLoop(new Error('reconnect() was called')).finally(() => {
      this.#reconnecting = undefined;
    });
    return this.#reconnecting;
  }

  #close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#lifetime.abort();
      clearTimeout(this.#refreshTimer);
      const entries = [...this.#entries.entries()];
      this.#entries = new Map();
      for (const [, entry] of entries) this.#contain(entry.dispose);
      if (entries.length > 0) {
        this.#emitTools({ added: [], removed: entries.map(([name]) => name), changed: [] });
      }
      const conn = this.#conn;
      this.#conn = undefined;
      if (conn) await this.#shutdown(conn);
      await this.#reconnecting?.catch(() => {});
      // A reconnect attempt in flight may have opened a connection of its own.
      if (this.#lastConn && this.#lastConn !== conn) await this.#shutdown(this.#lastConn);
      this.#setStatus('closed');
    })();
    return this.#closing;
  }

  #setStatus(status: McpServerStatus, extra: { error?: Error; attempt?: number } = {}): void {
    const previous = this.#status;
    if (previous === 'closed') return;
    if (previous === status && status !== 'reconnecting') return;
    this.#status = status;
    const event: McpStatusEvent = { server: this.#server, status, previous, ...extra };
    for (const listener of [...this.#statusListeners]) this.#contain(() => listener(event));
  }

  #emitTools(event: McpToolsChangeEvent): void {
    for (const listener of [...this.#toolListeners]) this.#contain(() => listener(event));
  }

  #contain(fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#report(error);
    }
  }

  #report(error: unknown): void {
    const e = asError(error);
    if (this.#config.onError) {
      try {
        this.#config.onError(e);
      } catch {
        // an error handler that throws has nowhere left to report to
      }
    } else {
      console.warn(`[mcp-bridge] ${e.message}`);
    }
  }

  // ---- discovery -------------------------------------------------------------------------

  /**
   * A throttle, not a quiet period: the first `tools/list_changed` starts a timer and the listing
   * runs when it fires, whatever arrives meanwhile; so a server that never stops notifying is
   * still listed, at most once per `listChangedDebounceMs`.
   */
  #scheduleRefresh(): void {
    if (this.#refreshTimer !== undefined || this.#closing) return;
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined;
      // Joining a refresh in flight only asks for its follow-up: that run reports its own failure.
      if (this.#refreshing) {
        this.#refreshAgain = true;
        return;
      }
      this.#refreshNow().catch((error) => this.#report(error));
    }, this.#config.listChangedDebounceMs ?? 50);
  }

  /**
   * One refresh at a time; requests during one are merged into a single follow-up listing. A
   * change announced during the follow-up is left to the throttled timer, so a server that
   * announces a change during every listing cannot hold `refresh()` forever.
   */
  #refreshNow(): Promise<void> {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return this.#refreshing;
    }
    const run = async (): Promise<void> => {
      for (let round = 0; round < 2; round++) {
        this.#refreshAgain = false;
        const conn = this.#conn;
        // Reconnecting, failed or closed: there is nothing to list now (a reconnect lists anyway).
        if (!conn || this.#closing) return;
        try {
          await this.#sync(conn);
        } catch (error) {
          // close() aborted the listing: nothing failed that anyone needs to hear of.
          if (this.#closing) return;
          throw new Error(
            `MCP server "${this.#server}": refreshing the tool list failed, the previous ${this.#entries.size} tools stay registered: ${asError(error).message}`,
            { cause: error },
          );
        }
        if (!this.#refreshAgain) return;
      }
      if (this.#refreshAgain) {
        this.#refreshAgain = false;
        this.#scheduleRefresh();
      }
    };
    this.#refreshing = run().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /**
   * Every page of `tools/list`, walked here rather than by the SDK's aggregating `listTools()`,
   * which stops at 64 pages and rejects the whole list when one tool fails its schema.
   */
  async #listAll(conn: Connection): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    // One deadline for the whole walk, not one per page: a server handing out fresh cursors
    // slowly must not hold connect() or a refresh for pages × the timeout.
    const bound = this.#startupTimeout();
    const deadline = Date.now() + bound;
    const fix =
      'Fix the server\'s tools/list pagination, bridge a smaller server, or raise "startupTimeoutMs" if it is just slow.';
    for (let page = 0; page < MAX_PAGES; page++) {
      const left = deadline - Date.now();
      if (left <= 0) throw this.#listTimeout(bound, page, tools.length, fix);
      let result: { tools?: unknown; nextCursor?: unknown } | null;
      try {
        result = (await conn.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          AS_IS,
          { timeout: Math.min(left, NO_LIMIT), signal: this.#lifetime.signal },
        )) as { tools?: unknown; nextCursor?: unknown } | null;
      } catch (error) {
        if (isTimeout(error)) throw this.#listTimeout(bound, page, tools.length, fix);
        throw error;
      }
      if (typeof result !== 'object' || result === null || !Array.isArray(result.tools)) {
        throw new Error('tools/list answered without a "tools" array');
      }
      const listed = result.tools as ListedTool[];
      if (tools.length + listed.length > MAX_TOOLS) {
        throw new Error(
          `tools/list offered more than ${MAX_TOOLS} tools (${tools.length + listed.length} by page ${page + 1}), the most the bridge takes from one server. Split the server into smaller ones; "include" cannot help, since it applies after listing.`,
        );
      }
      // One at a time: a spread of a huge page would overflow the call stack.
      for (const tool of listed) tools.push(tool);
      const next = result.nextCursor;
      if (next === undefined || next === null) return tools;
      if (typeof next !== 'string')
        throw new Error(
          `tools/list gave a cursor that is not a string (${describe(next)}). ${fix}`,
        );
      if (seen.has(next))
        throw new Error(
          `tools/list repeated the cursor ${describe(next)}, so it would never end. ${fix}`,
        );
      seen.add(next);
      cursor = next;
    }
    throw new Error(`tools/list did not end after ${MAX_PAGES} pages. ${fix}`);
  }

  #listTimeout(bound: number, pages: number, tools: number, fix: string): Error {
    return new Error(
      `tools/list did not finish within ${bound} ms ("startupTimeoutMs", the bound of a whole listing): ${pages} pages and ${tools} tools so far. ${fix}`,
    );
  }

  /** Lists the server's tools and makes the registry hold exactly them: all changes or none. */
  async #sync(conn: Connection): Promise<void> {
    const listed = await this.#listAll(conn);
    if (conn.dead || this.#closing) throw new Error('the connection ended during tools/list');
    const desired = this.#definitions(listed);
    this.#apply(desired);
  }

  #definitions(listed: readonly ListedTool[]): Map<string, Entry> {
    const { include, exclude } = this.#config;
    const desired = new Map<string, Entry>();
    const seenTools = new Set<string>();
    for (const tool of listed) {
      const problem = malformed(tool);
      if (problem) {
        this.#report(
          new Error(`MCP server "${this.#server}" listed ${problem}; that tool is skipped.`),
        );
        continue;
      }
      const name = tool.name;
      if (include && !include.some((f) => matches(f, name))) continue;
      if (exclude?.some((f) => matches(f, name))) continue;
      if (seenTools.has(name)) {
        this.#report(
          new Error(
            `MCP server "${this.#server}" listed tool "${name}" twice; the first one is used.`,
          ),
        );
        continue;
      }
      seenTools.add(name);
      const publicName = mcpToolName(this.#server, name);
      const clash = desired.get(publicName);
      if (clash) {
        this.#report(
          new Error(
            `MCP server "${this.#server}": tools "${clash.tool}" and "${name}" map to the same name "${publicName}"; "${name}" is skipped. Exclude one of them.`,
          ),
        );
        continue;
      }
      desired.set(publicName, this.#entry(publicName, tool));
    }
    return desired;
  }

  #entry(publicName: string, tool: ListedTool): Entry {
    const server = this.#server;
    const toolName = tool.name;
    let description =
      (typeof tool.description === 'string' && tool.description.trim()) ||
      (typeof tool.title === 'string' && tool.title.trim()) ||
      `Tool "${toolName}" of MCP server "${server}".`;
    if (description.length > MAX_DESCRIPTION)
      description = `${description.slice(0, MAX_DESCRIPTION)}…`;
    const parameters = toParameters(tool.inputSchema);
    // Only a real `true`: a truthy non-boolean must never relax anyone's policies.
    const hints = this.#config.trust === true ? toHints(tool.annotations) : {};
    const definition: ToolDefinition = {
      name: publicName,
      description,
      parameters,
      hints,
      source: { kind: 'mcp', server, tool: toolName },
      // The bridge times calls out itself, resetting on progress; the registry must not.
      timeoutMs: 0,
      execute: (args, exec) => this.#call(toolName, args, exec),
    };
    return {
      tool: toolName,
      definition,
      key: JSON.stringify([description, parameters, hints]),
      dispose: () => {},
    };
  }

  /**
   * Makes the registry hold `desired`. A tool the registry refuses (its name taken by another
   * plugin, a schema it cannot hold) is reported and left out (or keeps its previous version),
   * and the rest is applied again from the start, so the registry never holds half a listing.
   */
  #apply(desired: Map<string, Entry>): void {
    for (let attempt = 0; attempt <= desired.size; attempt++) {
      const refused = this.#applyOnce(desired);
      if (!refused) return;
      const old = this.#entries.get(refused.name);
      this.#report(
        new Error(
          `MCP server "${this.#server}": the registry refused tool "${refused.name}" (${asError(refused.error).message}); ${old ? 'its previous version stays' : 'it is left out'}.`,
          { cause: refused.error },
        ),
      );
      if (old) desired.set(refused.name, old);
      else desired.delete(refused.name);
    }
  }

  /** One all-or-nothing attempt; on a refusal, every step already taken is undone. */
  #applyOnce(desired: Map<string, Entry>): { name: string; error: unknown } | undefined {
    const current = this.#entries;
    const removed: string[] = [];
    const changed = new Set<string>();
    const added: string[] = [];
    for (const [name, entry] of current) {
      const next = desired.get(name);
      if (!next) removed.push(name);
      else if (next !== entry && (next.key !== entry.key || next.tool !== entry.tool)) {
        changed.add(name);
      }
    }
    for (const name of desired.keys()) if (!current.has(name)) added.push(name);
    if (removed.length + changed.size + added.length === 0) return undefined;

    // Registration is synchronous, so no call can slip in between the steps.
    const undo: (() => void)[] = [];
    const next = new Map<string, Entry>();
    let registering = '';
    try {
      for (const name of [...removed, ...changed]) {
        const old = current.get(name)!;
        // A disposer is the registry's; one that throws must not pass for a refused tool.
        this.#contain(old.dispose);
        undo.push(() => {
          old.dispose = this.#registry.register(old.definition);
        });
      }
      for (const [name, entry] of desired) {
        const old = current.get(name);
        if (old && !changed.has(name)) {
          next.set(name, old);
          continue;
        }
        registering = name;
        entry.dispose = this.#registry.register(entry.definition);
        undo.push(() => entry.dispose());
        next.set(name, entry);
      }
    } catch (error) {
      for (const step of undo.reverse()) {
        try {
          step();
        } catch (undoError) {
          this.#report(undoError);
        }
      }
      return { name: registering, error };
    }
    this.#entries = next;
    this.#emitTools({ added, removed, changed: [...changed] });
    return undefined;
  }

  // ---- calls -----------------------------------------------------------------------------

  async #call(
    tool: string,
    args: ToolArgs,
    exec: BodyExecution,
  ): Promise<ReturnType<typeof mapCallResult>> {
    const result = await this.#callOnce(tool, args, exec, true);
    if (result.isError === true) {
      const text = errorText(result);
      throw new ToolError(
        'MCP_ERROR',
        text ||
          `MCP server "${this.#server}" reported an error from tool "${tool}" without a message.`,
        { details: { server: this.#server, tool, content: result.content } },
      );
    }
    return mapCallResult(result);
  }

  async #callOnce(
    tool: string,
    args: ToolArgs,
    exec: BodyExecution,
    mayRetry: boolean,
  ): Promise<{ content?: unknown; structuredContent?: unknown; isError?: unknown }> {
    const conn = this.#conn;
    if (!conn || this.#status !== 'connected') throw this.#unavailable(tool);
    const timeout = this.#config.timeoutMs ?? DEFAULT_TIMEOUT;
    const call: CallRecord = { settled: false };
    try {
      const listener = this.#config.onProgress;
      const maxTotal = this.#config.maxTotalTimeoutMs;
      const run = conn.http
        ? <T>(fn: () => Promise<T>) => callContext.run(call, fn)
        : <T>(fn: () => Promise<T>) => fn();
      return await run(() =>
        conn.client.callTool(
          // The registry hands over validated, frozen arguments; the SDK only serializes them.
          { name: tool, arguments: args as Record<string, unknown> },
          {
            signal: exec.signal,
            timeout: timeout === 0 ? NO_LIMIT : timeout,
            resetTimeoutOnProgress: true,
            ...(maxTotal ? { maxTotalTimeout: maxTotal } : {}),
            // Passing onprogress is what makes the SDK send a progress token with the call.
            onprogress: listener
              ? (progress) =>
                  this.#contain(() =>
                    listener({
                      server: this.#server,
                      tool,
                      callId: exec.callId,
                      progress: progress.progress,
                      ...(progress.total === undefined ? {} : { total: progress.total }),
                      ...(progress.message === undefined ? {} : { message: progress.message }),
                    }),
                  )
              : ignoreProgress,
          },
        ),
      );
    } catch (error) {
      if (exec.signal.aborted) {
        throw new ToolError(
          'ABORTED',
          `The call to "${tool}" of MCP server "${this.#server}" was cancelled; the server was told to stop.`,
          { cause: error },
        );
      }
      if (isTimeout(error)) {
        const total = (error as SdkError).data as { maxTotalTimeout?: unknown } | undefined;
        throw new ToolError(
          'TIMEOUT',
          total?.maxTotalTimeout !== undefined
            ? `Tool "${tool}" of MCP server "${this.#server}" was still running after ${String(total.maxTotalTimeout)} ms (its "maxTotalTimeoutMs"), although it reported progress; the call was cancelled. Raise "maxTotalTimeoutMs" for this server if such calls are expected to take longer.`
            : `Tool "${tool}" of MCP server "${this.#server}" did not answer within ${timeout} ms and reported no progress meanwhile; the call was cancelled. Retry, or raise "timeoutMs" for this server if it is just slow.`,
          { cause: error },
        );
      }
      if (isSessionLost(error)) {
        this.#lost(conn, asError(error));
        if (mayRetry && (await this.#awaitConnected(exec.signal))) {
          // The server refused the request for its unknown session before running it: safe to resend.
          return this.#callOnce(tool, args, exec, false);
        }
        throw this.#unavailable(tool, error);
      }
      if (isConnectionError(error) || conn.dead) {
        this.#lost(conn, asError(error));
        const proc = conn.process;
        const exit = proc?.exit;
        const how = exit
          ? ` (the server process exited, ${exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`})`
          : '';
        const tail = proc?.stderrTail.trim();
        const stderr = tail ? ` Last lines of its stderr:\n${indent(lastLines(tail, 5))}` : '';
        throw new ToolError(
          'UNAVAILABLE',
          `MCP server "${this.#server}" went away during the call to "${tool}"${how}; the call's outcome is unknown. ${this.#config.reconnect === false ? 'Reconnecting is disabled.' : 'The bridge is reconnecting; retry in a few seconds.'}${stderr}`,
          { cause: error },
        );
      }
      if (error instanceof SdkHttpError) {
        // 5xx: the server (or a proxy) failed this one request; 4xx: it refused it.
        const transient = error.status >= 500;
        throw new ToolError(
          transient ? 'UNAVAILABLE' : 'MCP_ERROR',
          `MCP server "${this.#server}" answered the call to "${tool}" with HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''}; ${transient ? "the call's outcome is unknown and the connection stays up. Retry, or check the server's logs." : "the call was refused. Check the server's logs and the headers in its config."}`,
          { cause: error, details: { server: this.#server, tool, status: error.status } },
        );
      }
      if (error instanceof ProtocolError) {
        throw new ToolError(
          'MCP_ERROR',
          `MCP server "${this.#server}" refused the call to "${tool}": ${error.message}`,
          {
            cause: error,
            details: { server: this.#server, tool, code: error.code, data: error.data },
          },
        );
      }
      throw new ToolError(
        'MCP_ERROR',
        `The call to "${tool}" of MCP server "${this.#server}" failed: ${asError(error).message}`,
        { cause: error },
      );
    } finally {
      call.settled = true;
    }
  }

  /** Waits (bounded by the startup timeout and the caller's signal) for the reconnect to finish. */
  async #awaitConnected(signal: AbortSignal): Promise<boolean> {
    const pending = this.#reconnecting;
    if (!pending) return this.#status === 'connected';
    let timer: NodeJS.Timeout | undefined;
    const bound = new AbortController();
    const stop = () => bound.abort();
    signal.addEventListener('abort', stop, { once: true });
    await Promise.race([
      pending,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#startupTimeout());
        bound.signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
    clearTimeout(timer);
    signal.removeEventListener('abort', stop);
    return this.#status === 'connected' && !signal.aborted;
  }

  #unavailable(tool: string, cause?: unknown): ToolError {
    const status = this.#status;
    const why =
      status === 'reconnecting'
        ? 'is reconnecting after losing its connection; retry in a few seconds'
        : status === 'failed'
          ? 'is down and the bridge gave up reconnecting; restart it (handle.reconnect()) or check its logs'
          : status === 'closed'
            ? 'was closed'
            : 'is not connected yet; retry in a moment';
    return new ToolError(
      'UNAVAILABLE',
      `Tool "${tool}" is unavailable: MCP server "${this.#server}" ${why}.`,
      {
        ...(cause === undefined ? {} : { cause }),
        details: { server: this.#server, tool, status },
      },
    );
  }
}

const ignoreProgress = (): void => {};

/** One call in flight over HTTP, as the transport's send sees it (through {@link callContext}). */
interface CallRecord {
  settled: boolean;
}

/** Carries a call's record from the bridge's body into the HTTP transport's send. */
const callContext = new AsyncLocalStorage<CallRecord>();

/** A tool as listed on the wire, before its fields are checked. */
interface ListedTool {
  readonly name: string;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly annotations?: unknown;
}

/** Hands a result over unparsed; {@link malformed} checks each listed tool on its own. */
const AS_IS: StandardSchemaV1 = {
  '~standard': { version: 1, vendor: 'dsh-tools', validate: (value: unknown) => ({ value }) },
};

/** What is wrong with a listed tool, or undefined when it can be bridged. */
function malformed(tool: unknown): string | undefined {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    return `an entry that is not a tool (${describe(tool)})`;
  }
  const t = tool as Record<string, unknown>;
  if (typeof t.name !== 'string' || t.name === '')
    return `a tool without a name (${describe(t.name)})`;
  if (t.name.length > 1024) return `a tool whose name is ${t.name.length} characters long`;
  const schema = t.inputSchema;
  if (schema === undefined) return undefined;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return `tool "${t.name}" with an inputSchema that is not an object`;
  }
  const type = (schema as Record<string, unknown>).type;
  if (type !== undefined && type !== 'object') {
    return `tool "${t.name}" whose inputSchema is of type ${describe(type)}, not "object" (function parameters must be an object)`;
  }
  const { properties, required } = schema as Record<string, unknown>;
  if (
    properties !== undefined &&
    (typeof properties !== 'object' || properties === null || Array.isArray(properties))
  ) {
    return `tool "${t.name}" whose inputSchema has "properties" that is not an object (${describe(properties)})`;
  }
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((r) => typeof r !== 'string'))
  ) {
    return `tool "${t.name}" whose inputSchema has "required" that is not an array of names (${describe(required)})`;
  }
  return undefined;
}

/** The server's `inputSchema` as function parameters: an object schema without `$schema`. */
function toParameters(inputSchema: unknown): ObjectJsonSchema {
  if (typeof inputSchema !== 'object' || inputSchema === null || Array.isArray(inputSchema)) {
    return { type: 'object', properties: {} };
  }
  // Providers reject `$schema` in function parameters; everything else is the server's to say.
  const { $schema: _dropped, ...rest } = inputSchema as Record<string, unknown>;
  return { ...rest, type: 'object' } as ObjectJsonSchema;
}

/** MCP annotations as hints; only called for trusted servers. */
function toHints(value: unknown): ToolHints {
  if (typeof value !== 'object' || value === null) return {};
  const annotations = value as Record<string, unknown>;
  const hints: { -readonly [K in keyof ToolHints]: ToolHints[K] } = {};
  if (typeof annotations.readOnlyHint === 'boolean') hints.readOnly = annotations.readOnlyHint;
  if (typeof annotations.destructiveHint === 'boolean')
    hints.destructive = annotations.destructiveHint;
  if (typeof annotations.idempotentHint === 'boolean')
    hints.idempotent = annotations.idempotentHint;
  if (typeof annotations.openWorldHint === 'boolean') hints.openWorld = annotations.openWorldHint;
  // A tool that changes nothing may overlap the other calls of a turn.
  if (annotations.readOnlyHint === true) hints.concurrencySafe = true;
  return hints;
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

function isSessionLost(error: unknown): boolean {
  if (!(error instanceof SdkHttpError)) return false;
  // 404 is the spec's answer for an unknown session; some servers answer 400 and say so.
  if (error.status === 404) return true;
  const text = String((error.data as { text?: unknown } | undefined)?.text ?? error.message);
  return error.status === 400 && /session/i.test(text);
}

/**
 * Whether the connection itself is gone. An HTTP error answer to one request is not that: a 500
 * for one call fails that call only (session loss, 404, is told apart before this), and a server
 * that is really down shows it by refusing connections or by its event stream not coming back.
 */
function isConnectionError(error: unknown): boolean {
  if (error instanceof SdkHttpError) return false;
  if (error instanceof SdkError) {
    return (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    );
  }
  // fetch() failing outright (refused, reset): a TypeError whose cause has a system code.
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return error instanceof TypeError && typeof cause?.code === 'string';
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function lastLines(text: string, count: number): string {
  return text.split('\n').slice(-count).join('\n');
}
