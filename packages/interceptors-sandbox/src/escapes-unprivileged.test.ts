/**
 * The same classes of escape with the host running as an unprivileged user (uid 65534), where
 * bubblewrap uses an unprivileged user namespace and no cgroup can be made (processes are bounded
 * by RLIMIT_NPROC instead). Runs where this test runs as root and `setpriv` exists, so it can start
 * the host as that user; each command runs unguarded first, then through the runner.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, SKIP_BWRAP, type Tree } from '../test/fixtures';

cleanUpAfterTests();

const HOST_SCRIPT = fileURLToPath(new URL('../test/host-with-state.mts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const NOBODY = 65534;
const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find(existsSync);
const canDrop = process.getuid?.() === 0 && setpriv !== undefined;
const SECRET = 'unprivileged-secret-3b9c';

let t: Tree;

async function chownTree(dir: string): Promise<void> {
  await chown(dir, NOBODY, NOBODY);
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) await chownTree(p);
    else await chown(p, NOBODY, NOBODY);
  }
}

beforeAll(async () => {
  if (!canDrop || SKIP_BWRAP) return;
  t = await makeTree();
  await mkdir(`${t.ws}/config/secrets`, { recursive: true });
  await writeFile(`${t.ws}/config/secrets/key`, `${SECRET}\n`);
  await writeFile(`${t.ws}/.git/config`, '[core]\n');
  await chownTree(t.base);
});
afterAll(() => t?.cleanup());

/** Runs `commands` in a host started as uid 65534, unguarded or through the runner. */
function asNobody(mode: 'guarded' | 'unguarded', commands: readonly string[]) {
  const input = JSON.stringify({
    mode,
    cwd: t.ws,
    commands,
    options: { denyRead: ['config/secrets/**'], limits: { processes: 48 } },
  });
  const out = execFileSync(
    setpriv!,
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      process.execPath,
      '--import',
      TSX,
      HOST_SCRIPT,
      input,
    ],
    {
      cwd: t.ws,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: t.base },
      timeout: 90_000,
    },
  );
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { stdout: string; stderr: string; exitCode: number | null });
}

const attacks: readonly {
  name: string;
  command: string;
  harmed: (o: { stdout: string; stderr: string }) => Promise<boolean> | boolean;
}[] = [
  { name: 'who runs', command: 'id -u', harmed: (o) => o.stdout.trim() === String(NOBODY) },
  {
    name: 'rename above a secret, then read it',
    command:
      'mv config c2 2>/dev/null; cat c2/secrets/key config/secrets/key 2>/dev/null; mv c2 config 2>/dev/null; true',
    harmed: (o) => o.stdout.includes(SECRET),
  },
  {
    name: 'swap .git for a copy with a writable config',
    command:
      'mv .git .g && cp -a .g .git && echo "[core] fsmonitor = x" >> .git/config; rm -rf .g; true',
    harmed: async () => (await readFile(`${t.ws}/.git/config`, 'utf8')).includes('fsmonitor'),
  },
  {
    name: 'write outside the roots',
    command: 'echo x > __OUT__/nobody-was-here 2>/dev/null; true',
    harmed: () => existsSync(`${t.outside}/nobody-was-here`),
  },
  {
    name: 'a fork bomb',
    command: ':(){ :|:& };: ; sleep 1; true',
    harmed: (o) => !/Resource temporarily unavailable/.test(o.stderr),
  },
  {
    name: 'set-user-ID bit on a copy',
    command: 'cp /usr/bin/id suid && chmod u+s suid; stat -c %a suid; rm -f suid',
    harmed: (o) => o.stdout.trim().startsWith('4'),
  },
];

describe.skipIf(!canDrop || SKIP_BWRAP)('as an unprivileged user (uid 65534)', () => {
  it('unguarded, the attacks do their harm (the fork bomb is left out: it would take the host user)', async () => {
    const cmds = attacks.filter((a) => a.name !== 'a fork bomb');
    const out = asNobody(
      'unguarded',
      cmds.map((a) => a.command.replace('__OUT__', t.outside)),
    );
    for (const [i, a] of cmds.entries()) {
      // `outside` belongs to nobody too, so the write outside is possible for this user.
      expect(await a.harmed(out[i]!), a.name).toBe(true);
    }
    // Put back what the unguarded run changed.
    await writeFile(`${t.ws}/.git/config`, '[core]\n');
    spawnSync('rm', ['-f', `${t.outside}/nobody-was-here`]);
  }, 120_000);

  it('through the runner, none does; the fork bomb stops at RLIMIT_NPROC', async () => {
    const out = asNobody(
      'guarded',
      attacks.map((a) => a.command.replace('__OUT__', t.outside)),
    );
    expect(out[0]!.stdout.trim()).toBe(String(NOBODY));
    for (const [i, a] of attacks.entries()) {
      if (i === 0) continue;
      expect(await a.harmed(out[i]!), `${a.name}: ${JSON.stringify(out[i])}`).toBe(false);
    }
  }, 120_000);
});
