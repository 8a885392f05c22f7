import { readFileSync } from 'node:fs';

/**
 * Resource limits of one sandboxed run. Each is enforced by what the host offers: rlimits always
 * (set by the launcher before bubblewrap starts, inherited by every process inside), cgroups where
 * the host lets this process create them (processes and memory), tmpfs sizes by bubblewrap.
 */
export interface SandboxLimits {
  /**
   * Processes and threads alive at once (default 1,024): a cgroup's `pids.max` where cgroups are
   * delegated, else `RLIMIT_NPROC` (which the kernel does not apply to root).
   */
  readonly processes?: number;
  /** Memory in bytes, page cache included (default 4 GiB): a cgroup's limit where delegated. */
  readonly memoryBytes?: number;
  /** Address space of each process in bytes (default 16 GiB): `RLIMIT_AS`, everywhere. */
  readonly addressSpaceBytes?: number;
  /** The largest file a process may write, in bytes (default 1 GiB): `RLIMIT_FSIZE`. */
  readonly fileSizeBytes?: number;
  /** Open descriptors per process (default 1,024): `RLIMIT_NOFILE`. */
  readonly openFiles?: number;
  /** CPU seconds per process (default 600): `RLIMIT_CPU`; the process gets SIGXCPU, then SIGKILL. */
  readonly cpuSeconds?: number;
  /** Size of the fresh in-memory `/tmp` in bytes (default 512 MiB; not in `full-access`). */
  readonly tmpBytes?: number;
  /** Size of the fresh in-memory `/dev/shm` in bytes (default 64 MiB). */
  readonly shmBytes?: number;
}

/** Every limit, filled in. */
export type ResolvedLimits = { readonly [K in keyof SandboxLimits]-?: number };

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** The defaults: room for builds and test suites, not for a runaway loop to take the host. */
export const DEFAULT_LIMITS: ResolvedLimits = Object.freeze({
  processes: 1024,
  memoryBytes: 4 * GiB,
  addressSpaceBytes: 16 * GiB,
  fileSizeBytes: GiB,
  openFiles: 1024,
  cpuSeconds: 600,
  tmpBytes: 512 * MiB,
  shmBytes: 64 * MiB,
});

/** The accepted range of each limit: below the minimum an ordinary shell cannot start. */
const RANGES: { readonly [K in keyof ResolvedLimits]: readonly [number, number] } = {
  processes: [8, 4_194_304],
  memoryBytes: [16 * MiB, 2 ** 50],
  addressSpaceBytes: [64 * MiB, 2 ** 50],
  fileSizeBytes: [4096, 2 ** 50],
  openFiles: [16, 1_048_576],
  cpuSeconds: [1, 31_536_000],
  tmpBytes: [MiB, 2 ** 50],
  shmBytes: [MiB, 2 ** 50],
};

export const LIMIT_NAMES = Object.keys(RANGES) as (keyof ResolvedLimits)[];

/**
 * Validates the `limits` option and fills in the defaults; `fail` throws the caller's TypeError
 * with the message given.
 */
export function resolveLimits(value: unknown, fail: (message: string) => never): ResolvedLimits {
  if (value === undefined) return DEFAULT_LIMITS;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail('option "limits" must be an object like { processes: 256 }');
  }
  const given = value as Record<string, unknown>;
  const out: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, v] of Object.entries(given)) {
    const range = RANGES[key as keyof ResolvedLimits];
    if (range === undefined) {
      return fail(`unknown option "limits.${key}" (known: ${LIMIT_NAMES.join(', ')})`);
    }
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < range[0] || v > range[1]) {
      return fail(
        `option "limits.${key}" must be an integer from ${range[0]} to ${range[1]} (got ${typeof v === 'number' ? v : typeof v})`,
      );
    }
    out[key] = v;
  }
  return Object.freeze(out) as ResolvedLimits;
}

/** The hard limits this process already has (`/proc/self/limits`), in the units of setrlimit. */
function currentHardLimits(): ReadonlyMap<string, number> {
  const hard = new Map<string, number>();
  let text = '';
  try {
    text = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return hard;
  }
  for (const line of text.split('\n').slice(1)) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (m && m[3] !== 'unlimited') hard.set(m[1]!, Number(m[3]));
  }
  return hard;
}

let hardLimits: ReadonlyMap<string, number> | undefined;

/**
 * bash `ulimit` arguments for the launcher: the hard limits, then `--`, then the soft ones, never
 * above the hard limit the host process already has (raising it would fail, and a lower one is
 * already stricter). The CPU limit's hard value is one second above the soft one, so a process
 * gets SIGXCPU (which says why) before the kernel's SIGKILL. `withNproc` is false where a cgroup
 * counts processes instead.
 */
export function ulimitArgs(limits: ResolvedLimits, withNproc: boolean): string[] {
  hardLimits ??= currentHardLimits();
  const cap = (name: string, value: number) => Math.min(value, hardLimits!.get(name) ?? value);
  const cpuHard = cap('Max cpu time', limits.cpuSeconds + 1);
  const common = [
    ...(withNproc ? ['-u', String(cap('Max processes', limits.processes))] : []),
    '-v',
    String(Math.floor(cap('Max address space', limits.addressSpaceBytes) / 1024)),
    // bash counts -f in blocks of 1,024 bytes (outside POSIX mode).
    '-f',
    String(Math.floor(cap('Max file size', limits.fileSizeBytes) / 1024)),
    '-n',
    String(cap('Max open files', limits.openFiles)),
    '-c',
    '0',
  ];
  return [
    '-H',
    ...common,
    '-t',
    String(cpuHard),
    '--',
    '-S',
    ...common,
    '-t',
    String(Math.min(limits.cpuSeconds, cpuHard)),
  ];
}
