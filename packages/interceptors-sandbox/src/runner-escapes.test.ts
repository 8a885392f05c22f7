/**
 * The process half of the escape corpus: real commands under the real bubblewrap, each trying to
 * get out of the sandbox (write outside the roots, read a masked secret, reach the network, gain
 * privileges, remount `/`, nest a user namespace, outlive its time). Every case checks the host
 * afterwards, not only the command's exit code.
 */
import { randomUUID } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanUpAfterTests,
  link,
  makeTree,
  needsBwrap,
  outcome,
  pidsWith,
  SKIP_BWRAP,
  sandboxedRegistry,
  type Tree,
} from '../test/fixtures';
import { createSandboxRunner, type SandboxRunResult } from './index';

let tree: Tree;
let server: Server;
let port = 0;
let connections = 0;
let unixServer: Server;
let unixConnections = 0;
const runSocket = `/run/dsh-sandbox-test-${randomUUID()}.sock`;
const hostMarker = `dsh-host-secret-${randomUUID()}`;

beforeAll(async () => {
  tree = await makeTree();
  await link(tree.outside, `${tree.ws}/out`);
  await link('.env', `${tree.ws}/innocent`);
  await mkdir(`${tree.outside}/private`);
  await writeFile(`${tree.outside}/private/key`, 'private-key-material\n');
  // A setuid-root copy of grep: if the sandbox let setuid raise privileges, it would show them.
  await copyFile('/usr/bin/grep', `${tree.outside}/suid-grep`);
  await chmod(`${tree.outside}/suid-grep`, 0o4755);
  process.env.DSH_SANDBOX_TEST_SECRET = hostMarker;
  server = createServer((socket) => {
    connections++;
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  // A host daemon's socket in /run, as docker's, dbus's or an ssh-agent's would be.
  unixServer = createServer((socket) => {
    unixConnections++;
    socket.end('daemon\n');
  });
  await new Promise<void>((resolve) => unixServer.listen(runSocket, resolve));
});
afterAll(async () => {
  delete process.env.DSH_SANDBOX_TEST_SECRET;
  await new Promise((resolve) => server?.close(resolve));
  await new Promise((resolve) => unixServer?.close(resolve));
  await tree?.cleanup();
});
cleanUpAfterTests();

const sh = (mode: 'read-only' | 'workspace-write' | 'full-access', script: string, extra = {}) =>
  createSandboxRunner({
    mode,
    cwd: tree.ws,
    denyRead: [`${tree.outside}/private/**`],
    ...extra,
  }).run(['bash', '-c', script], { timeoutMs: 20_000 });

const absent = async (path: string) => expect(stat(path)).rejects.toThrow(/ENOENT/);

interface ProcessCase {
  readonly name: string;
  readonly mode?: 'read-only' | 'workspace-write' | 'full-access';
  readonly script: (t: Tree) => string;
  /** What must hold on the host and in the result afterwards. */
  readonly check: (r: SandboxRunResult, t: Tree) => Promise<void> | void;
}

const cases: readonly ProcessCase[] = [
  {
    name: 'write outside the roots',
    script: (t) => `echo escaped > ${t.outside}/p1.txt`,
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(/Read-only file system/);
      await absent(`${t.outside}/p1.txt`);
    },
  },
  {
    name: 'write into /etc',
    script: () => 'touch /etc/dsh-sandbox-escape',
    check: async (r) => {
      expect(r.exitCode).not.toBe(0);
      await absent('/etc/dsh-sandbox-escape');
    },
  },
  {
    name: 'write through a symlink in the root to outside',
    script: () => 'echo escaped > out/p2.txt',
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      await absent(`${t.outside}/p2.txt`);
    },
  },
  {
    name: 'write through /proc/self/root',
    script: (t) => `echo escaped > /proc/self/root${t.outside}/p3.txt`,
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      await absent(`${t.outside}/p3.txt`);
    },
  },
  {
    name: 'write with ../ from the root',
    script: () => 'echo escaped > ../outside/p4.txt',
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      await absent(`${t.outside}/p4.txt`);
    },
  },
  {
    name: 'write outside in read-only mode, even inside the root',
    mode: 'read-only',
    script: () => 'echo x > p5.txt',
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      await absent(`${t.ws}/p5.txt`);
    },
  },
  {
    name: 'write into the host /tmp (a fresh /tmp inside)',
    script: () => 'echo x > /tmp/dsh-sandbox-p6.txt && ls /tmp',
    check: async (r) => {
      expect(r.exitCode).toBe(0);
      await absent('/tmp/dsh-sandbox-p6.txt');
    },
  },
  {
    name: 'hard link an outside file into the root',
    script: (t) => `ln ${t.outside}/secret.txt hl.txt`,
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toMatch(/cross-device|Invalid cross-device/i);
      await absent(`${t.ws}/hl.txt`);
    },
  },
  {
    name: 'read a denied file (.env)',
    script: () => 'cat .env; cat ./sub/../.env',
    check: (r) => {
      expect(r.stdout).not.toContain('ws-secret-value');
      expect(r.exitCode).not.toBe(0);
    },
  },
  {
    name: 'read a denied file through an innocently named symlink',
    script: () => 'cat innocent',
    check: (r) => expect(r.stdout).not.toContain('ws-secret-value'),
  },
  {
    name: 'read a denied directory',
    script: (t) => `ls -la ${t.outside}/private; cat ${t.outside}/private/key`,
    check: (r) => {
      expect(r.stdout).not.toContain('key');
      expect(r.stdout).not.toContain('private-key-material');
    },
  },
  {
    name: 'overwrite a denied file inside the root',
    script: () => 'echo OVERWRITTEN > .env; echo OVERWRITTEN > .git/hooks/pre-commit',
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      expect(await readFile(`${t.ws}/.env`, 'utf8')).toBe('API_KEY=ws-secret-value\n');
      expect(await readFile(`${t.ws}/.git/hooks/pre-commit`, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    },
  },
  {
    name: 'delete or rename a denied file inside the root',
    script: () => 'rm -f .env; mv .git/hooks/pre-commit moved; rm -rf .git/hooks',
    check: async (_r, t) => {
      expect(await readFile(`${t.ws}/.env`, 'utf8')).toBe('API_KEY=ws-secret-value\n');
      // mv may copy (the rename fails across the read-only bind), but the hook stays.
      expect(await readFile(`${t.ws}/.git/hooks/pre-commit`, 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    },
  },
  {
    name: "read the host's environment through the environment",
    script: () => 'env',
    check: (r) => {
      expect(r.stdout).not.toContain(hostMarker);
      expect(r.stdout).toContain('PATH=');
    },
  },
  {
    name: "read the host's environment through /proc",
    script: () => 'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; cat /proc/1/environ',
    check: (r) => expect(r.stdout).not.toContain(hostMarker),
  },
  {
    name: 'reach a listening loopback port',
    script: () =>
      `exec 3<>/dev/tcp/127.0.0.1/${port} && echo CONNECTED; ${process.execPath} -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>console.log('CONNECTED')).on('error',e=>console.log(e.code))"`,
    check: (r) => {
      expect(r.stdout).not.toContain('CONNECTED');
      expect(connections).toBe(0);
    },
  },
  {
    name: 'reach the network by name',
    script: () =>
      `${process.execPath} -e "require('dns').lookup('localhost',(e,a)=>{require('net').connect(${port},a||'127.0.0.1').on('connect',()=>console.log('CONNECTED')).on('error',e=>console.log(e.code))})"`,
    check: (r) => {
      expect(r.stdout).not.toContain('CONNECTED');
      expect(connections).toBe(0);
    },
  },
  {
    name: "connect to a host daemon's Unix socket in /run",
    script: () =>
      `${process.execPath} -e "require('net').connect('${runSocket}').on('connect',()=>console.log('CONNECTED')).on('error',e=>console.log(e.code))"; ls /run /var/run`,
    check: (r) => {
      expect(r.stdout).not.toContain('CONNECTED');
      expect(r.stdout).not.toContain('dsh-sandbox-test');
      expect(unixConnections).toBe(0);
    },
  },
  {
    name: 'gain privileges through a setuid-root binary',
    script: (t) => `${t.outside}/suid-grep -E '^(CapEff|CapPrm|NoNewPrivs)' /proc/self/status`,
    check: async (r, t) => {
      expect(((await stat(`${t.outside}/suid-grep`)).mode & 0o4000) !== 0).toBe(true);
      expect(r.stdout).toMatch(/CapEff:\s+0000000000000000/);
      expect(r.stdout).toMatch(/CapPrm:\s+0000000000000000/);
      expect(r.stdout).toMatch(/NoNewPrivs:\s+1/);
    },
  },
  {
    name: 'remount / read-write through setuid mount, then write to the host',
    script: () => '/usr/bin/mount -o remount,rw / ; echo rc=$?; touch /dsh-sandbox-remount-escape',
    check: async (r) => {
      expect(r.stdout).not.toContain('rc=0');
      await absent('/dsh-sandbox-remount-escape');
    },
  },
  {
    name: 'remount the root bind read-write',
    script: (t) =>
      `mount -o remount,rw,bind ${t.outside} 2>&1; mount -o remount,rw /usr; touch ${t.outside}/p7.txt /usr/dsh-sandbox-p7`,
    check: async (r, t) => {
      expect(r.exitCode).not.toBe(0);
      await absent(`${t.outside}/p7.txt`);
      await absent('/usr/dsh-sandbox-p7');
    },
  },
  {
    name: 'bind-mount an outside directory over the root',
    script: (t) => `mkdir -p m && mount --bind ${t.outside} m && echo MOUNTED; touch m/p8.txt`,
    check: async (r, t) => {
      expect(r.stdout).not.toContain('MOUNTED');
      await absent(`${t.outside}/p8.txt`);
    },
  },
  {
    name: 'create a user namespace (unshare -U)',
    script: () => 'unshare -U true && echo NESTED',
    check: (r) => expect(r.stdout).not.toContain('NESTED'),
  },
  {
    name: 'create a user namespace mapped to root (unshare -r) and remount',
    script: () =>
      'unshare -r sh -c "mount -o remount,rw / && touch /dsh-sandbox-userns-escape" && echo NESTED',
    check: async (r) => {
      expect(r.stdout).not.toContain('NESTED');
      await absent('/dsh-sandbox-userns-escape');
    },
  },
  {
    name: 'create a mount namespace (unshare -m)',
    script: () => 'unshare -m true && echo NESTED',
    check: (r) => expect(r.stdout).not.toContain('NESTED'),
  },
  {
    name: 'chroot out',
    script: () => 'chroot / true && echo CHROOTED',
    check: (r) => expect(r.stdout).not.toContain('CHROOTED'),
  },
  {
    name: 'create a device node',
    script: () => 'mknod ./disk b 8 0 && echo MKNOD',
    check: async (r, t) => {
      expect(r.stdout).not.toContain('MKNOD');
      await absent(`${t.ws}/disk`);
    },
  },
  {
    name: 'write a kernel setting',
    script: () => 'echo 1 > /proc/sys/kernel/sysrq && echo WROTE',
    check: (r) => expect(r.stdout).not.toContain('WROTE'),
  },
  {
    name: 'signal the host process',
    script: () => `kill -0 ${process.pid} && echo SEEN`,
    check: (r) => expect(r.stdout).not.toContain('SEEN'),
  },
  {
    name: 'give a root file away (chown needs a capability)',
    script: () => 'touch owned && chown 1234 owned && echo CHOWNED',
    check: (r) => expect(r.stdout).not.toContain('CHOWNED'),
  },
  {
    name: 'full-access still keeps denied files frozen',
    mode: 'full-access',
    script: (t) =>
      `echo x > ${t.outside}/full-ok.txt; echo OVERWRITTEN > .env; cat ${t.outside}/private/key`,
    check: async (r, t) => {
      expect(await readFile(`${t.outside}/full-ok.txt`, 'utf8')).toBe('x\n');
      expect(await readFile(`${t.ws}/.env`, 'utf8')).toBe('API_KEY=ws-secret-value\n');
      expect(r.stdout).not.toContain('private-key-material');
    },
  },
];

describe.skipIf(SKIP_BWRAP)(needsBwrap('process escapes under bubblewrap'), () => {
  it.each(cases)('blocks: $name', async (c) => {
    const result = await sh(c.mode ?? 'workspace-write', c.script(tree));
    expect(result.sandboxed).toBe(true);
    await c.check(result, tree);
  });

  it('control: the same commands work where the mode permits them', async () => {
    const r = await sh(
      'workspace-write',
      'echo ok > inside.txt && cat inside.txt && cat file.txt && pwd',
    );
    expect(r).toMatchObject({ exitCode: 0, signal: null, timedOut: false, truncated: false });
    expect(r.stdout).toBe(`ok\ninside\n${tree.ws}\n`);
    expect(await readFile(`${tree.ws}/inside.txt`, 'utf8')).toBe('ok\n');
  });

  it('control: with network on, the loopback port is reachable', async () => {
    const before = connections;
    const r = await sh('workspace-write', `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3`, {
      network: true,
    });
    expect(r.stdout).toBe('hello\n');
    expect(connections).toBe(before + 1);
    connections = before;
  });

  it('control: with exposeRun, the /run socket is reachable', async () => {
    const r = await sh(
      'workspace-write',
      `${process.execPath} -e "require('net').connect('${runSocket}').on('data',d=>process.stdout.write(d))"`,
      { exposeRun: true },
    );
    expect(r.stdout).toBe('daemon\n');
    expect(unixConnections).toBe(1);
    unixConnections = 0;
  });

  it('control: reads outside the roots work (reads are not confined, only masked)', async () => {
    const r = await sh('read-only', `cat ${tree.outside}/secret.txt`);
    expect(r.stdout).toBe('outside-secret\n');
  });
});

/** Waits (bounded) until `probe` holds; never a wall-clock assertion, only a bound on waiting. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe.skipIf(SKIP_BWRAP)(needsBwrap('processes do not outlive their run'), () => {
  /**
   * Starts two sleeps named `marker` (one in its own session, as a daemon would), building the
   * name inside the shell so that only they, and not the script's own command line, carry it.
   */
  const spawnMarked = (marker: string) => {
    const [head, tail] = [marker.slice(0, 8), marker.slice(8)];
    return `M=${head}; M="\${M}${tail}"; (exec -a $M sleep 1000) & (setsid bash -c "exec -a $M sleep 1000" &) ; `;
  };

  it('a timeout kills the command and every background child', async () => {
    const marker = `dsh-sbx-timeout-${randomUUID()}`;
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws, killGraceMs: 100 });
    const running = runner.run(['bash', '-c', `${spawnMarked(marker)} exec sleep 1000`], {
      timeoutMs: 1500,
    });
    await until(async () => (await pidsWith(marker)).length >= 2, 'both marked children');
    const r = await running;
    expect(r).toMatchObject({ timedOut: true, aborted: false, exitCode: null });
    expect(r.signal).not.toBeNull();
    expect(await pidsWith(marker)).toEqual([]);
  });

  it('a command that ignores SIGTERM is killed after the grace', async () => {
    const marker = `dsh-sbx-term-${randomUUID()}`;
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws, killGraceMs: 50 });
    const running = runner.run(
      ['bash', '-c', `trap '' TERM; ${spawnMarked(marker)} while :; do sleep 1; done`],
      { timeoutMs: 1500 },
    );
    await until(async () => (await pidsWith(marker)).length >= 2, 'marked children');
    expect(await running).toMatchObject({ timedOut: true });
    expect(await pidsWith(marker)).toEqual([]);
  });

  it('background children are gone when the command exits on its own', async () => {
    const marker = `dsh-sbx-exit-${randomUUID()}`;
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws });
    const r = await runner.run(['bash', '-c', `${spawnMarked(marker)} sleep 0.3; exit 3`]);
    expect(r).toMatchObject({ exitCode: 3, timedOut: false, aborted: false, signal: null });
    expect(await pidsWith(marker)).toEqual([]);
  });

  it("the call's abort kills the run and its children", async () => {
    const marker = `dsh-sbx-abort-${randomUUID()}`;
    const controller = new AbortController();
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws });
    const running = runner.run(['bash', '-c', `${spawnMarked(marker)} sleep 1000`], {
      signal: controller.signal,
    });
    await until(async () => (await pidsWith(marker)).length >= 2, 'marked children');
    controller.abort();
    expect(await running).toMatchObject({ aborted: true, timedOut: false, exitCode: null });
    expect(await pidsWith(marker)).toEqual([]);
  });

  it('an aborted call through the registry leaves nothing running', async () => {
    const marker = `dsh-sbx-registry-${randomUUID()}`;
    const controller = new AbortController();
    const { call } = sandboxedRegistry({ mode: 'workspace-write', cwd: tree.ws });
    const pending = call(
      'bash',
      { command: `${spawnMarked(marker)} sleep 1000` },
      controller.signal,
    );
    await until(async () => (await pidsWith(marker)).length >= 2, 'marked children');
    controller.abort();
    expect(outcome(await pending)).toBe('ABORTED');
    await until(async () => (await pidsWith(marker)).length === 0, 'the sandbox to be torn down');
  });

  it('an already aborted signal runs nothing', async () => {
    const runner = createSandboxRunner({ mode: 'workspace-write', cwd: tree.ws });
    const r = await runner.run(['bash', '-c', 'touch never.txt'], { signal: AbortSignal.abort() });
    expect(r.aborted).toBe(true);
    await absent(`${tree.ws}/never.txt`);
  });
});
