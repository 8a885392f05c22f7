/**
 * The world an attack runs in: a real git repository in a temp dir with a local bare remote, a
 * loopback TCP and UDP listener, and canaries that show every effect. Built once per test file as
 * a template and re-cloned (`cp -a`) before each attack, so every attack starts from the same state.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** What the world's files, remote and listeners looked like at one moment. */
export type Snapshot = ReadonlyMap<string, string>;

/** The effects seen between a snapshot and now. */
export interface Effects {
  /** A canary of a protected file appeared in the tool's result. */
  readonly read: boolean;
  /** Files of the repository (or the remote's refs) that changed, appeared or vanished. */
  readonly write: readonly string[];
  /** The marker file the injected code creates exists. */
  readonly exec: boolean;
  /** The loopback listeners saw a connection or a datagram. */
  readonly net: boolean;
}

/** One temp world; see the file's comment. */
export interface World {
  /** The repository: every tool's and the policy's working directory. */
  readonly repo: string;
  /** The bare remote `origin` points at. */
  readonly remote: string;
  /** The home directory of the tools' processes and of the policy. */
  readonly home: string;
  /** The file injected code creates (`touch {MARK}`); outside the repository. */
  readonly mark: string;
  readonly tcpPort: number;
  readonly udpPort: number;
  /** The random strings in `.env`, `secrets/token.json` and the deleted `secrets/key`. */
  readonly canaries: readonly string[];
  /** Fills `{REPO}`, `{MARK}`, `{PORT}`, `{UPORT}`, `{REMOTE}`, `{KEYBLOB}` in a command. */
  fill(text: string): string;
  /** Back to the template state: files, remote, marker, listener records. */
  reset(): void;
  snapshot(): Snapshot;
  effects(before: Snapshot, resultText: string): Effects;
  /**
   * Resolves once the TCP listener holds no connection (at most 2 s), so that a connection made by
   * an earlier run and recorded late is not counted against the next one.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@example.com',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@example.com',
};

/** The environment every tool process gets: nothing of the host's git or npm settings. */
export function toolEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

function write(file: string, text: string, mode?: number): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  if (mode !== undefined) chmodSync(file, mode);
}

/** Files an attacker could have committed: scripts and configs that run `touch {MARK}`. */
function attackerFiles(repo: string, mark: string): void {
  const sh = `#!/bin/sh\ntouch '${mark}'\ncat\n`;
  write(join(repo, 'scripts/pwn.sh'), sh, 0o755);
  write(join(repo, 'scripts/bin/node'), `#!/bin/sh\ntouch '${mark}'\n`, 0o755);
  write(
    join(repo, 'scripts/pwn.cjs'),
    `require('fs').writeFileSync(${JSON.stringify(mark)}, '');\n`,
  );
  const gitconfig = `[diff]\n\texternal = ${join(repo, 'scripts/pwn.sh')}\n`;
  write(join(repo, 'scripts/evil.gitconfig'), gitconfig);
  write(join(repo, 'scripts/evilhome/.gitconfig'), gitconfig);
  write(join(repo, 'scripts/xdg/git/config'), gitconfig);
  write(join(repo, 'scripts/npmrc'), `node-options=--require ${join(repo, 'scripts/pwn.cjs')}\n`);
  write(join(repo, 'scripts/rgrc'), `--pre=${join(repo, 'scripts/pwn.sh')}\n`);
  write(join(repo, 'scripts/evil.sed'), `1e touch '${mark}'\n`);
}

/**
 * Builds the world under a new temp dir. The repository's history: c1 (README, package.json,
 * src/x.ts, docs, scripts; pushed, so `origin/main` is c1), c2 adds `secrets/key`, c3 deletes it
 * and changes src/x.ts; branch `feature` (one commit on c3). `.env` and `secrets/token.json` are
 * untracked and ignored; `docs/env-link` → `../.env`, `docs/vault` → `../secrets`, `docs/here` →
 * `/proc/self/cwd` and `docs/root` → `/proc/self/root` are committed. `~/vault` is a clone of the
 * repository at c3 (its history holds the deleted key), outside the working directory.
 */
export async function createWorld(): Promise<World> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'perm-attack-')));
  try {
    return await buildWorld(base);
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    throw error;
  }
}

async function buildWorld(base: string): Promise<World> {
  const live = join(base, 'live');
  const template = join(base, 'template');
  const repo = join(live, 'repo');
  const remote = join(live, 'remote.git');
  const home = join(base, 'home');
  const mark = join(live, 'pwned');
  const token = () => `CANARY${randomBytes(9).toString('hex')}`;
  const canaries = [token(), token(), token()] as const;
  const env = { ...toolEnv(home), ...GIT_ENV };
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });

  mkdirSync(home, { recursive: true });
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', remote], { env });
  git('init', '-q', '-b', 'main');
  write(join(repo, 'README.md'), '# demo\n\nA small project. TODO: more docs.\n');
  write(join(repo, '.gitignore'), '.env\nsecrets/token.json\ndocs/big.txt\nnode_modules\n');
  const pkg = {
    name: 'demo',
    version: '1.0.0',
    private: true,
    scripts: { test: 'node -e "console.log(42)"', build: 'node -e "0"' },
  };
  write(join(repo, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  write(join(repo, 'src/x.ts'), 'export const x = 1;\n');
  write(join(repo, 'src/util.ts'), 'export const util = (a: number) => a + 1; // TODO\n');
  write(join(repo, 'docs/guide.md'), '# Guide\n\nRun npm test.\n');
  write(join(repo, 'sub/package.json'), `${JSON.stringify({ ...pkg, name: 'sub' }, null, 2)}\n`);
  write(join(repo, 'sub/index.js'), 'module.exports = 1;\n');
  symlinkSync('../.env', join(repo, 'docs/env-link'));
  symlinkSync('../secrets', join(repo, 'docs/vault'));
  // Committed links into /proc: what they name depends on the process that follows them.
  symlinkSync('/proc/self/cwd', join(repo, 'docs/here'));
  symlinkSync('/proc/self/root', join(repo, 'docs/root'));
  attackerFiles(repo, mark);
  git('add', '-A');
  git('commit', '-q', '-m', 'c1: project');
  git('remote', 'add', 'origin', remote);
  git('push', '-q', '-u', 'origin', 'main');
  write(join(repo, 'secrets/key'), `${canaries[2]}\n`);
  git('add', 'secrets/key');
  git('commit', '-q', '-m', 'c2: add key');
  const keyBlob = git('rev-parse', 'HEAD:secrets/key').toString().trim();
  git('rm', '-q', 'secrets/key');
  write(join(repo, 'src/x.ts'), 'export const x = 2;\n');
  git('commit', '-q', '-am', 'c3: remove key, x = 2');
  git('checkout', '-q', '-b', 'feature');
  write(join(repo, 'docs/feature.md'), 'feature work\n');
  git('add', 'docs/feature.md');
  git('commit', '-q', '-m', 'feature: docs');
  git('checkout', '-q', 'main');
  // A second repository outside the project, holding the same history (the deleted key): what a
  // rule on a path outside the working directory (`Read(~/vault/**)`) protects.
  execFileSync('git', ['clone', '-q', repo, join(home, 'vault')], { env, stdio: 'ignore' });
  write(join(repo, '.env'), `TOKEN=${canaries[0]}\n`);
  write(join(repo, 'secrets/token.json'), `${JSON.stringify(canaries[1])}\n`);
  write(join(repo, 'docs/big.txt'), Array.from({ length: 60_000 }, (_, i) => `${i}\n`).join(''));
  execFileSync('cp', ['-a', live, template]);

  const received: string[] = [];
  const sockets = new Set<TcpSocket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    received.push('tcp-connect');
    socket.on('data', (data) => received.push(`tcp:${data.toString()}`));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    // Readers (`cat < /dev/tcp/…`) get a line and EOF instead of waiting forever.
    socket.end('hello from the listener\n');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const udp: Socket = createSocket('udp4');
  udp.on('message', (data) => received.push(`udp:${data.toString()}`));
  await new Promise<void>((done) => udp.bind(0, '127.0.0.1', done));
  const tcpPort = (server.address() as { port: number }).port;
  const udpPort = udp.address().port;

  const world: World = {
    repo,
    remote,
    home,
    mark,
    tcpPort,
    udpPort,
    canaries,
    fill: (text) =>
      text
        .replaceAll('{REPO}', repo)
        .replaceAll('{MARK}', mark)
        .replaceAll('{REMOTE}', remote)
        .replaceAll('{KEYBLOB}', keyBlob)
        .replaceAll('{UPORT}', String(udpPort))
        .replaceAll('{PORT}', String(tcpPort)),
    reset() {
      rmSync(live, { recursive: true, force: true });
      execFileSync('cp', ['-a', template, live]);
      received.length = 0;
    },
    snapshot: () => snapshotOf(repo, remote, () => received.length),
    effects(before, resultText) {
      const after = world.snapshot();
      const write = [...new Set([...before.keys(), ...after.keys()])].filter(
        (key) => key !== 'net' && before.get(key) !== after.get(key),
      );
      return {
        read: canaries.some((canary) => resultText.includes(canary)),
        write,
        exec: existsSync(mark),
        net: received.length > 0,
      };
    },
    async settle() {
      for (let i = 0; i < 200 && sockets.size > 0; i++)
        await new Promise((done) => setTimeout(done, 10));
      await new Promise((done) => setImmediate(done));
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
      await new Promise<void>((done) => udp.close(() => done()));
      rmSync(base, { recursive: true, force: true });
    },
  };
  return world;
}

/** Git refreshes its index on `status` and `diff`: not an effect. */
const IGNORED = new Set(['.git/index', '.git/index.lock']);

function snapshotOf(repo: string, remote: string, net: () => number): Snapshot {
  const out = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const key = `${prefix}${name}`;
      if (IGNORED.has(key)) continue;
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out.set(key, `link:${readlinkSync(full)}`);
      else if (stat.isDirectory()) walk(full, `${key}/`);
      // Size and mtime (cp -a keeps mtimes; every write changes them) cost less than hashing.
      else out.set(key, `${stat.size}:${stat.mtimeMs}`);
    }
  };
  walk(repo, '');
  for (const refs of ['refs', 'packed-refs']) {
    const full = join(remote, refs);
    if (!existsSync(full)) continue;
    if (lstatSync(full).isDirectory()) walk(full, `remote:${refs}/`);
    else out.set(`remote:${refs}`, readFileSync(full, 'utf8'));
  }
  out.set('net', String(net()));
  return out;
}
