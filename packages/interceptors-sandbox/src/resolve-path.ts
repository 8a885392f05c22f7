import { resolvePath } from '@dsh-tools/policy-kit';

export {
  isInside,
  lexicalAbsolute,
  MAX_SYMLINKS,
  NAME_MAX,
  PATH_MAX,
  PathResolutionError,
  parentOf,
  pathShapeProblem,
} from '@dsh-tools/policy-kit';

/**
 * Resolves `path` the way the kernel walks it, for a process whose working directory is `base`
 * (an absolute directory): the policy kit's `resolvePath` in `real` mode, so that the sandbox and
 * the permission layer judge one path alike. Every symbolic link is followed (a dangling one to
 * its target, repeatedly), `..` is taken from the directory reached so far, and components that do
 * not exist yet are appended as they are, so a path that a tool would create resolves to where it
 * would be created. Rejects with `PathResolutionError` on more than `MAX_SYMLINKS` links or an
 * error other than "does not exist".
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
 * {@link resolveLikeKernel}, synchronously: the form the sandbox itself uses on every tool call
 * and every run (see `resolvePath` for why synchronous is the faster form here).
 */
export const resolveLikeKernelSync = (path: string, base: string): string =>
  resolvePath(path, { cwd: base, mode: 'real' });
