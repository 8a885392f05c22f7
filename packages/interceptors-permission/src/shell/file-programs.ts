/** How a program's words name the files it reads and writes. */
export interface OperandSpec {
  /** The first operand is a script or pattern, not a file (unless one of `scriptOpts` is given). */
  readonly script?: boolean;
  readonly scriptOpts?: readonly string[];
  /** Options whose value is not a file. */
  readonly values?: readonly string[];
  /** Options whose value is a file read. */
  readonly readOpts?: readonly string[];
  /** Options whose value is a file written. */
  readonly writeOpts?: readonly string[];
  /**
   * Operands: all read (default), all written, all read but the last written (`cp`), all but the
   * first written (`chmod MODE files`), the first written and the rest read (`zip out.zip files`).
   */
  readonly operands?: 'read' | 'write' | 'lastWrite' | 'skipFirstWrite' | 'firstWrite' | 'none';
  /**
   * With one of these options the first operand is a file too, not a mode or an owner
   * (`chmod --reference=RFILE FILE`).
   */
  readonly firstIsFileOpts?: readonly string[];
  /**
   * The program takes the old style (`tar cvfz out.tgz files`): a first word of bare letters is its
   * options, and these letters take the next words as their values, in the order of the letters.
   */
  readonly oldStyleValues?: string;
  /** `-i` makes the files written too (sed). */
  readonly inPlace?: boolean;
  readonly dd?: boolean;
}

const R: OperandSpec = {};
const TEXT_VALUES = ['-n', '-c', '--lines', '--bytes', '-s', '--pid', '--sleep-interval'];
const GREP_VALUES = [
  '-m',
  '-A',
  '-B',
  '-C',
  '-d',
  '-D',
  '--max-count',
  '--context',
  '--after-context',
  '--before-context',
  '--include',
  '--exclude',
  '--exclude-dir',
  '--color',
  '--colour',
  '--label',
];

/** GNU tar's short options that take a value (`info tar`, "Short Options"). */
export const TAR_VALUE_LETTERS = 'bfgCFHIKLNTVX';

/**
 * Programs whose operands name files they read or write. A `Read(...)` deny covers what these read
 * inside a shell command; an `Edit(...)` deny what they write.
 */
export const FILE_PROGRAMS: Record<string, OperandSpec> = {
  cat: R,
  tac: R,
  nl: R,
  wc: R,
  uniq: R,
  paste: R,
  rev: R,
  fold: R,
  fmt: R,
  column: R,
  expand: R,
  unexpand: R,
  strings: R,
  file: R,
  stat: R,
  diff: R,
  cmp: R,
  comm: R,
  look: R,
  less: R,
  more: R,
  most: R,
  bat: R,
  batcat: R,
  view: R,
  zcat: R,
  bzcat: R,
  xzcat: R,
  zless: R,
  zmore: R,
  zgrep: {
    script: true,
    scriptOpts: ['-e', '-f', '--regexp', '--file'],
    values: GREP_VALUES,
    readOpts: ['-f', '--file'],
  },
  md5sum: R,
  sha1sum: R,
  sha224sum: R,
  sha256sum: R,
  sha384sum: R,
  sha512sum: R,
  b2sum: R,
  cksum: R,
  sum: R,
  // `-f FILE` reads its format from a file, and prints a bad one in its error message.
  hexdump: { values: ['-n', '-s', '-e'], readOpts: ['-f'] },
  hd: R,
  head: { values: TEXT_VALUES },
  tail: { values: TEXT_VALUES },
  base64: { values: ['-w', '--wrap'] },
  base32: { values: ['-w', '--wrap'] },
  basenc: { values: ['-w', '--wrap'] },
  xxd: {
    values: ['-l', '-s', '-c', '-g', '-o', '-n', '-len', '-seek', '-cols', '-groupsize'],
    operands: 'lastWrite',
  },
  od: {
    values: [
      '-A',
      '-t',
      '-N',
      '-j',
      '-w',
      '--address-radix',
      '--format',
      '--read-bytes',
      '--skip-bytes',
      '--width',
    ],
  },
  cut: { values: ['-d', '-f', '-b', '-c', '--delimiter', '--fields', '--bytes', '--characters'] },
  sort: {
    values: ['-k', '-t', '-S', '-T', '--key', '--field-separator', '--buffer-size'],
    writeOpts: ['-o', '--output'],
  },
  iconv: { values: ['-f', '-t', '--from-code', '--to-code'], writeOpts: ['-o', '--output'] },
  grep: {
    script: true,
    scriptOpts: ['-e', '-f', '--regexp', '--file'],
    values: GREP_VALUES,
    readOpts: ['-f', '--file'],
  },
  egrep: { script: true, scriptOpts: ['-e', '-f'], values: GREP_VALUES, readOpts: ['-f'] },
  fgrep: { script: true, scriptOpts: ['-e', '-f'], values: GREP_VALUES, readOpts: ['-f'] },
  rg: {
    script: true,
    scriptOpts: ['-e', '-f', '--regexp', '--file', '--files'],
    values: [
      '-g',
      '-t',
      '-T',
      '-m',
      '-A',
      '-B',
      '-C',
      '-j',
      '-M',
      '-E',
      '-r',
      '--glob',
      '--type',
      '--type-not',
      '--max-count',
      '--context',
      '--replace',
      '--encoding',
      '--max-columns',
      '--threads',
      '--sort',
      '--sortr',
      '--color',
      '--colors',
    ],
    readOpts: ['-f', '--file', '--ignore-file'],
  },
  ag: { script: true, values: ['-G', '-m', '-A', '-B', '-C', '--ignore'] },
  ack: { script: true, values: ['-m', '-A', '-B', '-C', '--type'] },
  sed: {
    script: true,
    scriptOpts: ['-e', '-f', '--expression', '--file'],
    values: ['-l', '--line-length'],
    readOpts: ['-f', '--file'],
    inPlace: true,
  },
  awk: {
    script: true,
    scriptOpts: ['-f', '--file'],
    values: ['-v', '-F', '--assign', '--field-separator'],
    readOpts: ['-f', '--file'],
  },
  gawk: {
    script: true,
    scriptOpts: ['-f', '--file'],
    values: ['-v', '-F', '--assign', '--field-separator'],
    readOpts: ['-f', '--file'],
  },
  mawk: { script: true, scriptOpts: ['-f'], values: ['-v', '-F'], readOpts: ['-f'] },
  nawk: { script: true, scriptOpts: ['-f'], values: ['-v', '-F'], readOpts: ['-f'] },
  jq: {
    script: true,
    values: ['--arg', '--argjson', '--indent', '--tab'],
    readOpts: ['--slurpfile', '--rawfile', '--from-file', '-f'],
  },
  yq: { script: true, values: ['--arg', '-o', '--output-format', '-p', '--input-format'] },
  source: R,
  '.': R,
  sh: R,
  bash: R,
  zsh: R,
  dash: R,
  ksh: R,
  cp: {
    values: ['-S', '--suffix'],
    writeOpts: ['-t', '--target-directory'],
    operands: 'lastWrite',
  },
  mv: { values: ['-S', '--suffix'], writeOpts: ['-t', '--target-directory'], operands: 'write' },
  install: {
    values: ['-m', '-o', '-g', '--mode', '--owner', '--group'],
    writeOpts: ['-t', '--target-directory'],
    operands: 'lastWrite',
  },
  ln: { writeOpts: ['-t', '--target-directory'], operands: 'lastWrite' },
  rsync: {
    values: ['-e', '--rsh', '--exclude', '--include', '--filter', '--chmod'],
    operands: 'lastWrite',
  },
  scp: {
    values: ['-P', '-i', '-o', '-F', '-c', '-l'],
    readOpts: ['-i', '-F'],
    operands: 'lastWrite',
  },
  tee: { operands: 'write' },
  rm: { operands: 'write' },
  rmdir: { operands: 'write' },
  unlink: { operands: 'write' },
  touch: { values: ['-d', '-t', '-r', '--date', '--reference'], operands: 'write' },
  mkdir: { values: ['-m', '--mode'], operands: 'write' },
  mkfifo: { values: ['-m', '--mode', '-Z', '--context'], operands: 'write' },
  mknod: { values: ['-m', '--mode', '-Z', '--context'], operands: 'write' },
  // A template names the file created; `-p DIR` / `--tmpdir=DIR` the directory it is created in.
  mktemp: {
    values: ['--suffix'],
    writeOpts: ['-p', '--tmpdir'],
    operands: 'write',
  },
  // `-o FILE` writes the shuffled lines; `--random-source=FILE` reads FILE.
  shuf: {
    values: ['-n', '--head-count', '-i', '--input-range'],
    readOpts: ['--random-source'],
    writeOpts: ['-o', '--output'],
  },
  // moreutils: soaks up standard input, then writes its operand.
  sponge: { operands: 'write' },
  truncate: { values: ['-s', '--size', '-r', '--reference'], operands: 'write' },
  shred: { values: ['-n', '-s', '--iterations', '--size'], operands: 'write' },
  chmod: { operands: 'skipFirstWrite', values: ['--reference'], firstIsFileOpts: ['--reference'] },
  chown: {
    operands: 'skipFirstWrite',
    values: ['--reference', '--from'],
    firstIsFileOpts: ['--reference'],
  },
  chgrp: { operands: 'skipFirstWrite', values: ['--reference'], firstIsFileOpts: ['--reference'] },
  dd: { dd: true, operands: 'none' },
  tar: {
    values: ['-C', '--directory', '--exclude', '-T', '--files-from'],
    readOpts: ['-T', '--files-from'],
    writeOpts: ['-f', '--file'],
    oldStyleValues: TAR_VALUE_LETTERS,
  },
  // The archive is written; every other operand is read into it.
  zip: {
    operands: 'firstWrite',
    values: ['-x', '-i', '-n', '-t', '-tt', '-P', '--password', '-Z', '-s'],
    writeOpts: ['-O', '--output-file', '-b', '--temp-path'],
  },
  vim: R,
  vi: R,
  nvim: R,
  nano: R,
  emacs: R,
  ed: R,
};

/** Searchers that read directories recursively without being asked to. */
export const RECURSIVE_BY_DEFAULT = new Set(['rg', 'ag', 'ack']);
