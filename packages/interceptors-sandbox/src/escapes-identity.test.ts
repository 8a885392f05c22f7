/**
 * Escapes that protect names instead of things: a process renames a directory above a secret or
 * above `.git` (class 1), hides a secret where the deny-list scan does not look (class 2), or
 * races another run's setup (class 3). Each attack first runs unguarded (plain bash on a copy of
 * the same tree) to show that it does its harm; then two sandboxed runs try it: the first moves
 * things, the second reads or uses what the first left.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  cleanUpAfterTests,
  link,
  makeTree,
  needsBwrap,
  SKIP_BWRAP,
  type Tree,
} from '../test/fixtures';
import { createSandboxRunner, type SandboxOptions } from './index';

cleanUpAfterTests();

const SECRET_A = 'secret-in-config-0c1d';
const SECRET_B = 'secret-in-svc1-77ab';
const SECRET_C = 'secret-in-deep-91fe';

/** The tree of these attacks, on top of the fixture's: secrets below renamable directories. */
async function world(): Promise<Tree> {
  const t = await makeTree();
  await mkdir(`${t.ws}/config/secrets`, { recursive: true });
  await writeFile(`${t.ws}/config/secrets/key`, `${SECRET_A}\n`);
  await writeFile(`${t.ws}/config/app.json`, '{}\n');
  await mkdir(`${t.ws}/svc1/api`, { recursive: true });
  await writeFile(`${t.ws}/svc1/api/.env`, `TOKEN=${SECRET_B}\n`);
  await mkdir(`${t.ws}/a/b/c/vault`, { recursive: true });
  await writeFile(`${t.ws}/a/b/c/vault/key`, `${SECRET_C}\n`);
  await writeFile(`${t.ws}/.git/config`, '[core]\n\tbare = false\n');
  await mkdir(`${t.ws}/node_modules/pkg`, { recursive: true });
  return t;
}

const options = (t: Tree, extra: Partial<SandboxOptions> = {}): SandboxOptions => ({
  mode: 'workspace-write',
  cwd: t.ws,
  denyRead: ['config/secrets/**', 'a/b/c/vault/**'],
  ...extra,
});

const run = (t: Tree, script: string, extra: Partial<SandboxOptions> = {}) =>
  createSandboxRunner(options(t, extra)).run(['bash', '-c', script], { timeoutMs: 20_000 });

/** Runs `script` with plain bash in the tree, no sandbox: the attack's harm, for the record. */
const unguarded = (t: Tree, script: string) =>
  spawnSync('bash', ['-c', script], { cwd: t.ws, encoding: 'utf8', timeout: 20_000 });

const secrets = [SECRET_A, SECRET_B, SECRET_C];
const leaks = (text: string) => secrets.filter((s) => text.includes(s));

/** Everything under `dir` as sorted relative paths (what is on the host). */
async function listing(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = `${prefix}${entry.name}`;
    out.push(rel);
    if (entry.isDirectory()) out.push(...(await listing(`${dir}/${entry.name}`, `${rel}/`)));
  }
  return out.sort();
}

/** A move, then a read of what it moved: both as one attack. */
interface MoveCase {
  readonly name: string;
  /** The first run: moves something. */
  readonly move: string;
  /** The second run: reads from where the first run put things. */
  readonly read: string;
}

const READ_ALL = 'grep -rah "secret-" . 2>/dev/null; true';

const renames: readonly MoveCase[] = [
  {
    name: 'rename the parent of a denied directory',
    move: 'mv config config.moved',
    read: 'cat config.moved/secrets/key',
  },
  {
    name: 'rename a denied directory itself',
    move: 'mv config/secrets config/open',
    read: 'cat config/open/key',
  },
  {
    name: 'rename a grandparent of a denied directory',
    move: 'mv a a2',
    read: 'cat a2/b/c/vault/key',
  },
  { name: 'rename a middle ancestor', move: 'mv a/b a/b2', read: 'cat a/b2/c/vault/key' },
  {
    name: 'rename the parent of a denied file',
    move: 'mv svc1/api svc1/api2',
    read: 'cat svc1/api2/.env',
  },
  {
    name: 'rename a denied file itself',
    move: 'mv svc1/api/.env svc1/api/dotenv',
    read: 'cat svc1/api/dotenv',
  },
  {
    name: 'remove the parent and put a copy back',
    move: 'cp -a config /tmp/c && rm -rf config; mv /tmp/c config2',
    read: 'cat config2/secrets/key',
  },
  {
    name: 'rename with perl (rename(2) directly)',
    move: `perl -e 'rename("config", "cfg") or die "$!\\n"'`,
    read: 'cat cfg/secrets/key',
  },
  {
    name: 'hard link a denied file elsewhere',
    move: 'ln svc1/api/.env leaked',
    read: 'cat leaked',
  },
  {
    name: 'move the parent into a new directory',
    move: 'mkdir box && mv svc1 box/',
    read: 'cat box/svc1/api/.env',
  },
  {
    name: 'swap the parent for a symlink to a copy',
    move: 'mv config c0 && ln -s c0 config',
    read: 'cat c0/secrets/key',
  },
  {
    name: 'rename the parent with find -exec',
    move: 'find . -maxdepth 1 -name config -exec mv {} cfg2 \\;',
    read: 'cat cfg2/secrets/key',
  },
];

const blindSpots: readonly MoveCase[] = [
  { name: 'move a secret tree into node_modules', move: 'mv svc1 node_modules/', read: READ_ALL },
  {
    name: 'move a secret tree into node_modules under a package',
    move: 'mv svc1 node_modules/pkg/',
    read: READ_ALL,
  },
  {
    name: 'move a secret tree seven levels down',
    move: 'mkdir -p l1/l2/l3/l4/l5/l6/l7 && mv svc1 l1/l2/l3/l4/l5/l6/l7/',
    read: READ_ALL,
  },
  {
    name: 'move the api directory ten levels down',
    move: 'mkdir -p d/d/d/d/d/d/d/d/d/d && mv svc1/api d/d/d/d/d/d/d/d/d/d/',
    read: READ_ALL,
  },
  {
    name: 'move a denied directory into node_modules',
    move: 'mv config/secrets node_modules/',
    read: READ_ALL,
  },
  {
    name: 'move the parent of a denied directory into node_modules',
    move: 'mv config node_modules/',
    read: READ_ALL,
  },
  {
    name: 'copy a secret tree into node_modules',
    move: 'cp -a svc1 node_modules/ 2>/dev/null; cp -a config node_modules/ 2>/dev/null; true',
    read: READ_ALL,
  },
  {
    name: 'archive a secret tree into node_modules',
    move: 'tar cf node_modules/x.tar svc1 config 2>/dev/null; true',
    read: 'tar xOf node_modules/x.tar 2>/dev/null; true',
  },
  {
    name: 'symlink a secret from node_modules',
    move: 'ln -s ../svc1/api/.env node_modules/env',
    read: 'cat node_modules/env',
  },
  {
    name: 'move with git mv into node_modules',
    move: 'git init -q . 2>/dev/null; git mv -k svc1 node_modules/svc1 2>&1; mv svc1 node_modules/s 2>&1; true',
    read: READ_ALL,
  },
  {
    name: 'rename so the name no longer matches a prefix glob',
    move: 'mv a/b/c/vault a/b/c/vault2',
    read: 'cat a/b/c/vault2/key',
  },
];

describe.skipIf(SKIP_BWRAP)(needsBwrap('renames above what is protected (class 1)'), () => {
  let t: Tree;
  beforeEach(async () => {
    t = await world();
    return () => t.cleanup();
  });

  it.each(renames)('unguarded, "$name" does its harm', async ({ move, read }) => {
    unguarded(t, move);
    expect(leaks(unguarded(t, read).stdout).length).toBeGreaterThan(0);
  });

  it.each(renames)('sandboxed, "$name" moves nothing and reads nothing', async ({ move, read }) => {
    const before = await listing(t.ws);
    const first = await run(t, `${move}; true`);
    expect(leaks(first.stdout + first.stderr)).toEqual([]);
    const second = await run(t, read);
    expect(leaks(second.stdout + second.stderr)).toEqual([]);
    // The protected things are where they were, on the host.
    for (const path of ['config/secrets/key', 'svc1/api/.env', 'a/b/c/vault/key']) {
      expect(before).toContain(path);
      expect(await listing(t.ws)).toContain(path);
    }
  });

  it('`.git` cannot be swapped for a copy whose hooks and config are writable', async () => {
    const attack =
      'mv .git .git-old && cp -a .git-old .git && echo "touch pwned" >> .git/hooks/pre-commit && printf "[core]\\n\\tfsmonitor = touch pwned\\n" >> .git/config';
    const harmed = await world();
    unguarded(harmed, attack);
    expect(await readFile(`${harmed.ws}/.git/config`, 'utf8')).toContain('fsmonitor');
    await harmed.cleanup();

    const r = await run(t, attack);
    expect(r.stderr).toMatch(/busy/i);
    expect(await readFile(`${t.ws}/.git/config`, 'utf8')).not.toContain('fsmonitor');
    expect(await readFile(`${t.ws}/.git/hooks/pre-commit`, 'utf8')).not.toContain('pwned');
    await expect(readdir(`${t.ws}/.git-old`)).rejects.toThrow(/ENOENT/);
  });

  it.each([
    [
      'rename .git/hooks away and make a new one',
      'mv .git/hooks .git/h && mkdir .git/hooks && echo x > .git/hooks/post-checkout',
    ],
    [
      'remove .git/hooks and recreate it',
      'rm -rf .git/hooks; mkdir -p .git/hooks && echo x > .git/hooks/post-checkout',
    ],
    [
      'create a new hook in the existing hooks directory',
      'echo x > .git/hooks/post-merge && chmod +x .git/hooks/post-merge',
    ],
    ['replace .git/config by renaming over it', 'echo "[core]" > c && mv c .git/config'],
  ])('`.git`: %s is refused', async (_name, attack) => {
    const r = await run(t, `${attack}; true`);
    expect(r.exitCode).toBe(0);
    const hooks = await readdir(`${t.ws}/.git/hooks`);
    expect(hooks).toEqual(['pre-commit']);
    expect(await readFile(`${t.ws}/.git/config`, 'utf8')).toBe('[core]\n\tbare = false\n');
  });

  it('a denied-write path that does not exist yet cannot be created (.git without hooks)', async () => {
    await writeFile(`${t.ws}/sub/.keep`, '');
    await mkdir(`${t.ws}/sub/.git`);
    const r = await run(
      t,
      'mkdir -p sub/.git/hooks && echo x > sub/.git/hooks/pre-commit; echo rc=$?',
    );
    expect(r.stdout).toContain('rc=1');
    await expect(readdir(`${t.ws}/sub/.git/hooks`)).rejects.toThrow(/ENOENT/);
  });

  it('a nested writable root cannot be turned into a door, during a run or between runs', async () => {
    await mkdir(`${t.ws}/build/out`, { recursive: true });
    const roots = [t.ws, `${t.ws}/build/out`];
    const attack = `mv build build.old && mkdir build && ln -s ${t.outside} build/out`;
    const runner = createSandboxRunner({ ...options(t), roots });
    const during = await runner.run(['bash', '-c', `${attack}; echo escaped > build/out/x; true`]);
    expect(during.stderr).toMatch(/busy/i);
    await expect(readFile(`${t.outside}/x`)).rejects.toThrow(/ENOENT/);
    // The same change made on the host between runs (as a process outside the sandbox could).
    unguarded(t, attack);
    await expect(runner.run(['bash', '-c', 'echo escaped > build/out/x'])).rejects.toThrow(
      /resolved to .* now resolves to/,
    );
    await expect(readFile(`${t.outside}/x`)).rejects.toThrow(/ENOENT/);
  });
});

describe.skipIf(SKIP_BWRAP)(
  needsBwrap('secrets moved where the scan does not look (class 2)'),
  () => {
    let t: Tree;
    beforeEach(async () => {
      t = await world();
      return () => t.cleanup();
    });

    it.each(blindSpots)('unguarded, "$name" leaves the secret readable', async ({ move, read }) => {
      unguarded(t, move);
      expect(leaks(unguarded(t, read).stdout).length).toBeGreaterThan(0);
    });

    it.each(blindSpots)(
      'sandboxed, "$name": the next run reads no secret',
      async ({ move, read }) => {
        // The scan keeps its default bounds (depth 6, node_modules skipped): those bounds only say
        // where a secret the host put is looked for; no run can move a masked secret past them.
        await run(t, `${move}; true`);
        const second = await run(t, `${read}; ${READ_ALL}`);
        expect(leaks(second.stdout + second.stderr)).toEqual([]);
      },
    );
  },
);

describe.skipIf(SKIP_BWRAP)(needsBwrap('runs racing each other (class 3)'), () => {
  it('a run that renames in a loop never unmasks a secret for concurrent readers, and nothing is left on the host', async () => {
    const t = await world();
    await mkdir(`${t.ws}/svc4`);
    await writeFile(`${t.ws}/svc4/.env`, `TOKEN=${SECRET_B}\n`);
    const before = await listing(t.ws);
    const harmed = await world();
    await mkdir(`${harmed.ws}/svc4`);
    const looped = unguarded(
      harmed,
      'for i in 1 2 3; do mv svc4 svc4_ && mv svc4_ svc4; done; echo ok',
    );
    expect(looped.stdout).toContain('ok');
    await harmed.cleanup();

    const runner = createSandboxRunner(options(t));
    let stop = false;
    let renamed = 0;
    const looper = (async () => {
      while (!stop) {
        const r = await runner.run([
          'bash',
          '-c',
          'for i in $(seq 20); do mv svc4 svc4_ 2>/dev/null && mv svc4_ svc4 && echo moved; done; true',
        ]);
        renamed += (r.stdout.match(/moved/g) ?? []).length;
      }
    })();
    const leaked: string[] = [];
    const rounds = Number(process.env.DSH_RACE_ROUNDS ?? 150);
    for (let i = 0; i < rounds; i++) {
      const r = await runner.run(['bash', '-c', 'grep -rah TOKEN . 2>/dev/null; true']);
      leaked.push(...leaks(r.stdout));
    }
    stop = true;
    await looper;
    expect(leaked).toEqual([]);
    expect(renamed).toBe(0);
    expect(await listing(t.ws)).toEqual(before);
    await t.cleanup();
  }, 240_000);

  /**
   * Ten more ways a run may move a secret, or what holds it, while other runs scan and mount: each
   * first moves it unguarded (the harm), then loops sandboxed against 40 concurrent readers.
   */
  const movers: { name: string; setup?: string; move: string }[] = [
    {
      name: 'the file renamed in place',
      move: 'mv svc4/.env svc4/e2 && echo moved && mv svc4/e2 svc4/.env',
    },
    { name: 'its directory renamed', move: 'mv svc4 s5 && echo moved && mv s5 svc4' },
    {
      name: 'its directory moved into node_modules',
      setup: 'mkdir -p node_modules',
      move: 'mv svc4 node_modules/ && echo moved && mv node_modules/svc4 .',
    },
    {
      name: 'its directory moved deep',
      setup: 'mkdir -p d/1/2/3/4/5/6/7/8',
      move: 'mv svc4 d/1/2/3/4/5/6/7/8/ && echo moved && mv d/1/2/3/4/5/6/7/8/svc4 .',
    },
    {
      name: 'rename(2) from perl',
      move: `perl -e 'rename("svc4", "s6") or exit 1; print "moved\\n"; rename("s6", "svc4")'`,
    },
    {
      name: 'its directory swapped for a symlink',
      move: 'mv svc4 s7 && ln -s s7 svc4 && echo moved && rm svc4 && mv s7 svc4',
    },
    { name: 'a hard link to the file', move: 'ln svc4/.env hl && echo moved && rm hl' },
    {
      name: 'its directory copied away and removed',
      move: 'cp -a svc4 c8 && rm -rf svc4 && echo moved && mv c8 svc4',
    },
    {
      name: 'the file moved out of its directory',
      move: 'mv svc4/.env plain.txt && echo moved && mv plain.txt svc4/.env',
    },
    {
      name: 'its parent renamed with find -exec',
      setup: 'mkdir -p p9 && mv svc4 p9/',
      move: 'find . -maxdepth 1 -name p9 -exec mv {} p10 \\; -exec echo moved \\; ; [ -d p10 ] && mv p10 p9',
    },
  ];

  it.each(movers)(
    '$name: unguarded it moves the secret; sandboxed it never does, and concurrent readers never read it',
    async ({ setup, move }) => {
      const prepare = async (t: Tree) => {
        await mkdir(`${t.ws}/svc4`);
        await writeFile(`${t.ws}/svc4/.env`, `TOKEN=${SECRET_B}\n`);
        if (setup) unguarded(t, setup);
      };
      const harmed = await world();
      await prepare(harmed);
      expect(unguarded(harmed, move).stdout).toContain('moved');
      await harmed.cleanup();

      const t = await world();
      await prepare(t);
      const before = await listing(t.ws);
      const runner = createSandboxRunner(options(t));
      let stop = false;
      let moved = 0;
      const looper = (async () => {
        while (!stop) {
          const r = await runner.run([
            'bash',
            '-c',
            `for i in 1 2 3 4 5; do ${move} 2>/dev/null; done; true`,
          ]);
          moved += (r.stdout.match(/moved/g) ?? []).length;
        }
      })();
      const leaked: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = await runner.run(['bash', '-c', 'grep -rah TOKEN . 2>/dev/null; true']);
        leaked.push(...leaks(r.stdout));
      }
      stop = true;
      await looper;
      expect(leaked).toEqual([]);
      expect(moved).toBe(0);
      // Nothing that was there went away; what a run made (a copy's empty directory) holds no secret.
      const after = await listing(t.ws);
      expect(before.filter((p) => !after.includes(p))).toEqual([]);
      for (const p of after.filter((q) => !before.includes(q))) {
        const text = await readFile(`${t.ws}/${p}`, 'utf8').catch(() => '');
        expect(leaks(text), p).toEqual([]);
      }
      await t.cleanup();
    },
    240_000,
  );

  it('concurrent runs of every kind leave no mount point behind on the host', async () => {
    const t = await world();
    await link('config/secrets', `${t.ws}/shortcut`);
    const before = await listing(t.ws);
    const runner = createSandboxRunner(options(t));
    const scripts = [
      'mv config c2; mv svc1 s2; true',
      'rm -rf a 2>/dev/null; true',
      'cat config/secrets/key svc1/api/.env 2>/dev/null; true',
      'mv .git g2; true',
    ];
    for (let round = 0; round < 25; round++) {
      const results = await Promise.all(scripts.map((s) => runner.run(['bash', '-c', s])));
      for (const r of results) expect(leaks(r.stdout)).toEqual([]);
    }
    const after = await listing(t.ws);
    // `rm -rf a` may remove what is not protected; nothing may appear and nothing protected goes.
    expect(after.filter((p) => !before.includes(p))).toEqual([]);
    for (const p of ['config/secrets/key', 'svc1/api/.env', 'a/b/c/vault/key', '.git/config']) {
      expect(after).toContain(p);
    }
    await t.cleanup();
  }, 240_000);
});
