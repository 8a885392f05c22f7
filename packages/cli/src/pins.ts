import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { mcpToolMetadata } from '@dsh-tools/mcp-bridge';
import type { ToolDefinition } from '@dsh-tools/protocol';
import { diffDefinitions } from './pins-diff';

/**
 * Tool pins: the definition of every tool of an upstream MCP server, as the model is shown it, is
 * fingerprinted the first time it is approved, and a server that later changes it (a "rug pull":
 * a description that grows instructions, a schema that grows a parameter) has the changed tool
 * held back — not listed, its calls refused with the difference — until an operator approves it
 * again (`dsh-tools pin approve`). The pins live in a lockfile beside the config
 * (`dsh-tools.lock.json`), written to be read in a review.
 */

/** What is pinned of a tool: everything the model or a client is shown of it. */
export interface PinnedDefinition {
  /** The server's name for the tool. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly annotations?: unknown;
}

/** One pinned tool of the lockfile. */
export interface Pin {
  /** SHA-256 of the definition's canonical JSON (keys sorted), hex. */
  readonly sha256: string;
  /** When it was approved (ISO 8601). */
  readonly approved: string;
  readonly definition: PinnedDefinition;
}

/** The lockfile: pins by server, then by the server's tool name. */
export interface Lockfile {
  readonly lockfileVersion: 1;
  readonly servers: Record<string, Record<string, Pin>>;
}

/** The lockfile's name, beside the config file. */
export const PINS_FILE = 'dsh-tools.lock.json';

/** How pins treat a tool never pinned: pin it on first sight, hold it until approved, or no pins. */
export type PinMode = 'tofu' | 'strict' | 'off';

/** Where a bridged tool stands against its pin. */
export type PinStatus =
  | { readonly kind: 'pinned' }
  | { readonly kind: 'new' }
  | { readonly kind: 'changed'; readonly diff: readonly string[] };

/** A lockfile that cannot be used: the gateway does not start (a broken pin file must not mean no pins). */
export class PinsFileError extends Error {
  override readonly name = 'PinsFileError';
}

/** JSON with object keys sorted at every level: the same definition always hashes the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** The fingerprint of a definition. */
export const fingerprint = (definition: PinnedDefinition): string =>
  createHash('sha256').update(canonicalJson(definition)).digest('hex');

/** A bridged tool's server, name and pinned definition; `undefined` for a local tool. */
export function pinnedDefinitionOf(
  definition: ToolDefinition | undefined,
):
  | { readonly server: string; readonly tool: string; readonly definition: PinnedDefinition }
  | undefined {
  const meta = mcpToolMetadata(definition);
  if (!definition || !meta) return undefined;
  const pinned: PinnedDefinition = {
    name: meta.tool,
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    description: definition.description,
    inputSchema: definition.parameters,
    ...(meta.outputSchema !== undefined ? { outputSchema: meta.outputSchema } : {}),
    ...(meta.annotations !== undefined ? { annotations: meta.annotations } : {}),
  };
  return { server: meta.server, tool: meta.tool, definition: pinned };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads and checks a lockfile's text; `file` names it in errors. */
export function parseLockfile(text: string, file: string): Lockfile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PinsFileError(
      `${file} is not JSON (${(error as Error).message}). Fix it, or delete it to pin every tool again on the next start.`,
    );
  }
  const wrong = (what: string) =>
    new PinsFileError(
      `${file}: ${what}. Fix it, or delete it to pin every tool again on the next start.`,
    );
  if (!isRecord(value) || value.lockfileVersion !== 1 || !isRecord(value.servers)) {
    throw wrong('expected { "lockfileVersion": 1, "servers": { … } }');
  }
  for (const [server, tools] of Object.entries(value.servers)) {
    if (!isRecord(tools)) throw wrong(`servers.${server} is not an object of tools`);
    for (const [tool, pin] of Object.entries(tools)) {
      const at = `servers.${server}.${tool}`;
      if (!isRecord(pin) || typeof pin.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(pin.sha256)) {
        throw wrong(`${at} has no sha256 of 64 hex digits`);
      }
      const def = pin.definition;
      if (!isRecord(def) || def.name !== tool || typeof def.description !== 'string') {
        throw wrong(`${at}.definition is not the definition of tool "${tool}"`);
      }
      if (fingerprint(def as unknown as PinnedDefinition) !== pin.sha256) {
        throw wrong(`${at}: the sha256 is not that of its definition (edited by hand?)`);
      }
    }
  }
  return value as unknown as Lockfile;
}

/** Options of {@link PinBook.open}. */
export interface PinBookOptions {
  readonly mode: PinMode;
  /** Whether new pins are written to the file (`inspect` and `check` only read). Default true. */
  readonly record?: boolean;
  /** Follow the file: an approval made by another process applies here at once. Default false. */
  readonly watch?: boolean;
  /** A write that failed (default: dropped; the pin still holds in memory). */
  readonly onError?: (error: Error) => void;
}

/**
 * The pins of one gateway: the lockfile's, the statuses of the tools the registry holds, and
 * what is held back. `change` is emitted when the set of held tools may have changed (a pin
 * approved or revoked in the file).
 */
export class PinBook extends EventEmitter<{ change: [] }> {
  readonly file: string;
  readonly mode: PinMode;
  #servers: Record<string, Record<string, Pin>>;
  readonly #record: boolean;
  readonly #onError: (error: Error) => void;
  // Per definition object (a changed tool is a new object); replaced whenever a pin changes.
  #statuses = new WeakMap<ToolDefinition, PinStatus>();
  #writing: Promise<void> = Promise.resolve();
  #watcher: FSWatcher | undefined;
  #lastWritten = '';

  private constructor(file: string, lockfile: Lockfile, options: PinBookOptions) {
    super();
    this.file = file;
    this.mode = options.mode;
    this.#servers = structuredClone(lockfile.servers);
    this.#record = options.record ?? true;
    this.#onError = options.onError ?? (() => {});
  }

  /** Reads `file` (absent: no pins yet). @throws {PinsFileError} for a file that is not a lockfile. */
  static async open(file: string, options: PinBookOptions): Promise<PinBook> {
    const book = new PinBook(file, await PinBook.#read(file), options);
    if (options.watch) book.#follow();
    return book;
  }

  static async #read(file: string): Promise<Lockfile> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return { lockfileVersion: 1, servers: {} };
      }
      throw new PinsFileError(
        `Cannot read the pins file ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      );
    }
    return parseLockfile(text, file);
  }

  /** The lockfile as it stands. */
  get lockfile(): Lockfile {
    return { lockfileVersion: 1, servers: structuredClone(this.#servers) };
  }

  /** The pin of a server's tool. */
  pin(server: string, tool: string): Pin | undefined {
    return this.#servers[server]?.[tool];
  }

  /**
   * Where the registry tool `definition` stands. A tool never pinned is pinned now under `tofu`
   * (and written, unless this book only reads); local tools are always `pinned`.
   */
  statusOf(definition: ToolDefinition | undefined): PinStatus {
    if (this.mode === 'off' || !definition) return { kind: 'pinned' };
    const known = this.#statuses.get(definition);
    if (known) return known;
    const bridged = pinnedDefinitionOf(definition);
    let status: PinStatus;
    if (!bridged) status = { kind: 'pinned' };
    else {
      const pin = this.pin(bridged.server, bridged.tool);
      if (!pin) {
        if (this.mode === 'tofu') {
          this.#approve(bridged.server, bridged.tool, bridged.definition);
          status = { kind: 'pinned' };
        } else status = { kind: 'new' };
      } else if (pin.sha256 === fingerprint(bridged.definition)) status = { kind: 'pinned' };
      else status = { kind: 'changed', diff: diffDefinitions(pin.definition, bridged.definition) };
    }
    this.#statuses.set(definition, status);
    return status;
  }

  /** Why a call of registry tool `name` is refused, or `undefined` when its tool is not held. */
  refusal(name: string, definition: ToolDefinition | undefined): string | undefined {
    const status = this.statusOf(definition);
    if (status.kind === 'pinned') return undefined;
    const bridged = pinnedDefinitionOf(definition);
    const who = `tool "${bridged?.tool}" of MCP server "${bridged?.server}"`;
    const approve = `dsh-tools pin approve ${bridged?.server}/${bridged?.tool}`;
    if (status.kind === 'new') {
      return `Tool ${JSON.stringify(name)} (${who}) is held back: it is not pinned in ${basename(this.file)} and pins are strict. An operator who has read it can approve it: ${approve}.`;
    }
    return `Tool ${JSON.stringify(name)} (${who}) is held back: its server changed it since it was approved (${status.diff.join('; ')}). An operator who has read the change can approve it: ${approve}.`;
  }

  /** Pins `definition` as approved now (and writes the file, unless this book only reads). */
  approve(server: string, tool: string, definition: PinnedDefinition): void {
    this.#approve(server, tool, definition);
    this.#changed();
  }

  /** Removes the pins of `tools` of `server` (all of its tools when none are named); how many. */
  revoke(server: string, tools?: readonly string[]): number {
    const pins = this.#servers[server];
    if (!pins) return 0;
    let removed = 0;
    for (const tool of tools ?? Object.keys(pins)) {
      if (pins[tool] !== undefined) {
        delete pins[tool];
        removed++;
      }
    }
    if (Object.keys(pins).length === 0) delete this.#servers[server];
    if (removed > 0) {
      this.#save();
      this.#changed();
    }
    return removed;
  }

  /** Resolves when every write so far has reached the file. */
  flushed(): Promise<void> {
    return this.#writing;
  }

  /** Stops following the file. */
  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #approve(server: string, tool: string, definition: PinnedDefinition): void {
    this.#servers[server] ??= {};
    (this.#servers[server] as Record<string, Pin>)[tool] = {
      sha256: fingerprint(definition),
      approved: new Date().toISOString(),
      definition: structuredClone(definition),
    };
    this.#save();
  }

  #changed(): void {
    this.#statuses = new WeakMap();
    this.emit('change');
  }

  #save(): void {
    if (!this.#record) return;
    const text = `${JSON.stringify(this.lockfile, null, 2)}\n`;
    this.#writing = this.#writing.then(async () => {
      // Written beside and renamed over: a crash never leaves half a lockfile.
      const temp = `${this.file}.${process.pid}.tmp`;
      try {
        await writeFile(temp, text, { mode: 0o644 });
        await rename(temp, this.file);
        this.#lastWritten = text;
      } catch (error) {
        this.#onError(
          new Error(
            `Cannot write the pins file ${this.file} (${(error as NodeJS.ErrnoException).code ?? String(error)}); the pins hold in memory until the gateway stops.`,
          ),
        );
      }
    });
  }

  #follow(): void {
    const name = basename(this.file);
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#watcher = watch(dirname(this.file), (_event, changed) => {
        if (changed !== null && changed !== name) return;
        clearTimeout(timer);
        timer = setTimeout(() => void this.#reload(), 50);
        timer.unref();
      });
      this.#watcher.unref();
    } catch (error) {
      this.#onError(error as Error);
    }
  }

  async #reload(): Promise<void> {
    await this.#writing;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return;
    }
    if (text === this.#lastWritten) return;
    try {
      this.#servers = structuredClone(parseLockfile(text, this.file).servers);
    } catch (error) {
      // A broken edit keeps the pins this process holds: holding back stays the safe side.
      this.#onError(error as Error);
      return;
    }
    this.#lastWritten = text;
    this.#changed();
  }
}
