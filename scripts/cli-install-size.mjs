#!/usr/bin/env node
// What a user's `npm install -g @dsh-tools/cli` costs: the workspace's packages are packed and
// served from a local registry, the CLI is installed globally into a temporary prefix with plain
// npm (third-party packages from the real registry), and the installed tree is measured: its size
// on disk (du) and its number of packages, with the largest ones named so that a regression says
// where it comes from. Then the installed bin is run (`--version`, `--help`), and every installed
// package's `engines.node` is compared with the floor the CLI declares: a dependency that needs a
// later Node than we promise makes our range untrue.
//
// Usage: node scripts/cli-install-size.mjs [--max-mib <n>] [--max-packages <n>] [--keep]
// Needs `pnpm build` first and the npm registry. Exit codes: 0 within budget and honest ranges,
// 1 over a budget, a dependency's engines above our floor, or the bin failed; 2 could not measure.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  installGlobal,
  internalClosure,
  packAll,
  serveRegistry,
  workspacePackages,
} from './local-registry.mjs';

const semver = createRequire(import.meta.url)('semver');

const CLI = '@dsh-tools/cli';
const { values } = parseArgs({
  options: {
    // Budgets a little above what this repository measures today (44.9 MiB, 37 packages), so that
    // growth is a decision.
    'max-mib': { type: 'string', default: '48' },
    'max-packages': { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
  },
});
const maxKiB = Number(values['max-mib']) * 1024;
const maxPackages = Number(values['max-packages']);

/** Every package folder of an installed tree: `node_modules/<name>` and `@scope/<name>`, nested. */
function installedPackages(dir, into = []) {
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) return into;
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@')
      ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of names) {
      const folder = join(modules, name);
      if (!existsSync(join(folder, 'package.json'))) continue;
      into.push({ name, folder });
      installedPackages(folder, into);
    }
  }
  return into;
}

/** Disk use of a folder in KiB, as `du -sk` counts it (blocks, not bytes: what the disk pays). */
const kibOf = (folder, flags = []) =>
  Number(execFileSync('du', ['-sk', ...flags, folder], { encoding: 'utf8' }).split(/\s/)[0]);
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'dsh-install-size-'));
let failed = false;
let registry;
try {
  const byName = workspacePackages();
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = packAll(internalClosure(CLI, byName), tarballs, byName);
  registry = await serveRegistry(packed);
  const prefix = join(work, 'prefix');
  const summary = await installGlobal(CLI, prefix, registry.url);

  // npm's global layout: <prefix>/lib/node_modules/<name>, bins in <prefix>/bin.
  const installed = join(prefix, 'lib', 'node_modules', CLI);
  const packages = [{ name: CLI, folder: installed }, ...installedPackages(installed)];
  const totalKiB = kibOf(installed);
  const sizes = packages
    // A package's own files, without the dependencies nested under it.
    .map((p) => ({ ...p, kib: kibOf(p.folder, ['--exclude=node_modules']) }))
    .sort((a, b) => b.kib - a.kib);

  console.log(
    `\n## npm install -g ${CLI} (plain npm ${execFileSync('npm', ['--version'], { encoding: 'utf8' }).trim()}, Node ${process.version})\n`,
  );
  console.log(`size on disk: ${mib(totalKiB)} (budget ${mib(maxKiB)})`);
  console.log(
    `packages: ${packages.length} (budget ${maxPackages}; npm reported ${summary.added ?? '?'} added)`,
  );
  console.log('\nlargest:');
  for (const p of sizes.slice(0, 10)) console.log(`  ${mib(p.kib).padStart(10)}  ${p.name}`);
  if (totalKiB > maxKiB) {
    console.log(
      `\nOVER BUDGET: ${mib(totalKiB)} > ${mib(maxKiB)}: cut a dependency, or raise --max-mib with a reason.`,
    );
    failed = true;
  }
  if (packages.length > maxPackages) {
    console.log(
      `\nOVER BUDGET: ${packages.length} packages > ${maxPackages}: cut a dependency, or raise --max-packages with a reason.`,
    );
    failed = true;
  }

  // The bin as npm linked it.
  const bin = join(prefix, 'bin', 'dsh-tools');
  for (const args of [['--version'], ['--help']]) {
    try {
      execFileSync(bin, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
    } catch (error) {
      console.log(
        `\nFAILED: dsh-tools ${args.join(' ')} from the global install: ${error.stderr ?? error.message}`,
      );
      failed = true;
    }
  }

  // Traces asked for without the optional exporter packages (a plain global install has none):
  // the command still runs, and says what to install.
  {
    const run = spawnSync(bin, ['call', 'list_dir', '{"path":"."}'], {
      cwd: work,
      encoding: 'utf8',
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      timeout: 60_000,
    });
    if (
      run.status !== 0 ||
      !/exporter is not installed: npm install @opentelemetry/.test(run.stderr)
    ) {
      console.log(
        `\nFAILED: with OTEL_EXPORTER_OTLP_ENDPOINT set and no exporter installed, call should run and say what to install (exit ${run.status}):\n${run.stderr}`,
      );
      failed = true;
    } else {
      console.log(
        '\ntraces asked for without the exporter: the call ran, and said what to install.',
      );
    }
  }

  // A shared state store asked for without the optional ioredis (a plain global install has
  // none): a config error that says what to install, not a crash.
  {
    const stateDir = join(work, 'with-state');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      join(stateDir, 'dsh-tools.json'),
      JSON.stringify({ exampleTools: true, state: { redis: 'redis://127.0.0.1:1' } }),
    );
    const run = spawnSync(bin, ['inspect'], { cwd: stateDir, encoding: 'utf8', timeout: 60_000 });
    if (
      run.status !== 3 ||
      !/needs the ioredis package.*npm install -g ioredis@6/.test(run.stderr)
    ) {
      console.log(
        `\nFAILED: with a "state" section and no ioredis installed, inspect should exit 3 saying what to install (exit ${run.status}):\n${run.stderr}`,
      );
      failed = true;
    } else {
      console.log('state asked for without ioredis: exit 3, and said what to install.');
    }
  }

  // Honest ranges: the lowest Node we declare must satisfy every installed package's engines.
  const declared = packed.get(CLI).manifest.engines?.node ?? '*';
  const floor = semver.minVersion(declared);
  const tooNew = [];
  for (const p of packages) {
    const engines = JSON.parse(readFileSync(join(p.folder, 'package.json'), 'utf8')).engines?.node;
    if (typeof engines !== 'string' || !semver.validRange(engines)) continue;
    if (!semver.satisfies(floor, engines)) tooNew.push(`${p.name} declares node ${engines}`);
  }
  console.log(`\nengines: ${CLI} declares node ${declared} (floor ${floor})`);
  if (tooNew.length > 0) {
    console.log(`UNTRUE RANGE: on Node ${floor} these would not run:\n  ${tooNew.join('\n  ')}`);
    console.log(
      `Raise the floor of ${CLI} (and of the package that depends on them), or drop them.`,
    );
    failed = true;
  } else {
    console.log(`every installed package runs on Node ${floor}, as far as its engines say.`);
  }
} catch (error) {
  console.error(
    `cli-install-size: could not measure: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 2;
} finally {
  await registry?.close();
  if (values.keep) console.log(`\nkept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
if (failed && !process.exitCode) process.exitCode = 1;
