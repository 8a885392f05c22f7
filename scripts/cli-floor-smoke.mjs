#!/usr/bin/env node
// The lowest Node the CLI declares, tried for real: that Node is installed from npm's `node`
// package, the CLI is installed globally from the packed workspace (a local registry, plain npm),
// and its smoke test runs on that Node: the bin's --version and --help, inspect (the example MCP
// server started with the same Node, the tokenizer), call and check with a permission policy,
// a yes and a no typed at the yes/no prompt on a terminal (a pty, through util-linux's `script`),
// demo, serve over stdio, and the permission policy's shell parser (the shipped grammar wasm)
// from ESM and CommonJS. A declared range that this does not pass is not true.
//
// Usage: node scripts/cli-floor-smoke.mjs [--node <version>] [--keep]
// (default: the lowest version the CLI's `engines.node` admits). Needs `pnpm build` first and the
// npm registry. Exit codes: 0 every step passed, 1 a step failed, 2 could not set up.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  installGlobal,
  installNode,
  internalClosure,
  packAll,
  plainEnv,
  serveRegistry,
  workspacePackages,
} from './local-registry.mjs';

const semver = createRequire(import.meta.url)('semver');
const CLI = '@dsh-tools/cli';
const { values } = parseArgs({
  options: { node: { type: 'string' }, keep: { type: 'boolean', default: false } },
});

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'dsh-floor-smoke-'));
const results = [];
let registry;

/**
 * Runs the floor Node on a one-line script, within two minutes. Once (in some 100 runs) Node
 * 20.0.0 hung for good on the permission parser's script, its main thread waiting on a lock,
 * and the step had no limit: a run that hangs is tried once more, and said so.
 */
function nodeScript(node, args) {
  const run = () => spawnSync(node, args, { encoding: 'utf8', timeout: 120_000 });
  const first = run();
  if (first.error?.code !== 'ETIMEDOUT') return first;
  console.log('  (the floor Node hung for 2 minutes; once more)');
  return run();
}

/** Runs one smoke step; records whether `check` accepted what it printed. */
function step(name, run, check) {
  const t = Date.now();
  let ok = false;
  let detail = '';
  try {
    const r = run();
    detail = check(r) ?? '';
    ok = detail === '';
    if (!ok)
      detail += `\n  exit ${r.status}\n  stdout: ${r.stdout?.slice(0, 800)}\n  stderr: ${r.stderr?.slice(0, 800)}`;
  } catch (error) {
    detail = error instanceof Error ? error.message : String(error);
  }
  results.push({ name, ok, ms: Date.now() - t });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name} (${Date.now() - t} ms)${ok ? '' : `: ${detail}`}`);
}

try {
  const byName = workspacePackages();
  const declared = byName.get(CLI).manifest.engines?.node ?? '*';
  const version = values.node ?? semver.minVersion(declared).version;
  console.log(`${CLI} declares node ${declared}; smoke test on Node ${version}`);

  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = packAll(internalClosure(CLI, byName), tarballs, byName);
  registry = await serveRegistry(packed);
  const prefix = join(work, 'prefix');
  const [node] = await Promise.all([
    installNode(version, join(work, 'node')),
    installGlobal(CLI, prefix, registry.url),
  ]);
  const reported = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (reported !== `v${version}`)
    throw new Error(`the installed Node says ${reported}, not v${version}`);

  const installed = join(prefix, 'lib', 'node_modules', CLI);
  const bin = join(
    installed,
    JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).bin['dsh-tools'],
  );
  const cwd = join(work, 'cwd');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'hello.txt'), 'hello\n');
  // The floor Node first on PATH: the bin, and the example server it starts, run on it.
  const env = { ...plainEnv({ NO_COLOR: '1' }), PATH: `${join(node, '..')}:${process.env.PATH}` };
  const cli = (args, input = '') =>
    spawnSync(node, [bin, ...args], { cwd, env, input, encoding: 'utf8', timeout: 120_000 });
  const json = (text) => JSON.parse(text);

  step(
    '--version',
    () => cli(['--version']),
    (r) =>
      r.status === 0 && r.stdout.trim() === packed.get(CLI).manifest.version
        ? undefined
        : 'wrong version',
  );
  step(
    '--help',
    () => cli(['--help']),
    (r) => (r.status === 0 && r.stdout.includes('Usage: dsh-tools') ? undefined : 'no usage'),
  );
  step(
    'inspect --json (example tools, the example MCP server, token counts)',
    () => cli(['inspect', '--json']),
    (r) => {
      if (r.status !== 0) return 'exit code';
      const names = json(r.stdout).tools.map((t) => t.name);
      return names.includes('read_file') &&
        names.includes('mcp__notes__search_notes') &&
        json(r.stdout).totalTokens > 0
        ? undefined
        : 'tools missing';
    },
  );
  step(
    'call read_file --json',
    () => cli(['call', 'read_file', '{"path":"hello.txt"}', '--json']),
    (r) => (r.status === 0 && r.stdout.includes('hello') ? undefined : 'no result'),
  );

  const config = join(cwd, 'dsh-tools.json');
  writeFileSync(
    config,
    JSON.stringify({
      exampleTools: { cwd: '.', writable: true },
      permissions: { deny: ['Write(./secret.txt)'], ask: ['Write(./asked.txt)'] },
    }),
  );
  step(
    'check: a deny rule decides (exit 1)',
    () => cli(['check', 'write_file', '{"path":"secret.txt","content":"x"}', '--json']),
    (r) =>
      r.status === 1 && json(r.stdout).decidedBy?.layer === 'permission'
        ? undefined
        : 'not denied by permission',
  );

  // The prompt on a terminal: `script` gives the bin a pty, and the answer is typed into it.
  const hasScript = spawnSync('script', ['--version']).status === 0;
  const prompt = (answer) =>
    spawnSync(
      'script',
      [
        '-qec',
        `'${node}' '${bin}' call write_file '{"path":"asked.txt","content":"yes"}'`,
        '/dev/null',
      ],
      {
        cwd,
        env,
        input: `${answer}\n`,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
  if (hasScript) {
    step(
      'call asks at a terminal; "n" denies',
      () => prompt('n'),
      (r) =>
        r.stdout.includes('(y/N)') &&
        !existsSync(join(cwd, 'asked.txt')) &&
        r.stdout.includes('DENIED')
          ? undefined
          : 'not asked, or not denied',
    );
    step(
      'call asks at a terminal; "y" allows',
      () => prompt('y'),
      (r) => (r.status === 0 && existsSync(join(cwd, 'asked.txt')) ? undefined : 'not allowed'),
    );
  } else {
    console.log('skip the prompt steps: util-linux `script` is not installed');
  }
  rmSync(config);

  step(
    'demo --yes --json',
    () => cli(['demo', '--yes', '--json']),
    (r) => (r.status === 0 && json(r.stdout).ok === true ? undefined : 'demo not ok'),
  );
  step(
    'serve over stdio (input ends at once)',
    () => cli(['serve']),
    (r) => (r.status === 0 && r.stderr.includes('over stdio') ? undefined : 'did not serve'),
  );

  // The permission policy's shell parser (the grammar wasm shipped in its dist/), both builds.
  const permission = join(installed, 'node_modules', '@dsh-tools', 'interceptors-permission');
  const decide = `const p = m.permissionInterceptor({ rules: { allow: ['Bash(ls:*)'], deny: ['Bash(rm:*)'] } });
    await p.ready;
    const a = await p.explain(m.exampleExecution('Bash(ls -la)'));
    const d = await p.explain(m.exampleExecution('Bash(rm -rf /tmp/x)'));
    process.stdout.write(a.behavior + ' ' + d.behavior);`;
  step(
    'permission shell parser from ESM',
    () =>
      nodeScript(node, [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(permission, 'dist', 'index.mjs'))}); ${decide}`,
      ]),
    (r) => (r.stdout === 'allow deny' ? undefined : 'wrong decisions'),
  );
  step(
    'permission shell parser from CommonJS',
    () =>
      nodeScript(node, [
        '-e',
        `(async () => { const m = require(${JSON.stringify(permission)}); ${decide} })()`,
      ]),
    (r) => (r.stdout === 'allow deny' ? undefined : 'wrong decisions'),
  );
  step(
    'the library from ESM',
    () =>
      nodeScript(node, [
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(join(installed, 'dist', 'index.mjs'))}); process.stdout.write(typeof m.loadConfig);`,
      ]),
    (r) => (r.stdout === 'function' ? undefined : 'no loadConfig'),
  );
  step(
    'the library from CommonJS',
    () =>
      nodeScript(node, [
        '-e',
        `process.stdout.write(typeof require(${JSON.stringify(installed)}).loadConfig)`,
      ]),
    (r) => (r.stdout === 'function' ? undefined : 'no loadConfig'),
  );
} catch (error) {
  console.error(
    `cli-floor-smoke: could not set up: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 2;
} finally {
  await registry?.close();
  if (values.keep) console.log(`kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
const failed = results.filter((r) => !r.ok).length;
console.log(
  `\n${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
if (failed > 0 && !process.exitCode) process.exitCode = 1;
