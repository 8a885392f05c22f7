/**
 * What a host can rely on when a writable root moved (the refusal's code and details), where that
 * check does not apply, and which variables a sandboxed program gets. Written where a mutation
 * run found no test noticing a change to root-identity.ts and bwrap-args.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { ToolError } from '@dsh-tools/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner, DEFAULT_ENV_ALLOWLIST, type SandboxMode } from './index';

cleanUpAfterTests();

describe.skipIf(SKIP_BWRAP)(needsBwrap('a writable root that moved between runs'), () => {
  let t: Tree;
  beforeEach(async () => {
    t = await makeTree();
    await mkdir(`${t.ws}/build/out`, { recursive: true });
    return () => t.cleanup();
  });

  /** Re-points build/out at the outside directory, as a process on the host could. */
  const repoint = () => {
    const r = spawnSync(
      'bash',
      ['-c', `mv build build.old && mkdir build && ln -s ${t.outside} build/out`],
      { cwd: t.ws, encoding: 'utf8' },
    );
    expect(r.status).toBe(0);
  };
  const runnerIn = (mode: SandboxMode) =>
    createSandboxRunner({ mode, cwd: t.ws, roots: [t.ws, `${t.ws}/build/out`] });

  it('is refused as a SANDBOX_VIOLATION whose details name the root, where it went and the rule', async () => {
    const runner = runnerIn('workspace-write');
    expect((await runner.run(['true'])).exitCode).toBe(0);
    repoint();
    const error = await runner.run(['true']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({
      code: 'SANDBOX_VIOLATION',
      details: {
        arg: 'roots',
        path: `${t.ws}/build/out`,
        resolved: `${t.outside}`,
        rule: 'roots stay where they were first resolved',
      },
    });
    expect((error as Error).message).toMatch(
      /^sandbox runner: the writable root ".*\/build\/out" resolved to ".*\/ws\/build\/out" when the sandbox first used it and now resolves to ".*\/outside"/,
    );
  });

  it.each(['read-only', 'full-access'] as const)(
    'in %s mode, where roots make nothing writable, runs go on',
    async (mode) => {
      const runner = runnerIn(mode);
      expect((await runner.run(['true'])).exitCode).toBe(0);
      repoint();
      expect((await runner.run(['true'])).exitCode).toBe(0);
    },
  );

  it('a root recreated at the same place is the same root', async () => {
    const runner = runnerIn('workspace-write');
    expect((await runner.run(['true'])).exitCode).toBe(0);
    spawnSync('bash', ['-c', 'rm -rf build && mkdir -p build/out'], { cwd: t.ws });
    expect((await runner.run(['true'])).exitCode).toBe(0);
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('the environment of a sandboxed program'), () => {
  it('holds only allowed host variables and the ones the run gave, none from the launcher', async () => {
    const t = await makeTree();
    // `env` itself, not a shell: a shell would add variables of its own (PWD, SHLVL, _).
    const r = await createSandboxRunner({ mode: 'workspace-write', cwd: t.ws }).run(['env'], {
      env: { GREETING: 'hello' },
      timeoutMs: 20_000,
    });
    const names = r.stdout
      .trim()
      .split('\n')
      .map((line) => line.slice(0, line.indexOf('=')));
    expect(names).toContain('GREETING');
    // TMPDIR is the runner's own; PWD is bubblewrap's, after its --chdir.
    const extra = names.filter((n) => !DEFAULT_ENV_ALLOWLIST.includes(n)).sort();
    expect(extra).toEqual(['GREETING', 'PWD', 'TMPDIR']);
    await t.cleanup();
  });
});
