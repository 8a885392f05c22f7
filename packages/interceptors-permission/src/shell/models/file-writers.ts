import { type ShellWord, syntheticWord } from '../words';
import {
  effectsOf,
  flags,
  type Model,
  notUnderstood,
  type OptionKind,
  type OptionTable,
  opts,
  type ProgramEffects,
  readOptions,
  values,
} from './model';

/**
 * Programs that write files their operands name without saying so: uniq's OUTPUT, the pieces
 * split and csplit write beside a prefix, the compressors' replacements of their operands; and
 * patch and unzip, which write files named inside their input (not known before they run).
 * Without these models an allow rule on them (`Bash(uniq:*)`) kept its prefix meaning, so
 * `uniq a src/x` wrote `src/x` under an `Edit(./src/**)` deny and `split --filter=CMD` ran CMD.
 */

/** `-` is standard input or output, no file. */
const isStdio = (w: ShellWord): boolean => w.literal && w.value === '-';

/**
 * The writes of every file whose name begins with `prefix` (split's `xaa`, `xab`, …): the prefix
 * as a path (so a deny on its directory denies) and as a glob (so a rule on one of the names asks).
 */
const piecesOf = (prefix: ShellWord): ShellWord[] =>
  prefix.literal ? [prefix, { ...syntheticWord(`${prefix.value}*`, true), glob: true }] : [prefix];

const writes = (fx: ProgramEffects, ...files: ShellWord[]): void => {
  fx.writes.push(...files);
  fx.readOnly = false;
};

const UNIQ_OPTIONS: OptionTable = {
  long: {
    ...flags('--count --repeated --ignore-case --unique --zero-terminated'),
    ...values('--skip-fields --skip-chars --check-chars'),
    ...opts('--all-repeated --group', 'opt'),
  },
  short: { ...flags('c d D i u z'), ...values('f s w') },
};

/** uniq [INPUT [OUTPUT]]: OUTPUT is written. */
export const uniq: Model = (argv) => {
  const fx = effectsOf('uniq');
  const [input, output, ...extra] = readOptions(argv, 1, UNIQ_OPTIONS, fx);
  if (input && !isStdio(input)) fx.reads.push(input);
  if (output && !isStdio(output)) writes(fx, output);
  if (extra.length > 0) notUnderstood(fx, `uniq takes at most two files (${extra[0]?.text})`);
  return fx;
};

const SPLIT_OPTIONS: OptionTable = {
  long: {
    ...flags('--elide-empty-files --unbuffered --verbose'),
    ...values(
      '--suffix-length --additional-suffix --bytes --line-bytes --lines --number --separator',
    ),
    ...opts('--numeric-suffixes --hex-suffixes', 'opt'),
    // Runs `$SHELL -c COMMAND` for each piece: judged as that command line.
    '--filter': (v, f) => {
      f.runs.push([syntheticWord('sh', true), syntheticWord('-c', true), v]);
      f.readOnly = false;
    },
  },
  short: { ...flags('d x e u'), ...values('a b C l n t') },
};

/**
 * split [FILE [PREFIX]]: FILE read, `PREFIX*` written (`x*` without one). With `--filter` the pieces
 * go to a command instead (judged as a command line), and nothing is written but what it writes.
 */
export const split: Model = (argv) => {
  const fx = effectsOf('split');
  const [input, prefix, ...extra] = readOptions(argv, 1, SPLIT_OPTIONS, fx);
  if (input && !isStdio(input)) fx.reads.push(input);
  if (fx.runs.length === 0) writes(fx, ...piecesOf(prefix ?? syntheticWord('x', true)));
  if (extra.length > 0)
    notUnderstood(fx, `split takes at most a file and a prefix (${extra[0]?.text})`);
  return fx;
};

/** csplit FILE PATTERN…: FILE read, `PREFIX*` written (`xx*` without `-f`). */
export const csplit: Model = (argv) => {
  const fx = effectsOf('csplit');
  let prefix = syntheticWord('xx', true);
  // The suffix is a printf format put after the prefix: with a `/` in it (`-b '/../src/p%d'`) the
  // pieces go through a directory named like the prefix, wherever that leads.
  const suffixFormat: OptionKind = (v, f, option) => {
    if (!v.literal || v.value.includes('/'))
      notUnderstood(f, `csplit ${option} ${v.text} may put the pieces in another directory`);
  };
  const table: OptionTable = {
    long: {
      ...flags('--keep-files --quiet --silent --elide-empty-files --suppress-matched'),
      ...values('--digits'),
      '--suffix-format': suffixFormat,
      '--prefix': (v) => {
        prefix = v;
      },
    },
    short: {
      ...flags('k s q z'),
      ...values('n'),
      b: suffixFormat,
      f: (v) => {
        prefix = v;
      },
    },
  };
  const [input] = readOptions(argv, 1, table, fx);
  if (input && !isStdio(input)) fx.reads.push(input);
  writes(fx, ...piecesOf(prefix));
  return fx;
};

/** A compressor: its suffix, and whether it keeps its operand unless told to remove it (zstd). */
interface Compressor {
  readonly suffix: string;
  readonly keeps: boolean;
  readonly decompresses: boolean;
  /** What it names a copy whose suffix it does not know: bzip2's `FILE.out`; the others skip it. */
  readonly unknownSuffix?: string;
  /** zstd has no `-S` / `--suffix` (its `-S` is a benchmark flag: `zstd -S FILE` compresses FILE). */
  readonly noSuffixOption?: boolean;
  /** pigz's `-z` is `--zlib`: it compresses to `FILE.zz`. */
  readonly zlib?: boolean;
}

/** What a compressor's options said, beyond which were given. */
interface CompressorOptions {
  /** The value of `-S` / `--suffix`. */
  suffix?: ShellWord;
  /** The value of `--format` (xz, zstd): the copy's suffix follows it. */
  format?: string;
}

const COMPRESSOR_FLAGS = flags(
  '--stdout --to-stdout --decompress --uncompress --force --keep --list --no-name --name --quiet --recursive --test --verbose --fast --best --rsyncable --rm --no-keep --synchronous',
);

/** The options as `program` reads them, their values kept in `said`. */
const compressorOptions = (said: CompressorOptions, noSuffixOption: boolean): OptionTable => {
  const suffix: OptionKind = (v) => {
    said.suffix = v;
  };
  return {
    long: {
      ...COMPRESSOR_FLAGS,
      ...opts('--threads --compress', 'opt'),
      // Only a format in the table names the copy: a prototype's key (`constructor`) none.
      '--format': (v) => {
        said.format = v.literal && Object.hasOwn(FORMAT_SUFFIX, v.value) ? v.value : '?';
      },
      ...(noSuffixOption ? {} : { '--suffix': suffix }),
      '--output': 'write',
    },
    short: {
      ...flags('c d z f k l n N q r t v 1 2 3 4 5 6 7 8 9'),
      ...(noSuffixOption ? {} : { S: suffix }),
      o: 'write',
    },
  };
};

/** The suffix of the copy `--format=F` writes (`auto` and xz's own format: the program's). */
const FORMAT_SUFFIX: Readonly<Record<string, string>> = {
  gzip: '.gz',
  xz: '.xz',
  lzma: '.lzma',
  alone: '.lzma',
  lz4: '.lz4',
  zstd: '.zst',
};

/**
 * Suffixes a decompressor strips, and what it puts in their place, of every program (zstd also
 * decompresses `.gz`, `.xz`, `.lzma` and `.lz4`); gzip compares them ignoring case (`x.GZ`).
 */
const STRIPPED: readonly [string, string][] = [
  ['.tgz', '.tar'],
  ['.taz', '.tar'],
  ['.tbz2', '.tar'],
  ['.tbz', '.tar'],
  ['.txz', '.tar'],
  ['.tlz', '.tar'],
  ['.tzst', '.tar'],
  ['.tlz4', '.tar'],
  ['.gz', ''],
  ['-gz', ''],
  ['.z', ''],
  ['-z', ''],
  ['_z', ''],
  ['.bz2', ''],
  ['.bz', ''],
  ['.xz', ''],
  ['.lzma', ''],
  ['.zst', ''],
  ['.lz4', ''],
];

/**
 * The copy decompressing `file` writes: the file less the suffix it ends with (`-S`'s first, then
 * the known ones, ignoring case as gzip does), or with `unknownSuffix` added (bzip2's `.out`).
 */
const decompressed = (
  file: ShellWord,
  own: ShellWord | undefined,
  unknownSuffix: string | undefined,
): ShellWord[] => {
  const name = file.value.toLowerCase();
  const endings: readonly [string, string][] =
    own?.literal && own.value !== '' ? [[own.value.toLowerCase(), ''], ...STRIPPED] : STRIPPED;
  const strip = endings.find(([ending]) => name.endsWith(ending));
  if (strip) return [syntheticWord(file.value.slice(0, -strip[0].length) + strip[1], true)];
  return unknownSuffix ? [syntheticWord(`${file.value}${unknownSuffix}`, true)] : [];
};

/**
 * gzip, bzip2, xz, zstd and their `un…` twins: each operand is read and, unless `-c` sends the
 * result to standard output (or `-t` / `-l` only check it), replaced by its compressed or
 * decompressed copy: the copy is written, and the operand removed (a write too), except by zstd
 * without `--rm` or with `-k`.
 */
const compressor =
  (program: string, compressorSpec: Compressor): Model =>
  (argv) => {
    const { suffix, keeps, decompresses, unknownSuffix, noSuffixOption, zlib } = compressorSpec;
    const fx = effectsOf(program);
    const seen = new Set<string>();
    const said: CompressorOptions = {};
    const table = compressorOptions(said, noSuffixOption === true);
    const operands = readOptions(argv, 1, table, fx, seen);
    const given = (...names: string[]): boolean => names.some((name) => seen.has(name));
    if (given('-r', '--recursive')) fx.recursive = true;
    const files = operands.filter((w) => !isStdio(w));
    fx.reads.push(...files);
    // xz, bzip2 and zstd take the last of `-z`, `-d`, `-t`, `-l`: `xz -t -z FILE` compresses FILE.
    // So `-t` / `-l` only check when neither `-z` nor `-d` is given, wherever it stands.
    const compresses = given('-z', '--compress');
    const decompressGiven = given('-d', '--decompress', '--uncompress');
    const checks = given('-t', '--test', '-l', '--list') && !compresses && !decompressGiven;
    if (given('-c', '--stdout', '--to-stdout') || checks || files.length === 0) return fx;
    // `unxz -z` compresses, `xz -z -d` decompresses: either way when both are possible.
    const decompress = decompresses || decompressGiven;
    const compress = compresses || !decompress;
    // gzip -N takes the name it writes from the archive (`gunzip -N x.gz` may write package.json).
    if (decompress && given('-N', '--name'))
      notUnderstood(
        fx,
        `${program} -N writes the name stored in the archive, not known before it runs`,
      );
    if (decompress && said.suffix && !said.suffix.literal)
      notUnderstood(
        fx,
        `${program} -S ${said.suffix.text} strips a suffix not known before it runs`,
      );
    const removes = keeps ? given('--rm') : !given('-k', '--keep') || given('--no-keep');
    // A suffix of its own (`-S .x`), a recursive run or a file not known before it runs: the copy's
    // name is not known, so every name that begins with the operand's (less its suffix) is taken
    // as written.
    const plain = said.suffix === undefined && !fx.recursive && files.every((w) => w.literal);
    for (const file of files) {
      if (removes) writes(fx, file);
      if (given('-o', '--output')) continue;
      if (!plain)
        writes(fx, ...piecesOf(syntheticWord(file.value.replace(/\.[^./]*$/, ''), file.literal)));
      else if (compress) {
        const copy =
          zlib && compresses
            ? '.zz'
            : said.format === undefined
              ? suffix
              : FORMAT_SUFFIX[said.format];
        // A format whose suffix is not known (`--format=raw`): every name beginning with the file's.
        writes(
          fx,
          ...(copy === undefined ? piecesOf(file) : [syntheticWord(file.value + copy, true)]),
        );
      }
      if (decompress && file.literal) writes(fx, ...decompressed(file, said.suffix, unknownSuffix));
    }
    fx.readOnly = false;
    return fx;
  };

const gzipLike = { suffix: '.gz', keeps: false, decompresses: false };
const bzip2Like = { ...gzipLike, suffix: '.bz2', unknownSuffix: '.out' };
const zstdLike = { suffix: '.zst', keeps: true, decompresses: false, noSuffixOption: true };
export const COMPRESSORS: Readonly<Record<string, Model>> = {
  gzip: compressor('gzip', gzipLike),
  gunzip: compressor('gunzip', { ...gzipLike, decompresses: true }),
  pigz: compressor('pigz', { ...gzipLike, zlib: true }),
  unpigz: compressor('unpigz', { ...gzipLike, zlib: true, decompresses: true }),
  bzip2: compressor('bzip2', bzip2Like),
  bunzip2: compressor('bunzip2', { ...bzip2Like, decompresses: true }),
  xz: compressor('xz', { ...gzipLike, suffix: '.xz' }),
  unxz: compressor('unxz', { ...gzipLike, suffix: '.xz', decompresses: true }),
  lzma: compressor('lzma', { ...gzipLike, suffix: '.lzma' }),
  unlzma: compressor('unlzma', { ...gzipLike, suffix: '.lzma', decompresses: true }),
  zstd: compressor('zstd', zstdLike),
  unzstd: compressor('unzstd', { ...zstdLike, decompresses: true }),
};

/** patch writes the files its patch names: not known before it runs, unless it only checks. */
export const patch: Model = (argv) => {
  const fx = effectsOf('patch');
  fx.readOnly = false;
  const operands = argv.slice(1).filter((w) => !w.literal || !w.value.startsWith('-'));
  fx.reads.push(...operands);
  notUnderstood(fx, 'patch writes the files its patch names, which are not known before it runs');
  return fx;
};

const UNZIP_OPTIONS: OptionTable = {
  short: {
    ...flags('l p t v c z Z q o n j a C L X K M U V W'),
    ...values('P'),
    d: 'write',
    x: 'flag',
  },
};
/** The options before the archive, which alone set unzip's mode. */
const UNZIP_MODE_OPTIONS: OptionTable = { ...UNZIP_OPTIONS, stopAtOperand: true };
/** The modes that list (`-l`, `-v`, `-Z`), test (`-t`) or print (`-p`, `-c`) without writing. */
const UNZIP_READ_ONLY = ['-l', '-p', '-t', '-v', '-c', '-Z'];

/**
 * The files unzip may open for the archive `word`: it matches a wildcard itself, quoted or not
 * (`unzip -p 'cred?.zip'` prints creds.zip's members), and tries `NAME.zip` and `NAME.ZIP` when
 * NAME is not there (`unzip -p creds`).
 */
const archiveNames = (word: ShellWord): ShellWord[] => {
  if (!word.literal) return [word];
  const names = /\.zip$/i.test(word.value)
    ? [word.value]
    : [word.value, `${word.value}.zip`, `${word.value}.ZIP`];
  return names.map((name) => ({ ...syntheticWord(name, true), glob: /[*?[]/.test(name) }));
};

/**
 * unzip lists (`-l`), tests (`-t`) or prints (`-p`, `-c`) an archive without writing; otherwise it
 * writes the files the archive names (with `-d DIR`, under DIR), not known before it runs. The mode
 * is read from the options before the archive as unzip reads them: `unzip -Pl a.zip` extracts
 * with the password `l`, and `unzip a.zip -l` extracts, taking `-l` for a member's name.
 */
export const unzip: Model = (argv) => {
  const fx = effectsOf('unzip');
  // unzip reads `--` as a minus before the next option, which negates it: `unzip -l -- -l a.zip`
  // extracts.
  if (argv.some((w) => w.literal && w.value === '--'))
    notUnderstood(fx, 'unzip -- negates the option after it, not the end of the options');
  const before = new Set<string>();
  const [archive, ...rest] = readOptions(argv, 1, UNZIP_MODE_OPTIONS, fx, before);
  if (UNZIP_READ_ONLY.some((option) => before.has(option))) {
    if (archive) fx.reads.push(...archiveNames(archive));
    // After the archive: its members, and `-d DIR` / `-x` (still read, as unzip takes them there).
    readOptions([argv[0] as ShellWord, ...rest], 1, UNZIP_OPTIONS, fx);
    return fx;
  }
  fx.reads.push(...argv.slice(1).filter((w) => !w.literal || !w.value.startsWith('-')));
  notUnderstood(fx, 'unzip writes the files the archive names, which are not known before it runs');
  return fx;
};
