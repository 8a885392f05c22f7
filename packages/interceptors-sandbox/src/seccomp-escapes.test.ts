/**
 * The syscall filter against the real bubblewrap, with the runner's own flags: each attack runs
 * once without the filter, to show it does what it is meant to, then with it, to show it is
 * refused. Everyday work runs under the filter afterwards.
 *
 * The attacks are perl (`syscall`, `socket`, `ioctl`): perl-base is essential on Debian, so they
 * need nothing beyond bubblewrap. Node drives the socket attacks, as it is what runs the tests.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findBwrap } from './find-bwrap';
import { SYSCALL_NUMBERS, seccompProgram } from './seccomp';

const BWRAP = findBwrap();
const ARCH = process.arch === 'x64' || process.arch === 'arm64' ? process.arch : undefined;
const PERL = spawnSync('perl', ['-e', 'exit 0']).status === 0;
const missing = [
  BWRAP === undefined && 'bubblewrap (apt-get install bubblewrap)',
  !PERL && 'perl (apt-get install perl-base)',
  ARCH === undefined && `a syscall table for ${process.arch}`,
].filter((m): m is string => typeof m === 'string');

/** The runner's confinement, as bwrap-args.ts builds it, without the per-run binds. */
const RUNNER_FLAGS = (
  '--die-with-parent --new-session --unshare-all --unshare-user --disable-userns --cap-drop ALL ' +
  '--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp'
).split(' ');
const RUN_TIMEOUT_MS = 20_000;
const TEST_TIMEOUT_MS = 60_000;

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

interface RunOptions {
  readonly filter: boolean;
  readonly network?: boolean;
  /** A host directory bound writable at the same path and used as cwd and HOME. */
  readonly dir: string;
  /** A host-side command that starts bubblewrap as its last arguments (the keyring test's). */
  readonly host?: readonly string[];
}

const live = new Set<ChildProcess>();
const cleanups: (() => Promise<unknown>)[] = [];

/** Runs `argv` in bubblewrap, the filter on fd 3 when asked; kills the group after the bound. */
function sandboxed(argv: readonly string[], options: RunOptions): Promise<Outcome> {
  const network = options.network ?? false;
  const dir = options.dir;
  const binds = `--bind ${dir} ${dir} --chdir ${dir}`.split(' ');
  const filter = options.filter ? ['--seccomp', '3'] : [];
  const args = [...RUNNER_FLAGS, ...(network ? ['--share-net'] : []), ...binds, ...filter];
  const [command, ...rest] = [...(options.host ?? []), BWRAP!, ...args, '--', ...argv];
  const child = spawn(command!, rest, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.dir, LANG: 'C.UTF-8' },
  });
  live.add(child);
  const fd3 = child.stdio[3] as Writable;
  // bubblewrap reads the program to the end before it starts the command; if it dies first,
  // the write fails with EPIPE and the outcome says why.
  fd3.on('error', () => {});
  const program = options.filter ? seccompProgram({ network, arch: ARCH! }) : undefined;
  if (options.filter && program === undefined) throw new Error(`no filter for ${ARCH}`);
  fd3.end(program);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => killGroup(child), RUN_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {}
}

/** A fresh host directory outside /tmp (the sandbox mounts its own), removed after the test. */
async function scratch(): Promise<string> {
  const parent = existsSync('/var/tmp') ? '/var/tmp' : '/tmp';
  const dir = await realpath(await mkdtemp(`${parent}/dsh-seccomp-`));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A daemon on a unix socket (a path, or an abstract name from \0); counts who reached it. */
async function listen(path: string): Promise<{ connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end('daemon-says-hi\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { connections: () => connections };
}

/** Both runs of one attack: what it does unguarded, then under the filter. */
async function bothWays(argv: readonly string[], options: Omit<RunOptions, 'filter'>) {
  const unguarded = await sandboxed(argv, { ...options, filter: false });
  const guarded = await sandboxed(argv, { ...options, filter: true });
  return { unguarded, guarded };
}

const nr = ARCH ? SYSCALL_NUMBERS[ARCH] : {};
/** Perl helpers: `r(name, result)` prints `name:ok:<value>` or `name:err:<errno>`. */
const PERL_PRELUDE =
  'sub r { my ($n, $v) = @_; print "$n:", ($v < 0 ? "err:" . ($! + 0) : "ok:$v"), "\\n" } ' +
  'sub str { my $x = shift; return $x } ';
const perl = (code: string) => ['perl', '-e', PERL_PRELUDE + code];

beforeEach(() => {
  expect(live.size).toBe(0);
});

afterEach(async () => {
  for (const child of live) killGroup(child);
  live.clear();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

if (missing.length > 0 && process.env.CI === 'true') {
  it('has what the seccomp escape corpus needs (CI=true fails instead of skipping)', () => {
    expect.fail(`the seccomp escape corpus needs ${missing.join(', ')}`);
  });
}

describe.skipIf(missing.length > 0)(
  `the syscall filter under real bubblewrap${missing.length ? ` (skipped: needs ${missing.join(', ')})` : ''}`,
  () => {
    /**
     * Syscall attacks whose unguarded result shows the kernel took the call: a descriptor, 0, or
     * an errno the kernel gives only after it looked at the arguments (ENOENT for a path it
     * walked, EINVAL for a command it parsed). Guarded, each is EPERM before the kernel looks.
     */
    const syscallAttacks: readonly { name: string; code: string; unguarded: RegExp }[] = [
      {
        name: 'mount a tmpfs (ENOENT unguarded: the kernel walked the target)',
        code: `r("x", syscall(${nr.mount}, str("none"), str("/nonexistent-dsh"), str("tmpfs"), 0, 0))`,
        unguarded: /^x:err:2$/m,
      },
      {
        name: 'umount2',
        code: `r("x", syscall(${nr.umount2}, str("/nonexistent-dsh"), 0))`,
        unguarded: /^x:err:2$/m,
      },
      {
        name: 'open_tree of / (a mount handle, no capability needed)',
        code: `r("x", syscall(${nr.open_tree}, -100, str("/"), 0))`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'bpf (EINVAL unguarded: the kernel parsed the command)',
        code: `r("x", syscall(${nr.bpf}, 9999, 0, 0))`,
        unguarded: /^x:err:22$/m,
      },
      {
        name: 'perf_event_open of a software counter',
        code:
          'my $a = pack("LLQ", 1, 64, 1) . ("\\0" x 24) . pack("Q", 0x61) . ("\\0" x 16); ' +
          `r("x", syscall(${nr.perf_event_open}, $a, 0, -1, -1, 0))`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'userfaultfd (user-mode only, allowed unprivileged)',
        code: `r("x", syscall(${nr.userfaultfd}, 0x80001))`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'io_uring_setup',
        code: `my $p = "\\0" x 120; r("x", syscall(${nr.io_uring_setup}, 1, $p))`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'ptrace attach to a sibling',
        code:
          'my $pid = fork; if (!$pid) { sleep 10; exit 0 } ' +
          `r("x", syscall(${nr.ptrace}, 16, $pid, 0, 0)); kill 9, $pid; waitpid $pid, 0`,
        unguarded: /^x:ok:0$/m,
      },
      {
        name: "process_vm_readv of a sibling's memory",
        code:
          'pipe(my $r, my $w) or die; my $pid = fork; if (!$pid) { my $s = join("", "sibling-memory-", $$); ' +
          'syswrite($w, pack("JJ", unpack("J", pack("p", $s)), length $s)); sleep 10; exit 0 } ' +
          'sysread($r, my $m, 16) == 16 or die "pipe"; my ($at, $len) = unpack("JJ", $m); my $b = "\\0" x $len; ' +
          `my $n = syscall(${nr.process_vm_readv}, $pid, pack("JJ", unpack("J", pack("p", $b)), $len), 1, pack("JJ", $at, $len), 1, 0); ` +
          'print "x:", ($n < 0 ? "err:" . ($! + 0) : "ok:$b"), "\\n"; kill 9, $pid; waitpid $pid, 0',
        unguarded: /^x:ok:sibling-memory-\d+$/m,
      },
      {
        // 434 is pidfd_open on both architectures; the filter leaves it alone.
        name: "pidfd_getfd: a sibling's descriptor",
        code:
          'my $pid = fork; if (!$pid) { sleep 10; exit 0 } my $pfd = syscall(434, $pid, 0); ' +
          `r("x", syscall(${nr.pidfd_getfd}, $pfd, 1, 0)); kill 9, $pid; waitpid $pid, 0`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'unshare(CLONE_NEWUSER) (ENOSPC unguarded: --disable-userns answered)',
        code: `r("x", syscall(${nr.unshare}, 0x10000000))`,
        unguarded: /^x:err:28$/m,
      },
      {
        name: 'personality(ADDR_NO_RANDOMIZE)',
        code: `r("x", syscall(${nr.personality}, 0x0040000))`,
        unguarded: /^x:ok:\d+$/m,
      },
      {
        name: 'an AF_NETLINK socket (NETLINK_ROUTE)',
        code: '$! = 0; r("x", socket(my $s, 16, 3, 0) ? 1 : -1)',
        unguarded: /^x:ok:1$/m,
      },
    ];

    for (const attack of syscallAttacks) {
      it(
        `${attack.name}: taken unguarded, EPERM under the filter`,
        async () => {
          const dir = await scratch();
          const { unguarded, guarded } = await bothWays(perl(attack.code), { dir });
          expect(unguarded.stdout).toMatch(attack.unguarded);
          expect(guarded.stdout).toMatch(/^x:err:1$/m);
        },
        TEST_TIMEOUT_MS,
      );
    }

    it(
      "the host's session keyring: read and written unguarded, refused under the filter",
      async () => {
        const dir = await scratch();
        // The host process joins a session keyring of its own holding a key, starts bubblewrap,
        // and looks afterwards for the key the sandboxed process tried to leave there.
        const host = [
          'perl',
          '-e',
          `${PERL_PRELUDE} syscall(${nr.keyctl}, 1, str("dsh-seccomp-test")); ` +
            `syscall(${nr.add_key}, str("user"), str("dsh-host-key"), str("host-key-payload"), 16, -3) > 0 or die "add_key: $!"; ` +
            'my $pid = fork; if (!$pid) { exec @ARGV; die "exec: $!" } waitpid $pid, 0; my $st = $?; ' +
            `my $in = syscall(${nr.keyctl}, 10, -3, str("user"), str("dsh-inside-key"), 0); ` +
            'print "host-sees-inside-key:", ($in > 0 ? "yes" : "no"), "\\n"; exit($st >> 8)',
        ];
        const inside = perl(
          `my $id = syscall(${nr.keyctl}, 10, -3, str("user"), str("dsh-host-key"), 0); ` +
            'if ($id > 0) { my $b = "\\0" x 64; my $n = ' +
            `syscall(${nr.keyctl}, 11, $id, $b, 64); print "read:", substr($b, 0, $n), "\\n" } ` +
            'else { print "search:err:", $! + 0, "\\n" } ' +
            `r("add", syscall(${nr.add_key}, str("user"), str("dsh-inside-key"), str("x"), 1, -3))`,
        );
        const { unguarded, guarded } = await bothWays(inside, { dir, host });
        expect(unguarded.stdout).toContain('read:host-key-payload');
        expect(unguarded.stdout).toMatch(/^add:ok:\d+$/m);
        expect(unguarded.stdout).toContain('host-sees-inside-key:yes');
        expect(guarded.stdout).toContain('search:err:1');
        expect(guarded.stdout).toContain('add:err:1');
        expect(guarded.stdout).not.toContain('host-key-payload');
        expect(guarded.stdout).toContain('host-sees-inside-key:no');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'TIOCSTI types into a terminal unguarded and is refused under the filter; so is TIOCLINUX',
      async () => {
        const dir = await scratch();
        // A pseudo-terminal made inside (bubblewrap's --dev has its own devpts) stands in for the
        // host's: the child makes it its controlling terminal, as a shell's child has one.
        const code =
          'use POSIX (); use Fcntl; sysopen(my $m, "/dev/ptmx", O_RDWR) or die "ptmx: $!"; ' +
          'my $z = pack("i", 0); ioctl($m, 0x40045431, $z) or die "unlockpt: $!"; ' +
          'my $n = pack("i", 0); ioctl($m, 0x80045430, $n) or die "ptsname: $!"; $n = unpack("i", $n); ' +
          'my $pid = fork; if (!$pid) { POSIX::setsid(); ' +
          'sysopen(my $s, "/dev/pts/$n", O_RDWR) or die "pts: $!"; my $ok = 1; ' +
          'for my $c (split //, "typed-by-sandbox\\n") { my $b = $c; $ok &&= ioctl($s, 0x5412, $b) ? 1 : 0 } ' +
          'print "tiocsti:", ($ok ? "ok" : "err:" . ($! + 0)), "\\n"; ' +
          'my $x = "\\0" x 4; print "tioclinux:", (ioctl($s, 0x541c, $x) ? "ok" : "err:" . ($! + 0)), "\\n"; ' +
          'if ($ok) { local $SIG{ALRM} = sub { print "read:timeout\\n"; exit 0 }; alarm 5; ' +
          'my $buf; sysread($s, $buf, 100); print "read:$buf" } exit 0 } waitpid $pid, 0';
        const { unguarded, guarded } = await bothWays(perl(code), { dir });
        expect(unguarded.stdout).toContain('tiocsti:ok');
        expect(unguarded.stdout).toContain('read:typed-by-sandbox');
        // ENOTTY: the kernel's tty layer saw TIOCLINUX (a pty is no virtual console).
        expect(unguarded.stdout).toContain('tioclinux:err:25');
        expect(guarded.stdout).toContain('tiocsti:err:1');
        expect(guarded.stdout).toContain('tioclinux:err:1');
        expect(guarded.stdout).not.toContain('typed-by-sandbox');
      },
      TEST_TIMEOUT_MS,
    );

    const connect = (path: string) => [
      'node',
      '-e',
      `require('net').connect(${JSON.stringify(path)}).on('data', (d) => process.stdout.write('got:' + d))` +
        ".on('error', (e) => console.log('error:' + e.code))",
    ];

    for (const network of [false, true]) {
      it(
        `AF_UNIX: a host daemon's socket answers unguarded, not under the filter (network ${network ? 'on' : 'off'})`,
        async () => {
          const dir = await scratch();
          const daemon = await listen(`${dir}/daemon.sock`);
          const { unguarded, guarded } = await bothWays(connect(`${dir}/daemon.sock`), {
            dir,
            network,
          });
          expect(unguarded.stdout).toContain('got:daemon-says-hi');
          expect(guarded.stdout).toContain('error:EPERM');
          expect(daemon.connections()).toBe(1);
        },
        TEST_TIMEOUT_MS,
      );
    }

    it(
      "AF_UNIX with the network on: the host's abstract sockets answer unguarded, not under the filter",
      async () => {
        const dir = await scratch();
        const name = `\0dsh-seccomp-${process.pid}-${Date.now()}`;
        const daemon = await listen(name);
        const { unguarded, guarded } = await bothWays(connect(name), { dir, network: true });
        expect(unguarded.stdout).toContain('got:daemon-says-hi');
        expect(guarded.stdout).toContain('error:EPERM');
        expect(daemon.connections()).toBe(1);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'AF_NETLINK with the network on: NETLINK_ROUTE stays (interface listing), the other protocols go',
      async () => {
        const dir = await scratch();
        const code =
          'for my $p (0, 4, 9, 15) { $! = 0; r("netlink$p", socket(my $s, 16, 3, $p) ? 1 : -1) }';
        const { unguarded, guarded } = await bothWays(perl(code), { dir, network: true });
        expect(unguarded.stdout).toMatch(/netlink0:ok.*netlink4:ok.*netlink9:ok.*netlink15:ok/s);
        expect(guarded.stdout).toMatch(
          /netlink0:ok.*netlink4:err:1.*netlink9:err:1.*netlink15:err:1/s,
        );
        const listing = [
          'node',
          '-e',
          'console.log("lo:" + ("lo" in require("os").networkInterfaces()))',
        ];
        expect((await sandboxed(listing, { dir, network: true, filter: true })).stdout).toContain(
          'lo:true',
        );
        // With the network off the listing is refused too: the price of refusing AF_NETLINK there.
        expect((await sandboxed(listing, { dir, network: false, filter: true })).stderr).toContain(
          'uv_interface_addresses',
        );
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'set-user-ID and set-group-ID files: made unguarded in a writable bind, refused under the filter',
      async () => {
        const dir = await scratch();
        await writeFile(`${dir}/suid-source`, '#!/bin/sh\n');
        await chmod(`${dir}/suid-source`, 0o4755);
        const script = (tag: string) =>
          [
            `cd ${dir}`,
            `touch ${tag}-u ${tag}-g; chmod u+s ${tag}-u; chmod g+s ${tag}-g`,
            `install -m 4755 /bin/true ${tag}-install`,
            `cp -a suid-source ${tag}-cp`,
            `perl -e 'use Fcntl; sysopen(my $f, "${tag}-open", O_CREAT | O_WRONLY, 04755) or print "open:err\\n"'`,
            `perl -e 'my $p = "${tag}-mknod"; syscall(${nr.mknodat}, -100, $p, 0104755, 0) == 0 or print "mknod:err\\n"'`,
            'true',
          ].join('; ');
        const names = ['u', 'g', 'install', 'cp', 'open', 'mknod'];
        const bits = async (tag: string) =>
          Promise.all(
            names.map(
              async (n) => (await stat(`${dir}/${tag}-${n}`).catch(() => undefined))?.mode ?? 0,
            ),
          );
        await sandboxed(['bash', '-c', script('plain')], { dir, filter: false });
        const guarded = await sandboxed(['bash', '-c', script('filtered')], { dir, filter: true });
        const plain = await bits('plain');
        expect(plain.map((m) => m & 0o6000)).toEqual([
          0o4000, 0o2000, 0o4000, 0o4000, 0o4000, 0o4000,
        ]);
        const filtered = await bits('filtered');
        expect(filtered.map((m) => m & 0o6000)).toEqual([0, 0, 0, 0, 0, 0]);
        expect(guarded.stderr).toMatch(
          /chmod: changing permissions of 'filtered-u': Operation not permitted/,
        );
        expect(guarded.stdout).toContain('open:err');
        expect(guarded.stdout).toContain('mknod:err');
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'everyday work runs under the filter: bash, git, node with a child, npm, tar, cp -a, sort',
      async () => {
        const dir = await scratch();
        const steps = [
          'echo bash-ok',
          'git init -q repo && cd repo && echo a > a && git add a && ' +
            'git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=git-%s && cd ..',
          `node -e "require('child_process').execFileSync('true'); console.log(require('child_process').execFileSync('echo', ['node-child-ok']).toString().trim())"`,
          'npm --version >/dev/null && echo npm-ok',
          'tar cf r.tar repo && mkdir un && tar xf r.tar -C un && test -f un/repo/a && echo tar-ok',
          'cp -a repo copy && test -f copy/a && echo cp-ok',
          'printf "b\\na\\n" | sort | tr -d "\\n"; echo',
        ];
        const run = await sandboxed(['bash', '-c', steps.join(' && ')], { dir, filter: true });
        expect(run.stderr).toBe('');
        expect(run.stdout.split('\n')).toEqual([
          'bash-ok',
          'git-first',
          'node-child-ok',
          'npm-ok',
          'tar-ok',
          'cp-ok',
          'ab',
          '',
        ]);
        expect(run.code).toBe(0);
      },
      TEST_TIMEOUT_MS,
    );

    const python = spawnSync('python3', ['-c', 'print(6 * 7)'], { encoding: 'utf8' }).stdout;
    it.skipIf(python?.trim() !== '42')(
      `python3 runs under the filter${python?.trim() === '42' ? '' : ' (skipped: no python3 here)'}`,
      async () => {
        const dir = await scratch();
        const code =
          'import subprocess, threading; t = threading.Thread(target=lambda: None); t.start(); t.join(); print(subprocess.run(["echo", "py-ok"], capture_output=True, text=True).stdout.strip())';
        const run = await sandboxed(['python3', '-c', code], { dir, filter: true, network: true });
        expect(run.stdout.trim()).toBe('py-ok');
      },
      TEST_TIMEOUT_MS,
    );
  },
);
