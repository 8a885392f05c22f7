/**
 * `/proc/self/cwd`, `/proc/thread-self/cwd` and `/proc/<pid>/cwd` are the shell's working
 * directory, `/proc/…/root` its root: resolved on the host they would name the host process's own,
 * which is not where the command runs. Returns the path with the alias replaced by `cwd` (or `/`),
 * or the path unchanged. A pid is taken as the shell's own (the only one a command line can name
 * without a substitution, which is not known before it runs anyway).
 */
export function unaliasProc(path: string, cwd: string): string {
  // One alias may hold another (`/proc/self/root/proc/self/cwd`): unalias until none is left.
  for (let i = 0; i < 8; i++) {
    const next = unaliasOnce(path, cwd);
    if (next === path) return path;
    path = next;
  }
  return path;
}

function unaliasOnce(path: string, cwd: string): string {
  if (!path.startsWith('/proc/')) return path;
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const who = parts[1] ?? '';
  if (parts[0] !== 'proc' || !(who === 'self' || who === 'thread-self' || /^[0-9]+$/.test(who)))
    return path;
  let at = 2;
  if (parts[at] === 'task' && /^[0-9]+$/.test(parts[at + 1] ?? '')) at += 2;
  const link = parts[at];
  if (link !== 'cwd' && link !== 'root') return path;
  const rest = parts.slice(at + 1).join('/');
  const base = link === 'cwd' ? cwd : '';
  return `${base}/${rest}`.replace(/\/+$/, '') || '/';
}

/** File descriptors and standard streams: where they lead is the shell's, not the host's. */
export const isDescriptorPath = (path: string): boolean =>
  /^\/(dev\/(fd\/|stdin$|stdout$|stderr$)|proc\/(self|thread-self|[0-9]+)\/fd\/)/.test(path);
