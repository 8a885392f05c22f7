import { type ChildProcess, spawn } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

/**
 * Whether a parsed line has the shape of a JSON-RPC 2.0 message: a request or notification (a
 * string `method`) or a response (an `id` with a `result` or an `error`). The full schema check
 * is left to the client, which validates every result against its method's schema anyway;
 * repeating it here would cost a second schema walk per message on the hot path.
 */
function isJsonRpcShaped(value: unknown): value is JSONRPCMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return true;
  const id = m.id;
  if (typeof id !== 'string' && typeof id !== 'number') return false;
  return (
    (typeof m.result === 'object' && m.result !== null) ||
    (typeof m.error === 'object' && m.error !== null)
  );
}

/** A JSON-RPC answer (an id and a `result` key) whose result is not an object, as MCP requires. */
function isMisshapedAnswer(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  const id = m.id;
  return (
    m.jsonrpc === '2.0' &&
    (typeof id === 'string' || typeof id === 'number') &&
    'result' in m &&
    !('method' in m) &&
    (typeof m.result !== 'object' || m.result === null || Array.isArray(m.result))
  );
}

/** How a stdio server process is started. */
export interface ProcessTransportOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the safe default environment (PATH, HOME, ...), not to the whole parent environment. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Longest accepted stdout line; a longer one is a protocol violation and ends the connection. */
  readonly maxLineBytes?: number;
  /** How many bytes of stderr are kept for error messages. */
  readonly stderrTailBytes?: number;
  /**
   * Start the server in a process group of its own (default true, ignored on Windows), so that
   * close() reaches every process it started. With false, only the server itself is signalled.
   */
  readonly processGroup?: boolean;
  /** After SIGTERM to the process group, how long to wait before SIGKILL. */
  readonly killGraceMs?: number;
}

/** How the process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const DEFAULT_MAX_LINE = 64 * 1024 * 1024;

/**
 * What a server inherits from this process, as the SDK's stdio transport does: enough to find and
 * run programs, and none of the secrets a host's environment may hold. `config.env` adds to it.
 */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

function defaultEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    // Values starting with "()" are exported shell functions, a known injection vector.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/**
 * A stdio transport that owns its child completely, written because the SDK's
 * `StdioClientTransport` cannot: it spawns the server in its own process group (`detached`) and
 * kills the whole group on close, so a server's own children never outlive it; it reports the
 * close on the child's `exit` (not on `close`, which a grandchild holding the pipes delays
 * forever), so pending calls settle at once when the server crashes; it skips stdout lines that
 * are not JSON-RPC instead of failing on them; and it keeps the tail of stderr for error messages.
 */
export class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;

  readonly #options: ProcessTransportOptions;
  #child: ChildProcess | undefined;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #stderr = '';
  #exit: ProcessExit | undefined;
  #exited: Promise<void> | undefined;
  #closed = false;
  #failure: Error | undefined;
  #stdoutEnded = false;
  /** Sends waiting for stdin to drain, settled when the process goes away. */
  readonly #waiting = new Set<(error?: Error) => void>();
  /** Lines on stdout that were not JSON-RPC messages and were skipped. */
  skippedLines = 0;

  constructor(options: ProcessTransportOptions) {
    this.#options = options;
    this.#group = process.platform !== 'win32' && options.processGroup !== false;
  }

  readonly #group: boolean;

  /** The server's process id once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Why the transport ended the connection itself (a protocol violation such as an oversized line). */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Whether the server closed its stdout: it can no longer answer anything. */
  get stdoutEnded(): boolean {
    return this.#stdoutEnded;
  }

  /** The last lines the server wrote on stderr (at most `stderrTailBytes`). */
  get stderrTail(): string {
    return this.#stderr;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error('ProcessTransport already started');
    const { command, args = [], env, cwd } = this.#options;
    return new Promise((resolve, reject) => {
      const child = spawn(command, [...args], {
        env: { ...defaultEnvironment(), ...env },
        ...(cwd === undefined ? {} : { cwd }),
        stdio: ['pipe', 'pipe', 'pipe'],
        // Own process group: close() signals -pid, reaching every process the server started.
        detached: this.#group,
        windowsHide: true,
        shell: false,
      });
      this.#child = child;
      let spawned = false;
      this.#exited = new Promise((done) => {
        child.once('exit', (code, signal) => {
          this.#exit = { code, signal };
          // The server's own children die with it. Then the pipes may still hold its last answers
          // and stderr lines: read them (bounded, in case something else holds the pipes open).
          this.#killGroup('SIGKILL');
          const drained = [child.stdout, child.stderr].map(
            (stream) =>
              new Promise<void>((ok) => {
                if (!stream || stream.destroyed || stream.readableEnded) ok();
                else stream.once('close', ok);
              }),
          );
          let timer: NodeJS.Timeout | undefined;
          void Promise.race([
            Promise.all(drained),
            new Promise((ok) => {
              timer = setTimeout(ok, 250);
            }),
          ]).then(() => {
            clearTimeout(timer);
            this.#finish();
            done();
          });
        });
      });
      child.once('error', (error) => {
        if (!spawned) {
          this.#exit = { code: null, signal: null };
          this.#closed = true;
          reject(error);
          return;
        }
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        spawned = true;
        resolve();
      });
      child.stdout?.on('data', (chunk: Buffer) => this.#onData(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stdout?.once('end', () => {
        this.#stdoutEnded = true;
      });
      child.stdin?.on('error', () => {
        // EPIPE after the server died: the exit handler reports the close.
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        const max = this.#options.stderrTailBytes ?? 4096;
        this.#stderr = (this.#stderr + text).slice(-max);
      });
    });
  }

  #onData(chunk: Buffer): void {
    // After a protocol violation nothing more from this server is read.
    if (this.#failure) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.#pendingBytes + piece.length > (this.#options.maxLineBytes ?? DEFAULT_MAX_LINE)) {
        this.#tooLong(this.#pendingBytes + piece.length);
        return;
      }
      const line =
        this.#pending.length === 0
          ? piece
          : Buffer.concat([...this.#pending, piece], this.#pendingBytes + piece.length);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#onLine(line);
      if (this.#closed) return;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#pending.push(rest);
      this.#pendingBytes += rest.length;
      if (this.#pendingBytes > (this.#options.maxLineBytes ?? DEFAULT_MAX_LINE)) {
        this.#tooLong(this.#pendingBytes, ' and no end of line yet');
      }
    }
  }

  /** A line over the limit is a protocol violation: the connection ends, and says why. */
  #tooLong(seen: number, more = ''): void {
    const max = this.#options.maxLineBytes ?? DEFAULT_MAX_LINE;
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#failure = new Error(
      `the server wrote a stdout line longer than the limit of ${max} bytes (${seen} bytes${more}); the connection was closed. Raise "maxMessageBytes" if such messages are expected`,
    );
    this.#closed = true;
    this.onerror?.(this.#failure);
    void this.close();
  }

  #onLine(line: Buffer): void {
    let text = line.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    if (isMisshapedAnswer(message)) {
      // An answer whose result is not an object would be skipped, leaving its call pending until
      // its timeout: it settles the call at once as the error it is instead.
      const m = message as { id: string | number; result: unknown };
      this.onmessage?.({
        jsonrpc: '2.0',
        id: m.id,
        error: {
          code: -32603,
          message: `the server answered with a result that is not an object (${m.result === null ? 'null' : Array.isArray(m.result) ? 'array' : typeof m.result})`,
        },
      });
      return;
    }
    if (!isJsonRpcShaped(message)) {
      // Servers print banners and debug output on stdout; one bad line must not end the session.
      this.skippedLines++;
      return;
    }
    this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed || this.#exit) {
      return Promise.reject(new Error('the server process is not running'));
    }
    return new Promise((resolve, reject) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) return resolve();
      // A server that stops reading stdin makes the pipe fill up, and once stdin is closed a
      // 'drain' never comes: the wait ends with the process too, so no send outlives it.
      const settle = (error?: Error) => {
        this.#waiting.delete(settle);
        stdin.off('drain', onDrain);
        stdin.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => {
        const fail = () =>
          settle(
            new Error('the server process stopped reading its stdin before the message was sent'),
          );
        const child = this.#child;
        if (this.#exit || !child) return fail();
        // Stdin mostly closes because the process is ending: let its exit be seen first, so that
        // a startup error names the exit code rather than the closed pipe.
        const timer = setTimeout(fail, 250);
        timer.unref();
        child.once('exit', () => {
          clearTimeout(timer);
          fail();
        });
      };
      this.#waiting.add(settle);
      stdin.once('drain', onDrain);
      stdin.once('close', onClose);
    });
  }

  /** Closes stdin, then SIGTERM to the process group, SIGKILL after the grace; resolves on exit. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#exit) {
      this.#finish();
      return;
    }
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    this.#killGroup('SIGTERM');
    const grace = this.#options.killGraceMs ?? 2000;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#exited,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, grace);
      }),
    ]);
    clearTimeout(timer);
    if (!this.#exit) {
      this.#killGroup('SIGKILL');
      await this.#exited;
    }
  }

  #killGroup(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      if (!this.#group) this.#child?.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  #finish(): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#closed = true;
    this.#child?.stdout?.destroy();
    this.#child?.stderr?.destroy();
    this.#child?.stdin?.destroy();
    for (const settle of [...this.#waiting]) settle(new Error('the server process is not running'));
    this.onclose?.();
  }

  #reported = false;
}
