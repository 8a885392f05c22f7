import type { ResolvedLimits } from './limits';
import type { Masks } from './masks';
import type { SandboxMode } from './types';

/** The descriptors bubblewrap reads in the launched process: its status, the filter, the args. */
export const STATUS_FD = 3;
export const SECCOMP_FD = 4;
export const ARGS_FD = 5;

/** Everything bubblewrap needs to know about one run. */
export interface BwrapPlan {
  readonly mode: SandboxMode;
  readonly network: boolean;
  /** Resolved writable roots (workspace-write only). */
  readonly writableRoots: readonly string[];
  /** Host directories replaced by an empty tmpfs (/tmp but in full-access; /run). */
  readonly emptied: readonly string[];
  /** Paths under the emptied directories that must stay visible (the cwd), bound read-only. */
  readonly readonlyBinds: readonly string[];
  /** Directories bound onto themselves so that nothing protected below them can be moved. */
  readonly pins: readonly string[];
  readonly masks: Masks;
  readonly limits: ResolvedLimits;
  /** Whether a seccomp program is handed over on {@link SECCOMP_FD}. */
  readonly seccomp: boolean;
  /** Resolved working directory. */
  readonly cwd: string;
  readonly argv: readonly string[];
}

/**
 * bubblewrap's arguments for a run. Order matters: later mounts cover earlier ones, so the
 * read-only `/` comes first, then the fresh /dev, /proc, /tmp and /run, then the writable roots,
 * the pins, and the deny-list masks last so that nothing re-exposes what they hide.
 *
 * Every namespace is unshared (`--unshare-all`; the network only comes back with `--share-net`),
 * all capabilities are dropped and no further user namespace can be created: as root, a process
 * that keeps CAP_SYS_ADMIN can remount `/` read-write and write to the host. /dev and /run are made
 * read-only once set up (their tmpfs would otherwise take whatever a process writes into host
 * memory); /tmp and /dev/shm are writable and sized.
 *
 * The environment comes first, through the argument pipe (`--args`): it is not visible in
 * `/proc/<pid>/cmdline` as argv is, and bubblewrap itself starts with no environment at all, so
 * a variable such as LD_PRELOAD given to a run reaches only the sandboxed program.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--args',
    String(ARGS_FD),
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    ...(plan.seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
    ...(plan.mode === 'full-access' ? ['--bind', '/', '/'] : ['--ro-bind', '/', '/']),
    '--dev',
    '/dev',
    '--size',
    String(plan.limits.shmBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const dir of plan.emptied) {
    if (dir === '/tmp') args.push('--size', String(plan.limits.tmpBytes), '--tmpfs', dir);
    else args.push('--tmpfs', dir);
  }
  for (const root of plan.writableRoots) args.push('--bind', root, root);
  for (const path of plan.readonlyBinds) args.push('--ro-bind', path, path);
  // Emptied directories other than /tmp (/run) hold nothing a process needs to write.
  for (const dir of plan.emptied) if (dir !== '/tmp') args.push('--remount-ro', dir);
  for (const dir of plan.pins) args.push('--bind', dir, dir);
  for (const path of plan.masks.freeze) args.push('--ro-bind', path, path);
  for (const path of plan.masks.hideFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of plan.masks.hideDirs) args.push('--tmpfs', path, '--remount-ro', path);
  args.push('--chdir', plan.cwd, '--json-status-fd', String(STATUS_FD), '--', ...plan.argv);
  return args;
}

/** The environment as bubblewrap's `--args` content: NUL-separated, cleared first. */
export function envArgs(env: Readonly<Record<string, string>>): Buffer {
  const parts = ['--clearenv'];
  for (const [name, value] of Object.entries(env)) parts.push('--setenv', name, value);
  return Buffer.from(`${parts.join('\0')}\0`, 'utf8');
}
