import type { Masks } from './masks';
import type { SandboxMode } from './types';

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
  readonly masks: Masks;
  /** Resolved working directory. */
  readonly cwd: string;
  readonly argv: readonly string[];
}

/**
 * bubblewrap's arguments for a run. Order matters: later mounts cover earlier ones, so the
 * read-only `/` comes first, then the fresh /dev, /proc, /tmp and /run, then the writable roots, and
 * the deny-list masks last so that nothing re-exposes what they hide.
 *
 * Every namespace is unshared (`--unshare-all`; the network only comes back with `--share-net`),
 * all capabilities are dropped and no further user namespace can be created: as root, a process
 * that keeps CAP_SYS_ADMIN can remount `/` read-write and write to the host.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-all',
    ...(plan.network ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--cap-drop',
    'ALL',
    ...(plan.mode === 'full-access' ? ['--bind', '/', '/'] : ['--ro-bind', '/', '/']),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const dir of plan.emptied) args.push('--tmpfs', dir);
  for (const root of plan.writableRoots) args.push('--bind', root, root);
  for (const path of plan.readonlyBinds) args.push('--ro-bind', path, path);
  for (const path of plan.masks.freeze) args.push('--ro-bind', path, path);
  for (const path of plan.masks.hideFiles) args.push('--ro-bind', '/dev/null', path);
  for (const path of plan.masks.hideDirs) args.push('--tmpfs', path, '--remount-ro', path);
  args.push('--chdir', plan.cwd, '--json-status-fd', '3', '--', ...plan.argv);
  return args;
}
