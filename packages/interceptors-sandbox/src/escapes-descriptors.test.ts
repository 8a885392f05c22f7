/**
 * What a process could reach through state it shares with the host rather than through paths:
 * descriptors the host inherited without close-on-exec (class 4), the host's session keyring,
 * Unix sockets in visible directories and set-user-ID files left for the host (class 5). The host
 * is a real child process started here with extra descriptors and a session keyring of its own;
 * every attack runs there unguarded first (plain bash), then through the sandbox runner.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { copyFile, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree, needsBwrap, SKIP_BWRAP, type Tree } from '../test/fixtures';
import { createSandboxRunner } from './index';

cleanUpAfterTests();

const HOST_SCRIPT = fileURLToPath(new URL('../test/host-with-state.mts', import.meta.url));
/** tsx's loader, so the host (a plain Node process) runs the TypeScript sources. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const KEY_PAYLOAD = 'key-payload-4d1f';
const FILE_CONTENT = 'host-file-content-8e2a';
/** The host's descriptors as numbers a host may well have inherited (a shell's 19, 200…). */
const DIR_FD = 19;
const FILE_FD = 20;
const PIPE_FD = 21;
const onX64 = process.arch === 'x64';

/** The keyring helper: `add` puts a key in the session keyring, else it reads it back (x64). */
const KEYRING_SCRIPT = `my ($t, $d, $p) = ("user", "dsh-key", "${KEY_PAYLOAD}");
if (($ARGV[0] // '') eq 'add') { my $s = syscall(248, $t, $d, $p, length($p), -3); print "added $s\\n"; exit }
my $id = syscall(249, $t, $d, 0, 0); my $buf = "\\0" x 64;
my $n = $id > 0 ? syscall(250, 11, $id, $buf, 64) : -1;
print "read ", ($n > 0 ? substr($buf, 0, $n) : "nothing"), "\\n";
`;

interface Outcome {
  readonly command: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
}

let t: Tree;
let hostFile: string;

beforeAll(async () => {
  t = await makeTree();
  hostFile = `${t.outside}/host-file.txt`;
  await writeFile(hostFile, `${FILE_CONTENT}\n`);
  await writeFile(`${t.outside}/outside-marker`, '');
  await writeFile(`${t.ws}/keyring.pl`, KEYRING_SCRIPT);
});
afterAll(() => t?.cleanup());

/**
 * Starts the host with a directory, a file and a pipe on descriptors 19–21 (none close-on-exec)
 * and a new session keyring holding a key, runs `commands` in it, and returns each outcome and
 * whatever arrived on the pipe.
 */
async function host(
  mode: 'guarded' | 'unguarded',
  commands: readonly string[],
): Promise<{ outcomes: Outcome[]; piped: string }> {
  const dir = openSync(t.outside, 'r');
  const file = openSync(hostFile, 'a+');
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'pipe'];
  while (stdio.length < DIR_FD) stdio.push('ignore');
  stdio.push(dir, file, 'pipe');
  // perl joins a new session keyring, adds the key, then becomes the Node host: the keyring and
  // the descriptors are the host's own, as they would be for an agent host started from a shell.
  const input = JSON.stringify({ mode, cwd: t.ws, commands });
  const child: ChildProcess = spawn(
    'perl',
    [
      '-e',
      onX64
        ? 'syscall(250, 1, 0); system("perl", "keyring.pl", "add"); exec @ARGV or die "exec: $!"'
        : 'exec @ARGV or die "exec: $!"',
      process.execPath,
      '--import',
      TSX,
      HOST_SCRIPT,
      input,
    ],
    { cwd: t.ws, stdio },
  );
  closeSync(dir);
  closeSync(file);
  let out = '';
  let err = '';
  let piped = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c;
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c;
  });
  ((child.stdio as unknown[])[PIPE_FD] as NodeJS.ReadableStream).on('data', (c: Buffer) => {
    piped += c;
  });
  // Bounded: a host that hangs is killed and fails the test instead of holding the run.
  const guard = setTimeout(() => child.kill('SIGKILL'), 50_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(guard);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(code, err).toBe(0);
  const outcomes = out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Outcome);
  expect(outcomes.length, `${out}\n${err}`).toBe(commands.length);
  return { outcomes, piped };
}

/** One attack through what the host holds, and how to tell that it did its harm. */
interface StateCase {
  readonly name: string;
  readonly command: string;
  /** Whether the harm shows: in the command's output, on the host, or on the pipe. */
  readonly harmed: (o: Outcome, piped: string) => Promise<boolean> | boolean;
  readonly x64Only?: boolean;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );
const hostFileHas = async (text: string) => (await readFile(hostFile, 'utf8')).includes(text);

const cases: readonly StateCase[] = [
  {
    name: 'list the inherited descriptors',
    command: 'ls /proc/self/fd',
    harmed: (o) => o.stdout.split('\n').includes(String(DIR_FD)),
  },
  {
    name: 'write into the host directory through /proc/self/fd',
    command: `echo x > /proc/self/fd/${DIR_FD}/via-proc-fd`,
    harmed: () => exists(`${t.outside}/via-proc-fd`),
  },
  {
    name: 'write into the host directory through /dev/fd',
    command: `echo x > /dev/fd/${DIR_FD}/via-dev-fd`,
    harmed: () => exists(`${t.outside}/via-dev-fd`),
  },
  {
    name: 'cd into the host directory by descriptor and write',
    command: `cd /proc/self/fd/${DIR_FD} && touch via-cd`,
    harmed: () => exists(`${t.outside}/via-cd`),
  },
  {
    name: 'list the host directory by descriptor',
    command: `ls /dev/fd/${DIR_FD}/`,
    harmed: (o) => o.stdout.includes('outside-marker'),
  },
  {
    name: 'append to the host file with >&N',
    command: `echo appended-by-redirect >&${FILE_FD}`,
    harmed: () => hostFileHas('appended-by-redirect'),
  },
  {
    name: 'duplicate the host file descriptor and write',
    command: `exec 7>&${FILE_FD} && echo appended-by-dup >&7`,
    harmed: () => hostFileHas('appended-by-dup'),
  },
  {
    name: 'read the host file by descriptor',
    command: `cat /proc/self/fd/${FILE_FD}`,
    harmed: (o) => o.stdout.includes(FILE_CONTENT),
  },
  {
    name: 'write to the host pipe',
    command: `echo via-pipe >&${PIPE_FD}`,
    harmed: (_o, piped) => piped.includes('via-pipe'),
  },
  {
    name: "reach the host's descriptors through the parent's /proc entry",
    command: `cat /proc/$PPID/fd/${FILE_FD}`,
    harmed: (o) => o.stdout.includes(FILE_CONTENT),
  },
  {
    name: 'find any process holding the host directory',
    command:
      'for f in /proc/[0-9]*/fd/*; do readlink "$f"; done 2>/dev/null | grep -c dsh-sandbox- || true',
    harmed: (o) => Number(o.stdout.trim()) > 0,
  },
  {
    name: "read a key from the host's session keyring",
    command: 'perl keyring.pl',
    harmed: (o) => o.stdout.includes(KEY_PAYLOAD),
    x64Only: true,
  },
  {
    name: "add a key to the host's session keyring",
    command: 'perl keyring.pl add',
    harmed: (o) => /added [1-9]/.test(o.stdout),
    x64Only: true,
  },
];

const applicable = cases.filter((c) => onX64 || !c.x64Only);

describe.skipIf(SKIP_BWRAP)(needsBwrap('state shared with the host (classes 4 and 5)'), () => {
  it('unguarded, every attack does its harm (descriptors 19–21 and a session keyring)', async () => {
    const { outcomes, piped } = await host(
      'unguarded',
      applicable.map((c) => c.command),
    );
    for (const [i, c] of applicable.entries()) {
      expect(await c.harmed(outcomes[i]!, piped), `${c.name}: ${JSON.stringify(outcomes[i])}`).toBe(
        true,
      );
    }
  }, 60_000);

  it('sandboxed, none does: only stdio crosses, and the keyring calls are refused', async () => {
    await writeFile(hostFile, `${FILE_CONTENT}\n`);
    for (const f of ['via-proc-fd', 'via-dev-fd', 'via-cd']) {
      await import('node:fs/promises').then((fs) => fs.rm(`${t.outside}/${f}`, { force: true }));
    }
    const { outcomes, piped } = await host(
      'guarded',
      applicable.map((c) => c.command),
    );
    for (const [i, c] of applicable.entries()) {
      expect(await c.harmed(outcomes[i]!, piped), `${c.name}: ${JSON.stringify(outcomes[i])}`).toBe(
        false,
      );
    }
    // What a sandboxed process sees open: stdio, and ls's own directory.
    expect(outcomes[0]!.stdout.trim().split('\n').map(Number)).toEqual([0, 1, 2, 3]);
  }, 60_000);
});

describe.skipIf(SKIP_BWRAP)(needsBwrap('sockets and set-user-ID files (class 5)'), () => {
  let server: Server;
  let socketPath: string;
  let connected = 0;
  beforeAll(async () => {
    // A daemon's socket outside /run, in a directory every process can see (/var/tmp).
    socketPath = `${t.base}/daemon.sock`;
    server = createServer((s) => {
      connected++;
      s.end('daemon\n');
    });
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });
  afterAll(() => new Promise((resolve) => server?.close(resolve)));

  const connect = () =>
    `node -e "require('net').connect('${socketPath}').on('data', d => process.stdout.write(d)).on('error', e => { console.log(e.code); })"`;

  it('a Unix socket in a visible directory: reachable unguarded, refused in the sandbox', async () => {
    // Not spawnSync: the server answering is on this event loop.
    const plain = await promisify(execFile)('bash', ['-c', connect()], { timeout: 20_000 });
    expect(plain.stdout).toContain('daemon');
    expect(connected).toBe(1);
    const r = await createSandboxRunner({ mode: 'workspace-write', cwd: t.ws }).run([
      'bash',
      '-c',
      connect(),
    ]);
    expect(r.stdout).toMatch(/EPERM|EACCES/);
    expect(connected).toBe(1);
  });

  it('an abstract Unix socket of the host network (with the network on) is refused', async () => {
    const r = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: t.ws,
      network: true,
    }).run([
      'bash',
      '-c',
      `node -e "require('net').createServer().listen('\\0dsh-abstract').on('error', e => console.log(e.code)).on('listening', () => { console.log('listening'); process.exit(0) })"`,
    ]);
    expect(r.stdout).toMatch(/EPERM|EACCES/);
  });

  const suidAttacks: readonly [string, string, string][] = [
    ['chmod u+s', 'cp /usr/bin/id s1 && chmod u+s s1', 's1'],
    ['chmod 4755', 'cp /usr/bin/id s2 && chmod 4755 s2', 's2'],
    ['chmod g+s', 'cp /usr/bin/id s3 && chmod g+s s3', 's3'],
    ['install -m 4755', 'install -m 4755 /usr/bin/id s4', 's4'],
    [
      'perl sysopen with mode 04755',
      `perl -e 'use Fcntl; umask 0; sysopen(my $f, "s5", O_CREAT|O_WRONLY, 04755) or die "$!\\n"'`,
      's5',
    ],
    ['mkdir -m 2755 (set-group-ID directory)', 'mkdir -m 2755 s6', 's6'],
    [
      'cp -p of a set-user-ID file',
      'cp /usr/bin/id s7 && chmod 4755 s7 2>/dev/null; cp -p /usr/bin/passwd s8 2>/dev/null || true',
      's8',
    ],
    [
      'python os.chmod',
      `python3 -c "import os, shutil; shutil.copy('/usr/bin/id', 's9'); os.chmod('s9', 0o4755)" 2>/dev/null || (cp /usr/bin/id s9 && chmod 4755 s9)`,
      's9',
    ],
    [
      'tar extracting a set-user-ID member',
      'cp /usr/bin/id s10 && tar --mode=4755 -cf s.tar s10 && rm s10 && tar -xpf s.tar',
      's10',
    ],
    ['mknod (a device node)', 'mknod s11 c 1 3', 's11'],
  ];

  it.each(suidAttacks)(
    '%s: works unguarded, leaves no set-ID bit in the sandbox',
    async (_name, script, file) => {
      const scratch = await makeTree();
      spawnSync('bash', ['-c', script], { cwd: scratch.ws, timeout: 20_000, stdio: 'ignore' });
      const plain = await stat(`${scratch.ws}/${file}`).catch(() => undefined);
      await scratch.cleanup();
      if (file !== 's11') expect(((plain?.mode ?? 0) & 0o6000) !== 0, 'unguarded').toBe(true);
      await createSandboxRunner({ mode: 'workspace-write', cwd: t.ws }).run([
        'bash',
        '-c',
        `${script}; true`,
      ]);
      const confined = await stat(`${t.ws}/${file}`).catch(() => undefined);
      expect((confined?.mode ?? 0) & 0o6000).toBe(0);
      if (file === 's11') expect(confined?.isCharacterDevice() ?? false).toBe(false);
    },
  );

  it('the host copy used above is a real set-user-ID binary (the attacks aim at something)', async () => {
    await copyFile('/usr/bin/id', `${t.outside}/real-suid`);
    const { chmod } = await import('node:fs/promises');
    await chmod(`${t.outside}/real-suid`, 0o4755);
    expect((await stat(`${t.outside}/real-suid`)).mode & 0o4000).toBe(0o4000);
    expect(await readdir(t.outside)).toContain('real-suid');
  });
});
