import { lstatSync, readlinkSync } from 'node:fs';

/** The kernel's PATH_MAX, terminating null byte included. */
export const PATH_MAX = 4096;
/** The longest file name (one path component) of Linux file systems, in bytes. */
export const NAME_MAX = 255;
/** How many symbolic links one resolution may follow, as the kernel's MAXSYMLINKS. */
export const MAX_SYMLINKS = 40;

/** Why a path argument is refused before it is resolved, or `undefined` when it is acceptable. */
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

/** Raised when a path cannot be resolved (a symlink loop, a permission error). */
export class PathResolutionError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'PathResolutionError';
  }
}

/** The directory holding `path` (an absolute, normalised path); `/` for `/` itself. */
export const parentOf = (path: string): string => {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
};

/**
 * Resolves `path` the way the kernel walks it, for a process whose working directory is `base`
 * (an absolute, already-resolved directory): component by component, following every symbolic
 * link (a dangling one to its target, repeatedly), `..` taken from the directory reached so far
 * rather than from the text (after a symlinked directory, `..` is the target's parent). Components
 * that do not exist yet are appended as they are, so a path that a tool would create resolves to
 * where it would be created, through any symlinked parent. Throws {@link PathResolutionError} on
 * more than {@link MAX_SYMLINKS} links or an error other than "does not exist".
 */
export async function resolveLikeKernel(path: string, base: string): Promise<string> {
  for (const [name, value] of [
    ['path', path],
    ['base', base],
  ] as const) {
    if (typeof value !== 'string' || value.includes('\0')) {
      throw new TypeError(`resolveLikeKernel: ${name} must be a string without null bytes`);
    }
  }
  if (!base.startsWith('/')) throw new TypeError('resolveLikeKernel: base must be absolute');
  return resolveLikeKernelSync(path, base);
}

/**
 * {@link resolveLikeKernel}, synchronously. The sandbox resolves with synchronous calls: a path is
 * a handful of lstat calls of a few microseconds each, where a trip through the thread pool per
 * call would cost more than all of them together, on every tool call and every run.
 */
export function resolveLikeKernelSync(path: string, base: string): string {
  let current = path.startsWith('/') ? '/' : base;
  const pending = path.split('/').reverse();
  let links = 0;
  while (pending.length > 0) {
    const component = pending.pop()!;
    if (component === '' || component === '.') continue;
    if (component === '..') {
      current = parentOf(current);
      continue;
    }
    const next = current === '/' ? `/${component}` : `${current}/${component}`;
    let isLink = false;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      // Absent (or under a file): the rest is where a creating tool would put it.
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

/** Normalises an absolute path lexically (no file system access): what the text says. */
export function lexicalAbsolute(path: string, base: string): string {
  const out: string[] = [];
  for (const component of (path.startsWith('/') ? path : `${base}/${path}`).split('/')) {
    if (component === '' || component === '.') continue;
    if (component === '..') out.pop();
    else out.push(component);
  }
  return `/${out.join('/')}`;
}

/** Whether `path` is `root` or lies below it (both absolute and normalised). */
export const isInside = (path: string, root: string): boolean =>
  root === '/' || path === root || path.startsWith(`${root}/`);
