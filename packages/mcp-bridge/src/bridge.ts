import type { BodyExecution, ToolArgs, ToolRegistryLike } from '@dsh-tools/protocol';
import { applyToolDiff } from './apply-tool-diff';
import { backoffDelay, reconnectSettings, settledWithin, sleep } from './backoff';
import {
  isConnectionError,
  isSessionLost,
  isTimeout,
  mapCallError,
  toolReportedError,
  unavailableError,
} from './call-errors';
import { callTool, type RawCallResult } from './call-tool';
import { checkConfig } from './check-config';
import { openConnection, shutdownConnection, startupError } from './connection';
import { errorText, mapCallResult } from './content';
import { asError, quoteValue } from './format';
import { DEFAULT_TIMEOUT, startupBound } from './limits';
import { AS_IS, listAllTools } from './list-tools';
import { createRedactor, redactError } from './redact';
import { RefreshSchedule } from './refresh-schedule';
import { desiredTools } from './tool-definitions';
import type {
  CallInFlight,
  Connection,
  McpBridgedTool,
  McpServerConfig,
  McpServerHandle,
  McpServerStatus,
  McpStatusEvent,
  McpToolsChangeEvent,
  ToolRecord,
} from './types';

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

/**
 * One server's bridge: the state the parts share (status, the connection in use, the registered
 * tools) and the order of things; the parts it imports do the work (see the README's table).
 */
class Bridge {
  readonly #registry: ToolRegistryLike;
  readonly #config: McpServerConfig;
  readonly #server: string;
  /** The bound of the handshake, of each whole listing, and of a call's wait for a reconnect. */
  readonly #startupMs: number;
  #status: McpServerStatus = 'connecting';
  #conn: Connection | undefined;
  /** The last connection that existed, for pid / stderr after it ended. */
  #lastConn: Connection | undefined;
  #tools = new Map<string, ToolRecord>();
  readonly #statusListeners = new Set<Listener<McpStatusEvent>>();
  readonly #toolListeners = new Set<Listener<McpToolsChangeEvent>>();
  readonly #refresh: RefreshSchedule;
  #reconnecting: Promise<void> | undefined;
  readonly #lifetime = new AbortController();
  #closing: Promise<void> | undefined;
  /** Takes the URL's credentials and query values out of everything the bridge says. */
  readonly #redact: (text: string) => string;

  constructor(registry: ToolRegistryLike, config: McpServerConfig) {
    this.#redact = createRedactor('url' in config ? config.url : undefined);
    this.#registry = registry;
    this.#config = config;
    this.#server = config.name;
    this.#startupMs = startupBound(config);
    this.#refresh = new RefreshSchedule({
      debounceMs: config.listChangedDebounceMs ?? 50,
      listOnce: () => this.#listOnce(),
      closing: () => this.#closing !== undefined,
      report: (error) => this.#report(error),
    });
  }

  handle(): McpServerHandle {
    const bridge = this;
    return {
      name: this.#server,
      get status() {
        return bridge.#status;
      },
      get tools(): readonly McpBridgedTool[] {
        return [...bridge.#tools.entries()].map(([name, record]) => ({
          name,
          tool: record.tool,
          description: record.definition.description,
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
            `McpServerHandle.on: unknown event ${quoteValue(event)}; use "status" or "tools".`,
          );
        }
        set.add(listener);
        return () => void set.delete(listener);
      }) as McpServerHandle['on'],
      refresh: () =>
        this.#refresh.now().catch((error: unknown) => {
          throw redactError(asError(error), this.#redact);
        }),
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
      const failure = startupError(
        this.#config,
        error,
        conn,
        conn ?? this.#lastConn,
        this.#startupMs,
      );
      if (conn) await shutdownConnection(conn);
      this.#setStatus('failed', { error: asError(error) });
      throw redactError(failure, this.#redact);
    }
    this.#becomeCurrent(conn);
  }

  /** Makes `conn` the connection in use, and lists again if the tools changed during its first listing. */
  #becomeCurrent(conn: Connection): void {
    this.#conn = conn;
    this.#setStatus('connected');
    if (conn.changedEarly) this.#refresh.schedule();
  }

  #open(): Promise<Connection> {
    return openConnection(this.#config, {
      startupMs: this.#startupMs,
      signal: this.#lifetime.signal,
      created: (conn) => {
        this.#lastConn = conn;
      },
      listChanged: (conn) => {
        // During the first listing of a connection the change may postdate the page already
        // read: remember it, and list again once the connection is in use.
        if (conn === this.#conn) this.#refresh.schedule();
        else conn.changedEarly = true;
      },
      lost: (conn, error) => this.#lost(conn, error),
    });
  }

  /** A connection was found lost (closed, crashed, or its HTTP session gone). */
  #lost(conn: Connection, error: Error): void {
    if (conn.dead) return;
    conn.dead = true;
    if (conn !== this.#conn) return;
    this.#conn = undefined;
    void shutdownConnection(conn);
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
    const settings = reconnectSettings(this.#config.reconnect);
    const started = Date.now();
    let lastError = cause;
    this.#setStatus('reconnecting', { error: cause, attempt: 1 });
    for (let attempt = 1; attempt <= settings.maxAttempts; attempt++) {
      const delay = backoffDelay(settings, attempt);
      if (Date.now() - started + delay > settings.budgetMs) break;
      await sleep(delay, this.#lifetime.signal);
      if (this.#closing) return;
      if (attempt > 1) this.#setStatus('reconnecting', { error: lastError, attempt });
      let conn: Connection | undefined;
      try {
        conn = await this.#open();
        await this.#sync(conn);
      } catch (error) {
        lastError = asError(error);
        if (conn) await shutdownConnection(conn);
        if (this.#closing) return;
        continue;
      }
      if (this.#closing) {
        await shutdownConnection(conn);
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
      this.#refresh.stop();
      const tools = [...this.#tools.entries()];
      this.#tools = new Map();
      const conn = this.#conn;
      this.#conn = undefined;
      // The connection goes first, the tools after: calls in flight then fail as "closed, do not
      // retry" while their tools are still registered. The registry aborts the calls of a tool
      // that is unregistered (ABORTED, as if someone had cancelled them), and a call arriving
      // meanwhile is told the server was closed.
      try {
        if (conn) await shutdownConnection(conn);
        await this.#reconnecting?.catch(() => {});
        // A reconnect attempt in flight may have opened a connection of its own.
        if (this.#lastConn && this.#lastConn !== conn) await shutdownConnection(this.#lastConn);
      } finally {
        for (const [, record] of tools) this.#contain(record.dispose);
        if (tools.length > 0) {
          this.#emitTools({ added: [], removed: tools.map(([name]) => name), changed: [] });
        }
        this.#setStatus('closed');
      }
    })();
    return this.#closing;
  }

  #setStatus(status: McpServerStatus, extra: { error?: Error; attempt?: number } = {}): void {
    const previous = this.#status;
    if (previous === 'closed') return;
    if (previous === status && status !== 'reconnecting') return;
    this.#status = status;
    const event: McpStatusEvent = {
      server: this.#server,
      status,
      previous,
      ...extra,
      ...(extra.error ? { error: redactError(extra.error, this.#redact) } : {}),
    };
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
    const e = redactError(asError(error), this.#redact);
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

  /** One listing for the refresh schedule; `false` when there is nothing to list now. */
  async #listOnce(): Promise<boolean> {
    const conn = this.#conn;
    // Reconnecting, failed or closed: there is nothing to list now (a reconnect lists anyway).
    if (!conn || this.#closing) return false;
    try {
      await this.#sync(conn);
      return true;
    } catch (error) {
      // close() aborted the listing: nothing failed that anyone needs to hear of.
      if (this.#closing) return false;
      throw new Error(
        `MCP server "${this.#server}": refreshing the tool list failed, the previous ${this.#tools.size} tools stay registered: ${asError(error).message}`,
        { cause: error },
      );
    }
  }

  /** Lists the server's tools and makes the registry hold them (a refused one is reported). */
  async #sync(conn: Connection): Promise<void> {
    const signal = this.#lifetime.signal;
    const listed = await listAllTools(
      (cursor, timeout) =>
        conn.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          AS_IS,
          { timeout, signal },
        ),
      { boundMs: this.#startupMs },
    );
    if (conn.dead || this.#closing) throw new Error('the connection ended during tools/list');
    const report = (error: Error) => this.#report(error);
    const desired = desiredTools(
      listed,
      this.#config,
      (tool, args, exec) => this.#call(tool, args, exec),
      report,
    );
    const { current, change } = applyToolDiff(this.#tools, desired, {
      server: this.#server,
      registry: this.#registry,
      report,
    });
    this.#tools = current;
    if (change) this.#emitTools(change);
  }

  // ---- calls -----------------------------------------------------------------------------

  async #call(
    tool: string,
    args: ToolArgs,
    exec: BodyExecution,
  ): Promise<ReturnType<typeof mapCallResult>> {
    let result: RawCallResult;
    try {
      result = await this.#callOnce(tool, args, exec, true);
    } catch (error) {
      throw error instanceof Error ? redactError(error, this.#redact) : error;
    }
    if (result.isError === true) {
      throw redactError(
        toolReportedError(this.#server, tool, errorText(result), result.content),
        this.#redact,
      );
    }
    return mapCallResult(result);
  }

  async #callOnce(
    tool: string,
    args: ToolArgs,
    exec: BodyExecution,
    mayRetry: boolean,
  ): Promise<RawCallResult> {
    const conn = this.#conn;
    if (this.#closing) throw unavailableError(this.#server, tool, 'closed');
    if (!conn || this.#status !== 'connected') {
      throw unavailableError(this.#server, tool, this.#status);
    }
    const timeout = this.#config.timeoutMs ?? DEFAULT_TIMEOUT;
    const call: CallInFlight = { settled: false, aborts: [] };
    try {
      return await callTool(
        conn,
        call,
        tool,
        args,
        exec,
        { ...this.#config, timeoutMs: timeout },
        (fn) => this.#contain(fn),
      );
    } catch (error) {
      const aborted = exec.signal.aborted;
      let connectionDead = false;
      if (!aborted && !isTimeout(error)) {
        if (isSessionLost(error) && !this.#closing) {
          this.#lost(conn, asError(error));
          if (mayRetry && (await this.#awaitConnected(exec.signal))) {
            // The server refused the request for its unknown session before running it: safe to resend.
            return this.#callOnce(tool, args, exec, false);
          }
          throw unavailableError(this.#server, tool, this.#status, error);
        }
        if (isConnectionError(error) || conn.dead) {
          connectionDead = true;
          this.#lost(conn, asError(error));
        }
      }
      // Read after #lost: the exit the shutdown saw belongs in the message.
      throw mapCallError(error, {
        server: this.#server,
        tool,
        aborted,
        timeoutMs: timeout,
        connectionDead,
        exit: conn.process?.exit,
        stderrTail: conn.process?.stderrTail,
        failure: conn.process?.failure?.message,
        reconnectDisabled: this.#config.reconnect === false,
        closed: this.#closing !== undefined,
      });
    } finally {
      call.settled = true;
      // Whatever the protocol version: a stalled or endless response stream must not outlive it.
      for (const abort of call.aborts.splice(0)) abort();
    }
  }

  /** Waits (bounded by the startup timeout and the caller's signal) for the reconnect to finish. */
  async #awaitConnected(signal: AbortSignal): Promise<boolean> {
    const pending = this.#reconnecting;
    if (!pending) return this.#status === 'connected';
    await settledWithin(pending, this.#startupMs, signal);
    return this.#status === 'connected' && !signal.aborted;
  }
}
