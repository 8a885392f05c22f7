import { EventEmitter } from 'node:events';
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { mcpToolMetadata } from '@dsh-tools/mcp-bridge';
import type { ToolDefinition } from '@dsh-tools/protocol';
import { changedPaths } from './pins-diff';
import {
  applyChanges,
  canonicalJson,
  changeLockfile,
  fingerprint,
  isRevoked,
  type LockChange,
  type Lockfile,
  type Pin,
  type PinnedDefinition,
  parseLockfile,
  readLockfile,
} from './pins-file';
import { fileExists, StorePins } from './state-pins';
import type { SharedState } from './state-redis';

export {
  canonicalJson,
  fingerprint,
  type Lockfile,
  type Pin,
  type PinnedDefinition,
  PinsFileError,
  parseLockfile,
} from './pins-file';

/**
 * Tool pins: the definition of every tool of an upstream MCP server, as the model and the client
 * are shown it, is fingerprinted when it is approved, and a server that later changes it (a "rug
 * pull": a description that grows instructions, a schema that grows a parameter) has the changed
 * tool held back (not listed, its calls refused, naming what changed but never showing the new
 * text to the model) until an operator reads the change and approves it (`dsh-tools pin`). The
 * pins live in a lockfile beside the config (`dsh-tools.lock.json`), written to be reviewed, or
 * (with a state store) in the store shared by the gateway's replicas.
 */

/** The lockfile's name, beside the config file. */
export const PINS_FILE = 'dsh-tools.lock.json';

/** How pins treat a tool never pinned: pin it on first sight, hold it until approved, or no pins. */
export type PinMode = 'tofu' | 'strict' | 'off';

/** Where a bridged tool stands against its pin. */
export type PinStatus =
  | { readonly kind: 'pinned' }
  | {
      readonly kind: 'new';
      readonly revoked?: boolean;
      /** Not known pinned, and the state store could not be reached to pin it: held meanwhile. */
      readonly unavailable?: boolean;
    }
  | { readonly kind: 'changed'; readonly paths: readonly string[] };

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
    ...(meta.icons !== undefined ? { icons: meta.icons } : {}),
    ...(meta._meta !== undefined ? { _meta: meta._meta } : {}),
  };
  return { server: meta.server, tool: meta.tool, definition: pinned };
}

/** Options of {@link PinBook.open}. */
export interface PinBookOptions {
  readonly mode: PinMode;
  /** Whether changes are written to the file (`inspect` and `check` only read). Default true. */
  readonly record?: boolean;
  /** Follow the file: an approval made by another process applies here at once. Default false. */
  readonly watch?: boolean;
  /** A write or reload that failed (default: dropped; the pins held in memory stay). */
  readonly onError?: (error: Error) => void;
  /**
   * A state store shared with other replicas: the pins live there instead of in `file` (which,
   * when the store has no pins yet, seeds it once). `watch` follows the store instead of the file.
   */
  readonly state?: SharedState;
  /** Something a person should know (the store seeded from the lockfile). Default: stderr. */
  readonly onNote?: (message: string) => void;
  /** How often a store-backed book checks for a change it missed the message of (default 5 s). */
  readonly pollMs?: number;
}

type Entries = Lockfile['servers'];

/**
 * The pins of one gateway: the lockfile's, the statuses of the tools the registry holds, and
 * what is held back. Every change is written as a change to the file as it is then (under a lock),
 * so a `serve` pinning a new tool and an operator's `pin approve` never undo each other. `change`
 * is emitted when what is held may have changed (a pin approved or revoked, here or in the file).
 */
export class PinBook extends EventEmitter<{ change: [] }> {
  readonly file: string;
  readonly mode: PinMode;
  #servers: Entries;
  readonly #record: boolean;
  readonly #onError: (error: Error) => void;
  // Per definition object (a changed tool is a new object); replaced whenever a pin changes.
  #statuses = new WeakMap<ToolDefinition, PinStatus>();
  /** Changes made here and not yet written. */
  #pending: LockChange[] = [];
  #writing: Promise<void> = Promise.resolve();
  #watcher: FSWatcher | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #lastWritten = '';
  readonly #store: StorePins | undefined;
  readonly #note: (message: string) => void;
  #unfollow: (() => void) | undefined;
  /** A tool was held because the store could not be reached: re-list once it is back. */
  #heldForStore = false;

  private constructor(
    file: string,
    lockfile: Lockfile,
    options: PinBookOptions,
    store?: StorePins,
  ) {
    super();
    this.file = file;
    this.#store = store;
    this.#note = options.onNote ?? noteOnStderr;
    this.mode = options.mode;
    this.#servers = structuredClone(lockfile.servers);
    this.#record = options.record ?? true;
    this.#onError = options.onError ?? (() => {});
  }

  /** Reads `file` (absent: no pins yet). @throws {PinsFileError} for a file that is not a lockfile. */
  static async open(file: string, options: PinBookOptions): Promise<PinBook> {
    if (options.state) return PinBook.#openInStore(file, options, options.state);
    const book = new PinBook(file, await readLockfile(file), options);
    if (options.watch) book.#follow();
    return book;
  }

  /**
   * Opens the pins of the state store. An empty store is seeded once from the lockfile beside
   * the config (a book that only reads shows the lockfile's pins instead, and writes nothing).
   * @throws {StateUnavailableError} when the store does not answer; {@link PinsFileError} for
   * a pin in the store that is not one.
   */
  static async #openInStore(
    file: string,
    options: PinBookOptions,
    state: SharedState,
  ): Promise<PinBook> {
    const store = new StorePins(state);
    let servers = await store.read();
    if (Object.keys(servers).length === 0 && (await fileExists(file))) {
      const lockfile = await readLockfile(file);
      if (options.record ?? true) {
        if (await store.seed(lockfile.servers)) {
          (options.onNote ?? noteOnStderr)(
            `${store.where} had no tool pins: seeded them from ${file}. The store holds the pins from now on; that file is no longer read or written.`,
          );
        }
        servers = await store.read();
      } else servers = lockfile.servers;
    }
    const book = new PinBook(file, { lockfileVersion: 1, servers }, options, store);
    if (options.watch) {
      book.#unfollow = await store.follow(() => void book.#reload(), options.pollMs ?? 5000);
    }
    return book;
  }

  /** Where the pins live, for messages: the lockfile's name, or the state store. */
  get where(): string {
    return this.#store?.where ?? basename(this.file);
  }

  /** The lockfile as this book holds it (with its changes not yet written). */
  get lockfile(): Lockfile {
    return { lockfileVersion: 1, servers: structuredClone(this.#servers) };
  }

  /** The approved pin of a server's tool (not a revoked one). */
  pin(server: string, tool: string): Pin | undefined {
    const entry = this.#servers[server]?.[tool];
    return entry === undefined || isRevoked(entry) ? undefined : entry;
  }

  /**
   * Where the registry tool `definition` stands. A tool never pinned is pinned now under `tofu`
   * (and written, unless this book only reads); a revoked one is held in every mode; local tools
   * are always `pinned`.
   */
  statusOf(definition: ToolDefinition | undefined): PinStatus {
    if (this.mode === 'off' || !definition) return { kind: 'pinned' };
    const known = this.#statuses.get(definition);
    if (known) return known;
    const bridged = pinnedDefinitionOf(definition);
    let status: PinStatus;
    if (!bridged) status = { kind: 'pinned' };
    else {
      const entry = this.#servers[bridged.server]?.[bridged.tool];
      if (isRevoked(entry)) status = { kind: 'new', revoked: true };
      else if (!entry) {
        if (this.mode === 'tofu' && this.#store && !this.#store.reachable) {
          // Fail closed: a pin that cannot be recorded is not taken on trust meanwhile.
          this.#heldForStore = true;
          return { kind: 'new', unavailable: true };
        }
        if (this.mode === 'tofu') {
          this.#change({
            server: bridged.server,
            tool: bridged.tool,
            entry: pinOf(bridged.definition),
            ifAbsent: true,
          });
          status = { kind: 'pinned' };
        } else status = { kind: 'new' };
      } else if (entry.sha256 === fingerprint(bridged.definition)) status = { kind: 'pinned' };
      else status = { kind: 'changed', paths: changedPaths(entry.definition, bridged.definition) };
    }
    this.#statuses.set(definition, status);
    return status;
  }

  /**
   * Why a call of registry tool `name` is refused, or `undefined` when its tool is not held. It
   * names what changed but never shows the new text: that text is what the pin keeps from the model.
   */
  refusal(name: string, definition: ToolDefinition | undefined): string | undefined {
    const status = this.statusOf(definition);
    if (status.kind === 'pinned') return undefined;
    const bridged = pinnedDefinitionOf(definition);
    const who = `tool "${bridged?.tool}" of MCP server "${bridged?.server}"`;
    const approve = `an operator who has read it (dsh-tools pin list) can approve it: dsh-tools pin approve ${bridged?.server}/${bridged?.tool}`;
    if (status.kind === 'new') {
      // Said to an MCP client: the store is named by its prefix, never by its (internal) address.
      const where = this.#store
        ? `the state store (prefix ${JSON.stringify(this.#store.prefix)})`
        : this.where;
      if (status.unavailable) {
        return `Tool ${JSON.stringify(name)} (${who}) is held back: it is not pinned yet and ${where} cannot be reached to pin it. Retry shortly; if it persists, ask the gateway's operator to check its state store.`;
      }
      const why = status.revoked
        ? `its approval was revoked in ${where}`
        : `it is not pinned in ${where} and pins are strict`;
      return `Tool ${JSON.stringify(name)} (${who}) is held back: ${why}. Use another tool; ${approve}.`;
    }
    return `Tool ${JSON.stringify(name)} (${who}) is held back: its server changed it since it was approved (changed: ${status.paths.join(', ')}); its new definition is not shown here. Use another tool; ${approve}.`;
  }

  /** Pins `definition` as approved now (written unless this book only reads). */
  approve(server: string, tool: string, definition: PinnedDefinition): void {
    this.#change({ server, tool, entry: pinOf(definition) });
    this.#changed();
  }

  /**
   * Withdraws the approval of `tools` of `server` (all its pinned tools when none are named):
   * each is held until approved again, in every mode (under `tofu` a removed pin would be
   * re-pinned, changed or not, on next sight). How many were withdrawn.
   */
  revoke(server: string, tools?: readonly string[]): number {
    const pins = this.#servers[server] ?? {};
    let withdrawn = 0;
    const revoked = new Date().toISOString();
    for (const tool of tools ?? Object.keys(pins)) {
      const entry = pins[tool];
      if (entry === undefined || isRevoked(entry)) continue;
      this.#change({ server, tool, entry: { revoked } });
      withdrawn++;
    }
    if (withdrawn > 0) this.#changed();
    return withdrawn;
  }

  /** Resolves when every change so far has reached the file. */
  async flushed(): Promise<void> {
    while (true) {
      const writing = this.#writing;
      await writing;
      if (writing === this.#writing) return;
    }
  }

  /** Stops following the file (or the store). */
  close(): void {
    this.#unfollow?.();
    this.#unfollow = undefined;
    clearTimeout(this.#debounce);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #change(change: LockChange): void {
    this.#servers = applyChanges(this.#servers, [change]);
    if (!this.#record) return;
    this.#pending.push(change);
    this.#writing = this.#writing.then(() => this.#write());
  }

  async #write(): Promise<void> {
    const changes = this.#pending;
    if (changes.length === 0) return;
    this.#pending = [];
    if (this.#store) {
      try {
        this.#adopt(await this.#store.apply(changes));
      } catch (error) {
        // Kept, and sent again when the store is back (#reload): a change is never dropped.
        this.#pending = [...changes, ...this.#pending];
        this.#onError(
          new Error(
            `Cannot record the tool pins in ${this.#store.where} (${(error as Error).message}); they hold in this replica and are recorded once the store is back.`,
          ),
        );
      }
      return;
    }
    try {
      const { lockfile, text } = await changeLockfile(this.file, changes);
      this.#lastWritten = text;
      this.#adopt(lockfile.servers);
    } catch (error) {
      this.#onError(
        new Error(
          `Cannot write the pins file ${this.file} (${(error as Error).message}); the pins hold in memory until the gateway stops.`,
        ),
      );
    }
  }

  /**
   * Re-reads the store (another replica's change, a message missed, or the connection back),
   * then sends the changes it could not record before.
   */
  async #reloadStore(store: StorePins): Promise<void> {
    let servers: Entries;
    try {
      servers = await store.read();
      if (
        this.#record &&
        Object.keys(servers).length === 0 &&
        Object.keys(this.#servers).length > 0
      ) {
        // The store lost its pins (restarted without its append-only file, flushed): the ones this
        // replica holds go back, rather than every server's tools as offered now pinned on sight.
        if (await store.seed(this.#servers)) {
          this.#note(`${store.where} had lost its tool pins: put back the ones this replica held.`);
        }
        servers = await store.read();
      }
    } catch (error) {
      // The pins this replica holds stay: holding back stays the safe side.
      this.#onError(error as Error);
      return;
    }
    this.#adopt(servers);
    if (this.#pending.length > 0) this.#writing = this.#writing.then(() => this.#write());
    if (this.#heldForStore) {
      this.#heldForStore = false;
      this.#changed();
    }
  }

  /** Takes the file's entries (others' changes included) plus this book's unwritten ones. */
  #adopt(servers: Entries): void {
    const next = applyChanges(servers, this.#pending);
    if (canonicalJson(next) === canonicalJson(this.#servers)) return;
    this.#servers = next;
    this.#changed();
  }

  #changed(): void {
    this.#statuses = new WeakMap();
    this.emit('change');
  }

  #follow(): void {
    const name = basename(this.file);
    try {
      this.#watcher = watch(dirname(this.file), (_event, changed) => {
        if (changed !== null && changed !== name) return;
        clearTimeout(this.#debounce);
        this.#debounce = setTimeout(() => void this.#reload(), 50);
        this.#debounce.unref();
      });
      this.#watcher.unref();
    } catch (error) {
      this.#onError(error as Error);
    }
  }

  async #reload(): Promise<void> {
    await this.flushed();
    if (this.#store) return this.#reloadStore(this.#store);
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return;
    }
    if (text === this.#lastWritten) return;
    try {
      const { servers } = parseLockfile(text, this.file);
      this.#lastWritten = text;
      this.#adopt(servers);
    } catch (error) {
      // A broken edit keeps the pins this process holds: holding back stays the safe side.
      this.#onError(error as Error);
    }
  }
}

/** Where a note goes when nobody asked for it: the operator reads stderr. */
function noteOnStderr(message: string): void {
  process.stderr.write(`dsh-tools: ${message}\n`);
}

/** A pin of `definition`, approved now. */
function pinOf(definition: PinnedDefinition): Pin {
  return {
    sha256: fingerprint(definition),
    approved: new Date().toISOString(),
    definition: structuredClone(definition),
  };
}
