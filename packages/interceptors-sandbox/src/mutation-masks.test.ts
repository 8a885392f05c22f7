/**
 * The deny-list masks inside a real sandbox, in the corners a mutation run of masks.ts pointed
 * at: denied-write paths that do not exist yet, links met on the scan, masks inside masked
 * directories, and a `.git` that has no config yet. Each case has its control: what the mask must
 * not take away.
 */
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner, type SandboxOptions } from './index';

cleanUpAfterTests();

describe.skipIf(SKIP_BWRAP)(needsBwrap('deny-list masks in their corners'), () => {
  let t: Tree;
  beforeEach(async () => {
    t = await makeTree();
    return () => t.cleanup();
  });

  const run = (script: string, extra: Partial<SandboxOptions> = {}) =>
    createSandboxRunner({ mode: 'workspace-write', cwd: t.ws, ...extra }).run(
      ['bash', '-c', script],
      { timeoutMs: 20_000 },
    );
  const exists = (path: string) =>
    readFile(path).then(
      () => true,
      () => false,
    );

  it('a denied-write path below a missing directory cannot be created; its nearest existing directory is frozen', async () => {
    const r = await run(
      'mkdir -p sub/deep && echo x > sub/deep/new.txt; echo rc=$?; echo y > sub/other.txt; echo rc2=$?',
      { denyWrite: ['sub/deep/new.txt'] },
    );
    expect(r.stdout).toMatch(/rc=[1-9]/);
    expect(await exists(`${t.ws}/sub/deep/new.txt`)).toBe(false);
    // The whole of sub/ is what keeps new.txt from appearing: the rest of the root stays writable.
    expect(r.stdout).toMatch(/rc2=[1-9]/);
    const elsewhere = await run('echo z > elsewhere.txt; echo rc=$?', {
      denyWrite: ['sub/deep/new.txt'],
    });
    expect(elsewhere.stdout).toContain('rc=0');
  });

  it('a denied-write path below a missing top-level directory does not stop a run', async () => {
    const r = await run('echo ok', { denyWrite: ['/dsh-no-such-top-dir/a/b'] });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('ok\n');
  });

  it('a missing denied-write path at the top of a root freezes nothing: the root stays writable', async () => {
    const r = await run('echo x > other.txt; echo rc=$?; cat other.txt', {
      denyWrite: ['not-there-yet.txt'],
    });
    expect(r.stdout).toContain('rc=0');
    expect(r.stdout).toContain('x');
  });

  it('a link whose own name is denied has its target hidden; the link elsewhere is harmless', async () => {
    await writeFile(`${t.ws}/plain.txt`, 'plain-7f3c\n');
    await symlink('../plain.txt', `${t.ws}/sub/key.secret`);
    const r = await run('cat plain.txt sub/key.secret; echo end', {
      denyRead: ['**/*.secret'],
    });
    expect(r.stdout).not.toContain('plain-7f3c');
    expect(r.stdout).toContain('end');
    const control = await run('cat plain.txt');
    expect(control.stdout).toContain('plain-7f3c');
  });

  it('a link whose target is denied is followed to it and the target hidden', async () => {
    await mkdir(`${t.ws}/vault`);
    await writeFile(`${t.ws}/vault/api.secret`, 'vault-aa91\n');
    await symlink('../vault', `${t.ws}/sub/v`);
    const r = await run('cat sub/v/api.secret vault/api.secret; echo end', {
      denyRead: ['**/*.secret'],
    });
    expect(r.stdout).not.toContain('vault-aa91');
    expect(r.stdout).toContain('end');
  });

  it('masks inside a masked directory are not mounted again (the run starts, the directory is empty)', async () => {
    await mkdir(`${t.ws}/secrets/inner`, { recursive: true });
    await writeFile(`${t.ws}/secrets/a.key`, 'key-a-1b2c\n');
    await writeFile(`${t.ws}/secrets/inner/b.key`, 'key-b-3d4e\n');
    const r = await run('ls -A secrets | wc -l; cat secrets/a.key secrets/inner/b.key; echo end', {
      denyRead: ['secrets/**', '**/*.key', 'secrets/inner/**'],
    });
    expect(r.stdout.trim().split('\n')[0]).toBe('0');
    expect(r.stdout).not.toMatch(/key-[ab]/);
    expect(r.stdout).toContain('end');
  });

  // Each of the two wide write denies that end in literal names freezes on its own: a .git that
  // lacks only one of them is the case where the other cannot stand in for it.
  it('a .git with hooks but no config cannot be given a config', async () => {
    await mkdir(`${t.ws}/sub/.git/hooks`, { recursive: true });
    const r = await run(
      'printf "[core]\\n\\tfsmonitor = x\\n" > sub/.git/config; echo rc=$?; echo ok > file.txt; echo rc2=$?',
    );
    expect(r.stdout).toMatch(/rc=[1-9]/);
    expect(r.stdout).toContain('rc2=0');
    expect(await exists(`${t.ws}/sub/.git/config`)).toBe(false);
  });

  it('a .git with a config but no hooks cannot be given hooks', async () => {
    await mkdir(`${t.ws}/sub/.git`, { recursive: true });
    await writeFile(`${t.ws}/sub/.git/config`, '[core]\n');
    const r = await run(
      'mkdir -p sub/.git/hooks && echo x > sub/.git/hooks/pre-commit; echo rc=$?',
    );
    expect(r.stdout).toMatch(/rc=[1-9]/);
    expect(await exists(`${t.ws}/sub/.git/hooks/pre-commit`)).toBe(false);
  });

  it('a write deny with a directory prefix freezes nothing outside that directory', async () => {
    await mkdir(`${t.ws}/other/cfg`, { recursive: true });
    const r = await run('echo note > other/cfg/note.txt; echo rc=$?', {
      denyWrite: ['sub/**/cfg/app.json'],
    });
    expect(r.stdout).toContain('rc=0');
    expect(await readFile(`${t.ws}/other/cfg/note.txt`, 'utf8')).toBe('note\n');
  });

  it('a glob with a literal directory and a wildcard after it is matched by walking that directory', async () => {
    await mkdir(`${t.ws}/sub/nested`);
    await writeFile(`${t.ws}/sub/nested/deep.txt`, 'deep-8d1f\n');
    const r = await run(
      'cat sub/inner.txt sub/nested/deep.txt file.txt; echo x > sub/inner.txt; echo rc=$?',
      {
        denyRead: ['sub/*.txt'],
        denyWrite: ['sub/**/deep.txt'],
      },
    );
    expect(r.stdout).not.toContain('inner\n');
    expect(r.stdout).toContain('deep-8d1f');
    expect(r.stdout).toContain('inside');
    expect(r.stdout).toMatch(/rc=[1-9]/);
    const write = await run('echo changed > sub/nested/deep.txt; echo rc=$?', {
      denyWrite: ['sub/**/deep.txt'],
    });
    expect(write.stdout).toMatch(/rc=[1-9]/);
    expect(await readFile(`${t.ws}/sub/nested/deep.txt`, 'utf8')).toBe('deep-8d1f\n');
  });

  it('a wide write deny that ends in a wildcard freezes no directory whole', async () => {
    await mkdir(`${t.ws}/sub/logs`, { recursive: true });
    const r = await run('echo keep > sub/logs/notes.txt; echo rc=$?', {
      denyWrite: ['**/logs/*.tmp'],
    });
    expect(r.stdout).toContain('rc=0');
    expect(await readFile(`${t.ws}/sub/logs/notes.txt`, 'utf8')).toBe('keep\n');
  });

  it('a writable root that does not exist (yet) does not stop the scan or the run', async () => {
    const r = await run('echo ok', { roots: [t.ws, `${t.ws}/not-made-yet`] });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('ok\n');
  });

  it('a .git that has its hooks and config stays writable but for them (git can still commit)', async () => {
    await writeFile(`${t.ws}/.git/config`, '[core]\n');
    const r = await run(
      'mkdir -p .git/objects/ab && echo o > .git/objects/ab/obj; echo rc=$?; echo x >> .git/config; echo rc2=$?',
    );
    expect(r.stdout).toContain('rc=0');
    expect(r.stdout).toMatch(/rc2=[1-9]/);
    expect(await readFile(`${t.ws}/.git/objects/ab/obj`, 'utf8')).toBe('o\n');
  });

  it('the wide deny globs are applied in every writable root, not only in the cwd', async () => {
    await mkdir(`${t.base}/second/svc`, { recursive: true });
    await writeFile(`${t.base}/second/svc/.env`, 'SECOND=secret-2c7d\n');
    const r = await run(`cat ${t.base}/second/svc/.env; echo end`, {
      roots: [t.ws, `${t.base}/second`],
    });
    expect(r.stdout).not.toContain('secret-2c7d');
    expect(r.stdout).toContain('end');
  });

  it('maskScan.maxEntries bounds the entries the scan visits: exactly that many pass, one fewer fails closed', async () => {
    // Three plain files and nothing the defaults match: the read scan and the write scan each
    // list them once, six entries in all.
    const flat = `${t.base}/flat`;
    await mkdir(flat);
    for (const name of ['a', 'b', 'c']) await writeFile(`${flat}/${name}`, 'x\n');
    const at = (maxEntries: number) =>
      createSandboxRunner({ mode: 'workspace-write', cwd: flat, maskScan: { maxEntries } }).run(
        ['true'],
        { timeoutMs: 20_000 },
      );
    expect((await at(6)).exitCode).toBe(0);
    await expect(at(5)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(/visited more than 5 entries/),
    });
  });

  it('a missing denied-read path freezes nothing', async () => {
    const r = await run('echo y > sub/other.txt; echo rc=$?', { denyRead: ['sub/missing.key'] });
    expect(r.stdout).toContain('rc=0');
  });

  it('a deny glob outside every root is matched where it points, not in the roots', async () => {
    const r = await run(`cat ${t.outside}/secret.txt; echo end`, {
      denyRead: [`${t.outside}/*.txt`],
    });
    expect(r.stdout).not.toContain('outside-secret');
    expect(r.stdout).toContain('end');
  });

  it('a link whose target (outside the roots) is denied hides that target; a link to an innocent file does not', async () => {
    await writeFile(`${t.outside}/key.pem`, 'pem-0b9a\n');
    await symlink(`${t.outside}/key.pem`, `${t.ws}/sub/mykey`);
    await symlink('../file.txt', `${t.ws}/sub/readme`);
    const r = await run('cat sub/mykey; cat sub/readme; echo end', { denyRead: ['**/*.pem'] });
    expect(r.stdout).not.toContain('pem-0b9a');
    expect(r.stdout).toContain('inside\nend');
  });

  it('a write-denied file stays readable: a write deny hides nothing', async () => {
    const r = await run('cat file.txt; echo more >> file.txt; echo rc=$?', {
      denyWrite: ['file.txt'],
    });
    expect(r.stdout).toContain('inside\n');
    expect(r.stdout).toMatch(/rc=[1-9]/);
    expect(await readFile(`${t.ws}/file.txt`, 'utf8')).toBe('inside\n');
  });

  it("a denied host path the sandbox never shows (in the host's /tmp) gets no mask in the fresh /tmp", async () => {
    const hostFile = `/tmp/dsh-mask-probe-${process.pid}`;
    await writeFile(hostFile, 'host tmp\n');
    try {
      const r = await run(`ls -A /tmp; test -e ${hostFile}; echo rc=$?`, { denyRead: [hostFile] });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe('rc=1\n');
    } finally {
      await rm(hostFile, { force: true });
    }
  });

  it('the default deny lists hide and freeze .env files found anywhere in the root', async () => {
    await mkdir(`${t.ws}/a/b`, { recursive: true });
    await writeFile(`${t.ws}/a/b/.env.local`, 'deep-env-5566\n');
    const r = await run('cat a/b/.env.local; echo hacked > a/b/.env.local; echo rc=$?');
    expect(r.stdout).not.toContain('deep-env-5566');
    expect(r.stdout).toMatch(/rc=[1-9]/);
    expect(await readFile(`${t.ws}/a/b/.env.local`, 'utf8')).toBe('deep-env-5566\n');
  });
});
