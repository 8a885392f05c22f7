import { readFileSync } from 'node:fs';
import { Bench } from 'tinybench';

/** One task of a suite: a name and the function measured. */
export interface BenchTask {
  readonly name: string;
  readonly fn: () => unknown | Promise<unknown>;
}

/** A ratio the issue sets a target for, checked and printed after the table. */
export interface BenchTarget {
  /** The task measured. */
  readonly task: string;
  /** The task it is compared against (its mean time is the denominator). */
  readonly against: string;
  /** The largest acceptable ratio of mean times (task / against). */
  readonly atMost: number;
}

/** Mean time in nanoseconds of each task, by name. */
export type BenchMeans = Record<string, number>;

/**
 * Runs tasks in one process, one after another, and prints each best mean as a ratio against the
 * baseline task measured in the same run: machines here are shared and noisy, so absolute times
 * mean little and only ratios are compared.
 */
export async function runSuite(
  title: string,
  baseline: string,
  tasks: readonly BenchTask[],
  options: {
    time?: number;
    rounds?: number;
    /** Calls per task iteration (the task loops itself); means are reported per call. */
    batch?: number;
    /** Fewest iterations per task and round (tinybench's default is 64; lower it for slow tasks). */
    iterations?: number;
    /**
     * Start each task on a collected heap (needs node's --expose-gc, which scripts/bench.mjs
     * passes): for tasks that allocate kilobytes a call, so that no task pays for the garbage the
     * task before it left (and the first task is not the only one to start clean). Off by
     * default: it changes what a suite measures, and suites compare like with like without it.
     */
    freshHeap?: boolean;
    targets?: readonly BenchTarget[];
  } = {},
): Promise<BenchMeans> {
  // Several rounds, keeping each task's best mean: a task that happened to share its slot with a
  // GC pause or a neighbour's burst on this shared machine does not decide the ratio.
  const means: BenchMeans = {};
  for (let round = 0; round < (options.rounds ?? 3); round++) {
    // `throws`: a task that fails must fail the run, never be timed as if it had worked.
    const bench = new Bench({
      time: options.time ?? 300,
      warmupTime: 50,
      throws: true,
      ...(options.iterations !== undefined && {
        iterations: options.iterations,
        warmupIterations: Math.min(options.iterations, 16),
      }),
    });
    const collect = options.freshHeap ? (globalThis as { gc?: () => void }).gc : undefined;
    for (const task of tasks) {
      bench.add(task.name, task.fn, collect ? { beforeAll: () => collect() } : {});
    }
    await bench.run();
    for (const task of bench.tasks) {
      const result = task.result as { latency?: { mean: number } } | undefined;
      const mean = ((result?.latency?.mean ?? Number.NaN) * 1e6) / (options.batch ?? 1);
      means[task.name] = Math.min(means[task.name] ?? Number.POSITIVE_INFINITY, mean);
    }
  }
  const base = means[baseline];
  if (base === undefined) throw new Error(`bench "${title}": no task named "${baseline}"`);
  console.log(`\n## ${title}\n`);
  console.log(`| task | mean | ratio to ${baseline} |`);
  console.log('|---|---:|---:|');
  for (const [name, mean] of Object.entries(means)) {
    console.log(`| ${name} | ${formatNs(mean)} | ${(mean / base).toFixed(2)}x |`);
  }
  for (const target of options.targets ?? []) {
    const ratio = (means[target.task] ?? Number.NaN) / (means[target.against] ?? Number.NaN);
    console.log(
      `target: ${target.task} / ${target.against} = ${ratio.toFixed(2)}x (at most ${target.atMost}x): ${verdict(ratio, target.atMost)}`,
    );
  }
  return means;
}

const UNRESOLVED = 'not resolved by this run';

/**
 * Whether a ratio of two times can be what was measured: a positive, finite number. A difference
 * of two noisy means can come out negative, and a missing task gives NaN; such a ratio says
 * nothing about the target, so it must never read as met.
 */
export function isResolved(ratio: number): boolean {
  return Number.isFinite(ratio) && ratio > 0;
}

/** The verdict on a ratio with a target: met, MISSED, or not resolved when the ratio is impossible. */
export function verdict(ratio: number, atMost: number): string {
  if (!isResolved(ratio)) return UNRESOLVED;
  return ratio <= atMost ? 'met' : 'MISSED';
}

/** Prints one derived ratio (say, per-listener cost of two engines) with its target. */
export function reportRatio(label: string, ratio: number, atMost?: number): void {
  const suffix =
    atMost !== undefined
      ? ` (at most ${atMost}x): ${verdict(ratio, atMost)}`
      : isResolved(ratio)
        ? ''
        : `: ${UNRESOLVED}`;
  console.log(`ratio: ${label} = ${ratio.toFixed(2)}x${suffix}`);
}

/** Nanoseconds in the most readable unit. */
export function formatNs(ns: number): string {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(0)} ns`;
}

/** A process's CPU time so far (user + system), µs, from Linux's /proc; `undefined` elsewhere. */
export function cpuOf(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10_000 : undefined;
  } catch {
    return undefined;
  }
}
