#!/usr/bin/env node
// Every README's TypeScript examples, tried as a user tries them: the workspace is packed and
// served from a local registry (which passes every other package on from npm's), and for each
// README a fresh folder gets that README's own install line, run with plain npm. Each example is
// then typechecked (strict, `nodenext`, no skipLibCheck: the packages' types must need nothing the
// install line does not bring, apart from @types/node) and run with node, compiled by tsc as a
// user would. Markers in the README say which block continues the one before and which is only
// typechecked (see readme-examples-parse.mjs); everything else must run and exit 0.
//
// Usage: node scripts/readme-examples.mjs [--only <readme path substring>] [--keep]
// Needs `pnpm build` first and the npm registry. Exit codes: 0 every example typechecked and ran,
// 1 one did not, 2 could not set up.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import {
  installNode,
  packAll,
  plainEnv,
  root,
  runAsync,
  serveRegistry,
  workspacePackages,
} from './local-registry.mjs';
import { examples, fencedBlocks, installCommands } from './readme-examples-parse.mjs';

const { values } = parseArgs({
  options: { only: { type: 'string' }, keep: { type: 'boolean', default: false } },
});
/** A run that does not end by then is stuck (a handle left open is a defect of the example). */
const RUN_TIMEOUT_MS = 180_000;

/** Every README of the repository that a user reads: the root one and each package's. */
function readmes() {
  const files = ['README.md'];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    if (existsSync(join(root, 'packages', dir, 'README.md')))
      files.push(`packages/${dir}/README.md`);
  }
  return files.filter((f) => !values.only || f.includes(values.only));
}

/** Runs `cmd`, resolving with `{ code, output }` (stdout and stderr interleaved); never rejects. */
function run(cmd, args, options) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      ...options,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    const add = (d) => {
      if (output.length < 200_000) output += d;
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => {
      output += `\n[killed after ${RUN_TIMEOUT_MS / 1000} s: the example did not end]`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, RUN_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, output: `${output}${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), output });
    });
  });
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'dsh-readme-examples-'));
const failures = [];
const rows = [];
let registry;
try {
  const byName = workspacePackages();
  const publishable = [...byName].filter(([, p]) => !p.manifest.private).map(([n]) => n);
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = packAll(publishable, tarballs, byName);
  registry = await serveRegistry(packed, { upstream: 'https://registry.npmjs.org/' });
  /** A Node of that major from npm's `node` package, installed once (`<!-- example: node 22 -->`). */
  const nodes = new Map();
  const nodeOf = (major) => {
    if (!nodes.has(major)) nodes.set(major, installNode(major, join(work, `node-${major}`)));
    return nodes.get(major);
  };
  // A home of its own: examples read ~/.claude and the like, which must not be the machine's.
  const home = join(work, 'home');
  mkdirSync(home);

  /** One README in a folder of its own: install, typecheck each example, run it. */
  const tryReadme = async (readme) => {
    let list;
    let installs;
    try {
      const blocks = fencedBlocks(readFileSync(join(root, readme), 'utf8'), readme);
      list = examples(blocks, readme);
      if (list.length === 0) return;
      installs = installCommands(blocks, readme);
    } catch (error) {
      failures.push(error.message);
      return;
    }
    const dir = join(work, readme.replace(/\//g, '_').replace(/\.md$/, ''));
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'readme-example', private: true, type: 'module' }, null, 2)}\n`,
    );
    console.log(`\n${readme}: ${installs.map((c) => `npm ${c.join(' ')}`).join(' && ')}`);
    let installed = true;
    for (const command of installs) {
      try {
        await runAsync(
          'npm',
          [...command, `--registry=${registry.url}`, '--no-audit', '--no-fund', '--loglevel=error'],
          { cwd: dir, env: plainEnv() },
        );
      } catch (error) {
        failures.push(
          `${readme}: its install line failed: npm ${command.join(' ')}\n${error.message}`,
        );
        installed = false;
        break;
      }
    }
    if (!installed) return;

    // Each example is its own program, as a user's file is: a declaration merged in by one
    // example (a `declare module`, an import with side effects on types) must not make another
    // typecheck.
    writeFileSync(
      join(dir, 'tsconfig.json'),
      `${JSON.stringify(
        {
          compilerOptions: {
            strict: true,
            module: 'nodenext',
            moduleResolution: 'nodenext',
            target: 'es2022',
            lib: ['es2022'],
            types: ['node'],
            typeRoots: [join(root, 'node_modules', '@types')],
            outDir: 'out',
          },
          files: [],
        },
        null,
        2,
      )}\n`,
    );
    const errors = new Map();
    for (const example of list) {
      const name = `L${example.line}`;
      writeFileSync(join(dir, `${name}.ts`), example.code);
      writeFileSync(
        join(dir, `tsconfig.${name}.json`),
        `${JSON.stringify({ extends: './tsconfig.json', files: [`${name}.ts`] })}\n`,
      );
      const check = await run(
        process.execPath,
        [tsc, '-p', `tsconfig.${name}.json`, '--pretty', 'false'],
        { cwd: dir },
      );
      const found = check.output
        .split('\n')
        .filter((line) => /error TS\d+/.test(line))
        .map((line) => {
          const at = /^(?:.*[\\/])?L\d+\.ts\((\d+),\d+\): (error .*)$/.exec(line);
          return at ? `example line ${at[1]}: ${at[2]}` : line;
        });
      if (check.code !== 0 && found.length === 0) found.push(check.output.trim().slice(-2000));
      if (found.length > 0) errors.set(example.line, found);
    }
    // The older resolution, as the packages' READMEs document it: `node10` works with
    // `esModuleInterop` (zod's own declarations, which the MCP SDK's types bring in, need it).
    // One program for the README: this checks that every import resolves and types, not the
    // examples' isolation, which the pass above did.
    writeFileSync(
      join(dir, 'tsconfig.node10.json'),
      `${JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: {
          module: 'es2022',
          moduleResolution: 'node10',
          esModuleInterop: true,
          noEmit: true,
        },
        files: list.map((e) => `L${e.line}.ts`),
      })}\n`,
    );
    const node10 = await run(
      process.execPath,
      [tsc, '-p', 'tsconfig.node10.json', '--pretty', 'false'],
      { cwd: dir },
    );
    if (node10.code !== 0) {
      failures.push(
        `${readme}: its examples do not typecheck under moduleResolution node10 with esModuleInterop:\n${node10.output.trim().slice(-3000)}`,
      );
    }

    for (const example of list) {
      const where = `${readme}:${example.line}`;
      const label =
        example.chain.length > 1
          ? `${where} (with lines ${example.chain.slice(0, -1).join(', ')})`
          : where;
      const typeErrors = errors.get(example.line);
      if (typeErrors) {
        failures.push(`${label}: does not typecheck:\n  ${typeErrors.join('\n  ')}`);
        rows.push([where, 'type errors', '']);
        continue;
      }
      if (!example.run) {
        rows.push([
          where,
          'typechecks',
          example.reason ? `not run: ${example.reason}` : 'runs with the block after it',
        ]);
        continue;
      }
      const t0 = Date.now();
      const nodeBin = example.node ? await nodeOf(example.node) : process.execPath;
      const ran = await run(nodeBin, [join('out', `L${example.line}.js`)], {
        cwd: dir,
        env: { ...plainEnv(), HOME: home },
      });
      const took = `${((Date.now() - t0) / 1000).toFixed(1)} s`;
      if (ran.code !== 0) {
        failures.push(`${label}: exited ${ran.code} when run:\n${ran.output.trim().slice(-4000)}`);
        rows.push([where, 'typechecks', `FAILED when run (${took})`]);
      } else {
        rows.push([
          where,
          'typechecks',
          `runs (${took}${example.node ? `, on Node ${example.node}` : ''})`,
        ]);
      }
    }
  };
  // Installs wait on the network, so a few READMEs at a time.
  const queue = readmes();
  const worker = async () => {
    while (queue.length > 0) await tryReadme(queue.shift());
  };
  await Promise.all([worker(), worker(), worker()]);
} catch (error) {
  console.error(
    `readme-examples: could not set up: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exitCode = 2;
} finally {
  await registry?.close();
  rows.sort((x, y) => x[0].localeCompare(y[0], 'en', { numeric: true }));
  if (rows.length > 0) {
    console.log('');
    for (const [where, typed, ran] of rows)
      console.log(`${where.padEnd(48)} ${typed.padEnd(12)} ${ran}`);
  }
  for (const failure of failures) console.log(`\nFAILED: ${failure}`);
  const count = (test) => rows.filter(test).length;
  const alone = count((r) => r[2].startsWith('runs ('));
  const within = count((r) => r[2] === 'runs with the block after it');
  const only = count((r) => r[2].startsWith('not run'));
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `\n${rows.length} README examples: ${alone} ran on their own, ${within} ran with the block that continues them, ${only} typecheck only (the README says why); ${failures.length} failures (${seconds} s)`,
  );
  if (values.keep) console.log(`kept: ${relative(process.cwd(), work) || work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0 && !process.exitCode) process.exitCode = 1;
