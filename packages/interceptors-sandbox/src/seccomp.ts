/**
 * The sandbox's syscall filter: a classic BPF program for bubblewrap's `--seccomp FD` (bubblewrap
 * reads the raw `struct sock_filter` array from the descriptor until end of file and installs it
 * with `PR_SET_NO_NEW_PRIVS` right before it runs the command, so it binds the command and every
 * process it starts).
 *
 * The filter allows by default and refuses what a tool command never needs and a process could
 * use against the host: the keyring, other processes' memory, mounts, kernel programs and modules,
 * the clocks, new namespaces, terminal input injection, set-user-ID files, and sockets that reach
 * past the sandbox. Numbers above the last syscall these tables know get `ENOSYS`, as on an older
 * kernel, so that a syscall added later (another mount call, say) is refused until reviewed.
 */

import {
  AUDIT_ARCH,
  SECCOMP_LAST_KNOWN_SYSCALL,
  type SeccompArch,
  SYSCALL_NUMBERS,
} from './syscall-table';

export { AUDIT_ARCH, SECCOMP_LAST_KNOWN_SYSCALL, type SeccompArch, SYSCALL_NUMBERS };

/** What the filter depends on. */
export interface SeccompOptions {
  /** Whether the sandbox shares the host's network (`--share-net`); decides the socket families. */
  readonly network: boolean;
  /** The architecture the command runs on; `process.arch` when left out. */
  readonly arch?: NodeJS.Architecture;
  /**
   * Whether AF_UNIX sockets may be created (default `false`). The sandbox's `exposeRun` turns it
   * on: a host that shows its daemons' sockets to the sandbox means them to be used.
   */
  readonly unixSockets?: boolean;
}

/** x32 syscalls arrive with the x86-64 audit arch and this bit set in the number. */
const X32_SYSCALL_BIT = 0x40000000;

const EPERM = 1;
const ENOSYS = 38;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_EPERM = RET_ERRNO | EPERM;
const RET_ENOSYS = RET_ERRNO | ENOSYS;

/**
 * Refused whatever the arguments. `EPERM` says "refused" to the program; `ENOSYS` is used only
 * where callers probe a newer syscall and fall back on exactly that errno: glibc (2.34+) tries
 * `clone3` for threads and `posix_spawn` and uses `clone` only after `ENOSYS`; `openat2` users
 * (Go's os.Root, systemd) fall back to `openat` the same way. Both carry what the filter must see
 * inside a struct it cannot read (clone3's namespace flags, openat2's mode), so they cannot be
 * filtered by argument and must go; their fallbacks are.
 */
const ALWAYS: Readonly<Record<string, number>> = {
  // The keyring is the host's: a key added or read here is the host user's.
  add_key: EPERM,
  request_key: EPERM,
  keyctl: EPERM,
  // Another process's memory and descriptors.
  ptrace: EPERM,
  process_vm_readv: EPERM,
  process_vm_writev: EPERM,
  pidfd_getfd: EPERM,
  process_madvise: EPERM,
  // Mounts could uncover what the sandbox hides or make a read-only bind writable.
  mount: EPERM,
  umount2: EPERM,
  pivot_root: EPERM,
  move_mount: EPERM,
  open_tree: EPERM,
  open_tree_attr: EPERM,
  fsopen: EPERM,
  fsconfig: EPERM,
  fsmount: EPERM,
  fspick: EPERM,
  mount_setattr: EPERM,
  // A file handle opens by inode past every mount and mask ("shocker").
  open_by_handle_at: EPERM,
  // Kernel attack surface no tool needs; io_uring's operations do not pass through seccomp at all.
  bpf: EPERM,
  perf_event_open: EPERM,
  userfaultfd: EPERM,
  io_uring_setup: EPERM,
  io_uring_enter: EPERM,
  io_uring_register: EPERM,
  // The machine's own state.
  kexec_load: EPERM,
  kexec_file_load: EPERM,
  init_module: EPERM,
  finit_module: EPERM,
  delete_module: EPERM,
  swapon: EPERM,
  swapoff: EPERM,
  reboot: EPERM,
  acct: EPERM,
  quotactl: EPERM,
  quotactl_fd: EPERM,
  syslog: EPERM,
  settimeofday: EPERM,
  clock_settime: EPERM,
  clock_adjtime: EPERM,
  adjtimex: EPERM,
  // New namespaces: bubblewrap's --disable-userns and the dropped capabilities already stop
  // them; refusing here as well keeps one mistake in the arguments from reopening that door.
  unshare: EPERM,
  setns: EPERM,
  clone3: ENOSYS,
  openat2: ENOSYS,
};

const S_ISUID_ISGID = 0o6000;
/** O_CREAT and __O_TMPFILE (alike on x86-64 and arm64): the flags with which open uses a mode. */
const O_CREAT_OR_TMPFILE = 0o100 | 0o20000000;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET. */
const CLONE_NEW_NAMESPACES = 0x7e020000;
const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;

/** Refused when a mode argument carries S_ISUID or S_ISGID: the argument index holding the mode. */
const MODE_ARG: Readonly<Record<string, number>> = {
  chmod: 1,
  fchmod: 1,
  fchmodat: 2,
  fchmodat2: 2,
  mkdir: 1,
  mkdirat: 2,
  mknod: 1,
  mknodat: 2,
  creat: 1,
};

/** Refused when creating (O_CREAT or O_TMPFILE) with S_ISUID or S_ISGID: [flags, mode] indexes. */
const CREATE_ARGS: Readonly<Record<string, readonly [number, number]>> = {
  open: [1, 2],
  openat: [2, 3],
};

/** One line per syscall the filter refuses only for some arguments, for documentation. */
const CONDITIONS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.keys(MODE_ARG).map((n) => [n, 'mode has S_ISUID or S_ISGID'])),
  open: 'O_CREAT or O_TMPFILE with a mode that has S_ISUID or S_ISGID',
  openat: 'O_CREAT or O_TMPFILE with a mode that has S_ISUID or S_ISGID',
  ioctl: 'request TIOCSTI or TIOCLINUX',
  personality: 'any persona but 0 (PER_LINUX) or 0xffffffff (query)',
  clone: 'flags that create a namespace (CLONE_NEW*)',
  socket:
    'a family other than AF_INET, AF_INET6 (network off); other than AF_INET, AF_INET6 or ' +
    'AF_NETLINK with NETLINK_ROUTE (network on): AF_UNIX is refused in both',
};

const tableFor = (arch: NodeJS.Architecture): SeccompArch | undefined =>
  arch === 'x64' || arch === 'arm64' ? arch : undefined;

const present = (arch: SeccompArch, names: readonly string[]) =>
  names.filter((name) => SYSCALL_NUMBERS[arch][name] !== undefined);

/** The syscalls refused whatever their arguments, by name, per architecture. */
export const SECCOMP_REFUSED: Readonly<Record<SeccompArch, readonly string[]>> = {
  x64: present('x64', Object.keys(ALWAYS)),
  arm64: present('arm64', Object.keys(ALWAYS)),
};

/** The syscalls refused for some arguments only, with the condition, per architecture. */
export const SECCOMP_RESTRICTED: Readonly<
  Record<SeccompArch, readonly { readonly name: string; readonly refusedWhen: string }[]>
> = {
  x64: present('x64', Object.keys(CONDITIONS)).map((name) => ({
    name,
    refusedWhen: CONDITIONS[name]!,
  })),
  arm64: present('arm64', Object.keys(CONDITIONS)).map((name) => ({
    name,
    refusedWhen: CONDITIONS[name]!,
  })),
};

// --- a tiny assembler: jumps name labels, resolved and bounds-checked once at the end ---

const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGT_K = 0x25;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;

/** A jump target: a label, or `undefined` for the next instruction. */
type Target = string | undefined;
type Line =
  | { readonly label: string }
  | { readonly code: number; readonly k: number; readonly jt?: Target; readonly jf?: Target };

/** seccomp_data: nr at 0, arch at 4, instruction_pointer at 8, args[i] at 16 + 8i (u64, LE). */
const loadNr: Line = { code: LD_W_ABS, k: 0 };
const loadArch: Line = { code: LD_W_ABS, k: 4 };
/** The low 32 bits of an argument: every value checked here is an int, unsigned int or mode_t. */
const loadArgLow = (index: number): Line => ({ code: LD_W_ABS, k: 16 + 8 * index });
const ret = (k: number): Line => ({ code: RET_K, k });
const jeq = (k: number, jt: Target, jf?: Target): Line => ({ code: JMP_JEQ_K, k, jt, jf });
const jset = (k: number, jt: Target, jf?: Target): Line => ({ code: JMP_JSET_K, k, jt, jf });
const label = (name: string): Line => ({ label: name });

/** Resolves labels into jt/jf/k offsets; throws if a jump would not fit its field. */
function assemble(lines: readonly Line[]): Buffer {
  const at = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if ('label' in line) at.set(line.label, count);
    else count++;
  }
  const out = Buffer.alloc(count * 8);
  let pc = 0;
  const offset = (target: Target): number => {
    if (target === undefined) return 0;
    const to = at.get(target);
    const delta = to === undefined ? -1 : to - (pc + 1);
    if (delta < 0 || delta > 255 || to! >= count) {
      throw new Error(`seccomp: the jump from ${pc} to "${target}" does not fit (${delta})`);
    }
    return delta;
  };
  for (const line of lines) {
    if ('label' in line) continue;
    out.writeUInt16LE(line.code, pc * 8);
    out.writeUInt8(offset(line.jt), pc * 8 + 2);
    out.writeUInt8(offset(line.jf), pc * 8 + 3);
    out.writeUInt32LE(line.k >>> 0, pc * 8 + 4);
    pc++;
  }
  return out;
}

/**
 * A block that runs `body` when the syscall number is `nr`: the body jumps to `allow` or `deny`,
 * or falls through, which denies.
 */
function guarded(nr: number, name: string, body: (allow: string, deny: string) => Line[]): Line[] {
  const end = `${name}:end`;
  const allow = `${name}:allow`;
  const deny = `${name}:deny`;
  return [
    jeq(nr, undefined, end),
    ...body(allow, deny),
    label(deny),
    ret(RET_EPERM),
    label(allow),
    ret(RET_ALLOW),
    label(end),
  ];
}

function socketRule(network: boolean, unix: boolean) {
  return (allow: string, deny: string): Line[] => [
    loadArgLow(0),
    jeq(AF_INET, allow),
    jeq(AF_INET6, allow),
    ...(unix ? [jeq(AF_UNIX, allow)] : []),
    ...(network
      ? // With the host's network shared, AF_UNIX would reach host daemons (their socket files
        // and every abstract socket of the host's network namespace), AF_VSOCK the hypervisor,
        // and the other families are kernel surface no tool needs. NETLINK_ROUTE stays: getifaddrs
        // (os.networkInterfaces, dev servers listing their addresses) needs it, and without
        // CAP_NET_ADMIN it only reads what /proc/net shows anyway.
        [jeq(AF_NETLINK, undefined, deny), loadArgLow(2), jeq(NETLINK_ROUTE, allow)]
      : // The network off, the sandbox's own empty network namespace is all AF_INET/AF_INET6
        // reach; AF_UNIX would reach host daemons' sockets through the read-only root, and the
        // other families are kernel surface (AF_NETLINK included) no tool needs.
        []),
  ];
}

/** The instructions for one architecture. */
function rules(arch: SeccompArch, network: boolean, unix = false): Line[] {
  const nr = SYSCALL_NUMBERS[arch];
  const lines: Line[] = [
    // Another ABI (i386 through int 0x80 on x86-64, AArch32 on arm64) numbers syscalls otherwise.
    loadArch,
    jeq(AUDIT_ARCH[arch], undefined, 'eperm'),
    loadNr,
    // On x86-64 the x32 ABI shares the audit arch; its numbers would miss every check below.
    ...(arch === 'x64' ? [{ code: JMP_JGE_K, k: X32_SYSCALL_BIT, jt: 'eperm' }] : []),
    { code: JMP_JGT_K, k: SECCOMP_LAST_KNOWN_SYSCALL, jt: 'enosys' },
  ];
  for (const [name, index] of Object.entries(MODE_ARG)) {
    const n = nr[name];
    if (n === undefined) continue;
    lines.push(
      ...guarded(n, name, (allow) => [loadArgLow(index), jset(S_ISUID_ISGID, undefined, allow)]),
    );
  }
  for (const [name, [flags, mode]] of Object.entries(CREATE_ARGS)) {
    const n = nr[name];
    if (n === undefined) continue;
    lines.push(
      ...guarded(n, name, (allow) => [
        loadArgLow(flags),
        jset(O_CREAT_OR_TMPFILE, undefined, allow),
        loadArgLow(mode),
        jset(S_ISUID_ISGID, undefined, allow),
      ]),
    );
  }
  lines.push(
    ...guarded(nr.ioctl!, 'ioctl', (allow, deny) => [
      // The kernel takes the request as an unsigned int: the high half must not hide it.
      loadArgLow(1),
      jeq(TIOCSTI, deny),
      jeq(TIOCLINUX, deny, allow),
    ]),
    ...guarded(nr.personality!, 'personality', (allow) => [
      // Setting a persona can turn off address-space randomization for what runs next.
      loadArgLow(0),
      jeq(0, allow),
      jeq(0xffffffff, allow),
    ]),
    ...guarded(nr.clone!, 'clone', (allow) => [
      loadArgLow(0),
      jset(CLONE_NEW_NAMESPACES, undefined, allow),
    ]),
    ...guarded(nr.socket!, 'socket', socketRule(network, unix)),
  );
  for (const [name, errno] of Object.entries(ALWAYS)) {
    const n = nr[name];
    if (n !== undefined) lines.push(jeq(n, errno === ENOSYS ? 'enosys' : 'eperm'));
  }
  lines.push(ret(RET_ALLOW), label('eperm'), ret(RET_EPERM), label('enosys'), ret(RET_ENOSYS));
  return lines;
}

/**
 * The filter as bubblewrap's `--seccomp FD` reads it: `struct sock_filter` records (u16 code,
 * u8 jt, u8 jf, u32 k; 8 bytes each, little-endian like both supported architectures).
 *
 * Returns `undefined` for an architecture without a table here: the caller must then refuse to
 * run (fail closed) rather than run unfiltered.
 */
export function seccompProgram(options: SeccompOptions): Buffer | undefined {
  const arch = tableFor(options.arch ?? process.arch);
  if (arch === undefined) return undefined;
  const unix = options.unixSockets === true;
  const key = `${arch}/${options.network}/${unix}`;
  let program = programs.get(key);
  if (program === undefined) {
    program = assemble(rules(arch, options.network, unix));
    programs.set(key, program);
  }
  // A copy: the caller writes it to a pipe and may not change the one kept here.
  return Buffer.from(program);
}

/** Programs assembled so far: at most eight (two architectures, two settings each of two). */
const programs = new Map<string, Buffer>();

/** One line for messages and logs: what the filter refuses on this architecture. */
export function describeSeccomp(options: SeccompOptions): string {
  const requested = options.arch ?? process.arch;
  const arch = tableFor(requested);
  if (arch === undefined) return `no syscall filter for the ${requested} architecture`;
  const sockets = options.network
    ? 'sockets but AF_INET, AF_INET6 and NETLINK_ROUTE'
    : 'sockets but AF_INET and AF_INET6';
  return (
    `syscall filter (${arch}): ${SECCOMP_REFUSED[arch].length} syscalls refused (keyring, ptrace, ` +
    'mounts, bpf, perf, userfaultfd, io_uring, modules, clocks, namespaces), set-user/group-ID ' +
    `modes, TIOCSTI/TIOCLINUX, ${sockets}`
  );
}
