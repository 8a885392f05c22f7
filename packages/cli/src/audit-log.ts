import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { basename } from 'node:path';

/**
 * When lines reach the disk itself, not only the kernel's page cache. Every line is handed to the
 * kernel by one `write(2)` before the call it records returns, so a crash of this process (even
 * `kill -9`) loses nothing in any policy; the policy decides what a crash of the machine loses:
 * - `always`: `fdatasync` after every line: nothing; costs a disk flush per call.
 * - `interval` (default): `fdatasync` at most every `fsyncIntervalMs` (default 1000) while lines
 *   come: at most that much.
 * - `never`: whatever the kernel had not written back (usually up to 30 s).
 */
export type AuditFsync = 'always' | 'interval' | 'never';

export interface AuditLogOptions {
  /** The JSON Lines file; created if missing, appended to (after its chain is checked) if not. */
  readonly file: string;
  /** Rotate when a line would take the file past this size (default 64 MiB; 0 = never). */
  readonly maxBytes?: number;
  readonly fsync?: AuditFsync;
  readonly fsyncIntervalMs?: number;
  /** The clock, for tests (default `Date.now`). */
  readonly now?: () => number;
}

/** The chain's first `prev`: no line came before. */
export const GENESIS = '0'.repeat(64);

/** The hash that the next line's `prev` names: SHA-256 of a line's bytes, newline excluded. */
export const lineHash = (line: string | Buffer): string =>
  createHash('sha256').update(line).digest('hex');

/**
 * The fields every line carries besides its own: `seq` (0, 1, …, continuing across rotation),
 * `time` (ISO 8601), `prev` (the hash of the line before it, or of the last line of the file
 * rotated away, or {@link GENESIS}) and `kind`.
 */
export interface AuditLine {
  readonly seq: number;
  readonly time: string;
  readonly prev: string;
  readonly kind: string;
  readonly [field: string]: unknown;
}

/**
 * The last complete line of a file and what follows it (a partial line a crash left), read from
 * the end in a window that doubles until it holds the line's start: a line may be any length (a
 * call's arguments are cut per string, not in total), and a long one must neither stop the trail
 * from being reopened nor be mistaken for no line at all.
 */
function readTail(fd: number, size: number): { last?: string; torn?: Buffer } {
  for (let length = Math.min(size, 64 * 1024); ; length = Math.min(size, length * 2)) {
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    const whole = length === size;
    const end = buffer.lastIndexOf(0x0a);
    if (end < 0) {
      if (whole) return { torn: buffer };
      continue;
    }
    const start = buffer.lastIndexOf(0x0a, end - 1) + 1;
    if (start === 0 && !whole) continue;
    const torn = end === length - 1 ? undefined : buffer.subarray(end + 1);
    return { last: buffer.subarray(start, end).toString('utf8'), ...(torn ? { torn } : {}) };
  }
}

/**
 * An append-only, hash-chained JSON Lines audit trail: each line carries the SHA-256 of the line
 * before it, so a changed, removed or inserted line breaks the chain where it is
 * (`verifyAuditFiles` says where). Opening a file that a crash left with a partial last line adds
 * a `recovery` line naming that fragment's hash and length, so the chain goes on and the verifier
 * can tell a crash from an edit.
 *
 * @throws {Error} naming the file when it cannot be opened, or its last line is not one of ours.
 */
export class AuditLog {
  readonly file: string;
  readonly #maxBytes: number;
  readonly #fsync: AuditFsync;
  readonly #intervalMs: number;
  readonly #now: () => number;
  #fd: number;
  #size: number;
  #seq = 0;
  #prev = GENESIS;
  #dirty = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AuditLogOptions) {
    this.file = options.file;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#fsync = options.fsync ?? 'interval';
    this.#intervalMs = options.fsyncIntervalMs ?? 1000;
    this.#now = options.now ?? Date.now;
    this.#fd = this.#open();
    this.#size = fstatSync(this.#fd).size;
    try {
      this.#resume();
    } catch (error) {
      closeSync(this.#fd);
      throw new Error(
        `The audit trail ${this.file} cannot be appended to: ${(error as Error).message}. Check it with "dsh-tools audit verify ${this.file}", then move it away to start a new one.`,
      );
    }
  }

  #open(): number {
    try {
      return openSync(this.file, 'a+', 0o600);
    } catch (error) {
      throw new Error(
        `The audit trail ${this.file} cannot be opened: ${(error as Error).message}. Check the path and its folder's permissions.`,
      );
    }
  }

  /** Picks up the chain where the file ends; a partial last line gets a recovery line. */
  #resume(): void {
    if (this.#size === 0) return;
    const { last, torn } = readTail(this.#fd, this.#size);
    if (last !== undefined) {
      const line = JSON.parse(last) as Partial<AuditLine>;
      if (typeof line.seq !== 'number' || typeof line.prev !== 'string') {
        throw new Error('its last line has no "seq" and "prev": it is not an audit trail');
      }
      this.#seq = line.seq + 1;
      this.#prev = lineHash(last);
    }
    if (torn) {
      // The fragment ends the line it belongs to; the recovery line names it and chains on from
      // the last complete line.
      this.#write('\n');
      this.append({ kind: 'recovery', tornBytes: torn.length, tornHash: lineHash(torn) });
    }
  }

  #write(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < bytes.length) off += writeSync(this.#fd, bytes, off, bytes.length - off);
    this.#size += bytes.length;
  }

  /**
   * Appends one record (its own fields; `seq`, `time` and `prev` are added) and returns the line
   * as written. Synchronous: one `write(2)` of one line, microseconds, so no line is ever queued in
   * memory where a crash could lose it.
   * @throws {Error} after {@link close}, or when the disk refuses the write.
   */
  append(record: { readonly kind: string; readonly [field: string]: unknown }): AuditLine {
    if (this.#closed) throw new Error(`The audit trail ${this.file} is closed.`);
    let line = this.#line(record);
    let text = JSON.stringify(line);
    if (this.#maxBytes > 0 && this.#size > 0 && this.#size + text.length + 1 > this.#maxBytes) {
      this.#rotate();
      line = this.#line(record);
      text = JSON.stringify(line);
    }
    this.#link(text);
    this.#synced();
    return line;
  }

  #line(record: { readonly kind: string; readonly [field: string]: unknown }): AuditLine {
    // The chain's own fields always win over a record's fields of the same name.
    const { seq: _seq, time: _time, prev: _prev, ...own } = record;
    return { seq: this.#seq, time: new Date(this.#now()).toISOString(), prev: this.#prev, ...own };
  }

  /** Writes a line and makes it the one the next line chains from. */
  #link(text: string): void {
    this.#write(`${text}\n`);
    this.#seq++;
    this.#prev = lineHash(text);
  }

  #synced(): void {
    if (this.#fsync === 'always') fdatasyncSync(this.#fd);
    else if (this.#fsync === 'interval') {
      this.#dirty = true;
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.flush();
      }, this.#intervalMs).unref();
    }
  }

  /** Writes back to the disk now whatever the kernel holds of this file. */
  flush(): void {
    if (this.#closed || !this.#dirty) return;
    this.#dirty = false;
    fdatasyncSync(this.#fd);
  }

  /**
   * Renames the full file to `<file>.<seq of its first line after rotation>` and starts a new one
   * whose first line (`kind: "rotate"`) names it; the chain runs on across the two.
   */
  #rotate(): void {
    fdatasyncSync(this.#fd);
    closeSync(this.#fd);
    let rotated = `${this.file}.${this.#seq}`;
    for (let n = 1; existsSync(rotated); n++) rotated = `${this.file}.${this.#seq}-${n}`;
    renameSync(this.file, rotated);
    this.#fd = this.#open();
    this.#size = 0;
    this.#link(JSON.stringify(this.#line({ kind: 'rotate', from: basename(rotated) })));
  }

  /** Flushes to the disk and closes the file; appending afterwards throws. */
  close(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    fdatasyncSync(this.#fd);
    this.#closed = true;
    closeSync(this.#fd);
  }
}
