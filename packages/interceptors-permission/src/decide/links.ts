import { type Dirent, lstatSync, readdirSync, statSync } from 'node:fs';
import { GLOB_CHARS, globMatches } from '@dsh-tools/policy-kit';

/** How many directory entries one glob may make the decision read; past it, the glob asks. */
export const MAX_GLOB_ENTRIES = 10_000;

/** The matches of a glob that are symbolic links or lie beyond one, and whether all were seen. */
export interface LinkedMatches {
  /** Absolute paths as the glob names them (`/p/src/env-link`); the kernel follows them. */
  readonly paths: readonly string[];
  /** False when the walk stopped at {@link MAX_GLOB_ENTRIES} entries. */
  readonly complete: boolean;
}

const join = (dir: string, name: string): string => `${dir === '/' ? '' : dir}/${name}`;

const isLink = (path: string): boolean => {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  } catch {
    // A path through a file (`ENOTDIR`), or not searchable: nothing there to follow.
    return false;
  }
};

/** Whether `path` leads to a directory, through links. */
const leadsToDirectory = (path: string): boolean => {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
};

const entriesOf = (dir: string): Dirent[] => {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
};

/**
 * The files a glob operand expands to now that are symbolic links, or are reached through one.
 * bash expands the glob before the program runs and the program opens each match, following its
 * links: `cat src/*` with `src/env-link → ../.env` reads `.env`, though no name the glob can match
 * is one a rule protects. The walk follows `segments` (an absolute glob split at `/`, as
 * {@link operandGlobSegments} gives it) from its fixed prefix; `**` descends any number of real
 * directories (not links, as bash's globstar); a directory link matched on the way is descended
 * (bash does) and what lies beyond it counts as linked. Names starting with `.` match too (more than
 * bash without dotglob, never less).
 */
export function linkedGlobMatches(segments: readonly string[]): LinkedMatches {
  const first = segments.findIndex((s) => GLOB_CHARS.test(s));
  if (first < 0) return { paths: [], complete: true };
  const paths: string[] = [];
  let budget = MAX_GLOB_ENTRIES;
  const walk = (dir: string, at: number, linked: boolean): boolean => {
    const segment = segments[at];
    if (segment === undefined) {
      if (linked) paths.push(dir);
      return true;
    }
    if (segment === '**') {
      if (!walk(dir, at + 1, linked)) return false;
      for (const entry of entriesOf(dir)) {
        if (--budget < 0) return false;
        if (entry.isDirectory() && !walk(join(dir, entry.name), at, linked)) return false;
      }
      return true;
    }
    if (!GLOB_CHARS.test(segment)) {
      const path = join(dir, segment);
      return walk(path, at + 1, linked || isLink(path));
    }
    for (const entry of entriesOf(dir)) {
      if (--budget < 0) return false;
      if (!globMatches(entry.name, segment)) continue;
      const link = entry.isSymbolicLink();
      const last = at === segments.length - 1;
      const path = join(dir, entry.name);
      // Only a directory (or a link to one) has anything under it for the next segment.
      if (!last && !entry.isDirectory() && !(link && leadsToDirectory(path))) continue;
      if (!walk(path, at + 1, linked || link)) return false;
    }
    return true;
  };
  const complete = walk(`/${segments.slice(0, first).join('/')}`, first, false);
  return { paths, complete };
}
