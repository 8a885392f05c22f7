import { isInside, parentOf } from './resolve-path';

/**
 * The directories to bind onto themselves so that no protected path can be moved away: every
 * ancestor of a protected path (a mask, a frozen path, a nested writable root) that a process
 * could rename, that is, one inside a writable place, up to but not including the writable root
 * (already a mount point). A mount point cannot be renamed or removed (`EBUSY`), so a secret stays
 * where its mask is, and `.git` stays the directory whose hooks and config are frozen.
 *
 * Outermost first: bubblewrap binds recursively, so an inner pin made after an outer one lands on
 * top of it. `writable` tells where writes are possible; `mountPoints` are the places that are
 * mounts already (the writable roots, in `full-access` the root `/`).
 */
export function pinsFor(
  protectedPaths: Iterable<string>,
  writable: (path: string) => boolean,
  mountPoints: readonly string[],
): string[] {
  const pins = new Set<string>();
  for (const path of protectedPaths) {
    for (let dir = parentOf(path); dir !== '/'; dir = parentOf(dir)) {
      if (mountPoints.includes(dir) || !writable(dir)) break;
      pins.add(dir);
    }
  }
  // A pin below another keeps its place only when it is bound after it.
  return [...pins].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}

/** The nested writable roots: roots inside another root, re-bound after it and so movable in it. */
export function nestedRoots(roots: readonly string[]): string[] {
  return roots.filter((r) => roots.some((o) => o !== r && isInside(r, o)));
}
