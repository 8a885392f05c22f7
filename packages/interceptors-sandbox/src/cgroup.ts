import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
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
  /** Gives the run's cgroups back once the run has ended (kept for the next run when empty). */
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
/** Run cgroups that are empty and ready for the next run, by the limits they were made with. */
const idle = new Map<string, Made[]>();
/** Every run cgroup this process made, removed when it exits. */
const everyMade = new Set<string>();
const removeAll = () => {
  for (const dir of [...everyMade].reverse()) {
    try {
      rmdirSync(dir);
    } catch {}
  }
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

/** One run cgroup as made: its directories per controller. */
interface Made {
  readonly version: 1 | 2;
  readonly pids?: string;
  readonly memory?: string;
  readonly dirs: readonly string[];
}

/** The counters a run's usage is measured from (they only grow, so a run reads a difference). */
interface Counters {
  readonly processesRefused: number;
  readonly oomKills: number;
}

const countersOf = (m: Made): Counters => ({
  processesRefused: m.pids ? field(read(`${m.pids}/pids.events`), 'max') : 0,
  oomKills: m.memory
    ? field(
        read(m.version === 1 ? `${m.memory}/memory.oom_control` : `${m.memory}/memory.events`),
        'oom_kill',
      )
    : 0,
});

/** Makes the cgroups of a run with `limits`, or `undefined` where the host does not let it. */
function make(h: CgroupHost, limits: ResolvedLimits): Made | undefined {
  const name = `dsh-sandbox-${process.pid}/run-${++counter}`;
  const made: string[] = [];
  const noteBase = (controllerDir: string) => {
    if (bases.size === 0) process.once('exit', removeAll);
    bases.add(`${controllerDir}/dsh-sandbox-${process.pid}`);
  };
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
    if (pids === undefined && memory === undefined) return undefined;
    for (const d of made) everyMade.add(d);
    return { version: h.version, ...(pids && { pids }), ...(memory && { memory }), dirs: made };
  } catch {
    for (const dir of made.reverse()) {
      try {
        rmdirSync(dir);
      } catch {}
    }
    return undefined;
  }
}

/** Removes run cgroups left by processes of this kind that died without removing them. */
function removeStale(h: CgroupHost): void {
  for (const controller of new Set([h.pids, h.memory])) {
    if (controller === undefined) continue;
    let entries: string[];
    try {
      entries = readdirSync(controller);
    } catch {
      continue;
    }
    for (const entry of entries) {
      const pid = /^dsh-sandbox-(\d+)$/.exec(entry)?.[1];
      if (pid === undefined || Number(pid) === process.pid || existsSync(`/proc/${pid}`)) continue;
      const base = `${controller}/${entry}`;
      try {
        for (const run of readdirSync(base))
          if (run.startsWith('run-')) rmdirSync(`${base}/${run}`);
        rmdirSync(base);
      } catch {}
    }
  }
}

/** Kills what is still in a cgroup (an unconfined run's background process) and says if it is empty. */
function empty(m: Made): boolean {
  let clean = true;
  for (const dir of m.dirs) {
    for (const pid of read(`${dir}/cgroup.procs`).split('\n').filter(Boolean)) {
      clean = false;
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
  }
  return clean;
}

/**
 * The cgroups for one run with the process and memory limits, where the host lets this process
 * make them (root, or a delegated manager); `undefined` where it cannot, and the rlimits still
 * apply. Cgroups are kept for the next run once a run has left them empty: making and removing a
 * memory cgroup costs more than a sandboxed `/bin/true`. A run reads its usage as the difference
 * of the counters from when it took them.
 */
export function createRunCgroup(limits: ResolvedLimits): RunCgroup | undefined {
  if (host === undefined) {
    host = findHost() ?? null;
    if (host !== null) removeStale(host);
  }
  if (host === null) return undefined;
  const key = `${limits.processes}/${limits.memoryBytes}`;
  const m = idle.get(key)?.pop() ?? make(host, limits);
  if (m === undefined) {
    host = null;
    return undefined;
  }
  const before = countersOf(m);
  if (m.version === 1 && m.memory) {
    // The peak is a high-water mark; writing resets it to the current use.
    try {
      writeFileSync(`${m.memory}/memory.max_usage_in_bytes`, '0');
    } catch {}
  }
  return {
    procs: [...new Set([m.pids, m.memory].filter((d): d is string => d !== undefined))].map(
      (d) => `${d}/cgroup.procs`,
    ),
    countsProcesses: m.pids !== undefined,
    usage() {
      const now = countersOf(m);
      const processesRefused = now.processesRefused - before.processesRefused;
      if (m.memory === undefined) return { processesRefused, memoryKilled: false };
      const peakFile =
        m.version === 1 ? `${m.memory}/memory.max_usage_in_bytes` : `${m.memory}/memory.peak`;
      const peak = Number(read(peakFile).trim()) || undefined;
      return {
        processesRefused,
        memoryKilled: now.oomKills > before.oomKills,
        ...(peak !== undefined && { memoryPeakBytes: peak }),
      };
    },
    remove() {
      if (empty(m)) {
        const list = idle.get(key) ?? [];
        list.push(m);
        idle.set(key, list);
        return;
      }
      for (const dir of [...m.dirs].reverse()) {
        try {
          rmdirSync(dir);
          everyMade.delete(dir);
        } catch {}
      }
    },
  };
}
