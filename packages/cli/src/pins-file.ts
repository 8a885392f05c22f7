import { createHash } from 'node:crypto';
import { open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRecord } from '@dsh-tools/policy-kit';

/**
 * The pins lockfile (`dsh-tools.lock.json`): its shape, its checks, and how a process changes it
 * without losing another's change (each writer applies its own changes to the file as it is now,
 * under an advisory lock, and renames the result into place).
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
  readonly icons?: unknown;
  readonly _meta?: unknown;
}

/** One pinned tool of the lockfile. */
export interface Pin {
  /** SHA-256 of the definition's canonical JSON (keys sorted), hex. */
  readonly sha256: string;
  /** When it was approved (ISO 8601). */
  readonly approved: string;
  readonly definition: PinnedDefinition;
}

/** An approval withdrawn (`pin revoke`): the tool is held until approved again, in every mode. */
export interface Revoked {
  /** When it was revoked (ISO 8601). */
  readonly revoked: string;
}

/** One entry of the lockfile. */
export type LockEntry = Pin | Revoked;

/** The lockfile: entries by server, then by the server's tool name. */
export interface Lockfile {
  readonly lockfileVersion: 1;
  readonly servers: Record<string, Record<string, LockEntry>>;
}

/** A lockfile that cannot be used: the gateway does not start (a broken pin file must not mean no pins). */
export class PinsFileError extends Error {
  override readonly name = 'PinsFileError';
}

/** Whether an entry is a withdrawn approval. */
export const isRevoked = (entry: LockEntry | undefined): entry is Revoked =>
  entry !== undefined && 'revoked' in entry;

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
    for (const [tool, entry] of Object.entries(tools)) {
      const at = `servers.${server}.${tool}`;
      if (isRecord(entry) && typeof entry.revoked === 'string' && !('sha256' in entry)) continue;
      if (
        !isRecord(entry) ||
        typeof entry.sha256 !== 'string' ||
        !/^[0-9a-f]{64}$/.test(entry.sha256)
      ) {
        throw wrong(`${at} has no sha256 of 64 hex digits (nor is it { "revoked": <date> })`);
      }
      const def = entry.definition;
      if (!isRecord(def) || def.name !== tool || typeof def.description !== 'string') {
        throw wrong(`${at}.definition is not the definition of tool "${tool}"`);
      }
      if (fingerprint(def as unknown as PinnedDefinition) !== entry.sha256) {
        throw wrong(`${at}: the sha256 is not that of its definition (edited by hand?)`);
      }
    }
  }
  return value as unknown as Lockfile;
}

/** The lockfile at `file` as it is now (absent: empty). */
export async function readLockfile(file: string): Promise<Lockfile> {
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

/** One change a writer makes: an entry set, or (with `ifAbsent`) set only when none is there. */
export interface LockChange {
  readonly server: string;
  readonly tool: string;
  readonly entry: LockEntry;
  /** First sight (tofu): never overwrites what another process wrote meanwhile. */
  readonly ifAbsent?: boolean;
}

/** `servers` with `changes` applied, in order (a copy). */
export function applyChanges(
  servers: Lockfile['servers'],
  changes: readonly LockChange[],
): Lockfile['servers'] {
  const out = structuredClone(servers);
  for (const { server, tool, entry, ifAbsent } of changes) {
    let tools = out[server];
    if (!tools) {
      tools = {};
      out[server] = tools;
    }
    if (ifAbsent && tools[tool] !== undefined) continue;
    tools[tool] = entry;
  }
  return out;
}

/** A lock older than this is taken to be left by a process that died holding it. */
const STALE_LOCK_MS = 10_000;

/** Holds `${file}.lock` (created exclusively) while `run` runs; waits for another holder. */
async function withLock<T>(file: string, run: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lock, 'wx');
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_LOCK_MS) await unlink(lock).catch(() => {});
      else if (attempt > 250) {
        throw new PinsFileError(
          `The pins file ${file} stayed locked by another process (${lock}); remove that file if no dsh-tools is running.`,
        );
      } else await sleep(20);
    }
  }
  try {
    return await run();
  } finally {
    await unlink(lock).catch(() => {});
  }
}

/**
 * Applies `changes` to the lockfile as it is now and writes it (beside, then renamed over: a
 * crash never leaves half a file), under the lock. Resolves with the lockfile written and its
 * text. A file that is not a lockfile is left alone (the error says so).
 */
export async function changeLockfile(
  file: string,
  changes: readonly LockChange[],
): Promise<{ lockfile: Lockfile; text: string }> {
  return withLock(file, async () => {
    const now = await readLockfile(file);
    const lockfile: Lockfile = { lockfileVersion: 1, servers: applyChanges(now.servers, changes) };
    const text = `${JSON.stringify(lockfile, null, 2)}\n`;
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, text, { mode: 0o644 });
    await rename(temp, file);
    return { lockfile, text };
  });
}
