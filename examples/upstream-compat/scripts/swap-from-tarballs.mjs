// The one-line swap, tried as a user would: this repository's packages packed to tarballs, a
// stand-in for `@deepseek-ai/dsh-tools` that re-exports `dsh-tools/harness`, and a fresh folder
// whose package.json pins the harness's agent loop and fs tools and swaps the name with one
// `overrides` line; plain `npm install` (no --legacy-peer-deps, no --force), then one turn of the
// real loop reading two files in parallel. Unpublished here, the @dsh-tools/* packages need
// `file:` overrides of their own; published, the one line is all an app adds.
//
// Builds what it packs first (turbo: instant when `pnpm build` has run), so it works from a fresh
// clone after `pnpm install`. Needs the npm registry. Exits non-zero on any failure.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'dsh-swap-'));
const keep = process.argv.includes('--keep');
// npm as a user runs it: without the npm_config_* settings pnpm passes to its scripts.
const plainEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_config_')),
);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    ...(cmd === 'npm' && { env: plainEnv }),
  });
const RC = '0.1.0-rc.8';
const started = Date.now();

try {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  // Every workspace package the meta-package may reach (all but the CLI), found rather than
  // listed: a new package (policy-kit was one) must not fall back to a registry that lacks it.
  const packages = readdirSync(join(root, 'packages')).filter(
    (dir) => dir !== 'cli' && existsSync(join(root, 'packages', dir, 'package.json')),
  );
  run(
    'pnpm',
    ['exec', 'turbo', 'run', 'build', '--filter=dsh-tools...', '--output-logs=errors-only'],
    root,
  );
  const files = {};
  for (const dir of packages) {
    const before = new Set(readdirSync(tarballs));
    run('pnpm', ['pack', '--pack-destination', tarballs], join(root, 'packages', dir));
    const made = readdirSync(tarballs).find((f) => !before.has(f));
    const { name } = JSON.parse(
      run('node', ['-p', 'JSON.stringify(require("./package.json"))'], join(root, 'packages', dir)),
    );
    files[name] = `file:${join(tarballs, made)}`;
    if (!run('tar', ['-tzf', join(tarballs, made)], tarballs).includes('package/dist/')) {
      throw new Error(`${name} was packed without dist/: the build did not produce it`);
    }
  }

  // The stand-in: one module re-exporting dsh-tools/harness, at the version the plugins' peer
  // ranges name.
  const standin = join(work, 'standin');
  mkdirSync(standin);
  writeFileSync(
    join(standin, 'package.json'),
    JSON.stringify(
      {
        name: 'dsh-tools-deepseek-harness-standin',
        version: RC,
        type: 'module',
        exports: { '.': './index.mjs' },
        dependencies: { 'dsh-tools': files['dsh-tools'] },
        peerDependencies: { '@deepseek-ai/cordis': '^4.0.1' },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(standin, 'index.mjs'),
    "export * from 'dsh-tools/harness';\nexport { default } from 'dsh-tools/harness';\n",
  );
  run('npm', ['pack', '--pack-destination', tarballs, '--loglevel=error'], standin);

  const app = join(work, 'app');
  mkdirSync(app);
  const upstream = [
    'dsh-agent-loop',
    'dsh-agent',
    'dsh-session',
    'dsh-llm',
    'dsh-system-prompt',
    'dsh-tool-fs',
    'dsh-fs-local',
    'dsh-scope',
  ];
  const standinSpec = `file:${join(tarballs, `dsh-tools-deepseek-harness-standin-${RC}.tgz`)}`;
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'swap-app',
        private: true,
        type: 'module',
        dependencies: {
          '@deepseek-ai/cordis': '4.0.4',
          ...Object.fromEntries(upstream.map((p) => [`@deepseek-ai/${p}`, RC])),
          // The app's own dependency on the name, pointed at the stand-in (published: `npm:<stand-in>@<version>`)…
          '@deepseek-ai/dsh-tools': standinSpec,
        },
        overrides: {
          // …and every plugin's, through npm's reference to that direct dependency.
          '@deepseek-ai/dsh-tools': '$@deepseek-ai/dsh-tools',
          // Only because this repository's packages are not published:
          ...files,
        },
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(app, 'app.mjs'),
    `
Promise.withResolvers ??= () => { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b; }); return { promise, resolve, reject }; };
import { writeFileSync } from 'node:fs';
import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import LocalFileSystem from '@deepseek-ai/dsh-fs-local';
import { LlmAdapter, LlmRuntime, createUserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId, SessionStore } from '@deepseek-ai/dsh-session';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import * as ToolFs from '@deepseek-ai/dsh-tool-fs';
import ToolRuntime, * as tools from '@deepseek-ai/dsh-tools';
// Ours: the service class is dsh-tools' ToolRegistry, served under the harness's name.
if (ToolRuntime.name !== 'ToolRegistry' || tools.ToolRuntime !== ToolRuntime) throw new Error('not the stand-in');
class Model extends LlmAdapter {
  n = 0;
  providerInfo(p) { return { id: p, name: p }; }
  async resolveModel(provider, model) { return { provider, id: model, name: model }; }
  async *stream() {
    if (this.n++ === 0) {
      const calls = [['r1', 'a.txt'], ['r2', 'b.txt']];
      for (const [i, [id, file]] of calls.entries()) {
        const args = JSON.stringify({ file_path: file });
        yield { type: 'block-start', index: i, blockType: 'tool-call' };
        yield { type: 'tool-call-delta', index: i, id, name: 'read', argumentsDelta: args };
        yield { type: 'block-end', index: i, block: { type: 'tool-call', id, name: 'read', arguments: args } };
      }
      yield { type: 'finish', reason: 'tool-calls' };
    } else {
      yield { type: 'block-start', index: 0, blockType: 'text' };
      yield { type: 'block-end', index: 0, block: { type: 'text', text: 'done' } };
      yield { type: 'finish', reason: 'stop' };
    }
  }
}
writeFileSync('a.txt', 'alpha\\n'); writeFileSync('b.txt', 'beta\\n');
const app = new Context();
await app.plugin(SystemPrompt, {});
await app.plugin(AgentRegistry);
await app.plugin(SessionStore);
await app.plugin(LlmRuntime);
await app.plugin(ToolRuntime, {});
await app.plugin(LocalFileSystem, { cwd: process.cwd() });
await app.plugin(AgentLoop, { agents: [] });
await app.plugin(ToolFs, {});
app.llm.registerAdapter(['m'], new Model());
const { agent } = await app.agents.create({ sessionId: SessionId('s'), meta: { cwd: process.cwd() }, agentOptions: { provider: 'm', model: 'm' } });
agent.followup(createUserMessage({ content: [{ type: 'text', text: 'read' }], source: { kind: 'user' } }));
await new Promise((r) => setTimeout(r, 10));
await agent.whenIdle();
const results = agent.session.events.filter((e) => e.type === 'tool/result').map((e) => e.data.message.content[0]);
console.log(JSON.stringify(results.map((r) => [r.isError, r.content[0].text.split('\\n')[3]])));
if (results.length !== 2 || results.some((r) => r.isError)) process.exit(1);
await app.fiber.dispose();
`,
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app);
  const resolved = run(
    'node',
    ['--input-type=module', '-e', "console.log(import.meta.resolve('@deepseek-ai/dsh-tools'))"],
    app,
  ).trim();
  console.log(`@deepseek-ai/dsh-tools resolves to ${resolved}`);
  // Upstream's entry is lib/index.js; the stand-in's is index.mjs.
  if (!resolved.endsWith('/node_modules/@deepseek-ai/dsh-tools/index.mjs')) {
    throw new Error('the override did not take');
  }
  // No copy of upstream's package anywhere in the tree: every importer gets the stand-in.
  const copies = run(
    'find',
    ['node_modules', '-path', '*/@deepseek-ai/dsh-tools/package.json'],
    app,
  )
    .trim()
    .split('\n');
  for (const copy of copies) {
    const { name } = JSON.parse(run('cat', [copy], app));
    if (name !== 'dsh-tools-deepseek-harness-standin') throw new Error(`${copy} is ${name}`);
  }
  console.log(`${copies.length} install(s) of @deepseek-ai/dsh-tools, all the stand-in`);
  console.log(run('node', ['app.mjs'], app).trim());
  console.log(`swap from tarballs: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
}
