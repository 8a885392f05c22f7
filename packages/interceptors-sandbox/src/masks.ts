import { type Dirent, lstatSync, readdirSync } from 'node:fs';
import { type DenyMatcher, firstMatch, type PolicySnapshot } from './policy';
import { isInside, parentOf, resolveLikeKernelSync } from './resolve-path';

/** What the runner hides or freezes inside the sandbox, as resolved host paths. */
export interface Masks {
  /** Denied-read directories: an empty read-only tmpfs is mounted over each. */
  readonly hideDirs: readonly string[];
  /** Denied-read files: `/dev/null` is bound read-only over each. */
  readonly hideFiles: readonly string[];
  /** Denied-write paths inside writable places: re-bound read-only onto themselves. */
  readonly freeze: readonly string[];
}

/** Thrown when the deny-list scan would visit more entries than allowed. */
export class MaskScanLimitError extends Error {
  constructor(
    readonly dir: string,
    readonly limit: number,
  ) {
    super(`the deny-list scan of "${dir}" visited more than ${limit} entries`);
    this.name = 'MaskScanLimitError';
  }
}

const kindOf = (path: string): 'dir' | 'file' | undefined => {
  try {
    const st = lstatSync(path);
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
};

/**
 * Finds the existing files and directories that the deny lists name, so that the runner can mask
 * them. A glob whose literal prefix is a whole path (`~/.netrc`) or ends in `/**` (`~/.ssh/**`)
 * masks that path; any other glob is matched by walking from its prefix, or for a leading `**`
 * from the cwd and the writable roots, down to `maskScan.depth` levels (never into
 * `maskScan.skip` names, never through symlinked directories). A symbolic link met on the walk is
 * resolved and its target masked when the link's name or its target matches. `where.visible` says
 * which host paths the sandbox shows at all (not its fresh /proc, /dev or /tmp), `where.writable`
 * where writes are possible (frozen paths elsewhere would be redundant).
 */
export function findMasks(
  policy: PolicySnapshot,
  runCwd: string,
  where: {
    visible: (path: string) => boolean;
    writable: (path: string) => boolean;
    /** The places that are mounts of their own (writable roots): never frozen whole. */
    mountPoints: readonly string[];
  },
): Masks {
  const { config } = policy;
  const hidden = new Map<string, 'dir' | 'file'>();
  const frozen = new Set<string>();
  const add = (path: string, list: 'read' | 'write', kind?: 'dir' | 'file') => {
    let real: string;
    try {
      real = resolveLikeKernelSync(path, '/');
    } catch {
      // A link loop (or an unreadable link): the kernel cannot reach anything there either.
      return;
    }
    if (!where.visible(real)) return;
    const k = kind ?? kindOf(real);
    if (k === undefined) return;
    if (list === 'read') hidden.set(real, k);
    else if (where.writable(real)) frozen.add(real);
  };
  /**
   * A denied-write path that does not exist yet cannot get a mask (a mount would create it on the
   * host), so the directory that would hold it is frozen instead: its nearest existing ancestor,
   * when that one is writable and strictly inside a writable root. At a root's top (or outside
   * every root) nothing is frozen; see the README's list of what is not covered.
   */
  const freezeMissing = (path: string) => {
    let dir = path;
    while (dir !== '/' && kindOf(dir) === undefined) dir = parentOf(dir);
    if (dir === path || where.mountPoints.includes(dir) || dir === '/') return;
    if (kindOf(dir) === 'dir' && where.visible(dir) && where.writable(dir)) frozen.add(dir);
  };
  const scanBases = [...new Set([runCwd, policy.cwd, ...policy.roots.map(([, real]) => real)])];
  let visited = 0;

  const scan = (list: 'read' | 'write', matchers: readonly DenyMatcher[]) => {
    const wide: DenyMatcher[] = [];
    for (const m of matchers) {
      const { prefix, rest } = m.glob;
      if (rest.length === 0 || (rest.length === 1 && rest[0] === '**')) {
        for (const p of m.prefixes) {
          if (list === 'write' && kindOf(p) === undefined) freezeMissing(p);
          else add(p, list);
        }
      } else if (prefix === '') {
        wide.push(m);
      } else {
        for (const p of m.prefixes) if (where.visible(p)) walk(p, 0, [m], list);
      }
    }
    if (wide.length > 0) for (const base of scanBases) walk(base, 0, wide, list);
  };

  /**
   * For a wide deny-write glob that ends in literal names (`**\/.git/config`,
   * `**\/.git/hooks/**`): the directories that would hold its last name, found on the walk, are
   * frozen when that name is missing (a `.git` without hooks cannot be given some).
   */
  const tails = policy.denyWrite.flatMap((m) => {
    const rest = m.glob.prefix === '' ? [...m.glob.rest] : [];
    if (rest[0] !== '**') return [];
    if (rest[rest.length - 1] === '**') rest.pop();
    const names = rest.slice(1);
    if (names.length < 2 || names.some((n) => n.includes('*') || n.includes('?'))) return [];
    return [{ parent: `/${names.slice(0, -1).join('/')}`, last: names[names.length - 1]! }];
  });
  const checkTails = (dir: string) => {
    for (const t of tails) {
      if (dir.endsWith(t.parent) && kindOf(`${dir}/${t.last}`) === undefined) {
        if (where.visible(dir) && where.writable(dir) && !where.mountPoints.includes(dir)) {
          frozen.add(dir);
        }
      }
    }
  };

  const walk = (
    dir: string,
    depth: number,
    matchers: readonly DenyMatcher[],
    list: 'read' | 'write',
  ): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    visited += entries.length;
    if (visited > config.scanMaxEntries) throw new MaskScanLimitError(dir, config.scanMaxEntries);
    for (const entry of entries) {
      const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`;
      if (entry.isSymbolicLink()) {
        let target: string | undefined;
        try {
          target = resolveLikeKernelSync(path, '/');
        } catch {
          target = undefined;
        }
        if (target !== undefined && firstMatch(matchers, [path, target])) {
          add(target, list);
        }
        continue;
      }
      const kind = entry.isDirectory() ? 'dir' : 'file';
      if (firstMatch(matchers, [path])) {
        add(path, list, kind);
        continue;
      }
      if (kind === 'dir' && list === 'write' && tails.length > 0) checkTails(path);
      if (kind === 'dir' && depth < config.scanDepth && !config.scanSkip.has(entry.name)) {
        walk(path, depth + 1, matchers, list);
      }
    }
  };

  scan('read', policy.denyRead);
  scan('write', policy.denyWrite);
  const hideDirs: string[] = [];
  const hideFiles: string[] = [];
  for (const [path, kind] of hidden) (kind === 'dir' ? hideDirs : hideFiles).push(path);
  // A path hidden for reading needs no freezing; one inside a hidden directory needs neither.
  const underHidden = (p: string) => hideDirs.some((d) => isInside(p, d) && p !== d);
  return {
    hideDirs: hideDirs.filter((d) => !underHidden(d)).sort(),
    hideFiles: hideFiles.filter((f) => !underHidden(f)).sort(),
    freeze: [...frozen].filter((p) => !hidden.has(p) && !underHidden(p)).sort(),
  };
}
