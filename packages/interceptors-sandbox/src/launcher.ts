import { isExecutable } from './find-bwrap';

/**
 * The launcher: a bash, started on the host, that prepares the process bubblewrap will become and
 * then becomes it (`exec`), so nothing of it stays behind.
 *
 * - Every descriptor but stdio and the ones bubblewrap reads (its status, seccomp program and
 *   argument pipes) is closed: a host that inherited descriptors without close-on-exec (a
 *   terminal, a directory, a socket) would otherwise hand them to every sandboxed process.
 * - The rlimits are set, hard and soft, so no process inside can raise them.
 * - The run's cgroups are joined, so every process bubblewrap starts is counted in them.
 *
 * bash runs with `-p`: it then ignores BASH_ENV, ENV, SHELLOPTS and functions in its environment,
 * and it is started with an empty environment when bubblewrap follows (the sandbox's variables
 * reach bubblewrap through its argument pipe, not through this process). Its arguments:
 * `<kept fds> <n> <n cgroup.procs files> <hard ulimit args> -- <soft ulimit args> -- <program> <args…>`.
 */
const SCRIPT = `IFS=$' \\t\\n'
keep=" $1 "; shift
n=$1; shift
procs=()
while [ "$n" -gt 0 ]; do procs+=("$1"); shift; n=$((n - 1)); done
hard=()
while [ "$1" != -- ]; do hard+=("$1"); shift; done
shift
soft=()
while [ "$1" != -- ]; do soft+=("$1"); shift; done
shift
for f in /proc/self/fd/*; do
  fd=\${f##*/}
  case $keep in *" $fd "*) continue ;; esac
  if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null; fi
done
# Soft first: a hard limit below the current soft one is refused.
ulimit "\${soft[@]}" && ulimit "\${hard[@]}" || { echo "dsh-sandbox: could not set the resource limits (ulimit \${soft[*]}; ulimit \${hard[*]})" >&2; exit 125; }
for p in \${procs[@]+"\${procs[@]}"}; do
  echo $$ >"$p" || { echo "dsh-sandbox: could not enter the run's cgroup $p" >&2; exit 125; }
done
exec "$@"
`;

/** The exit code the launcher uses when it cannot prepare the run. */
export const LAUNCHER_FAILED = 125;

let bash: string | null | undefined;

/** The host's bash, or `undefined` where there is none. */
export function findBash(): string | undefined {
  if (bash === undefined) bash = ['/bin/bash', '/usr/bin/bash'].find(isExecutable) ?? null;
  return bash ?? undefined;
}

/** What the launcher needs for one run. */
export interface LaunchPlan {
  /** Descriptors above stderr that stay open for the program (bubblewrap's pipes). */
  readonly keepFds: readonly number[];
  /** `cgroup.procs` files to join. */
  readonly cgroupProcs: readonly string[];
  /** Arguments of bash's `ulimit`: the hard limits, `--`, the soft ones (see `ulimitArgs`). */
  readonly ulimit: readonly string[];
  /** The program and its arguments. */
  readonly argv: readonly string[];
}

/** The launcher's argv after the bash executable. */
export function launcherArgs(plan: LaunchPlan): string[] {
  return [
    '-p',
    '-c',
    SCRIPT,
    'dsh-sandbox-launcher',
    plan.keepFds.join(' '),
    String(plan.cgroupProcs.length),
    ...plan.cgroupProcs,
    ...plan.ulimit,
    '--',
    ...plan.argv,
  ];
}
