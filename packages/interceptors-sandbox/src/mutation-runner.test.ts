/**
 * The runner (runner.ts) in the corners a mutation run found no test for: what it refuses before
 * anything starts and how it says so, the result of a run aborted before it started, which host
 * directories a mode empties or shows, and who a narrowed runner speaks for.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { ToolError } from '@dsh-tools/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner, type SandboxOptions } from './index';
import { resolveSandboxOptions } from './options';
import { createRunnerFor } from './runner';

cleanUpAfterTests();

/** Root on a host with the cgroup v1 pids controller: every confined run gets a cgroup there. */
const V1_ROOT =
  process.getuid?.() === 0 && /^\d+:pids:/m.test(readFileSync('/proc/self/cgroup', 'utf8'));

let t: Tree;
/** A directory in the host's /tmp, which the sandbox replaces by an empty one (but full-access). */
let inTmp: string;
beforeAll(async () => {
  t = await makeTree();
  inTmp = await mkdtemp('/tmp/dsh-runner-');
  await writeFile(`${inTmp}/host-tmp.txt`, 'host-tmp-content\n');
});
afterAll(async () => {
  await rm(inTmp, { recursive: true, force: true });
  await t.cleanup();
});

const ws = (extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  mode: 'workspace-write',
  cwd: t.ws,
  ...extra,
});
const unconfined = (extra: Partial<SandboxOptions> = {}) =>
  ws({ allowUnsandboxed: true, bwrapPath: '/nonexistent/bwrap', ...extra });

/** The error `promise` rejects with (a failure if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    (value) => new Error(`resolved: ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(Error);
  return outcome as Error;
}

describe('refused before anything starts', () => {
  it('a run cwd the deny list hides: the cwd, where it resolves and the rule, in words and details', async () => {
    await mkdir(`${t.ws}/hidden`, { recursive: true });
    const error = await rejection(
      createSandboxRunner(unconfined({ denyRead: ['hidden/**'] })).run(['true'], {
        cwd: 'hidden',
      }),
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe('SANDBOX_VIOLATION');
    expect(error.message).toBe(
      `sandbox runner: sandbox.run cwd "hidden" (resolved "${t.ws}/hidden") is refused by denyRead "hidden/**"; run somewhere else`,
    );
    expect((error as ToolError).details).toEqual({
      arg: 'cwd',
      path: 'hidden',
      resolved: `${t.ws}/hidden`,
      rule: 'denyRead "hidden/**"',
      deny: { list: 'denyRead', glob: 'hidden/**' },
    });
  });

  it('a run cwd whose link leads into a hidden directory: refused where it resolves', async () => {
    await mkdir(`${t.ws}/secret-dir`, { recursive: true });
    await symlink('secret-dir', `${t.ws}/innocent-dir`);
    const error = await rejection(
      createSandboxRunner(unconfined({ denyRead: ['secret-dir/**'] })).run(['true'], {
        cwd: 'innocent-dir',
      }),
    );
    expect(error.message).toBe(
      `sandbox runner: sandbox.run cwd "innocent-dir" (resolved "${t.ws}/secret-dir") is refused by denyRead "secret-dir/**"; run somewhere else`,
    );
  });

  it("the sandbox's own cwd when the deny list hides it", async () => {
    await mkdir(`${t.ws}/own-hidden`, { recursive: true });
    const error = await rejection(
      createSandboxRunner(
        unconfined({ cwd: `${t.ws}/own-hidden`, denyRead: ['**/own-hidden'] }),
      ).run(['true']),
    );
    expect(error.message).toContain(
      `sandbox.run cwd "${t.ws}/own-hidden" (resolved "${t.ws}/own-hidden")`,
    );
  });

  it('a run cwd that is not a directory', async () => {
    const error = await rejection(
      createSandboxRunner(unconfined()).run(['true'], { cwd: 'file.txt' }),
    );
    expect(error.message).toBe(
      `sandbox runner: sandbox.run cwd "${t.ws}/file.txt" is not an existing directory`,
    );
  });

  it('a run cwd through a link is taken where it leads', async () => {
    await symlink('sub', `${t.ws}/to-sub`);
    const r = await createSandboxRunner(unconfined()).run(['pwd'], { cwd: 'to-sub' });
    expect(r.stdout).toBe(`${t.ws}/sub\n`);
  });

  it('a root that stopped resolving: SANDBOX_VIOLATION naming the loop', async () => {
    const root = `${t.base}/root-loop`;
    await mkdir(root);
    const runner = createSandboxRunner(unconfined({ roots: [t.ws, root] }));
    await rm(root, { recursive: true });
    await symlink('root-loop', root);
    const error = await rejection(runner.run(['true']));
    expect((error as ToolError).code).toBe('SANDBOX_VIOLATION');
    expect(error.message).toMatch(
      /^sandbox runner: the sandbox cannot resolve its paths: more than 40 symbolic links/,
    );
    await rm(root);
  });
});

describe('a run aborted before it starts', () => {
  const aborted = () => {
    const controller = new AbortController();
    controller.abort();
    return controller.signal;
  };
  const nothing = (sandboxed: boolean) => ({
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    truncated: false,
    timedOut: false,
    aborted: true,
    sandboxed,
  });

  it('unconfined: nothing ran, and it says it would not have been confined', async () => {
    const marker = `${t.ws}/ran-unconfined`;
    const r = await createSandboxRunner(unconfined()).run(['touch', marker], { signal: aborted() });
    expect(r).toEqual(nothing(false));
  });

  it.skipIf(SKIP_BWRAP)(needsBwrap('confined: nothing ran, sandboxed'), async () => {
    const r = await createSandboxRunner(ws()).run(['true'], { signal: aborted() });
    expect(r).toEqual(nothing(true));
  });

  it("the call's signal counts as much as the run's", async () => {
    const config = resolveSandboxOptions(unconfined(), 'test');
    const runner = createRunnerFor(config, { who: 'Tool "t"', signal: aborted() });
    expect(await runner.run(['true'])).toEqual(nothing(false));
  });
});

describe('who a runner speaks for', () => {
  it('createSandboxRunner: "sandbox runner"; a narrowed runner keeps its caller', async () => {
    const base = resolveSandboxOptions(unconfined(), 'test');
    const narrowed = createRunnerFor(base, { who: 'Tool "t"' }).narrow({ denyRead: ['sub/**'] });
    const error = await rejection(narrowed.run(['true'], { cwd: 'sub' }));
    expect(error.message).toMatch(/^Tool "t": sandbox\.run cwd "sub"/);
    expect(narrowed.mode).toBe('workspace-write');
    expect(Object.isFrozen(narrowed)).toBe(true);
    const plain = await rejection(
      createSandboxRunner(unconfined()).run(['true'], { cwd: 'file.txt' }),
    );
    expect(plain.message).toMatch(/^sandbox runner: /);
  });

  it("a narrowed runner still follows the call's signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const base = resolveSandboxOptions(unconfined(), 'test');
    const narrowed = createRunnerFor(base, { who: 'Tool "t"', signal: controller.signal }).narrow({
      network: false,
    });
    expect((await narrowed.run(['true'])).aborted).toBe(true);
  });
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('what the sandbox shows of the host'), () => {
  it('a writable root that resolves to "/" is refused', async () => {
    const link = `${t.base}/slash`;
    await symlink('/', link);
    const error = await rejection(createSandboxRunner(ws({ roots: [t.ws, link] })).run(['true']));
    expect((error as ToolError).code).toBe('SANDBOX_VIOLATION');
    expect(error.message).toBe(
      'sandbox runner: a writable root resolves to "/"; use mode "full-access" if that is meant',
    );
  });

  it('/tmp is emptied but in full-access, where the host /tmp is kept', async () => {
    const file = `${inTmp}/host-tmp.txt`;
    const cat = ['sh', '-c', `cat ${file} 2>/dev/null || echo absent`];
    expect((await createSandboxRunner(ws()).run(cat)).stdout).toBe('absent\n');
    expect((await createSandboxRunner(ws({ mode: 'read-only' })).run(cat)).stdout).toBe('absent\n');
    expect((await createSandboxRunner(ws({ mode: 'full-access' })).run(cat)).stdout).toBe(
      'host-tmp-content\n',
    );
  });

  it('a cwd in the emptied /tmp is still shown, read-only, in read-only mode', async () => {
    const r = await createSandboxRunner({ mode: 'read-only', cwd: inTmp }).run([
      'sh',
      '-c',
      'cat host-tmp.txt; echo x > new.txt || echo refused',
    ]);
    expect(r.stdout).toBe('host-tmp-content\nrefused\n');
  });

  it('a read-only root in the emptied /tmp is shown, read-only', async () => {
    const r = await createSandboxRunner({ mode: 'read-only', cwd: t.ws, roots: [inTmp] }).run([
      'sh',
      '-c',
      `cat ${inTmp}/host-tmp.txt`,
    ]);
    expect(r.stdout).toBe('host-tmp-content\n');
  });

  it('a writable root in /tmp is shown writable, and nothing else of /tmp', async () => {
    const other = await mkdtemp('/tmp/dsh-runner-other-');
    await writeFile(`${other}/x.txt`, 'other\n');
    const r = await createSandboxRunner({ mode: 'workspace-write', cwd: inTmp }).run([
      'sh',
      '-c',
      `echo w > written.txt && cat written.txt; cat ${other}/x.txt 2>/dev/null || echo absent`,
    ]);
    expect(r.stdout).toBe('w\nabsent\n');
    await rm(other, { recursive: true, force: true });
  });

  it('the deny lists are applied in a writable root inside /tmp', async () => {
    const root = await mkdtemp('/tmp/dsh-runner-masked-');
    await writeFile(`${root}/.env`, 'TMP_ROOT_SECRET=1\n');
    const r = await createSandboxRunner({ mode: 'workspace-write', cwd: root }).run([
      'sh',
      '-c',
      'cat .env 2>/dev/null; echo end',
    ]);
    expect(r.stdout).toBe('end\n');
    await rm(root, { recursive: true, force: true });
  });

  it('full-access still freezes what the write deny list names', async () => {
    const hook = `${t.ws}/.git/hooks/pre-commit`;
    const before = readFileSync(hook, 'utf8');
    const r = await createSandboxRunner(ws({ mode: 'full-access' })).run([
      'sh',
      '-c',
      'echo "echo pwned" >> .git/hooks/pre-commit && echo written || echo refused',
    ]);
    expect(r.stdout).toBe('refused\n');
    expect(readFileSync(hook, 'utf8')).toBe(before);
  });

  it('/run is emptied unless exposeRun', async () => {
    const probe = ['sh', '-c', 'ls -A /run | wc -l'];
    const hidden = await createSandboxRunner(ws()).run(probe);
    expect(hidden.stdout.trim()).toBe('0');
    const shown = await createSandboxRunner(ws({ exposeRun: true })).run(probe);
    expect(Number(shown.stdout.trim())).toBeGreaterThan(0);
  });

  it('a confined run is under its rlimits, RLIMIT_NPROC only where no cgroup counts processes', async () => {
    // Without a fork bomb: a change that drops the launcher must fail here, not on the host.
    const r = await createSandboxRunner(ws({ limits: { openFiles: 77, processes: 64 } })).run([
      'bash',
      '-c',
      'ulimit -Hn; ulimit -Hu',
    ]);
    const [files, nproc] = r.stdout.trim().split('\n');
    expect(files).toBe('77');
    // Where a cgroup counts the run's processes (root on cgroup v1, as here), RLIMIT_NPROC (per
    // user, the host's processes included) is left as the host has it; without one it is the limit.
    const host = /^Max processes\s+\S+\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (V1_ROOT) expect(nproc).toBe(host?.[1]);
    else expect([host?.[1], '64']).toContain(nproc);
  });

  it('the writable roots nested in one another are both writable, and pinned', async () => {
    await mkdir(`${t.ws}/nested`, { recursive: true });
    const r = await createSandboxRunner(ws({ roots: [t.ws, `${t.ws}/nested`] })).run([
      'sh',
      '-c',
      'echo n > nested/n.txt && echo ok; mv nested nested-moved 2>/dev/null && echo moved || echo pinned',
    ]);
    expect(r.stdout).toBe('ok\npinned\n');
  });
});
