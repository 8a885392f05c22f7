/**
 * Start-up of the `dsh-tools` bin: `dsh-tools --help` and `dsh-tools --version` against
 * `node -e 0`, each a fresh process, spawn to exit. Issue 25's target: both at most 2x
 * `node -e 0`, so that a command line that only prints its usage does not pay for the MCP SDK,
 * zod or the policies.
 *
 * The three take turns (node, --help, --version, then again) so that a burst of load on this
 * shared machine falls on all of them alike rather than on one block of samples; the medians are
 * compared. The CLI is the built one (`pnpm --filter @dsh-tools/cli build` first), run as npm's
 * bin shim runs it: `node <dist/cli.mjs> <args>`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { formatNs, reportRatio } from './lib';

/** Rounds measured (each command once per round), after WARMUP rounds that fill the file cache. */
const ROUNDS = Number(process.env.CLI_STARTUP_BENCH_ROUNDS ?? 31);
const WARMUP = 3;

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('@dsh-tools/cli/package.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};
// CLI_STARTUP_BIN measures another build of the bin (an older commit's, say) the same way.
const binPath =
  process.env.CLI_STARTUP_BIN ??
  join(dirname(manifestPath), manifest.bin['dsh-tools'] ?? 'dist/cli.mjs');

interface Command {
  readonly name: string;
  readonly args: readonly string[];
  /** What stdout must contain: a command that failed or printed nothing must fail the run. */
  readonly expect: string;
}

const BASELINE = 'node -e 0';
const COMMANDS: readonly Command[] = [
  { name: BASELINE, args: ['-e', '0'], expect: '' },
  { name: 'dsh-tools --help', args: [binPath, '--help'], expect: 'Usage: dsh-tools' },
  { name: 'dsh-tools --version', args: [binPath, '--version'], expect: manifest.version },
];

/** One fresh process, spawn to exit, in ns. */
function sample(command: Command): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, command.args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const ns = Number(process.hrtime.bigint() - start);
  if (run.status !== 0 || !run.stdout.includes(command.expect)) {
    throw new Error(
      `${command.name} failed (exit ${run.status}):\n${run.stdout.slice(0, 500)}\n${run.stderr}`,
    );
  }
  return ns;
}

const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

const samples = new Map<string, number[]>(COMMANDS.map((c) => [c.name, []]));
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const command of COMMANDS) {
    const ns = sample(command);
    if (round >= WARMUP) samples.get(command.name)?.push(ns);
  }
}

const medianOf = (name: string) => median(samples.get(name) ?? []);
const base = medianOf(BASELINE);
console.log(`\n## CLI start-up, median of ${ROUNDS} fresh processes per command, taking turns\n`);
console.log(`| command | spawn to exit | ratio to ${BASELINE} |`);
console.log('|---|---:|---:|');
for (const { name } of COMMANDS) {
  console.log(`| ${name} | ${formatNs(medianOf(name))} | ${(medianOf(name) / base).toFixed(2)}x |`);
}
reportRatio(`dsh-tools --help / ${BASELINE}`, medianOf('dsh-tools --help') / base, 2);
reportRatio(`dsh-tools --version / ${BASELINE}`, medianOf('dsh-tools --version') / base, 2);
