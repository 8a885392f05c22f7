/**
 * `dsh-tools serve --http` with its state in Redis, in one run:
 *
 * - **per call, Redis store vs in memory**: the same gateway config (the notes server, limits per
 *   client, tool pins) served by two `serve --http` processes, one keeping its state in memory,
 *   one in a real `redis-server`; the SDK client calls `mcp__notes__get_note` on each, paired call
 *   by call in a rotating order. Target: the Redis one at most 1.5x the memory one.
 * - **three replicas vs one**: the cluster of `examples/gateway-cluster` (Redis, replicas, HAProxy
 *   round robin) with three replicas and with one, driven by the same number of concurrent
 *   clients; calls per second of each, and each replica's CPU per call (from /proc). Reported
 *   only: on a two-core machine three replicas cannot show scaling.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cpuOf, formatNs, reportRatio } from './lib';

const cliDir = dirname(createRequire(import.meta.url).resolve('@dsh-tools/cli/package.json'));
const CLI = join(cliDir, 'dist/cli.mjs');
const NOTES = join(cliDir, 'dist/example-server.mjs');
// The workspace's CLI is packages/cli (node resolves the link to it): the repository is two up.
const repo = join(cliDir, '..', '..');
// Not bundled (a computed path): the example finds its haproxy.cfg beside itself.
const clusterModule = join(repo, 'examples/gateway-cluster/cluster.mjs');
const { startCluster, freePort, missingPrograms } = (await import(
  pathToFileURL(clusterModule).href
)) as {
  startCluster: (options: Record<string, unknown>) => Promise<{
    url: string;
    token: string;
    replicas: { pid: number; name: string }[];
    stop(): Promise<void>;
  }>;
  freePort: () => Promise<number>;
  missingPrograms: () => string[];
};

const missing = missingPrograms();
if (missing.length > 0) {
  console.log(`gateway-cluster bench skipped: it needs ${missing.join(' and ')}`);
  process.exit(0);
}

const TOKEN = 'bench-cluster-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
const config = (state: boolean) => ({
  mcpServers: { notes: { command: process.execPath, args: [NOTES] } },
  // What a team's gateway runs with: a budget per client (never reached here) and pins.
  limits: { callsPerMinute: 1_000_000, concurrent: 1000 },
  pins: 'tofu',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's ${VAR} syntax
  ...(state ? { state: { redis: '${DSH_TOOLS_REDIS}' } } : {}),
});
const memoryFile = join(dir, 'memory', 'dsh-tools.json');
const redisFile = join(dir, 'redis', 'dsh-tools.json');
for (const [file, state] of [
  [memoryFile, false],
  [redisFile, true],
] as const) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(config(state)));
}

const children: { kill(signal?: NodeJS.Signals): boolean }[] = [];
const cleanup: (() => Promise<void>)[] = [];

/** Starts a process and waits for `ready` in its stderr. */
async function started(command: string, args: string[], ready: RegExp, env = {}) {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let text = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${text}`)), 30_000);
    const look = (d: Buffer) => {
      text += d;
      const found = ready.exec(text);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}: ${text}`)));
  });
  return { child, match };
}

async function client(url: string, token: string): Promise<Client> {
  const c = new Client({ name: 'bench-cluster', version: '0.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

async function call(c: Client): Promise<void> {
  const result = await c.callTool({ name: 'mcp__notes__get_note', arguments: { id: 1 } });
  if (result.isError || !Array.isArray(result.content)) {
    throw new Error(`the call failed: ${JSON.stringify(result).slice(0, 300)}`);
  }
}

const median = (xs: readonly number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

try {
  // --- per call: Redis store vs in memory, through one serve each ---
  const redisPort = await freePort();
  await started(
    'redis-server',
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
    ],
    /Ready to accept connections/,
  );
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const serve = async (file: string) =>
    (
      await started(
        process.execPath,
        [CLI, 'serve', '--config', file, '--http', '127.0.0.1:0'],
        /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/,
        { DSH_TOOLS_TOKEN: TOKEN, DSH_TOOLS_REDIS: redisUrl },
      )
    ).match[1] as string;
  const memory = await client(await serve(memoryFile), TOKEN);
  const redis = await client(await serve(redisFile), TOKEN);
  for (let i = 0; i < 300; i++) {
    await call(memory);
    await call(redis);
  }
  const ROUNDS = 600;
  const times = { memory: [] as number[], redis: [] as number[] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const which of i % 2 === 0
      ? (['memory', 'redis'] as const)
      : (['redis', 'memory'] as const)) {
      const start = process.hrtime.bigint();
      await call(which === 'memory' ? memory : redis);
      times[which].push(Number(process.hrtime.bigint() - start));
    }
  }
  const m = median(times.memory);
  const r = median(times.redis);
  console.log('\n## one tools/call through serve --http: state in Redis vs in memory\n');
  console.log(
    `paired, ${ROUNDS} rounds: median in memory ${formatNs(m)}, Redis store ${formatNs(r)}`,
  );
  reportRatio('Redis store / in memory (paired medians)', r / m, 1.5);
  await memory.close();
  await redis.close();
  for (const child of children.splice(0)) child.kill('SIGTERM');

  // --- throughput: three replicas vs one, behind HAProxy ---
  const CLIENTS = 6;
  const CALLS = 200;
  const throughput = async (replicas: number) => {
    const cluster = await startCluster({ config: redisFile, replicas, token: TOKEN });
    cleanup.push(() => cluster.stop());
    try {
      const clients = await Promise.all(
        Array.from({ length: CLIENTS }, () => client(cluster.url, cluster.token)),
      );
      for (const c of clients) for (let i = 0; i < 20; i++) await call(c);
      const cpuBefore = cluster.replicas.map((p) => cpuOf(p.pid));
      const start = process.hrtime.bigint();
      await Promise.all(
        clients.map(async (c) => {
          for (let i = 0; i < CALLS; i++) await call(c);
        }),
      );
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpuAfter = cluster.replicas.map((p) => cpuOf(p.pid));
      await Promise.all(clients.map((c) => c.close()));
      const calls = CLIENTS * CALLS;
      // Round robin: each replica served a third of the calls (with three).
      const served = calls / cluster.replicas.length;
      let total = 0;
      const cpu = cluster.replicas.map((p, i) => {
        const before = cpuBefore[i];
        const after = cpuAfter[i];
        if (before === undefined || after === undefined) return `${p.name} ?`;
        total += after - before;
        return `${p.name} ${formatNs(((after - before) * 1000) / served)}`;
      });
      cpu.push(`all replicas together ${formatNs((total * 1000) / calls)} per call`);
      return { perSecond: calls / seconds, cpu };
    } finally {
      await cluster.stop();
    }
  };
  const one = await throughput(1);
  const three = await throughput(3);
  console.log(`\n## throughput behind HAProxy, ${CLIENTS} clients × ${CALLS} calls\n`);
  console.log(
    `one replica: ${one.perSecond.toFixed(0)} calls/s; CPU per call it served: ${one.cpu.join(', ')}`,
  );
  console.log(
    `three replicas: ${three.perSecond.toFixed(0)} calls/s; CPU per call it served: ${three.cpu.join(', ')}`,
  );
  reportRatio(
    'three replicas / one, calls per second (two cores: reported, no target)',
    three.perSecond / one.perSecond,
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
  for (const stop of cleanup) await stop().catch(() => {});
}
