/**
 * Cold import of `dsh-tools` and `dsh-tools/cordis` against upstream's `@deepseek-ai/dsh-tools`
 * (the DeepSeek Harness's tool service, whose main entry loads cordis), each in fresh Node
 * processes. Issue 13's target: `import('dsh-tools')` at most 1.5x upstream's.
 *
 * Every sample is its own process, and the entries take turns (upstream, ours, ours/cordis, then
 * again) so that a burst of load on this shared machine falls on all of them alike rather than on
 * one entry's block of samples; the median of each is compared. Two figures per sample: the import
 * alone, timed inside the process (what the target is about: Node's own start is the same for
 * everyone and would only dilute the ratio), and the whole process, spawn to exit, for scale.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { formatNs, reportRatio } from './lib';

const UPSTREAM = '@deepseek-ai/dsh-tools';
const ENTRIES = [UPSTREAM, 'dsh-tools', 'dsh-tools/cordis'] as const;
/** Rounds measured (each entry once per round), after WARMUP rounds that fill the file cache. */
const ROUNDS = Number(process.env.IMPORT_BENCH_ROUNDS ?? 21);
const WARMUP = 2;

// Bare specifiers resolve from bench/ (its package.json has all three entries as dependencies).
const cwd = fileURLToPath(new URL('.', import.meta.url)).replace(/\.out\/?$/, '');

/** One fresh process importing `entry`: the import's time inside it and the process's, in ns. */
function sample(entry: string): { importNs: number; processNs: number } {
  const script = `const t = performance.now(); await import(${JSON.stringify(entry)}); process.stdout.write(String(performance.now() - t));`;
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--input-type=module', '--eval', script], {
    cwd,
    encoding: 'utf8',
  });
  const processNs = Number(process.hrtime.bigint() - start);
  const importMs = Number(run.stdout);
  // An import that failed must fail the run, never be timed as if it had worked.
  if (run.status !== 0 || !Number.isFinite(importMs)) {
    throw new Error(`import('${entry}') failed in a fresh process:\n${run.stderr}`);
  }
  return { importNs: importMs * 1e6, processNs };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const samples = new Map<string, { importNs: number[]; processNs: number[] }>(
  ENTRIES.map((entry) => [entry, { importNs: [], processNs: [] }]),
);
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const entry of ENTRIES) {
    const s = sample(entry);
    if (round < WARMUP) continue;
    const into = samples.get(entry);
    into?.importNs.push(s.importNs);
    into?.processNs.push(s.processNs);
  }
}

const importMedian = (entry: string) => median(samples.get(entry)?.importNs ?? []);
const processMedian = (entry: string) => median(samples.get(entry)?.processNs ?? []);
const base = importMedian(UPSTREAM);
console.log(`\n## cold import, median of ${ROUNDS} fresh processes per entry, taking turns\n`);
console.log(`| entry | import | ratio to ${UPSTREAM} | whole process |`);
console.log('|---|---:|---:|---:|');
for (const entry of ENTRIES) {
  const ns = importMedian(entry);
  console.log(
    `| ${entry} | ${formatNs(ns)} | ${(ns / base).toFixed(2)}x | ${formatNs(processMedian(entry))} |`,
  );
}
reportRatio(`import('dsh-tools') / import('${UPSTREAM}')`, importMedian('dsh-tools') / base, 1.5);
reportRatio(
  `import('dsh-tools/cordis') / import('${UPSTREAM}')`,
  importMedian('dsh-tools/cordis') / base,
  1.5,
);
reportRatio(
  `whole process, dsh-tools / ${UPSTREAM}`,
  processMedian('dsh-tools') / processMedian(UPSTREAM),
);
