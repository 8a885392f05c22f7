import { accessSync, constants, statSync } from 'node:fs';

/** Whether `path` is an executable regular file (links followed). */
export const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Where bubblewrap is: the configured path, else `bwrap` on the host's PATH, else /usr/bin. */
export function findBwrap(configured?: string): string | undefined {
  if (configured !== undefined) {
    const usable =
      typeof configured === 'string' && configured.startsWith('/') && !configured.includes('\0');
    return usable && isExecutable(configured) ? configured : undefined;
  }
  const dirs = (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/'));
  for (const dir of [...dirs, '/usr/bin', '/usr/local/bin']) {
    if (isExecutable(`${dir}/bwrap`)) return `${dir}/bwrap`;
  }
  return undefined;
}

const located = new Map<string, string>();

/**
 * {@link findBwrap}, remembered once found: every call gets a runner of its own, and looking along
 * PATH each time would cost more than the checks. Absence is not remembered, so installing
 * bubblewrap takes effect without a restart; a binary removed later fails at spawn, closed.
 */
export function locateBwrap(configured: string | undefined): string | undefined {
  const key = configured ?? '';
  let path = located.get(key);
  if (path === undefined) {
    path = findBwrap(configured);
    if (path !== undefined) located.set(key, path);
  }
  return path;
}

/** The message of a runner that cannot confine: what is missing and how to get it. */
export function bwrapMissingMessage(who: string, configured?: string): string {
  const where = configured ? `at "${configured}"` : 'on PATH or in /usr/bin';
  const platform =
    process.platform === 'linux'
      ? ''
      : ` bubblewrap runs on Linux only (this is ${process.platform}).`;
  return (
    `${who}: cannot confine the command: bubblewrap (bwrap) was not found ${where}.${platform} ` +
    'Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; ' +
    'Alpine: apk add bubblewrap), or set allowUnsandboxed: true to run commands unconfined.'
  );
}
