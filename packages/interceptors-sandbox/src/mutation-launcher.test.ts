/**
 * The launcher (the host bash that becomes bubblewrap, or the program of an unconfined run):
 * variables a run is given reach only the program, never the launcher's own start-up. Written for
 * the mutation run of launcher.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree } from '../test/fixtures';
import { createSandboxRunner } from './index';
import { findBash, LAUNCHER_FAILED } from './launcher';
import { resolveSandboxOptions } from './options';
import { spawnAndWait } from './spawn-and-wait';

cleanUpAfterTests();

describe('the launcher ignores start-up variables a run is given', () => {
  // Unconfined (no bubblewrap, allowUnsandboxed): the launcher gets the run's environment, so
  // only its `-p` keeps BASH_ENV from running a file before anything else.
  it('BASH_ENV given to an unconfined run is not sourced by the launcher', async () => {
    const t = await makeTree();
    await writeFile(`${t.base}/startup.sh`, `echo sourced >> ${t.base}/marker\n`);
    const r = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: t.ws,
      bwrapPath: '/nonexistent/bwrap',
      allowUnsandboxed: true,
    }).run(['true'], { env: { BASH_ENV: `${t.base}/startup.sh` }, timeoutMs: 20_000 });
    expect(r).toMatchObject({ exitCode: 0, sandboxed: false });
    await expect(readFile(`${t.base}/marker`, 'utf8')).rejects.toThrow(/ENOENT/);
    await t.cleanup();
  });
});

describe('the launcher says what it could not do', () => {
  it('limits it cannot set: exit 125, in its own name, before anything runs', async () => {
    const t = await makeTree();
    const bash = findBash()!;
    const config = resolveSandboxOptions({ mode: 'workspace-write', cwd: t.ws }, 'test');
    // More open files than the kernel allows anyone (fs.nr_open): refused even to root.
    const r = await spawnAndWait('touch', [`${t.base}/ran`], {
      cwd: t.ws,
      env: { PATH: '/usr/bin:/bin' },
      input: {
        argv: [],
        cwd: undefined,
        env: {},
        stdin: undefined,
        timeoutMs: 20_000,
        maxOutputBytes: 65_536,
        signal: undefined,
        rawOutput: false,
      },
      signals: [],
      config,
      limits: config.limits,
      sandboxed: false,
      who: 'Tool "t"',
      launch: {
        bash,
        cgroup: undefined,
        ulimit: ['-H', '-n', '2147483647', '--', '-S', '-n', '64'],
      },
      rawOutput: false,
    });
    expect(r.exitCode).toBe(LAUNCHER_FAILED);
    expect(r.stderr).toMatch(
      /^dsh-sandbox-launcher: line \d+: ulimit: open files: cannot modify limit/,
    );
    expect(r.stderr).toContain(
      'dsh-sandbox: could not set the resource limits (ulimit -S -n 64; ulimit -H -n 2147483647)',
    );
    await expect(readFile(`${t.base}/ran`, 'utf8')).rejects.toThrow(/ENOENT/);
    await t.cleanup();
  });
});
