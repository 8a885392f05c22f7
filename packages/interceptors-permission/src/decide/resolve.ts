import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, posix, resolve, sep } from 'node:path';
import type Picomatch from 'picomatch';
import { isDescriptorPath, unaliasProc } from '../shell/proc-alias';

let picomatchModule: typeof Picomatch | undefined;
/**
 * picomatch, required at the first path rule compiled rather than at import: a host that imports
 * the package (or the `dsh-tools` meta-package) without path rules never pays for it. A
 * synchronous require, because compiling rules and matching are synchronous (picomatch is
 * CommonJS, so this is the module an import would have given).
 */
const picomatch = (): typeof Picomatch =>
  (picomatchModule ??= createRequire(import.meta.url)('picomatch') as typeof Picomatch);

/** Where an argument path really leads, and where it seems to lead. */
export interface ResolvedPath {
  /** `path.resolve` of the argument: `..` folded textually, symlinks not followed. */
  readonly lexical: string;
  /** As the kernel walks it: each existing component's symlinks followed, `..` taken after them. */
  readonly real: string;
}

/** `~` and `~/x` to the home directory; other paths unchanged. */
export const expandHome = (path: string, home: string): string =>
  path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;

const realOrNull = (path: string): string | null => {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
};

/**
 * Resolves a path as the kernel would: relative to `cwd`, walking components in order so that
 * `link/..` leaves the symlink's target (not the link's directory), and for a path that does not
 * exist, resolving the deepest existing ancestor and re-appending the rest.
 */
export function resolveLikeKernel(path: string, cwd: string, home: string): ResolvedPath {
  const expanded = expandHome(path, home);
  const lexical = resolve(cwd, expanded);
  const absolute = isAbsolute(expanded);
  // No file name holds a NUL byte; the kernel refuses such a path, so there is nothing to follow.
  if (expanded.includes('\u0000') || isDescriptorPath(lexical)) return { lexical, real: lexical };
  const full = absolute ? expanded : `${cwd}/${expanded}`;
  // /proc/self/cwd and friends are the command's, not this process's: walked by hand.
  if (full.includes('/proc/')) {
    const real = kernelWalk(full, realCwd(cwd) ?? resolve(cwd));
    return { lexical: unaliasProc(lexical, cwd), real };
  }
  // Fast path: an existing path is resolved by realpath(3), which walks the unfolded string
  // exactly as the kernel does. stat first: a throw per missing path costs more than the syscall.
  if (statSync(full, { throwIfNoEntry: false }) !== undefined) {
    const whole = realOrNull(full);
    // A result in this process's directory that the command's is not may have come through a
    // symlink to /proc/self/cwd: walked by hand.
    if (whole !== null && !(throughHostCwd(whole, cwd) && !isInside(lexical, hostCwd())))
      return { lexical, real: whole };
    if (whole !== null) return { lexical, real: kernelWalk(full, realCwd(cwd) ?? resolve(cwd)) };
  }
  let current = absolute ? '/' : (realCwd(cwd) ?? resolve(cwd));
  let exists = true;
  for (const part of expanded.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = posix.dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    if (exists) {
      const st = lstatSync(next, { throwIfNoEntry: false });
      if (st === undefined) exists = false;
      else if (st.isSymbolicLink()) {
        const real = realOrNull(next);
        // A dangling link: where it points does not exist yet; keep its name.
        if (real !== null) {
          current = real;
          continue;
        }
        exists = false;
      }
    }
    current = next;
  }
  if (throughHostCwd(current, cwd) && !isInside(lexical, hostCwd()))
    return { lexical, real: kernelWalk(full, realCwd(cwd) ?? resolve(cwd)) };
  return { lexical, real: current };
}

let host: string | undefined;
/** This process's working directory, resolved (what /proc/self/cwd means here). */
const hostCwd = (): string => {
  host ??= realOrNull(process.cwd()) ?? process.cwd();
  return host;
};

/** Whether a resolved path lies in this process's directory while the command runs elsewhere. */
const throughHostCwd = (real: string, cwd: string): boolean => {
  const mine = hostCwd();
  const theirs = realCwd(cwd) ?? cwd;
  return mine !== theirs && isInside(real, mine) && !isInside(real, theirs);
};

/**
 * Resolves an absolute path component by component with readlink, as the kernel walks it, except
 * that `/proc/<self|thread-self|pid>/[task/<tid>/]cwd` is `cwd` and `…/root` is `/`: the command's
 * directory and root, not this process's. A path that does not exist keeps its remaining names.
 */
function kernelWalk(start: string, cwd: string): string {
  let pending = start.split('/');
  let current = '/';
  let exists = true;
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = posix.dirname(current);
      continue;
    }
    if (current === '/proc' && /^(self|thread-self|[0-9]+)$/.test(part)) {
      const skip = pending[0] === 'task' && /^[0-9]+$/.test(pending[1] ?? '') ? 2 : 0;
      const link = pending[skip];
      if (link === 'cwd' || link === 'root') {
        pending = pending.slice(skip + 1);
        current = link === 'cwd' ? cwd : '/';
        continue;
      }
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    if (exists) {
      const st = lstatSync(next, { throwIfNoEntry: false });
      if (st === undefined) exists = false;
      else if (st.isSymbolicLink() && hops++ < 40) {
        let target: string;
        try {
          target = readlinkSync(next);
        } catch {
          target = '';
        }
        if (target !== '') {
          pending = [...target.split('/'), ...pending];
          if (target.startsWith('/')) current = '/';
          continue;
        }
      }
    }
    current = next;
  }
  return current;
}

let lastCwd:
  | { readonly cwd: string; readonly real: string | null; readonly at: number }
  | undefined;
/** realpath of the working directory, reused for a moment (one decision resolves many operands). */
const realCwd = (cwd: string): string | null => {
  const now = Date.now();
  if (lastCwd?.cwd === cwd && now - lastCwd.at < 1000) return lastCwd.real;
  const real = realOrNull(cwd);
  lastCwd = { cwd, real, at: now };
  return real;
};

/** Whether `path` is `dir` or inside it. */
export const isInside = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

const GLOB_CHARS = /[*?[\]{}!]/;

/** A path rule's pattern, made absolute and ready to match. */
export interface PathPattern {
  /** The absolute glob as written (home, root and settings directory substituted). */
  readonly glob: string;
  readonly segments: readonly string[];
  readonly test: (path: string) => boolean;
}

const compile = (glob: string): PathPattern => {
  // A rule on a directory covers what is inside it, as a gitignore entry does.
  const matcher = picomatch()(glob.endsWith('/**') ? glob : [glob, `${glob}/**`], { dot: true });
  const segments = glob.split('/').filter((s) => s !== '');
  const literal: string[] = [];
  for (const s of segments) {
    if (GLOB_CHARS.test(s)) break;
    literal.push(s);
  }
  // Cheap rejection: a path outside the pattern's literal directory cannot match it.
  const prefix = `/${literal.join('/')}`;
  const dirPrefix = prefix === '/' ? '/' : `${prefix}/`;
  return {
    glob,
    segments,
    test: (path: string) => (path === prefix || path.startsWith(dirPrefix)) && matcher(path),
  };
};

/** The literal directory part of an absolute glob, with symlinks resolved. */
export const realPrefix = (glob: string, home: string): string => {
  const segments = glob.split('/');
  const literal: string[] = [];
  const rest: string[] = [];
  for (const s of segments) {
    if (rest.length > 0 || GLOB_CHARS.test(s)) rest.push(s);
    else literal.push(s);
  }
  const dir = literal.join('/') || '/';
  const real = resolveLikeKernel(dir, '/', home).real;
  return rest.length === 0 ? real : `${real === '/' ? '' : real}/${rest.join('/')}`;
};

/**
 * Compiles a `Read(...)` / `Edit(...)` specifier (gitignore style, Claude Code's prefixes) into one
 * or two patterns: as written, and with its literal directory's symlinks resolved, so that a rule
 * under a symlinked directory still matches the real paths the kernel reaches.
 *
 * | written | resolves against |
 * |---|---|
 * | `//abs/x` | the filesystem root |
 * | `~/x` | the home directory |
 * | `/x` | the directory of the settings file (or `root` for rules from options) |
 * | `./x`, `x/y` | `root` (the project, or `cwd`) |
 * | `x` (no slash) | any depth under `root` |
 */
export function compilePathSpec(
  spec: string,
  root: string,
  settingsDir: string,
  home: string,
): PathPattern[] {
  let glob: string;
  let body = spec;
  const directory = body.length > 1 && body.endsWith('/');
  if (directory) body = body.slice(0, -1);
  if (body.startsWith('//')) glob = posix.normalize(body.slice(1));
  else if (body === '~' || body.startsWith('~/')) glob = posix.join(home, body.slice(1));
  else if (body.startsWith('/')) glob = posix.join(settingsDir, body);
  else if (body.startsWith('./') || body === '.') glob = posix.join(root, body);
  else if (body.includes('/')) glob = posix.join(root, body);
  else glob = posix.join(root, '**', body);
  if (directory) glob = `${glob}/**`;
  const real = realPrefix(glob, home);
  return real === glob ? [compile(glob)] : [compile(glob), compile(real)];
}

const segmentsMatch = (a: string, b: string): boolean => {
  const aGlob = GLOB_CHARS.test(a);
  const bGlob = GLOB_CHARS.test(b);
  if (!aGlob && !bGlob) return a === b;
  if (aGlob && bGlob) return true;
  return aGlob
    ? picomatch().isMatch(b, a, { dot: true })
    : picomatch().isMatch(a, b, { dot: true });
};

/**
 * Whether some path matched by the glob `operand` (a shell glob argument, made absolute) could be
 * matched by `rule` (or lie inside what it matches). Over-approximates: two wildcard segments
 * always may meet, and `*` may match dotfiles (the shell's `dotglob` could be on).
 */
export function globsMayIntersect(operand: readonly string[], rule: readonly string[]): boolean {
  const memo = new Map<number, boolean>();
  const go = (i: number, j: number): boolean => {
    if (j === rule.length) return true;
    if (i === operand.length) return rule.slice(j).every((s) => s === '**');
    const key = i * 4096 + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const a = operand[i] as string;
    const b = rule[j] as string;
    let result: boolean;
    if (a === '**') result = go(i + 1, j) || go(i, j + 1) || go(i + 1, j + 1);
    else if (b === '**') result = go(i, j + 1) || go(i + 1, j);
    else result = segmentsMatch(a, b) && go(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return go(0, 0);
}

/** A shell glob operand (`src/*.ts`, `~/.ssh/*`) as absolute segments, its directory resolved. */
export function operandGlobSegments(value: string, cwd: string, home: string): string[] {
  const expanded = expandHome(value, home);
  const absolute = unaliasProc(isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`, cwd);
  return realPrefix(posix.normalize(absolute), home)
    .split('/')
    .filter((s) => s !== '');
}
