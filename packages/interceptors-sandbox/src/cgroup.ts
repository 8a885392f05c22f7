import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import type { ResolvedLimits } from './limits';

/** Where this process may create cgroups of its own, per controller. */
interface CgroupHost {
  readonly version: 1 | 2;
  /** The directory runs' cgroups are made in, per controller (one for v2: the same). */
  readonly pids?: string;
  readonly memory?: string;
}

/** One run's cgroups: the files the launcher writes its pid into, and how to read and remove them. */
export interface RunCgroup {
  /** `cgroup.procs` files the launcher joins before it starts bubblewrap. */
  readonly procs: readonly string[];
  /** Whether the cgroup counts processes (then `RLIMIT_NPROC` is not needed). */
  readonly countsProcesses: boolean;
  /** What the run ran into, read after it ended. */
  usage(): CgroupUsage;
  /** Removes the run's cgroups (they must be empty: the run has ended). */
  remove(): void;
}

/** What a run's cgroups recorded. */
export interface CgroupUsage {
  /** How many forks the process limit refused. */
  readonly processesRefused: number;
  /** Whether the memory limit killed a process. */
  readonly memoryKilled: boolean;
  /** The most memory the run held at once, in bytes, where the kernel says. */
  readonly memoryPeakBytes?: number;
}

const read = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};

const field = (text: string, name: string): number => {
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};

/** cgroup mounts and this process's place in them, from /proc. */
function findHost(): CgroupHost | undefined {
  const membership = read('/proc/self/cgroup');
  const mounts = read('/proc/self/mountinfo').split('\n');
  const mountOf = (
    fstype: string,
    controller?: string,
  ): { point: string; root: string } | undefined => {
    for (const line of mounts) {
      const [left, right] = line.split(' - ');
      if (!left || !right) continue;
      const [type, , options = ''] = right.split(' ');
      if (type !== fstype) continue;
      if (controller && !options.split(',').includes(controller)) continue;
      const parts = left.split(' ');
      return { root: parts[3]!, point: parts[4]! };
    }
    return undefined;
  };
  const join = (m: { point: string; root: string }, path: string) => {
    const rel = m.root !== '/' && path.startsWith(m.root) ? path.slice(m.root.length) : path;
    return `${m.point}${rel === '/' ? '' : rel}`;
  };
  const v1: { pids?: string; memory?: string } = {};
  let v2Path: string | undefined;
  for (const line of membership.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') v2Path = m[3];
    for (const c of ['pids', 'memory'] as const) {
      if (m[2]!.split(',').includes(c)) {
        const mount = mountOf('cgroup', c);
        if (mount) v1[c] = join(mount, m[3]!);
      }
    }
  }
  if (v1.pids || v1.memory) return { version: 1, ...v1 };
  if (v2Path !== undefined) {
    const mount = mountOf('cgroup2');
    if (!mount) return undefined;
    const dir = join(mount, v2Path);
    // A child gets a controller only if this cgroup hands it down; v2 forbids handing down from a
    // cgroup that holds processes itself, so this works only where a delegating manager set it up.
    const delegated = read(`${dir}/cgroup.subtree_control`).split(/\s+/);
    const pids = delegated.includes('pids') ? dir : undefined;
    const memory = delegated.includes('memory') ? dir : undefined;
    if (pids || memory) return { version: 2, ...(pids && { pids }), ...(memory && { memory }) };
  }
  return undefined;
}

let host: CgroupHost | null | undefined;
let counter = 0;
/** This process's directories of run cgroups, removed when it exits (they are empty by then). */
const bases = new Set<string>();
const removeBases = () => {
  for (const base of bases) {
    try {
      rmdirSync(base);
    } catch {}
  }
};

/** Makes `dir/name`, or says it could not. */
const makeDir = (dir: string): boolean => {
  try {
    mkdirSync(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
};

/**
 * Creates cgroups for one run with the process and memory limits, where the host lets this
 * process (root, or a delegated manager). `undefined` where it cannot: the rlimits still apply.
 */
export function createRunCgroup(limits: ResolvedLimits): RunCgroup | undefined {
  if (host === undefined) host = findHost() ?? null;
  if (host === null) return undefined;
  const h = host;
  const name = `dsh-sandbox-${process.pid}/run-${++counter}`;
  const noteBase = (controllerDir: string) => {
    if (bases.size === 0) process.once('exit', removeBases);
    bases.add(`${controllerDir}/dsh-sandbox-${process.pid}`);
  };
  const made: string[] = [];
  try {
    let pids: string | undefined;
    let memory: string | undefined;
    if (h.pids !== undefined) {
      const dir = `${h.pids}/${name}`;
      if (makeDir(dir)) {
        noteBase(h.pids);
        made.push(dir);
        writeFileSync(`${dir}/pids.max`, String(limits.processes));
        pids = dir;
      }
    }
    if (h.memory !== undefined) {
      const dir = h.version === 2 && pids !== undefined ? pids : `${h.memory}/${name}`;
      if (dir === pids || makeDir(dir)) {
        if (dir !== pids) {
          noteBase(h.memory);
          made.push(dir);
        }
        const bytes = String(limits.memoryBytes);
        if (h.version === 1) {
          writeFileSync(`${dir}/memory.limit_in_bytes`, bytes);
          // Swap counted too where the kernel accounts it, so the limit is not doubled by swap.
          try {
            writeFileSync(`${dir}/memory.memsw.limit_in_bytes`, bytes);
          } catch {}
        } else {
          writeFileSync(`${dir}/memory.max`, bytes);
          try {
            writeFileSync(`${dir}/memory.swap.max`, '0');
          } catch {}
        }
        memory = dir;
      }
    }
    if (pids === undefined && memory === undefined) {
      host = null;
      return undefined;
    }
    const dirs = [...new Set([pids, memory].filter((d): d is string => d !== undefined))];
    return {
      procs: dirs.map((d) => `${d}/cgroup.procs`),
      countsProcesses: pids !== undefined,
      usage() {
        const processesRefused = pids ? field(read(`${pids}/pids.events`), 'max') : 0;
        if (memory === undefined) return { processesRefused, memoryKilled: false };
        if (h.version === 1) {
          const oom = field(read(`${memory}/memory.oom_control`), 'oom_kill');
          const peak = Number(read(`${memory}/memory.max_usage_in_bytes`).trim()) || undefined;
          return {
            processesRefused,
            memoryKilled: oom > 0,
            ...(peak !== undefined && { memoryPeakBytes: peak }),
          };
        }
        const events = read(`${memory}/memory.events`);
        const peak = Number(read(`${memory}/memory.peak`).trim()) || undefined;
        return {
          processesRefused,
          memoryKilled: field(events, 'oom_kill') > 0,
          ...(peak !== undefined && { memoryPeakBytes: peak }),
        };
      },
      remove() {
        for (const dir of [...made].reverse()) {
          // An unconfined run's background process may still be in it: it goes with the run.
          for (const pid of read(`${dir}/cgroup.procs`).split('\n').filter(Boolean)) {
            try {
              process.kill(Number(pid), 'SIGKILL');
            } catch {}
          }
          try {
            rmdirSync(dir);
          } catch {}
        }
      },
    };
  } catch {
    // Not permitted after all (a read-only or foreign hierarchy): do without, every time.
    for (const dir of made.reverse()) {
      try {
        rmdirSync(dir);
      } catch {}
    }
    host = null;
    return undefined;
  }
}
