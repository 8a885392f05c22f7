import { lstatSync, readlinkSync } from 'node:fs';

/** The kernel's PATH_MAX, terminating null byte included. */
export const PATH_MAX = 4096;
/** The longest file name (one path component) of Linux file systems, in bytes. */
export const NAME_MAX = 255;
/** How many symbolic links one resolution may follow, as the kernel's MAXSYMLINKS. */
export const MAX_SYMLINKS = 40;

/**
 * How {@link resolvePath} reads a path.
 *
 * - `lexical`: what the text says. `..` folded against the text, no file system access, so a
 *   symbolic link is a name like any other. For a rule written about names, or a path a program
 *   only prints.
 * - `real`: where the kernel would land when the path is opened or created. Every symbolic link is
 *   followed (a dangling one to its target, since `open(O_CREAT)` creates the target), `..` is
 *   taken from the directory reached so far, and what does not exist yet is appended as named.
 *   For anything that guards access.
 */
export type ResolveMode = 'lexical' | 'real';

/** Options of {@link resolvePath}. */
export interface ResolvePathOptions {
  /** The absolute directory a relative path is taken from: the working directory of its opener. */
  readonly cwd: string;
  /** Which reading; see {@link ResolveMode}. There is no default: each layer picks deliberately. */
  readonly mode: ResolveMode;
  /**
   * The working directory of the process that will open the path, when that is not this process
   * (a shell command judged before it runs). In `real` mode `/proc/self/cwd`,
   * `/proc/thread-self/cwd` and `/proc/<pid>/cwd` (also under `task/<tid>/`) then lead to it and
   * `…/root` to `/`, instead of through this process's own magic links. Without it they are read
   * as this process sees them, which is right for a tool body running in this process.
   */
  readonly processCwd?: string;
}

/** Raised when a path cannot be resolved (a symbolic link loop, a permission error). */
export class PathResolutionError extends Error {
  /**
   * @param message what failed, naming the path that failed.
   * @param code the system error code (`ELOOP`, `EACCES`, …; `EUNKNOWN` when there was none).
   */
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'PathResolutionError';
  }
}

/**
 * Why a path argument is refused before it is resolved, or `undefined` when it is acceptable: not
 * a string, empty, with a null byte, longer than {@link PATH_MAX} or a component longer than
 * {@link NAME_MAX} (in bytes, as the kernel measures).
 */
export function pathShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') {
    return `must be a string (got ${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`;
  }
  if (value.length === 0) return 'is empty';
  if (value.includes('\0')) return 'contains a null byte';
  // Measured in bytes, as the kernel does; checked on length first so a huge string is not encoded.
  if (value.length >= PATH_MAX || Buffer.byteLength(value) >= PATH_MAX) {
    return `is longer than PATH_MAX (${PATH_MAX - 1} bytes)`;
  }
  for (const component of value.split('/')) {
    if (Buffer.byteLength(component) > NAME_MAX) {
      return `has a component longer than NAME_MAX (${NAME_MAX} bytes)`;
    }
  }
  return undefined;
}

/** The directory holding `path` (an absolute, normalised path); `/` for `/` itself. */
export const parentOf = (path: string): string => {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
};

/**
 * Whether `path` is `root` or lies below it, both absolute and normalised (`root` may end in
 * `/`). `/` holds every path; a sibling that shares a prefix (`/ab` for `/a`) is not inside.
 */
export const isInside = (path: string, root: string): boolean =>
  root === '/' || path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`);

/** Normalises `path` against the absolute `base` by its text alone: `.` dropped, `..` folded. */
export function lexicalAbsolute(path: string, base: string): string {
  const out: string[] = [];
  for (const component of (path.startsWith('/') ? path : `${base}/${path}`).split('/')) {
    if (component === '' || component === '.') continue;
    if (component === '..') out.pop();
    else out.push(component);
  }
  return `/${out.join('/')}`;
}

const checkInput = (path: unknown, options: ResolvePathOptions): void => {
  const fields: [string, unknown][] = [
    ['path', path],
    ['cwd', options?.cwd],
  ];
  if (options?.processCwd !== undefined) fields.push(['processCwd', options.processCwd]);
  for (const [name, value] of fields) {
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new TypeError(`resolvePath: ${name} must be a string without null bytes`);
    }
  }
  for (const [name, value] of fields.slice(1)) {
    if (!(value as string).startsWith('/'))
      throw new TypeError(`resolvePath: ${name} must be absolute (got "${value}")`);
  }
  if (options.mode !== 'lexical' && options.mode !== 'real') {
    throw new TypeError(
      `resolvePath: mode must be "lexical" or "real" (got ${String(options.mode)})`,
    );
  }
};

/**
 * The one path resolver of every policy: `path` as its opener in `cwd` reaches it, read as `mode`
 * says (see {@link ResolveMode}). Always an absolute, normalised path. Synchronous on purpose: a
 * path is a handful of lstat calls of a few microseconds each, where a trip through the thread
 * pool per call would cost more than all of them together.
 *
 * In `real` mode the walk is the kernel's: component by component from `/` (or `cwd`, itself
 * walked), every symbolic link followed, a dangling one to its target (where a creating tool
 * would write), `..` from the directory reached, a component that does not exist (or lies under a
 * regular file) appended as named.
 *
 * @throws {TypeError} when `path` or a directory is not a string, holds a null byte, or a
 *   directory is relative.
 * @throws {PathResolutionError} in `real` mode, on more than {@link MAX_SYMLINKS} links (a loop)
 *   or a file system error other than "does not exist" (`EACCES`, `ENAMETOOLONG`): the caller
 *   refuses the path rather than guess where it leads.
 */
export function resolvePath(path: string, options: ResolvePathOptions): string {
  checkInput(path, options);
  if (options.mode === 'lexical') return lexicalAbsolute(path, options.cwd);
  return walk(path.startsWith('/') ? path : `${options.cwd}/${path}`, options.processCwd);
}

/** `self`, `thread-self` or a pid: a `/proc` entry whose `cwd` and `root` are some process's. */
const PROC_PROCESS = /^(self|thread-self|[0-9]+)$/;

/** How a `/proc/<process>/…/cwd|root` alias at the top of `pending` continues, if it is one. */
function procAlias(pending: string[], processCwd: string): string[] | undefined {
  // `pending` is a stack: the next component is last.
  let at = pending.length - 1;
  if (pending[at] === 'task' && /^[0-9]+$/.test(pending[at - 1] ?? '')) at -= 2;
  const link = pending[at];
  if (link !== 'cwd' && link !== 'root') return undefined;
  const rest = pending.slice(0, at);
  // The process's directory is walked like any path: it may hold links of its own.
  return link === 'cwd' ? [...rest, ...processCwd.split('/').reverse()] : rest;
}

/** The kernel's walk of an absolute path (see {@link resolvePath}). */
function walk(absolute: string, processCwd: string | undefined): string {
  let current = '/';
  let pending = absolute.split('/').reverse();
  let links = 0;
  while (pending.length > 0) {
    const component = pending.pop()!;
    if (component === '' || component === '.') continue;
    if (component === '..') {
      current = parentOf(current);
      continue;
    }
    if (processCwd !== undefined && current === '/proc' && PROC_PROCESS.test(component)) {
      const aliased = procAlias(pending, processCwd);
      if (aliased !== undefined) {
        pending = aliased;
        current = '/';
        continue;
      }
    }
    const next = current === '/' ? `/${component}` : `${current}/${component}`;
    let isLink = false;
    try {
      // No throw for "does not exist", the common case of a path a tool creates.
      isLink = lstatSync(next, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      // Under a regular file: the rest is where a creating tool would name it (and fail).
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        throw new PathResolutionError(`cannot inspect "${next}" (${code})`, code);
      }
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > MAX_SYMLINKS) {
      throw new PathResolutionError(
        `more than ${MAX_SYMLINKS} symbolic links (a loop?) at "${next}"`,
        'ELOOP',
      );
    }
    let target: string;
    try {
      target = readlinkSync(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      throw new PathResolutionError(`cannot read the link "${next}" (${code})`, code);
    }
    if (target.startsWith('/')) current = '/';
    for (const part of target.split('/').reverse()) pending.push(part);
  }
  return current;
}
