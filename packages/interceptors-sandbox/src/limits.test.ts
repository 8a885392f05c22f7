/**
 * Resource limits: a fork bomb, a memory hog, a disk filler, a /tmp and /dev/shm filler,
 * descriptor exhaustion and a CPU burner each end with a result that says which limit and how far
 * the run got, and the host is unharmed. Limits are set small so each attack is bounded.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner, DEFAULT_LIMITS, type SandboxLimits } from './index';
import { resolveLimits, ulimitArgs } from './limits';

cleanUpAfterTests();

const MiB = 1024 ** 2;
const small: SandboxLimits = {
  processes: 64,
  memoryBytes: 128 * MiB,
  fileSizeBytes: 4 * MiB,
  openFiles: 64,
  cpuSeconds: 1,
  tmpBytes: 4 * MiB,
  shmBytes: 2 * MiB,
};

const run = (t: Tree, script: string, limits: SandboxLimits = small) =>
  createSandboxRunner({ mode: 'workspace-write', cwd: t.ws, limits }).run(['bash', '-c', script], {
    timeoutMs: 30_000,
  });

describe('limits options', () => {
  const fail = (message: string): never => {
    throw new TypeError(message);
  };
  it('fills in the defaults and keeps what is given', () => {
    expect(resolveLimits(undefined, fail)).toBe(DEFAULT_LIMITS);
    expect(resolveLimits({ processes: 100 }, fail)).toEqual({ ...DEFAULT_LIMITS, processes: 100 });
    expect(DEFAULT_LIMITS).toEqual({
      processes: 1024,
      memoryBytes: 4 * 1024 ** 3,
      addressSpaceBytes: 16 * 1024 ** 3,
      fileSizeBytes: 1024 ** 3,
      openFiles: 1024,
      cpuSeconds: 600,
      tmpBytes: 512 * MiB,
      shmBytes: 64 * MiB,
    });
  });
  it.each([
    [{ processes: 7 }, /limits.processes.*from 8/],
    [{ processes: 1.5 }, /limits.processes/],
    [{ memoryBytes: '1G' }, /limits.memoryBytes.*got string/],
    [{ cpuSeconds: 0 }, /limits.cpuSeconds/],
    [{ nproc: 1 }, /unknown option "limits.nproc"/],
    [[], /must be an object/],
    [null, /must be an object/],
  ])('refuses %j', (value, message) => {
    expect(() => resolveLimits(value, fail)).toThrow(message);
  });
  it('refuses bad limits at creation, naming the option', () => {
    expect(() =>
      createSandboxRunner({ mode: 'read-only', limits: { openFiles: -1 } as SandboxLimits }),
    ).toThrow(/limits.openFiles/);
  });
  it('ulimit: soft before hard, the CPU hard limit one second above the soft one, no core files', () => {
    const args = ulimitArgs({ ...DEFAULT_LIMITS, cpuSeconds: 5 }, true);
    const split = args.indexOf('--');
    const hard = args.slice(0, split);
    const soft = args.slice(split + 1);
    expect(hard[0]).toBe('-H');
    expect(soft[0]).toBe('-S');
    expect(hard[hard.indexOf('-t') + 1]).toBe('6');
    expect(soft[soft.indexOf('-t') + 1]).toBe('5');
    expect(soft[soft.indexOf('-c') + 1]).toBe('0');
    expect(soft[soft.indexOf('-f') + 1]).toBe(String(DEFAULT_LIMITS.fileSizeBytes / 1024));
    expect(soft).toContain('-u');
    expect(ulimitArgs(DEFAULT_LIMITS, false)).not.toContain('-u');
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('limits inside the sandbox'), () => {
  it('a fork bomb ends, says how many forks were refused, and leaves nothing behind', async () => {
    const t = await makeTree();
    const r = await run(t, ':(){ :|:& };: ; sleep 1; echo survived');
    expect(r.limit?.limit).toBe('processes');
    expect(r.limit?.detail).toMatch(/\d+ process creations were refused at the limit of 64/);
    await t.cleanup();
  }, 60_000);

  it('a memory hog is killed at the memory limit, with its peak', async () => {
    const t = await makeTree();
    const r = await run(t, `node -e "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))"`);
    expect(r.exitCode).not.toBe(0);
    expect(['memoryBytes', 'addressSpaceBytes']).toContain(r.limit?.limit);
    await t.cleanup();
  }, 60_000);

  it('the address space limit holds where no cgroup does', async () => {
    const t = await makeTree();
    const r = await run(
      t,
      `node -e "try { Buffer.alloc(512 * 1024 * 1024) ; console.log('allocated') } catch (e) { console.log('refused', e.code ?? e.message) }"`,
      { ...small, addressSpaceBytes: 256 * MiB, memoryBytes: 1024 * MiB },
    );
    expect(r.stdout + r.stderr).not.toContain('allocated');
  }, 60_000);

  it('a disk filler stops at the file size limit; the file holds exactly that much', async () => {
    const t = await makeTree();
    const r = await run(t, 'head -c 50000000 /dev/zero > big; echo "rc=$?"');
    expect(r.stdout).toContain('rc=153');
    expect(r.limit).toMatchObject({ limit: 'fileSizeBytes', value: 4 * MiB });
    expect((await stat(`${t.ws}/big`)).size).toBe(4 * MiB);
    await t.cleanup();
  });

  it.each([
    ['/tmp', 4 * MiB],
    ['/dev/shm', 2 * MiB],
  ])('filling %s stops at its size', async (dir, size) => {
    const t = await makeTree();
    const r = await run(
      t,
      `for i in 1 2 3 4 5 6 7 8; do head -c 1000000 /dev/zero > ${dir}/f$i || break; done; du -sb ${dir} | cut -f1`,
      {
        ...small,
        fileSizeBytes: 64 * MiB,
      },
    );
    expect(Number(r.stdout.trim().split('\n').pop())).toBeLessThanOrEqual(size);
    expect(r.limit?.limit).toBe('tmpBytes');
    await t.cleanup();
  });

  it.each([
    ['/dev', 'touch /dev/x'],
    ['/run', 'touch /run/x'],
  ])('%s is read-only (its tmpfs would take host memory)', async (_dir, script) => {
    const t = await makeTree();
    const r = await run(t, `${script}; echo "rc=$?"`);
    expect(r.stdout).toContain('rc=1');
    expect(r.stderr).toMatch(/Read-only file system/);
    await t.cleanup();
  });

  it('descriptor exhaustion stops at the open files limit', async () => {
    const t = await makeTree();
    const r = await run(
      t,
      'for i in $(seq 200); do exec {fd}</dev/null || { echo "stopped at $i"; break; }; done',
    );
    const at = Number(/stopped at (\d+)/.exec(r.stdout)?.[1]);
    expect(at).toBeGreaterThan(10);
    expect(at).toBeLessThanOrEqual(64);
    expect(r.limit?.limit).toBe('openFiles');
    await t.cleanup();
  });

  it('a CPU burner gets SIGXCPU after its CPU seconds', async () => {
    const t = await makeTree();
    const r = await run(t, 'while :; do :; done');
    expect(r.exitCode).toBe(152);
    expect(r.limit).toMatchObject({ limit: 'cpuSeconds', value: 1 });
    await t.cleanup();
  }, 60_000);

  it('run cgroups are reused once empty: nothing stays in them, and sequential runs make no new ones', async () => {
    const t = await makeTree();
    await run(t, 'true');
    const mine = `dsh-sandbox-${process.pid}`;
    const runs = async (root: string) =>
      (await readdir(`${root}/${mine}`).catch(() => [] as string[])).filter((x) =>
        x.startsWith('run-'),
      );
    const roots = ['/sys/fs/cgroup/pids', '/sys/fs/cgroup/unified'];
    const before = await Promise.all(roots.map(runs));
    for (let i = 0; i < 5; i++) await run(t, 'sleep 0.01 & wait');
    const after = await Promise.all(roots.map(runs));
    expect(after.map((r) => r.length)).toEqual(before.map((r) => r.length));
    for (const [i, root] of roots.entries()) {
      for (const r of after[i]!) {
        expect((await readFile(`${root}/${mine}/${r}/cgroup.procs`, 'utf8')).trim()).toBe('');
      }
    }
    expect(await readFile(`${t.ws}/file.txt`, 'utf8')).toBe('inside\n');
    await t.cleanup();
  });
});
