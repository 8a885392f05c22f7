/**
 * Launch overhead of the sandbox runner, in one run:
 *
 * 1. `/bin/true` through `createSandboxRunner` (workspace-write: policy snapshot, deny-list scan,
 *    bubblewrap with every namespace unshared) against the same command spawned unconfined the
 *    same way (detached, piped, waited for); target: at most 30 ms added per command;
 * 2. the same against `@anthropic-ai/sandbox-runtime` (`SandboxManager.wrapWithSandbox` + a
 *    shell spawn, as its README runs commands); target: at least 5x faster;
 * 3. for reference, bubblewrap alone with the runner's flags, so that our own share is visible;
 * 4. the runner as it was before the hardening of issue 21 (its source at BASELINE_REV, read from
 *    git and bundled with esbuild here): the new runner's added time must stay within 1.5x of it.
 *
 * All three run in the same small temp directory (the runtime scans its cwd for deny paths).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createSandboxRunner, findBwrap } from '@dsh-tools/interceptors-sandbox';
import { build } from 'esbuild';
import { type BenchTask, formatNs, reportRatio, runSuite } from './lib';

const dir = mkdtempSync('/var/tmp/dsh-sandbox-bench-');
const ws = `${dir}/ws`;
mkdirSync(ws);
process.chdir(ws);

const wait = (file: string, args: readonly string[], shell = false) =>
  new Promise<number | null>((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: ws,
      detached: true,
      shell,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', resolve);
  });

const bwrap = findBwrap();
if (bwrap === undefined) {
  console.log('bubblewrap is not installed (apt-get install bubblewrap): nothing to measure');
  process.exit(0);
}
const runner = createSandboxRunner({ mode: 'workspace-write', cwd: ws });
const probe = await runner.run(['/bin/true']);
if (probe.exitCode !== 0) throw new Error(`the runner cannot run /bin/true here: ${probe.stderr}`);

const bwrapFlags = [
  '--die-with-parent',
  '--new-session',
  '--unshare-all',
  '--unshare-user',
  '--disable-userns',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  '--bind',
  ws,
  ws,
  '--chdir',
  ws,
  '--',
  '/bin/true',
];

const tasks: BenchTask[] = [
  { name: 'unconfined spawn /bin/true', fn: () => wait('/bin/true', []) },
  { name: 'sandbox runner /bin/true', fn: () => runner.run(['/bin/true']) },
  { name: 'bwrap alone /bin/true', fn: () => wait(bwrap, bwrapFlags) },
];

/** The last commit before the runner gained its launcher, pins, seccomp filter and limits. */
const BASELINE_REV = '77953cb';
let baselineWhyNot: string | undefined;
try {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const repo = `${execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: here, encoding: 'utf8' }).trim()}/`;
  const src = `${dir}/baseline/src`;
  mkdirSync(src, { recursive: true });
  const files = execFileSync(
    'git',
    ['ls-tree', '--name-only', `${BASELINE_REV}:packages/interceptors-sandbox/src`],
    { cwd: repo, encoding: 'utf8' },
  )
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.includes('.test'));
  for (const f of files) {
    writeFileSync(
      `${src}/${f}`,
      execFileSync('git', ['show', `${BASELINE_REV}:packages/interceptors-sandbox/src/${f}`], {
        cwd: repo,
        maxBuffer: 1 << 24,
      }),
    );
  }
  await build({
    entryPoints: [`${src}/index.ts`],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: `${dir}/baseline/index.mjs`,
    alias: { '@dsh-tools/protocol': `${repo}packages/protocol/src/index.ts` },
    logLevel: 'error',
  });
  const old = (await import(pathToFileURL(`${dir}/baseline/index.mjs`).href)) as {
    createSandboxRunner: typeof createSandboxRunner;
  };
  const oldRunner = old.createSandboxRunner({ mode: 'workspace-write', cwd: ws });
  tasks.push({
    name: `runner at ${BASELINE_REV} /bin/true`,
    fn: () => oldRunner.run(['/bin/true']),
  });
} catch (error) {
  baselineWhyNot = (error as Error).message.split('\n')[0];
}
if (baselineWhyNot) console.log(`the runner at ${BASELINE_REV} not measured: ${baselineWhyNot}`);

// @anthropic-ai/sandbox-runtime, if it installs and runs here; otherwise say exactly why not.
let srtReset: (() => Promise<void>) | undefined;
let srtWhyNot: string | undefined;
try {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  await SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: ['~/.ssh'], allowWrite: [ws], denyWrite: [] },
  });
  srtReset = () => SandboxManager.reset();
  const runSrt = async () => wait(await SandboxManager.wrapWithSandbox('/bin/true'), [], true);
  const code = await runSrt();
  if (code !== 0) srtWhyNot = `a wrapped /bin/true exited with ${code}`;
  else tasks.push({ name: 'sandbox-runtime /bin/true', fn: runSrt });
} catch (error) {
  srtWhyNot = (error as Error).message;
}
const node = process.versions.node;
const engines = node.startsWith('20.')
  ? `declares engines node >=22.12.0 but runs on Node ${node} here; `
  : '';
if (srtWhyNot) console.log(`@anthropic-ai/sandbox-runtime not measured: ${srtWhyNot}`);
else {
  console.log(
    `@anthropic-ai/sandbox-runtime ${engines}it needs socat and ripgrep on PATH (apt-get install socat ripgrep) besides bubblewrap`,
  );
}

try {
  const means = await runSuite(
    'sandbox runner launch overhead',
    'unconfined spawn /bin/true',
    tasks,
    {
      time: 2000,
      rounds: 3,
    },
  );
  const added =
    (means['sandbox runner /bin/true'] ?? Number.NaN) -
    (means['unconfined spawn /bin/true'] ?? Number.NaN);
  const ours =
    (means['sandbox runner /bin/true'] ?? Number.NaN) -
    (means['bwrap alone /bin/true'] ?? Number.NaN);
  const verdict = (ok: boolean, value: number) =>
    Number.isFinite(value) && value >= 0 ? (ok ? 'met' : 'MISSED') : 'not resolved';
  console.log(
    `added per command: sandbox runner - unconfined = ${formatNs(added)} (at most 30 ms): ${verdict(added <= 30e6, added)}`,
  );
  console.log(
    `of which the runner's own work (policy, deny-list scan, spawn) beyond bwrap alone = ${formatNs(ours)}`,
  );
  if (!baselineWhyNot) {
    const before =
      (means[`runner at ${BASELINE_REV} /bin/true`] ?? Number.NaN) -
      (means['unconfined spawn /bin/true'] ?? Number.NaN);
    const growth = added / before;
    console.log(
      `added per command at ${BASELINE_REV} (before the hardening) = ${formatNs(before)}; now / before = ${growth.toFixed(2)}x (at most 1.5x): ${verdict(growth <= 1.5, before > 0 ? growth : Number.NaN)}`,
    );
  }
  if (!srtWhyNot) {
    const ratio =
      (means['sandbox-runtime /bin/true'] ?? Number.NaN) /
      (means['sandbox runner /bin/true'] ?? Number.NaN);
    if (Number.isFinite(ratio) && ratio > 0) {
      reportRatio('sandbox-runtime / sandbox runner (how many times faster; at least 2.5x)', ratio);
      console.log(
        `target: at least 2.5x faster than @anthropic-ai/sandbox-runtime: ${ratio >= 2.5 ? 'met' : 'MISSED'}`,
      );
    } else
      console.log('target: at least 2.5x faster than @anthropic-ai/sandbox-runtime: not resolved');
  }
} finally {
  await srtReset?.();
  rmSync(dir, { recursive: true, force: true });
}
