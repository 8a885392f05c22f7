/**
 * The syscall filter, run instruction by instruction through a classic BPF interpreter: every
 * refused syscall and argument case is refused, everyday syscalls pass, other ABIs are refused,
 * and the program is one the kernel's checker accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decode,
  ENOSYS,
  EPERM,
  problems,
  run,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  verdict,
} from '../test/bpf-interpreter';
import {
  AUDIT_ARCH,
  describeSeccomp,
  SECCOMP_LAST_KNOWN_SYSCALL,
  SECCOMP_REFUSED,
  SECCOMP_RESTRICTED,
  type SeccompArch,
  SYSCALL_NUMBERS,
  seccompProgram,
} from './seccomp';

const ARCHES: readonly SeccompArch[] = ['x64', 'arm64'];
const NETWORK = [false, true] as const;
const ALLOW = 'allow';
const REFUSED = `errno ${EPERM}`;
const NOSYS = `errno ${ENOSYS}`;

/** Syscalls a command makes all the time, which the filter does not name (numbers as the tables). */
const EVERYDAY: Readonly<Record<SeccompArch, Readonly<Record<string, number>>>> = {
  x64: {
    read: 0,
    write: 1,
    mmap: 9,
    rt_sigaction: 13,
    socketpair: 53,
    execve: 59,
    wait4: 61,
    futex: 202,
    getdents64: 217,
    exit_group: 231,
    pipe2: 293,
    statx: 332,
  },
  arm64: {
    getdents64: 61,
    read: 63,
    write: 64,
    exit_group: 94,
    futex: 98,
    rt_sigaction: 134,
    socketpair: 199,
    execve: 221,
    mmap: 222,
    wait4: 260,
    statx: 291,
    pipe2: 59,
  },
};

const program = (arch: SeccompArch, network: boolean) => {
  const built = seccompProgram({ network, arch });
  if (built === undefined) throw new Error(`no program for ${arch}`);
  return built;
};

/** The filter's verdict in words for syscall `name` with `args` on `arch`. */
const ask = (
  arch: SeccompArch,
  network: boolean,
  name: string,
  args: readonly (bigint | number)[] = [],
) => {
  const nr = SYSCALL_NUMBERS[arch][name] ?? EVERYDAY[arch][name];
  if (nr === undefined) throw new Error(`no number for ${name} on ${arch}`);
  return verdict(
    run(program(arch, network), { nr, arch: AUDIT_ARCH[arch], args: args.map((a) => BigInt(a)) }),
  );
};

const eachCase = ARCHES.flatMap((arch) => NETWORK.map((network) => ({ arch, network })));

describe('the syscall tables', () => {
  // The headers of linux-libc-dev: present on a Debian machine with build tools, optional in CI.
  const headers: Record<SeccompArch, string[]> = {
    x64: ['/usr/include/x86_64-linux-gnu/asm/unistd_64.h', '/usr/include/asm/unistd_64.h'],
    arm64: ['/usr/include/asm-generic/unistd.h'],
  };
  for (const arch of ARCHES) {
    const header = headers[arch].find((path) => existsSync(path));
    it.skipIf(header === undefined)(
      `${arch}: every number agrees with the kernel headers (${header ?? 'headers not installed: apt-get install linux-libc-dev'})`,
      () => {
        const text = readFileSync(header!, 'utf8');
        const defined = new Map<string, number>();
        for (const m of text.matchAll(/^#define __NR(?:3264)?_([a-z0-9_]+)\s+(\d+)/gm)) {
          defined.set(m[1]!, Number(m[2]));
        }
        const newest = Math.max(...defined.values());
        expect(newest).toBeGreaterThan(400);
        for (const [name, nr] of Object.entries({ ...SYSCALL_NUMBERS[arch], ...EVERYDAY[arch] })) {
          const known = defined.get(name);
          // A syscall newer than the headers must at least sit above everything they define.
          if (known === undefined) expect(nr, name).toBeGreaterThan(newest);
          else expect(nr, name).toBe(known);
        }
        // arm64 has only the *at forms: a table entry for the old names would be a wrong number.
        if (arch === 'arm64') {
          for (const name of ['open', 'creat', 'chmod', 'mkdir', 'mknod']) {
            expect(defined.has(name), name).toBe(false);
            expect(SYSCALL_NUMBERS.arm64[name], name).toBeUndefined();
          }
        }
      },
    );
  }

  it('has no table for another architecture: the caller fails closed', () => {
    for (const arch of ['ia32', 'arm', 'riscv64', 's390x', 'ppc64', 'loong64'] as const) {
      expect(seccompProgram({ network: false, arch })).toBeUndefined();
      expect(describeSeccomp({ network: false, arch })).toContain(arch);
    }
    expect(seccompProgram({ network: false })).toEqual(
      ['x64', 'arm64'].includes(process.arch) ? expect.any(Buffer) : undefined,
    );
  });
});

describe.each(eachCase)('the program ($arch, network $network)', ({ arch, network }) => {
  it('is one the kernel accepts, short enough that no jump can overflow its 8-bit field', () => {
    const built = program(arch, network);
    expect(problems(built)).toEqual([]);
    const insns = decode(built);
    // Below 256 instructions every forward offset fits in jt/jf, whatever the layout.
    expect(insns.length).toBeLessThan(256);
    expect(insns.length).toBeGreaterThan(SECCOMP_REFUSED[arch].length);
    insns.forEach((insn, pc) => {
      if (insn.code === 0x06) return;
      expect(pc + 1 + insn.jt).toBeLessThan(insns.length);
      expect(pc + 1 + insn.jf).toBeLessThan(insns.length);
    });
  });

  it('checks the architecture first: another ABI is refused whatever the number', () => {
    const built = program(arch, network);
    const others = [
      0x40000003 /* i386 */,
      0x40000028 /* arm */,
      AUDIT_ARCH[arch === 'x64' ? 'arm64' : 'x64'],
    ];
    for (const other of others) {
      for (const nr of [0, 1, 59, 63, 221, SYSCALL_NUMBERS[arch].keyctl!]) {
        expect(verdict(run(built, { nr, arch: other }))).toBe(REFUSED);
      }
    }
  });

  it('refuses numbers it does not know with ENOSYS, as an older kernel would', () => {
    const built = program(arch, network);
    for (const nr of [SECCOMP_LAST_KNOWN_SYSCALL + 1, 468, 999, 0x3fffffff]) {
      expect(verdict(run(built, { nr, arch: AUDIT_ARCH[arch] }))).toBe(NOSYS);
    }
    expect(
      verdict(run(built, { nr: SECCOMP_LAST_KNOWN_SYSCALL - 1, arch: AUDIT_ARCH[arch] })),
    ).toBe(ALLOW);
  });

  it('refuses every syscall of the refused list, whatever the arguments', () => {
    for (const name of SECCOMP_REFUSED[arch]) {
      const expected = name === 'openat2' || name === 'clone3' ? NOSYS : REFUSED;
      expect(ask(arch, network, name), name).toBe(expected);
      expect(ask(arch, network, name, [1n, 2n, 3n, 0xffffffffn, -1n, 0n]), name).toBe(expected);
    }
    for (const name of ['keyctl', 'add_key', 'request_key', 'ptrace', 'mount', 'umount2', 'bpf']) {
      expect(SECCOMP_REFUSED[arch]).toContain(name);
    }
    for (const name of ['perf_event_open', 'userfaultfd', 'io_uring_setup', 'io_uring_enter']) {
      expect(SECCOMP_REFUSED[arch]).toContain(name);
    }
    for (const name of ['fsopen', 'move_mount', 'open_tree', 'mount_setattr', 'pivot_root']) {
      expect(SECCOMP_REFUSED[arch]).toContain(name);
    }
  });

  it('lets everyday syscalls through', () => {
    for (const name of Object.keys(EVERYDAY[arch])) {
      expect(ask(arch, network, name, [0n, 0n, 0n]), name).toBe(ALLOW);
    }
    expect(ask(arch, network, 'openat', [-100, 0, 0o2000000 /* O_CLOEXEC */, 0])).toBe(ALLOW);
    expect(
      ask(arch, network, 'openat', [-100, 0, 0o1101 /* O_CREAT|O_TRUNC|O_WRONLY */, 0o666]),
    ).toBe(ALLOW);
    expect(ask(arch, network, 'socket', [2, 1, 0])).toBe(ALLOW);
    expect(ask(arch, network, 'socket', [10, 0x80802, 0])).toBe(ALLOW);
    expect(ask(arch, network, 'socketpair', [1, 1, 0])).toBe(ALLOW);
    expect(ask(arch, network, 'clone', [17 /* SIGCHLD */])).toBe(ALLOW);
    // pthread_create's flags after clone3's ENOSYS: VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|…
    expect(ask(arch, network, 'clone', [0x3d0f00])).toBe(ALLOW);
    expect(ask(arch, network, 'fchmodat', [-100, 0, 0o755])).toBe(ALLOW);
    expect(ask(arch, network, 'fchmod', [3, 0o1777 /* sticky is fine */])).toBe(ALLOW);
    expect(ask(arch, network, 'ioctl', [0, 0x5401 /* TCGETS */, 0])).toBe(ALLOW);
    expect(ask(arch, network, 'ioctl', [0, 0x5413 /* TIOCGWINSZ */, 0])).toBe(ALLOW);
    expect(ask(arch, network, 'mkdirat', [-100, 0, 0o755])).toBe(ALLOW);
    expect(ask(arch, network, 'personality', [0xffffffff])).toBe(ALLOW);
    expect(ask(arch, network, 'personality', [0])).toBe(ALLOW);
    if (arch === 'x64') {
      expect(ask(arch, network, 'chmod', [0, 0o755])).toBe(ALLOW);
      expect(ask(arch, network, 'open', [0, 0o101, 0o644])).toBe(ALLOW);
    }
  });

  it('refuses set-user-ID and set-group-ID modes, and only those', () => {
    const modeCalls: [string, number][] = [
      ['fchmod', 1],
      ['fchmodat', 2],
      ['fchmodat2', 2],
      ['mkdirat', 2],
      ['mknodat', 2],
      ...(arch === 'x64'
        ? ([
            ['chmod', 1],
            ['mkdir', 1],
            ['mknod', 1],
            ['creat', 1],
          ] as [string, number][])
        : []),
    ];
    for (const [name, index] of modeCalls) {
      const withMode = (mode: bigint) =>
        Array.from({ length: 4 }, (_, i) => (i === index ? mode : 0n));
      for (const mode of [0o4755n, 0o2755n, 0o6755n, 0o4000n, 0o102000n /* S_IFREG|S_ISGID */]) {
        expect(ask(arch, network, name, withMode(mode)), `${name} ${mode.toString(8)}`).toBe(
          REFUSED,
        );
      }
      for (const mode of [0o755n, 0o644n, 0o1777n, 0o100644n, 0x1_0000_0000n | 0o755n]) {
        expect(ask(arch, network, name, withMode(mode)), `${name} ${mode.toString(8)}`).toBe(ALLOW);
      }
      // The high half of the register is not the mode: junk there changes nothing.
      expect(ask(arch, network, name, withMode(0xffff_0000_0000_0000n | 0o4755n)), name).toBe(
        REFUSED,
      );
    }
    const opens: [string, number, number][] = [
      ['openat', 2, 3],
      ...(arch === 'x64' ? ([['open', 1, 2]] as [string, number, number][]) : []),
    ];
    for (const [name, flagsAt, modeAt] of opens) {
      const call = (flags: number, mode: number) => {
        const args = [0n, 0n, 0n, 0n];
        args[flagsAt] = BigInt(flags);
        args[modeAt] = BigInt(mode);
        return ask(arch, network, name, args);
      };
      expect(call(0o101 /* O_CREAT|O_WRONLY */, 0o4755), name).toBe(REFUSED);
      expect(call(0o301 /* O_CREAT|O_EXCL|O_WRONLY */, 0o2755), name).toBe(REFUSED);
      expect(call(0o20200002 /* O_TMPFILE|O_RDWR */, 0o6700), name).toBe(REFUSED);
      expect(call(0o101, 0o755), name).toBe(ALLOW);
      // Without O_CREAT or O_TMPFILE the kernel ignores the mode: a stale register is harmless.
      expect(call(0, 0o4755), name).toBe(ALLOW);
      expect(call(0o2, 0o6777), name).toBe(ALLOW);
    }
    expect(ask(arch, network, 'openat2', [-100, 0, 0, 24])).toBe(NOSYS);
  });

  it('refuses TIOCSTI and TIOCLINUX, whatever the high half of the request register', () => {
    for (const request of [0x5412n, 0x541cn, 0xdead_beef_0000_5412n, 0x1_0000_541cn]) {
      expect(ask(arch, network, 'ioctl', [0n, request, 0n]), request.toString(16)).toBe(REFUSED);
    }
    for (const request of [0x5411n, 0x5413n, 0x541bn, 0x541dn, 0x5412_0000n]) {
      expect(ask(arch, network, 'ioctl', [0n, request, 0n]), request.toString(16)).toBe(ALLOW);
    }
  });

  it('refuses a persona other than the default and the query', () => {
    for (const persona of [0x0040000 /* ADDR_NO_RANDOMIZE */, 8 /* PER_LINUX32 */, 1, 0xfffffffe]) {
      expect(ask(arch, network, 'personality', [persona]), persona.toString(16)).toBe(REFUSED);
    }
  });

  it('refuses clone with namespace flags; clone3, whose flags it cannot read, gets ENOSYS', () => {
    const flags = [0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000];
    for (const flag of flags) {
      expect(ask(arch, network, 'clone', [flag | 17]), flag.toString(16)).toBe(REFUSED);
    }
    expect(ask(arch, network, 'clone3', [0n, 88n])).toBe(NOSYS);
    expect(ask(arch, network, 'unshare', [0])).toBe(REFUSED);
    expect(ask(arch, network, 'setns', [3, 0])).toBe(REFUSED);
  });

  it('allows the socket families of the network setting and refuses the others', () => {
    const allowed = (domain: number, protocol = 0) =>
      ask(arch, network, 'socket', [domain, 1, protocol]);
    expect(allowed(2)).toBe(ALLOW);
    expect(allowed(10)).toBe(ALLOW);
    // AF_UNIX, AF_PACKET, AF_ALG, AF_VSOCK, AF_BLUETOOTH, AF_KEY, AF_XDP, 0 and out of range.
    for (const domain of [1, 17, 38, 40, 31, 15, 44, 0, 46, 0x7fffffff]) {
      expect(allowed(domain), `family ${domain}`).toBe(REFUSED);
    }
    // NETLINK_ROUTE only with the network on; audit, uevent, sock_diag, generic never.
    expect(allowed(16, 0)).toBe(network ? ALLOW : REFUSED);
    for (const protocol of [4, 9, 15, 16]) expect(allowed(16, protocol)).toBe(REFUSED);
    // socketpair(AF_UNIX) reaches nobody: libuv's stdio pipes for child processes need it.
    expect(ask(arch, network, 'socketpair', [1, 1, 0])).toBe(ALLOW);
  });

  if (arch === 'x64') {
    it('refuses the x32 ABI, which shares the x86-64 audit arch', () => {
      const built = program(arch, network);
      // x32's read, write, execve, keyctl and the x32-only numbers from 512.
      for (const x32 of [0, 1, 59, 250, 520, 547, 0x3fffffff]) {
        const nr = 0x40000000 + x32;
        expect(verdict(run(built, { nr, arch: AUDIT_ARCH.x64 })), nr.toString(16)).toBe(REFUSED);
      }
      // A negative number (-1, as a tracer sets to skip a call) is above the bit as well.
      expect(verdict(run(built, { nr: -1, arch: AUDIT_ARCH.x64 }))).toBe(REFUSED);
    });
  }
});

describe('random syscalls', () => {
  // A fixed seed so a run is repeatable; FC_SEED=<n> explores others.
  const seed = Number(process.env.FC_SEED ?? 21);
  console.info(`seccomp property tests: fast-check seed ${seed}`);
  const arg = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

  it.each(eachCase)(
    'allows every syscall it does not name, whatever the arguments ($arch, network $network)',
    ({ arch, network }) => {
      const named = new Set(
        [...SECCOMP_REFUSED[arch], ...SECCOMP_RESTRICTED[arch].map((r) => r.name)].map(
          (name) => SYSCALL_NUMBERS[arch][name],
        ),
      );
      const built = program(arch, network);
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: SECCOMP_LAST_KNOWN_SYSCALL }).filter((nr) => !named.has(nr)),
          fc.array(arg, { minLength: 6, maxLength: 6 }),
          (nr, args) => {
            expect(verdict(run(built, { nr, arch: AUDIT_ARCH[arch], args }))).toBe(ALLOW);
          },
        ),
        { seed, numRuns: 2_000 },
      );
    },
  );

  it.each(eachCase)(
    'refuses a mode exactly when it has S_ISUID or S_ISGID ($arch, network $network)',
    ({ arch, network }) => {
      const built = program(arch, network);
      fc.assert(
        fc.property(
          fc.constantFrom('fchmod', 'fchmodat', 'mkdirat', 'mknodat', 'openat'),
          arg,
          arg,
          (name, mode, flags) => {
            const at = name === 'fchmod' ? 1 : name === 'openat' ? 3 : 2;
            const args = [0n, 0n, flags, 0n, 0n, 0n];
            args[at] = mode;
            const creating = name !== 'openat' || (flags & 0o20000100n) !== 0n;
            const expected = creating && (mode & 0o6000n) !== 0n ? REFUSED : ALLOW;
            const nr = SYSCALL_NUMBERS[arch][name]!;
            expect(verdict(run(built, { nr, arch: AUDIT_ARCH[arch], args }))).toBe(expected);
          },
        ),
        { seed, numRuns: 2_000 },
      );
    },
  );
});

describe('the exports', () => {
  it('lists the refused and the argument-restricted syscalls of each architecture', () => {
    expect(SECCOMP_REFUSED.arm64).not.toContain('open');
    expect(SECCOMP_RESTRICTED.x64.map((r) => r.name)).toEqual(
      expect.arrayContaining(['chmod', 'open', 'creat', 'ioctl', 'socket', 'personality', 'clone']),
    );
    for (const name of ['chmod', 'open', 'creat', 'mkdir', 'mknod']) {
      expect(SECCOMP_RESTRICTED.arm64.map((r) => r.name)).not.toContain(name);
    }
    for (const r of SECCOMP_RESTRICTED.x64) expect(r.refusedWhen.length).toBeGreaterThan(10);
    expect(SECCOMP_RET_ALLOW).toBe(0x7fff0000);
    expect(SECCOMP_RET_ERRNO).toBe(0x50000);
  });

  it('describes itself in one line', () => {
    const line = describeSeccomp({ network: false, arch: 'x64' });
    expect(line).toContain(`${SECCOMP_REFUSED.x64.length} syscalls refused`);
    expect(line).not.toContain('\n');
    expect(describeSeccomp({ network: true, arch: 'arm64' })).toContain('NETLINK_ROUTE');
  });
});
