import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { GrantSpend, GrantStore, PermissionGrant, SharedGrantStore } from '../types';

/** A grant store whose data cannot be read; it is never emptied or overwritten. */
export class GrantStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GrantStoreError';
  }
}

/** Keeps grants in memory (the default store): they last as long as the process. */
export function createMemoryGrantStore(initial: readonly PermissionGrant[] = []): GrantStore {
  let grants = [...initial];
  return {
    load: async () => [...grants],
    save: async (next) => {
      grants = [...next];
    },
  };
}

/**
 * A {@link SharedGrantStore} in memory, for tests and for several policies of one process: every
 * operation is atomic (each runs in one turn of the event loop, after a pause that lets others
 * interleave as they would with a remote store). `now` is its clock (default `Date.now`).
 */
export function createMemorySharedGrantStore(
  initial: readonly PermissionGrant[] = [],
  now: () => number = Date.now,
): SharedGrantStore {
  const grants = new Map(initial.map((g) => [g.id, g]));
  const inForce = (g: PermissionGrant | undefined, t: number): g is PermissionGrant =>
    g !== undefined && (g.expiresAt === undefined || g.expiresAt > t) && g.usesLeft !== 0;
  const pause = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    async list() {
      await pause();
      const t = now();
      return [...grants.values()].filter((g) => inForce(g, t));
    },
    async add(grant) {
      await pause();
      grants.set(grant.id, grant);
      return grant;
    },
    async spend(ids): Promise<GrantSpend> {
      await pause();
      const t = now();
      const refused = ids.filter((id) => !inForce(grants.get(id), t));
      if (refused.length > 0) return { spent: false, refused };
      for (const id of ids) {
        const g = grants.get(id) as PermissionGrant;
        if (g.usesLeft === undefined) continue;
        if (g.usesLeft <= 1) grants.delete(id);
        else grants.set(id, { ...g, usesLeft: g.usesLeft - 1 });
      }
      return { spent: true };
    },
    async revoke(id) {
      await pause();
      return grants.delete(id);
    },
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Checks one stored grant's shape; returns what is wrong, or undefined. */
export function grantProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'is not an object';
  if (typeof value.id !== 'string' || value.id === '') return 'has no string "id"';
  if (typeof value.rule !== 'string' || value.rule === '') return 'has no string "rule"';
  if (value.expiresAt !== undefined && !isFiniteNumber(value.expiresAt))
    return 'has a non-numeric "expiresAt"';
  if (
    value.usesLeft !== undefined &&
    !(Number.isInteger(value.usesLeft) && (value.usesLeft as number) >= 0)
  ) {
    return 'has a "usesLeft" that is not a whole number >= 0';
  }
  const origin = value.origin;
  if (!isObject(origin) || typeof origin.by !== 'string' || !isFiniteNumber(origin.at)) {
    return 'has no "origin" with "by" (string) and "at" (number)';
  }
  return undefined;
}

/**
 * Persists grants in a JSON file (`{ "version": 1, "grants": [...] }`). Writes are atomic (a temp
 * file in the same directory, flushed, then renamed over the old one), so a crash leaves the old
 * file or the new one, never half of one. A file that cannot be read as grants is reported with
 * its path and never emptied or overwritten: every later save fails too, until a person fixes or
 * removes it.
 */
export function createJsonFileGrantStore(file: string): GrantStore {
  let corrupt: GrantStoreError | undefined;
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new GrantStoreError(
          `Grant store ${file} cannot be read: ${(error as Error).message}`,
          { cause: error },
        );
      }
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch (error) {
        corrupt = new GrantStoreError(
          `Grant store ${file} is not valid JSON (${(error as Error).message}). It was left as it is; fix or remove it to keep grants.`,
          { cause: error },
        );
        throw corrupt;
      }
      const grants = isObject(data) ? data.grants : undefined;
      if (!Array.isArray(grants)) {
        corrupt = new GrantStoreError(
          `Grant store ${file} has no "grants" array. It was left as it is; fix or remove it to keep grants.`,
        );
        throw corrupt;
      }
      for (const [i, grant] of grants.entries()) {
        const problem = grantProblem(grant);
        if (problem) {
          corrupt = new GrantStoreError(
            `Grant store ${file}: grants[${i}] ${problem}. It was left as it is; fix or remove it to keep grants.`,
          );
          throw corrupt;
        }
      }
      corrupt = undefined;
      return grants as PermissionGrant[];
    },
    async save(grants) {
      if (corrupt)
        throw new GrantStoreError(`${corrupt.message} (not saving over it)`, { cause: corrupt });
      await mkdir(dirname(file), { recursive: true });
      const temp = `${file}.${process.pid}.${randomUUID()}.tmp`;
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(`${JSON.stringify({ version: 1, grants }, null, 2)}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temp, file);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
    },
  };
}
