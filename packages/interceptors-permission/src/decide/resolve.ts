import { isAbsolute, join, posix, resolve } from 'node:path';
import { GLOB_CHARS, globMatcher, globMatches, resolvePath } from '@dsh-tools/policy-kit';
import { isDescriptorPath, unaliasProc } from '../shell/proc-alias';

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

/**
 * Resolves a path as the kernel would for the command, through the policy kit's `resolvePath`:
 * relative to `cwd`, walking components in order so that `link/..` leaves the symlink's target
 * (not the link's directory), following a dangling link to the target a write would create (as
 * the sandbox does: one path, one verdict in both layers), and reading `/proc/self/cwd` and its
 * kin as the command's directory rather than this process's. Throws the kit's
 * `PathResolutionError` on a link loop or an unreadable directory: the caller denies (fail closed).
 */
export function resolveLikeKernel(path: string, cwd: string, home: string): ResolvedPath {
  const expanded = expandHome(path, home);
  const lexical = resolve(cwd, expanded);
  // No file name holds a NUL byte; the kernel refuses such a path, so there is nothing to follow.
  if (expanded.includes('\u0000') || isDescriptorPath(lexical)) return { lexical, real: lexical };
  const opener = resolve(cwd);
  const real = resolvePath(expanded, { cwd: opener, mode: 'real', processCwd: opener });
  const full = isAbsolute(expanded) ? expanded : `${cwd}/${expanded}`;
  return { lexical: full.includes('/proc/') ? unaliasProc(lexical, cwd) : lexical, real };
}

// Containment is the policy kit's: `/` holds every path, `/ab` is not inside `/a`.
export { isInside } from '@dsh-tools/policy-kit';

/** A path rule's pattern, made absolute and ready to match. */
export interface PathPattern {
  /** The absolute glob as written (home, root and settings directory substituted). */
  readonly glob: string;
  readonly segments: readonly string[];
  readonly test: (path: string) => boolean;
}

const compile = (glob: string): PathPattern => {
  // A rule on a directory covers what is inside it, as a gitignore entry does. The dialect is the
  // policy kit's, the one the sandbox's plain globs are a subset of.
  const matcher = globMatcher(glob.endsWith('/**') ? glob : [glob, `${glob}/**`]);
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
  return aGlob ? globMatches(b, a) : globMatches(a, b);
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
