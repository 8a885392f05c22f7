// A throwaway npm registry for the workspace's own packages, so that plain npm installs them the
// way a user installs them from npmjs.com: `npm install -g @dsh-tools/cli`, with every internal
// dependency resolved by name and version, and every third-party one from the real registry.
//
// Each package is packed with `pnpm pack` (which rewrites `workspace:^` to the version range the
// published manifest will carry) and served at `/<name>` (a one-version packument) and `/-/<file>`
// (the tarball). npm is pointed at it for the `@dsh-tools` scope only, so nothing else is served
// from here.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const root = fileURLToPath(new URL('../', import.meta.url));

/** Every workspace package under packages/: npm name → folder and manifest. */
export function workspacePackages() {
  const byName = new Map();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const file = join(root, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    byName.set(manifest.name, { dir: join(root, 'packages', dir), manifest });
  }
  return byName;
}

/** `name` and every workspace package it depends on at run time, transitively. */
export function internalClosure(name, byName = workspacePackages()) {
  const seen = new Set();
  const visit = (n) => {
    if (seen.has(n) || !byName.has(n)) return;
    seen.add(n);
    for (const dep of Object.keys(byName.get(n).manifest.dependencies ?? {})) visit(dep);
  };
  visit(name);
  return [...seen];
}

/**
 * Packs `names` into `into` (which must exist); returns name → { file, manifest, listing } where
 * manifest is the one inside the tarball. Refuses a package without dist/: the build has not run.
 */
export function packAll(names, into, byName = workspacePackages()) {
  const packed = new Map();
  for (const name of names) {
    const pkg = byName.get(name);
    if (!existsSync(join(pkg.dir, 'dist'))) {
      throw new Error(`${name} has no dist/ in ${pkg.dir}: run "pnpm build" first.`);
    }
    const before = new Set(readdirSync(into));
    execFileSync('pnpm', ['pack', '--pack-destination', into], {
      cwd: pkg.dir,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const file = readdirSync(into).find((f) => !before.has(f));
    if (!file) throw new Error(`pnpm pack of ${name} wrote no tarball into ${into}.`);
    const path = join(into, file);
    const manifest = JSON.parse(
      execFileSync('tar', ['-xzOf', path, 'package/package.json'], { encoding: 'utf8' }),
    );
    const listing = execFileSync('tar', ['-tzf', path], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    if (!listing.some((entry) => entry.startsWith('package/dist/'))) {
      throw new Error(`${name} was packed without dist/ (${path}): the build did not produce it.`);
    }
    packed.set(name, { file: path, manifest, listing });
  }
  return packed;
}

/**
 * Serves the packed packages on 127.0.0.1 (a free port); resolves with its URL and a close().
 * Packuments are sent with `no-store`: every run packs anew under the same version.
 *
 * With `upstream` (a registry URL), a package that is not one of ours is fetched from there and
 * passed on, so npm can use this registry for everything (`--registry=<url>`): needed for an
 * unscoped package of ours (`npm install dsh-tools`), which a scope's registry cannot serve. The
 * upstream packuments name their tarballs by absolute URL, so the tarballs come from upstream.
 */
export async function serveRegistry(packed, { upstream } = {}) {
  const tarballs = new Map();
  const documents = new Map();
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const tarball = tarballs.get(path);
    if (tarball) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarball);
      return;
    }
    const doc = documents.get(path.slice(1));
    if (doc) {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(doc(`http://${req.headers.host}`)));
      return;
    }
    if (upstream && req.method === 'GET') {
      passOn(new URL(req.url.slice(1), upstream), req, res);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `not in the local registry: ${path}` }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  for (const [name, { file, manifest }] of packed) {
    const bytes = readFileSync(file);
    const fileName = `${name.replace('/', '-')}-${manifest.version}.tgz`;
    tarballs.set(`/-/${fileName}`, bytes);
    const dist = {
      shasum: createHash('sha1').update(bytes).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    documents.set(name, (base) => ({
      name,
      'dist-tags': { latest: manifest.version },
      versions: {
        [manifest.version]: {
          ...manifest,
          _id: `${name}@${manifest.version}`,
          dist: { ...dist, tarball: `${base}/-/${fileName}` },
        },
      },
    }));
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Fetches `url` with the request's content negotiation and answers with what upstream said. */
function passOn(url, req, res) {
  const headers = {};
  for (const name of ['accept', 'accept-encoding', 'npm-command', 'user-agent']) {
    if (req.headers[name]) headers[name] = req.headers[name];
  }
  fetch(url, { headers })
    .then(async (answer) => {
      const body = Buffer.from(await answer.arrayBuffer());
      // fetch() has decoded the body: the encoding header would make npm decode it twice.
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        'cache-control': 'no-store',
      });
      res.end(body);
    })
    .catch((error) => {
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `upstream ${url.host} failed: ${error.message}` }));
    });
}

/** The environment npm runs in as a user runs it: without the npm_config_* pnpm passes on. */
export function plainEnv(extra = {}) {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_config_')),
    ),
    ...extra,
  };
}

/**
 * Runs a command without blocking this process's event loop (the registry above must answer
 * npm meanwhile); resolves with its stdout, rejects naming the command with its output.
 */
export function runAsync(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${stderr}${stdout}`));
    });
  });
}

/**
 * Installs `spec` globally into a fresh `prefix` with plain npm, `@dsh-tools/*` from `registryUrl`
 * and everything else from the configured registry; resolves with npm's JSON summary.
 */
export async function installGlobal(spec, prefix, registryUrl, extraEnv = {}) {
  const output = await runAsync(
    'npm',
    [
      'install',
      '--global',
      '--prefix',
      prefix,
      `--@dsh-tools:registry=${registryUrl}`,
      '--no-audit',
      '--no-fund',
      '--json',
      spec,
    ],
    { env: plainEnv(extraEnv) },
  );
  // npm prints its JSON summary last; warnings may come before it on stdout.
  const start = output.indexOf('{');
  return start >= 0 ? JSON.parse(output.slice(start)) : {};
}

/** Installs Node `version` from npm into `dir`; returns the path of its binary. */
export async function installNode(version, dir) {
  // The `node` package fetches the binary for this platform as a preinstall step; should npm skip
  // that script, the platform package it would fetch is installed directly.
  await runAsync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefix', dir, `node@${version}`],
    {
      env: plainEnv(),
    },
  );
  const viaShim = join(dir, 'node_modules', '.bin', 'node');
  if (existsSync(viaShim)) return viaShim;
  const platformPackage = `node-${process.platform}-${process.arch}`;
  await runAsync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefix', dir, `${platformPackage}@${version}`],
    { env: plainEnv() },
  );
  return join(dir, 'node_modules', platformPackage, 'bin', 'node');
}
