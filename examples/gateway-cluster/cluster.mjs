#!/usr/bin/env node
// A gateway cluster on one machine: Redis, three `dsh-tools serve --http` replicas sharing it, and
// HAProxy in front of them (round robin, no session affinity). `node cluster.mjs` starts it all
// and stops it all on Ctrl-C; `startCluster()` does the same for tests and scripts.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The `dsh-tools` CLI this example runs (the workspace's build, or the installed package). */
export function cliPath() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@dsh-tools/cli/package.json')), 'dist', 'cli.mjs');
}

/** A port free on loopback now. */
export function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** Resolves once something accepts connections on `port` (at most `ms`). */
async function listening(port, ms, what) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const up = await new Promise((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not listen on 127.0.0.1:${port} within ${ms} ms`);
}

/** Which of the programs the cluster needs are missing, with how to get them. */
export function missingPrograms() {
  const missing = [];
  for (const [program, pkg] of [
    ['redis-server', 'redis-server'],
    ['haproxy', 'haproxy'],
  ]) {
    const found = spawnSync('sh', ['-c', `command -v ${program} || test -x /usr/sbin/${program}`], {
      stdio: 'ignore',
    });
    if (found.status !== 0) missing.push(`${program} (apt-get install -y ${pkg})`);
  }
  return missing;
}

const haproxyBinary = () =>
  spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim() ||
  '/usr/sbin/haproxy';

/**
 * A child process of the cluster, started by `args`: `kill(signal)` ends it and waits (SIGKILL by
 * default, as a crash would); `start()` runs it again with the same arguments.
 */
function processOf(name, command, args, options, ready) {
  let child;
  let log = '';
  const handle = {
    name,
    get pid() {
      return child?.pid;
    },
    get log() {
      return log;
    },
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      log = '';
      child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (chunk) => {
        log = (log + chunk.toString()).slice(-20_000);
      };
      child.stdout.on('data', keep);
      child.stderr.on('data', keep);
      const exited = new Promise((_, fail) =>
        child.once('exit', (code, signal) =>
          fail(new Error(`${name} exited (${signal ?? code}) while starting:\n${log}`)),
        ),
      );
      exited.catch(() => {});
      await Promise.race([ready(), exited]);
    },
    async kill(signal = 'SIGKILL') {
      const proc = child;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      await new Promise((done) => {
        proc.once('exit', () => done());
        proc.kill(signal);
      });
    },
  };
  return handle;
}

/**
 * Starts Redis, `replicas` replicas of `dsh-tools serve --http` on `config` and HAProxy in front.
 *
 * - `config`: the gateway's `dsh-tools.json` (default: this example's); its `state.redis` should
 *   be `${DSH_TOOLS_REDIS}`, which is set to the Redis started here.
 * - `port`: HAProxy's port (default: a free one); `token`: the replicas' bearer token (default:
 *   `DSH_TOOLS_TOKEN`, else one made up); `env`: more environment for the replicas.
 *
 * Resolves with the URL clients use, each part (to kill or restart), and `stop()`, which stops
 * everything and removes the run directory (Redis's data included).
 */
export async function startCluster(options = {}) {
  const missing = missingPrograms();
  if (missing.length > 0) {
    throw new Error(`The cluster needs ${missing.join(' and ')}.`);
  }
  const config = resolve(options.config ?? join(here, 'dsh-tools.json'));
  const count = options.replicas ?? 3;
  const token =
    options.token ?? process.env.DSH_TOOLS_TOKEN ?? `cluster-${process.pid}-${Date.now()}-token`;
  const run = mkdtempSync(join(tmpdir(), 'dsh-cluster-'));
  const parts = [];
  const stop = async () => {
    // The balancer first (no new requests), then the replicas (they close their sessions), then Redis.
    for (const part of [...parts].reverse()) await part.kill('SIGTERM').catch(() => {});
    rmSync(run, { recursive: true, force: true });
  };
  try {
    const redisPort = await freePort();
    const redis = processOf(
      'redis-server',
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--dir',
        run,
        // An acknowledged write (a grant, a pin) survives a crash of Redis: see the README.
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
      ],
      {},
      () => listening(redisPort, 10_000, 'redis-server'),
    );
    parts.push(redis);
    await redis.start();
    const redisUrl = `redis://127.0.0.1:${redisPort}`;

    const cli = cliPath();
    const replicas = [];
    for (let i = 1; i <= count; i++) {
      const port = await freePort();
      const replica = processOf(
        `replica ${i}`,
        process.execPath,
        [cli, 'serve', '--config', config, '--http', `127.0.0.1:${port}`],
        {
          cwd: dirname(config),
          env: {
            ...process.env,
            ...options.env,
            DSH_TOOLS_TOKEN: token,
            DSH_TOOLS_REDIS: redisUrl,
          },
        },
        () => listening(port, 30_000, `replica ${i}`),
      );
      replica.port = port;
      parts.push(replica);
      replicas.push(replica);
    }
    await Promise.all(replicas.map((r) => r.start()));

    const port = options.port ?? (await freePort());
    const servers = replicas
      .map((r, i) => `  server r${i + 1} 127.0.0.1:${r.port} check inter 300 fall 1 rise 1`)
      .join('\n');
    const haproxyConfig = join(run, 'haproxy.cfg');
    writeFileSync(
      haproxyConfig,
      readFileSync(join(here, 'haproxy.cfg'), 'utf8')
        .replace('{{PORT}}', String(port))
        .replace('{{SERVERS}}', servers),
    );
    const haproxy = processOf('haproxy', haproxyBinary(), ['-f', haproxyConfig, '-db'], {}, () =>
      listening(port, 10_000, 'haproxy'),
    );
    parts.push(haproxy);
    await haproxy.start();
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      token,
      redis: Object.assign(redis, { url: redisUrl, port: redisPort }),
      replicas,
      haproxy,
      dir: run,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cluster = await startCluster({
    ...(process.env.PORT ? { port: Number(process.env.PORT) } : {}),
  }).catch((error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
  process.stderr.write(
    [
      `Redis      ${cluster.redis.url}`,
      ...cluster.replicas.map((r) => `${r.name.padEnd(10)} http://127.0.0.1:${r.port}/mcp`),
      `HAProxy    ${cluster.url}   <- point MCP clients here`,
      `token      ${cluster.token}`,
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  const stopAll = async () => {
    process.stderr.write('stopping...\n');
    await cluster.stop();
    process.exit(0);
  };
  process.once('SIGINT', stopAll);
  process.once('SIGTERM', stopAll);
}
