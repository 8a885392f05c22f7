/**
 * The syscall numbers the sandbox's filter names, per architecture (`seccomp.ts` builds the filter
 * from them).
 */

/** The architectures with a syscall table here (`process.arch` names). */
export type SeccompArch = 'x64' | 'arm64';

/**
 * Syscall numbers, written by hand from the kernel's tables: x64 from
 * `arch/x86/entry/syscalls/syscall_64.tbl` (as in `asm/unistd_64.h`), arm64 from the generic table
 * `include/uapi/asm-generic/unistd.h` (`scripts/syscall.tbl` since Linux 6.11). arm64 has no
 * `open`, `creat`, `chmod`, `mkdir` or `mknod`: only their `*at` forms. `fchmodat2` (452) came in
 * Linux 6.6, `open_tree_attr` (467) in 6.15; both are numbered alike on the two architectures.
 * A test compares these with the installed kernel headers. Rows: name, x86-64, arm64 (`null`:
 * that architecture has no such syscall).
 */
const TABLE: readonly (readonly [name: string, x64: number, arm64: number | null])[] = [
  ['open', 2, null],
  ['ioctl', 16, 29],
  ['socket', 41, 198],
  ['clone', 56, 220],
  ['mkdir', 83, null],
  ['creat', 85, null],
  ['chmod', 90, null],
  ['fchmod', 91, 52],
  ['ptrace', 101, 117],
  ['syslog', 103, 116],
  ['mknod', 133, null],
  ['personality', 135, 92],
  ['pivot_root', 155, 41],
  ['adjtimex', 159, 171],
  ['acct', 163, 89],
  ['settimeofday', 164, 170],
  ['mount', 165, 40],
  ['umount2', 166, 39],
  ['swapon', 167, 224],
  ['swapoff', 168, 225],
  ['reboot', 169, 142],
  ['init_module', 175, 105],
  ['delete_module', 176, 106],
  ['quotactl', 179, 60],
  ['clock_settime', 227, 112],
  ['kexec_load', 246, 104],
  ['add_key', 248, 217],
  ['request_key', 249, 218],
  ['keyctl', 250, 219],
  ['openat', 257, 56],
  ['mkdirat', 258, 34],
  ['mknodat', 259, 33],
  ['fchmodat', 268, 53],
  ['unshare', 272, 97],
  ['perf_event_open', 298, 241],
  ['open_by_handle_at', 304, 265],
  ['clock_adjtime', 305, 266],
  ['setns', 308, 268],
  ['process_vm_readv', 310, 270],
  ['process_vm_writev', 311, 271],
  ['finit_module', 313, 273],
  ['kexec_file_load', 320, 294],
  ['bpf', 321, 280],
  ['userfaultfd', 323, 282],
  ['io_uring_setup', 425, 425],
  ['io_uring_enter', 426, 426],
  ['io_uring_register', 427, 427],
  ['open_tree', 428, 428],
  ['move_mount', 429, 429],
  ['fsopen', 430, 430],
  ['fsconfig', 431, 431],
  ['fsmount', 432, 432],
  ['fspick', 433, 433],
  ['clone3', 435, 435],
  ['openat2', 437, 437],
  ['pidfd_getfd', 438, 438],
  ['process_madvise', 440, 440],
  ['mount_setattr', 442, 442],
  ['quotactl_fd', 443, 443],
  ['fchmodat2', 452, 452],
  ['open_tree_attr', 467, 467],
];

const column = (pick: (row: (typeof TABLE)[number]) => number | null): Record<string, number> =>
  Object.fromEntries(
    TABLE.flatMap((row) => {
      const nr = pick(row);
      return nr === null ? [] : [[row[0], nr]];
    }),
  );

/** Syscall numbers by name, per architecture: only the syscalls the filter names. */
export const SYSCALL_NUMBERS: Readonly<Record<SeccompArch, Readonly<Record<string, number>>>> = {
  x64: column((row) => row[1]),
  arm64: column((row) => row[2]),
};

/**
 * The last syscall number the tables above account for (open_tree_attr, Linux 6.15); the filter
 * answers `ENOSYS` above it, which callers of a newer syscall already handle for older kernels.
 */
export const SECCOMP_LAST_KNOWN_SYSCALL = 467;

/** `seccomp_data.arch` of each table (`AUDIT_ARCH_X86_64`, `AUDIT_ARCH_AARCH64`). */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = {
  x64: 0xc000003e,
  arm64: 0xc00000b7,
};
