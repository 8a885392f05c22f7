/**
 * A classic BPF interpreter for the subset a seccomp filter uses (the kernel's own checker accepts
 * more; the filter here needs no more): 32-bit loads from `seccomp_data`, forward jumps on
 * constants, and constant returns. Anything else is an error, so a program that the kernel would
 * run differently cannot pass the unit tests by accident.
 */

/** What the kernel hands a seccomp filter for one syscall. */
export interface SeccompData {
  readonly nr: number;
  readonly arch: number;
  readonly instructionPointer?: bigint;
  /** Up to six arguments, as the 64-bit registers hold them. */
  readonly args?: readonly bigint[];
}

/** One decoded `struct sock_filter`. */
export interface Instruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

const LD_W_ABS = 0x20;
const JMP_JA = 0x05;
const JMP_JEQ_K = 0x15;
const JMP_JGT_K = 0x25;
const JMP_JGE_K = 0x35;
const JMP_JSET_K = 0x45;
const RET_K = 0x06;
/** The kernel's limit on a filter's length (BPF_MAXINSNS). */
export const BPF_MAXINSNS = 4096;

/** Splits a program into instructions; throws unless it is whole records. */
export function decode(program: Buffer): Instruction[] {
  if (program.length === 0 || program.length % 8 !== 0) {
    throw new Error(`program of ${program.length} bytes is not a whole number of 8-byte records`);
  }
  const out: Instruction[] = [];
  for (let at = 0; at < program.length; at += 8) {
    out.push({
      code: program.readUInt16LE(at),
      jt: program.readUInt8(at + 2),
      jf: program.readUInt8(at + 3),
      k: program.readUInt32LE(at + 4),
    });
  }
  return out;
}

/**
 * What the kernel's checker (seccomp_check_filter, bpf_check_classic) would refuse, as a list of
 * problems: unknown codes, loads outside `seccomp_data` or unaligned, jumps that leave the
 * program, a last instruction that is not a return.
 */
export function problems(program: Buffer): string[] {
  const insns = decode(program);
  const found: string[] = [];
  if (insns.length > BPF_MAXINSNS) found.push(`${insns.length} instructions > ${BPF_MAXINSNS}`);
  insns.forEach((insn, pc) => {
    const lands = (to: number) => {
      if (to >= insns.length) found.push(`${pc}: jumps to ${to}, past the end (${insns.length})`);
    };
    switch (insn.code) {
      case LD_W_ABS:
        if (insn.k % 4 !== 0 || insn.k + 4 > 64) found.push(`${pc}: load at ${insn.k}`);
        break;
      case JMP_JA:
        lands(pc + 1 + insn.k);
        break;
      case JMP_JEQ_K:
      case JMP_JGT_K:
      case JMP_JGE_K:
      case JMP_JSET_K:
        lands(pc + 1 + insn.jt);
        lands(pc + 1 + insn.jf);
        break;
      case RET_K:
        break;
      default:
        found.push(`${pc}: code 0x${insn.code.toString(16)} is not in the subset`);
    }
  });
  if (insns.at(-1)?.code !== RET_K) found.push('the last instruction is not a return');
  return found;
}

/** The 64 bytes of `struct seccomp_data`, little-endian. */
export function encodeData(data: SeccompData): Buffer {
  const buf = Buffer.alloc(64);
  buf.writeInt32LE(data.nr | 0, 0);
  buf.writeUInt32LE(data.arch >>> 0, 4);
  buf.writeBigUInt64LE(BigInt.asUintN(64, data.instructionPointer ?? 0n), 8);
  (data.args ?? []).slice(0, 6).forEach((arg, i) => {
    buf.writeBigUInt64LE(BigInt.asUintN(64, arg), 16 + 8 * i);
  });
  return buf;
}

/** Runs the filter on one syscall and returns its 32-bit verdict (`SECCOMP_RET_*`). */
export function run(program: Buffer, data: SeccompData): number {
  const insns = decode(program);
  const bytes = encodeData(data);
  let acc = 0;
  let pc = 0;
  for (let steps = 0; steps <= insns.length; steps++) {
    const insn = insns[pc];
    if (insn === undefined) throw new Error(`ran off the end at ${pc}`);
    const jump = (taken: boolean) => {
      pc += 1 + (taken ? insn.jt : insn.jf);
    };
    switch (insn.code) {
      case LD_W_ABS:
        if (insn.k % 4 !== 0 || insn.k + 4 > 64) throw new Error(`${pc}: load at ${insn.k}`);
        acc = bytes.readUInt32LE(insn.k);
        pc++;
        break;
      case JMP_JA:
        pc += 1 + insn.k;
        break;
      case JMP_JEQ_K:
        jump(acc === insn.k);
        break;
      case JMP_JGT_K:
        jump(acc > insn.k);
        break;
      case JMP_JGE_K:
        jump(acc >= insn.k);
        break;
      case JMP_JSET_K:
        jump((acc & insn.k) !== 0);
        break;
      case RET_K:
        return insn.k;
      default:
        throw new Error(`${pc}: code 0x${insn.code.toString(16)} is not in the subset`);
    }
  }
  throw new Error('no return within the program length (a backward jump?)');
}

export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** A verdict in words, so that a failing assertion reads `errno 1` rather than 327681. */
export function verdict(ret: number): string {
  if (ret === SECCOMP_RET_ALLOW) return 'allow';
  if ((ret & 0xffff0000) >>> 0 === SECCOMP_RET_ERRNO) return `errno ${ret & 0xffff}`;
  return `0x${(ret >>> 0).toString(16)}`;
}
