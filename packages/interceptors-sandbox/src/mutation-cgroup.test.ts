/**
 * A run's cgroups (cgroup.ts) where the host lets this process make them: the limits written, the
 * usage read as a difference per run, and which cgroups are kept for the next run. Written for the
 * mutation run of cgroup.ts. Where the host gives no cgroups (an unprivileged user, cgroup v2
 * without delegation), createRunCgroup says so by returning nothing, and only that is checked.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunCgroup } from './cgroup';
import { DEFAULT_LIMITS, type ResolvedLimits } from './limits';

const MiB = 1024 * 1024;
const limits = (over: Partial<ResolvedLimits> = {}): ResolvedLimits => ({
  ...DEFAULT_LIMITS,
  ...over,
});

/**
 * cgroup.ts afresh: it keeps what it found of the host, and the cgroups it made, in module state,
 * so each test loads its own copy and sees nothing an earlier test (or an earlier change under a
 * mutation run) left there.
 */
async function freshModule() {
  vi.resetModules();
  return import('./cgroup');
}
/**
 * The directories of every cgroup a test was given, removed after it: a fresh copy of the module
 * numbers its runs from 1 again, and must not be handed an earlier copy's cgroup by name.
 */
const made = new Set<string>();
const tracked =
  (create: Awaited<ReturnType<typeof freshModule>>['createRunCgroup']) =>
  (l: ResolvedLimits): RunCgroup | undefined => {
    const cg = create(l);
    for (const p of cg?.procs ?? []) made.add(dirname(p));
    return cg;
  };
let createRunCgroup: (l: ResolvedLimits) => RunCgroup | undefined;
beforeEach(async () => {
  createRunCgroup = tracked((await freshModule()).createRunCgroup);
});
afterEach(() => {
  // Each run's directory, then this process's directory above them (made afresh by the next test).
  const bases = [...made].map(dirname);
  for (const dir of [...[...made].reverse(), ...bases]) {
    try {
      rmdirSync(dir);
    } catch {}
  }
  made.clear();
});

/**
 * Runs `script` with sh inside `cgroup` (it joins each cgroup.procs first, as the launcher does),
 * bounded: a run that does not end in 30 s is killed.
 */
function runIn(cgroup: RunCgroup, script: string) {
  const join = cgroup.procs.map((p) => `echo $$ > ${p}`).join('; ');
  return spawnSync('sh', ['-c', `${join}; ${script}`], { timeout: 30_000, encoding: 'utf8' });
}

const base = `dsh-sandbox-${process.pid}`;

/**
 * Waits (bounded) until no process is listed in the cgroup: a process that has exited stays listed
 * for a moment, and remove() would take it for one left behind.
 */
async function settled(cgroup: RunCgroup): Promise<void> {
  const listed = () => cgroup.procs.some((p) => readFileSync(p, 'utf8').trim() !== '');
  for (let i = 0; i < 250 && listed(); i++) await new Promise((r) => setTimeout(r, 20));
}

/**
 * Root on a host with the cgroup v1 pids controller (this repository's test machine): cgroups are
 * made there, and these tests must see them. Elsewhere (an unprivileged user, cgroup v2 without
 * delegation) only the answer "none" is checked.
 */
const V1_ROOT =
  process.getuid?.() === 0 && /^\d+:pids:/m.test(readFileSync('/proc/self/cgroup', 'utf8'));
const title = (t: string) =>
  V1_ROOT ? t : `${t} (SKIPPED: not root with the cgroup v1 pids controller)`;

describe.runIf(!V1_ROOT)('where the host may give no cgroups', () => {
  it('createRunCgroup returns a cgroup or nothing, and never throws', () => {
    const cg = createRunCgroup(limits());
    cg?.remove();
    expect(cg === undefined || cg.procs.length > 0).toBe(true);
  });
});

describe.runIf(V1_ROOT)(title('run cgroups'), () => {
  it('are made below a directory of this process, one per run, with the process limit', () => {
    const l = limits({ processes: 37, memoryBytes: 96 * MiB });
    const cg = createRunCgroup(l)!;
    expect(cg.countsProcesses).toBe(true);
    expect(cg.procs.length).toBeGreaterThan(0);
    for (const procs of cg.procs) {
      expect(procs).toMatch(new RegExp(`/${base}/run-\\d+/cgroup\\.procs$`));
      expect(readFileSync(procs, 'utf8')).toBe('');
    }
    const dirs = cg.procs.map((p) => p.slice(0, -'/cgroup.procs'.length));
    const pids = dirs.find((d) => d.includes('/pids/') || !d.includes('/memory/'))!;
    expect(readFileSync(`${pids}/pids.max`, 'utf8').trim()).toBe('37');
    const memory = dirs.find((d) => d.includes('/memory/')) ?? pids;
    const limitFile = memory.includes('/memory/') ? 'memory.limit_in_bytes' : 'memory.max';
    expect(Number(readFileSync(`${memory}/${limitFile}`, 'utf8'))).toBe(96 * MiB);
    cg.remove();
  });

  it('count the forks refused in this run only, not in an earlier run of the same cgroup', async () => {
    const l = limits({ processes: 16, memoryBytes: 97 * MiB });
    const first = createRunCgroup(l)!;
    expect(first.usage()).toMatchObject({ processesRefused: 0, memoryKilled: false });
    runIn(first, 'for i in $(seq 40); do sleep 0.2 & done 2>/dev/null; wait');
    expect(first.usage().processesRefused).toBeGreaterThan(0);
    await settled(first);
    first.remove();
    const second = createRunCgroup(l)!;
    // The same cgroup, kept for the next run: its counters still hold the first run's refusals.
    expect(second.procs).toEqual(first.procs);
    runIn(second, 'true');
    expect(second.usage().processesRefused).toBe(0);
    second.remove();
  });

  it('say when the memory limit killed a process, with the peak, and only in that run', async () => {
    const l = limits({ processes: 64, memoryBytes: 32 * MiB });
    const cg = createRunCgroup(l)!;
    const r = runIn(cg, 'dd if=/dev/zero of=/dev/null bs=64M count=1 2>/dev/null; echo rc=$?');
    expect(r.stdout).not.toBe('rc=0\n');
    const usage = cg.usage();
    expect(usage.memoryKilled).toBe(true);
    expect(usage.memoryPeakBytes).toBeGreaterThan(16 * MiB);
    await settled(cg);
    cg.remove();
    const next = createRunCgroup(l)!;
    expect(next.procs).toEqual(cg.procs);
    runIn(next, 'true');
    const after = next.usage();
    expect(after.memoryKilled).toBe(false);
    // The peak is this run's: reset when the cgroup was taken again.
    expect(after.memoryPeakBytes ?? 0).toBeLessThan(16 * MiB);
    next.remove();
  });

  it('a cgroup with a process left in it is emptied by force and not handed out again', async () => {
    const l = limits({ processes: 64, memoryBytes: 98 * MiB });
    const cg = createRunCgroup(l)!;
    const r = runIn(cg, 'sleep 60 </dev/null >/dev/null 2>&1 & echo $!');
    const pid = Number(r.stdout.trim());
    try {
      expect(pid).toBeGreaterThan(0);
      cg.remove();
      for (let i = 0; i < 250 && isAlive(pid); i++) await new Promise((res) => setTimeout(res, 20));
      expect(isAlive(pid)).toBe(false);
      const next = createRunCgroup(l)!;
      expect(next.procs).not.toEqual(cg.procs);
      next.remove();
    } finally {
      // The sleep is this test's own: gone even when an assertion above failed.
      if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('runs with other limits get cgroups of their own', () => {
    const a = createRunCgroup(limits({ processes: 20, memoryBytes: 99 * MiB }))!;
    a.remove();
    const b = createRunCgroup(limits({ processes: 21, memoryBytes: 99 * MiB }))!;
    expect(b.procs).not.toEqual(a.procs);
    const dirs = b.procs.map((p) => p.slice(0, -'/cgroup.procs'.length));
    const pids = dirs.find((d) => !d.includes('/memory/'))!;
    expect(readFileSync(`${pids}/pids.max`, 'utf8').trim()).toBe('21');
    b.remove();
  });
});

describe.runIf(V1_ROOT)(title('cgroups left by processes that died'), () => {
  const pidsRoot = '/sys/fs/cgroup/pids';
  /** A pid that no process has now. */
  const deadPid = () => spawnSync('true').pid!;

  it('are removed at first use; those of live processes, and anything not named so, stay', () => {
    const dead = `${pidsRoot}/dsh-sandbox-${deadPid()}`;
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    const live = `${pidsRoot}/dsh-sandbox-${sleeper.pid}`;
    const deadWithMore = `${pidsRoot}/dsh-sandbox-${deadPid()}`;
    const other = `${pidsRoot}/not-dsh-sandbox-${deadPid()}`;
    try {
      for (const dir of [
        `${dead}/run-1`,
        `${dead}/run-2`,
        `${live}/run-1`,
        `${deadWithMore}/run-1`,
        `${deadWithMore}/kept`,
        `${other}/run-1`,
      ]) {
        mkdirSync(dir, { recursive: true });
      }
      createRunCgroup(limits())?.remove();
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(`${live}/run-1`)).toBe(true);
      // Only run-* below a dead process's directory are its runs; the directory then stays.
      expect(existsSync(`${deadWithMore}/run-1`)).toBe(false);
      expect(existsSync(`${deadWithMore}/kept`)).toBe(true);
      expect(existsSync(`${other}/run-1`)).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      for (const dir of [
        `${live}/run-1`,
        live,
        `${deadWithMore}/kept`,
        `${deadWithMore}/run-1`,
        deadWithMore,
        `${other}/run-1`,
        other,
        `${dead}/run-1`,
        `${dead}/run-2`,
        dead,
      ]) {
        try {
          rmdirSync(dir);
        } catch {}
      }
    }
  });
});

/** Whether `pid` runs (a zombie does not). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
