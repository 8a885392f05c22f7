/**
 * Every spelling of an option that writes, reads or runs, for the programs of file-writers.ts
 * (the compressors, unzip, split, csplit, patch, uniq) and builtins.ts (the declarations, unset,
 * read, mapfile, test, printf, echo, ls), under a policy that allows each of them by prefix: the
 * option separated, attached, `--opt=value`, in a cluster, before or after the operands, with
 * harmless flags put between the words at random. These programs do not all read options the
 * getopt way (xz, bzip2 and zstd take the last of `-z` / `-d` / `-t` / `-l`; unzip reads `--` as a
 * negation; the builtins stop at the first name), so the spellings are written out here rather
 * than made by `optionSpellings`. Seeded; the seed is printed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allowedAmong, filePolicy, makeProject, neverAllowed } from '../../../test/helpers';
import { COMPRESSORS } from './file-writers';

const COMPRESSOR_NAMES = Object.keys(COMPRESSORS);
const PROGRAMS = [
  ...COMPRESSOR_NAMES,
  'unzip',
  'split',
  'csplit',
  'patch',
  'uniq',
  'declare',
  'typeset',
  'export',
  'local',
  'readonly',
  'unset',
  'read',
  'mapfile',
  'readarray',
  'test',
  '[',
  'printf',
  'echo',
  'ls',
];
const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: PROGRAMS.map((p) => `Bash(${p}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Read(./backup.zip)'],
  },
});

/**
 * One harmful invocation as words between which harmless flags may stand: a word with a space is
 * an option and its separated value, kept together. `front`: the flags only right after the
 * program (the builtins stop reading options at the first name; unzip reads its mode before the
 * archive).
 */
interface Shape {
  readonly program: string;
  readonly words: readonly string[];
  readonly harmless: readonly string[];
  readonly front?: boolean;
}

const shape = (program: string, harmless: readonly string[], front = false) => ({
  program,
  harmless,
  front,
});

/** `-t` / `-l` before or after `-z` / `-d`, separate or in one cluster: the last one wins. */
const modeShapes = (program: string): Shape[] => {
  const decompresses = program.startsWith('un') || program === 'gunzip';
  const out: Shape[] = [];
  for (const check of ['t', 'l']) {
    for (const mode of decompresses ? ['z'] : ['z', 'd']) {
      const file = mode === 'd' ? 'src/x.gz' : 'src/a.ts';
      const base = shape(program, ['-q', '-v', '-f']);
      out.push(
        { ...base, words: ['-k', `-${check}`, `-${mode}`, file] },
        { ...base, words: [`-k${check}${mode}`, file] },
        { ...base, words: [`-${mode}k${check}`, file] },
        { ...base, words: [file, `-${check}k`, `-${mode}`] },
      );
    }
    out.push({
      ...shape(program, ['--quiet', '--force']),
      words: ['--keep', check === 't' ? '--test' : '--list', '--compress', 'src/a.ts'],
    });
  }
  return out;
};

/** The suffix each decompressor strips (the file it is given has it: a file without, it skips). */
const STRIPS: Readonly<Record<string, string>> = {
  gunzip: '.gz',
  unpigz: '.gz',
  bunzip2: '.bz2',
  unxz: '.xz',
  unlzma: '.lzma',
  unzstd: '.zst',
};

/** The compressors' writing, reading and running options, in each spelling each takes. */
const compressorShapes = (program: string): Shape[] => {
  const base = shape(program, ['-q', '-v', '-f', '--quiet']);
  const zstd = program.endsWith('zstd');
  const source = `src/a.ts${STRIPS[program] ?? ''}`;
  const lines: string[][] = [
    [source],
    ['-k', source],
    ['--keep', source],
    ['-kf', source],
    ['-c', '.env'],
    ['-ck', '.env'],
    ['--stdout', 'secrets/key'],
    ['-dc', 'secrets/key'],
    ['-cd', 'secrets/key'],
    ['-d', '-k', 'src/x.gz'],
    ['-dkf', 'src/x.gz'],
    ['--decompress', '--keep', 'src/x.GZ'],
    ['-dk', 'src/x-z'],
    ['-dk', 'src/x_z'],
    ['-dk', 'src/x.TGZ'],
    ['-dk', 'src/x.tlz'],
    ['-dk', 'src/x.lz4'],
    ['-dk', 'src/x.tlz4'],
    ['-dk', 'src/x.bz2'],
    ['-dk', 'src/x.zst'],
    ['-dk', 'src/x.xz'],
    ['-dk', 'src/x.lzma'],
    ['-r', 'src'],
    ['-rk', 'src'],
    ['--recursive', 'secrets'],
    ['-rc', 'secrets'],
    ['--rm', source],
    ['-k', '-S .x', source],
    ['-kS.x', source],
    ['-kS .x', source],
    ['--suf=.x', '-k', source],
    ['--suffix=.x', '-k', source],
    ['--suffix .x', '-k', source],
    ['-dk', '-S _q', 'src/a_q'],
    ['-Sct', source],
    ['-o src/x', 'README.md'],
    ['-osrc/x', 'README.md'],
    ['-ko src/x', 'README.md'],
    ['-kosrc/x', 'README.md'],
    ['--output=src/x', 'README.md'],
    ['--output-dir-flat=src', 'README.md'],
    ['--output-dir-flat src', 'README.md'],
    ['--output-dir-mirror=src', 'README.md'],
    ['--output-dir-mirror src', 'README.md'],
    ['-D .env', 'README.md'],
    ['-D.env', 'README.md'],
    ['-cD.env', 'README.md'],
    ['--patch-from=.env', 'README.md'],
    ['--patch-from .env', 'README.md'],
    ['--filelist=.env'],
    ['--filelist .env'],
    ['--files=.env'],
    ['--files0=.env'],
    ['--files'],
    ['-dkN', 'README.md.gz'],
    ['-d', '--name', '-k', 'README.md.gz'],
    ['--format=gzip', source],
    ['--format=raw', '-k', source],
    ['-T0', source],
  ];
  // zstd's -S is a flag of its benchmark: the next word is a file it compresses.
  if (zstd) lines.push(['-S', source], ['-kS', source]);
  return [...lines.map((words) => ({ ...base, words })), ...modeShapes(program)];
};

const unzipShapes = (): Shape[] =>
  [
    ['a.zip'],
    ['-o', 'a.zip'],
    ['-d src', 'a.zip'],
    ['-dsrc', 'a.zip'],
    ['-od src', 'a.zip'],
    ['-odsrc', 'a.zip'],
    ['-l', 'a.zip', '-d src'],
    ['-l', 'a.zip', '-dsrc'],
    ['-ld src', 'a.zip'],
    ['-p', '.env'],
    ['-c', 'secrets/key'],
    ['-pq', '.env'],
    ['-l', '-- -l', 'a.zip'],
    ['-t', '-- -t', 'a.zip'],
    ['-p', "'backup?zip'"],
    ['-p', "'b*'"],
    ['-p', 'backup'],
    ['-l', "'secret?/key'"],
    ['-Z', 'secrets/key'],
    ['-t', 'backup'],
    ['-T', 'a.zip'],
    ['-f', 'a.zip'],
    ['-u', 'a.zip'],
    ['-x', 'a.zip'],
    ['a.zip', '-l'],
  ].map((words) => ({ ...shape('unzip', ['-q', '-qq'], true), words }));

/** Words of uniq, split, csplit and patch: their outputs, inputs and commands. */
const TEXT_SHAPES: readonly Shape[] = [
  ...[
    ['README.md', 'src/x'],
    ['-c', 'README.md', 'src/x'],
    ['README.md', '-c', 'src/x'],
    ['README.md', 'src/x', '-c'],
    ['-f 1', 'README.md', 'src/x'],
    ['-f1', 'README.md', 'src/x'],
    ['--skip-fields=1', 'README.md', 'src/x'],
    ['--skip-fields 1', 'README.md', 'src/x'],
    ['-s 2', '-w 3', 'README.md', 'src/x'],
    ['-s2w3', 'README.md', 'src/x'],
    ['--', 'README.md', 'src/x'],
    ['-D', '.env'],
    ['--all-repeated', '.env'],
    ['--group=append', 'secrets/key'],
    ['-', 'src/x'],
  ].map((words) => ({ ...shape('uniq', ['-c', '-i', '-u', '-z']), words })),
  ...[
    ['README.md', 'src/x'],
    ['-a 3', 'README.md', 'src/x'],
    ['-a3', 'README.md', 'src/x'],
    ['-d', 'README.md', 'src/x'],
    ['--numeric-suffixes=1', 'README.md', 'src/x'],
    ['--additional-suffix=.txt', 'README.md', 'src/x'],
    ['-n l/2', 'README.md', 'src/x'],
    ['-nl/2', 'README.md', 'src/x'],
    ['-l 1', '.env'],
    ['--', 'secrets/key', 'out'],
    ["--filter='cat .env'", 'README.md'],
    ["--filter 'cat .env'", 'README.md'],
    ["--filter='cat secrets/key'", 'README.md'],
    ["--fil='cat .env'", 'README.md'],
    ["--filter='cp $FILE src/x'", 'README.md'],
  ].map((words) => ({ ...shape('split', ['-e', '--verbose', '-u']), words })),
  ...[
    ['-f src/x', 'README.md', '1'],
    ['-fsrc/x', 'README.md', '1'],
    ['-ksf src/x', 'README.md', '1'],
    ['--prefix=src/x', 'README.md', '1'],
    ['--prefix src/x', 'README.md', '1'],
    ["-b '/../src/p%d'", 'README.md', '1'],
    ["-b'/../src/p%d'", 'README.md', '1'],
    ["-kb'/../src/p%d'", 'README.md', '1'],
    ["--suffix-format='/../src/p%d'", 'README.md', '1'],
    ["--suffix-format '/../src/p%d'", 'README.md', '1'],
    ['.env', '1'],
    ['-n 3', 'secrets/key', '1'],
  ].map((words) => ({ ...shape('csplit', ['-s', '-k', '-z', '--quiet']), words })),
  ...[
    ['-o src/x', 'README.md'],
    ['-osrc/x', 'README.md'],
    ['--output=src/x', 'README.md'],
    ['-i .env'],
    ['-i.env'],
    ['--input=.env'],
    ['-d src'],
    ['-dsrc'],
    ['--directory=src'],
    ['-B src/', 'README.md'],
    ['--prefix=src/', 'README.md'],
    ['-Y src/', 'README.md'],
    ['-z .x', 'src/a.ts'],
    ['--suffix=.x', 'src/a.ts'],
    ['-r src/x', 'README.md'],
    ['--reject-file=src/x', 'README.md'],
    ['-b', 'src/a.ts'],
    ['--merge', 'src/a.ts'],
    ['--dry-run', 'src/a.ts'],
    ['src/a.ts', 'fix.diff'],
  ].map((words) => ({ ...shape('patch', ['-s', '-f', '-N', '-p1']), words })),
];

const SUBSCRIPT = "'a[$(id)]'";
/** The builtins: names that evaluate code (subscripts, arithmetic, namerefs), and ls -R. */
const BUILTIN_SHAPES: readonly Shape[] = [
  ...['declare', 'typeset', 'export', 'local', 'readonly'].flatMap((program) =>
    [
      ['-n r=x'],
      ['-xn r=x'],
      ['-nx r=x'],
      ['+n r=x'],
      ['-gn', 'r=x'],
      [`-i x=${SUBSCRIPT}`],
      [`-ix x=${SUBSCRIPT}`],
      [`-xi x=${SUBSCRIPT}`],
      [`+i x=${SUBSCRIPT}`],
      ['-i', 'n'],
      ['-i', 'n=y'],
      ['-i', 'n=1+1'],
      [`-a x='([$(id)]=1)'`],
      [`-A x='([$(id)]=1)'`],
      [`-aA x='([$(id)]=1)'`],
      [`${SUBSCRIPT.slice(0, -1)}=1'`],
      [`-a ${SUBSCRIPT}`],
      [`-g ${SUBSCRIPT}`],
      ['-x PATH=/tmp'],
      ['-gx', 'BASH_ENV=x'],
      ["'PA'TH=/tmp"],
      ['"$v"'],
      ['"$o"', 'x=1'],
      ['-x', '"$v"'],
      ['-z x=1'],
    ].map((words) => ({ ...shape(program, ['-g', '-r', '-l'], true), words })),
  ),
  ...[
    [SUBSCRIPT],
    [`-v ${SUBSCRIPT}`],
    [`-f ${SUBSCRIPT}`],
    [`-n ${SUBSCRIPT}`],
    [`-- ${SUBSCRIPT}`],
    ['x', SUBSCRIPT],
    ['"$x"'],
    ["'a[$i]'"],
  ].map((words) => ({ ...shape('unset', ['-v'], true), words })),
  ...[
    [SUBSCRIPT],
    [`-a ${SUBSCRIPT}`],
    [`-ra ${SUBSCRIPT}`],
    [`-ra${SUBSCRIPT}`],
    [`-a${SUBSCRIPT}`],
    [`-u 0 ${SUBSCRIPT}`],
    [`-p x ${SUBSCRIPT}`],
    [`-t 1 ${SUBSCRIPT}`],
    [`-d x ${SUBSCRIPT}`],
    [`-n 1 ${SUBSCRIPT}`],
    [`-- ${SUBSCRIPT}`],
    ['x', SUBSCRIPT],
    ['PATH'],
    ['-a PATH'],
    ['"$n"'],
    ['-E x'],
  ].map((words) => ({ ...shape('read', ['-r', '-s', '-e'], true), words })),
  ...['mapfile', 'readarray'].flatMap((program) =>
    [
      ['-C cb', 'arr'],
      ['-Ccb', 'arr'],
      ['-tC cb', 'arr'],
      ['-tCcb', 'arr'],
      ['-c 1', '-C cb', 'arr'],
      ['-c1', '-Ccb', 'arr'],
      [`-u 0 ${SUBSCRIPT}`],
      [`-O 1 ${SUBSCRIPT}`],
      [`-s 1 ${SUBSCRIPT}`],
      [`-n 1 ${SUBSCRIPT}`],
      [`-d x ${SUBSCRIPT}`],
      [SUBSCRIPT],
      ['PATH'],
      ['"$n"'],
    ].map((words) => ({ ...shape(program, ['-t'], true), words })),
  ),
  ...[
    [`-v ${SUBSCRIPT}`],
    [`! -v ${SUBSCRIPT}`],
    [`\\( -v ${SUBSCRIPT} \\)`],
    [`x -a -v ${SUBSCRIPT}`],
    [`x -o -v ${SUBSCRIPT}`],
    [`-R ${SUBSCRIPT}`],
    ['-v "$x"'],
    ['"$op" "$x"'],
  ].flatMap((words) => [
    { ...shape('test', []), words },
    { ...shape('[', []), words: [...words, ']'] },
  ]),
  ...[
    [`-v ${SUBSCRIPT}`, 'x'],
    [`-v${SUBSCRIPT}`, 'x'],
    ['-v PATH', 'x'],
    ['-vPATH', 'x'],
    ['-v "$n"', 'x'],
    ['"$f"', 'x'],
  ].map((words) => ({ ...shape('printf', []), words })),
  ...[
    ['-R'],
    ['-laR'],
    ['-Rla'],
    ['--recursive'],
    ['--recursive', '.'],
    ['--rec'],
    ['-R', 'secrets'],
    ['-R', '.'],
    ['-R', 's*'],
    ['-R', '"$d"'],
    ['-RL', 'src'],
    ['-R', '-L', 'src'],
    ['--dereference', '-R', 'src'],
    ['.env'],
    ['secrets'],
    ['--dired', 'secrets'],
    ['-d', 'secrets/key'],
  ].map((words) => ({ ...shape('ls', ['-l', '-a', '-1', '--color=never']), words })),
];

const SHAPES: readonly Shape[] = [
  ...COMPRESSOR_NAMES.flatMap(compressorShapes),
  ...unzipShapes(),
  ...TEXT_SHAPES,
  ...BUILTIN_SHAPES,
];

const lineOf = (program: string, words: readonly string[]): string => [program, ...words].join(' ');

/** A shape with harmless flags put at the given positions (before the word of that index). */
const withFlags = (s: Shape, inserts: readonly (readonly [number, string])[]): string => {
  const words = [...s.words];
  for (const [at, flag] of [...inserts].sort((a, b) => b[0] - a[0]))
    words.splice(s.front ? 0 : Math.min(at, words.length), 0, flag);
  return lineOf(s.program, words);
};

describe('option spellings of the writers and builtins (property)', () => {
  it('no spelling of a writing, reading or running option is allowed, harmless flags between', async () => {
    const cases = fc.constantFrom(...SHAPES).chain((s) =>
      fc.record({
        s: fc.constant(s),
        inserts:
          s.harmless.length === 0
            ? fc.constant([])
            : fc.array(fc.tuple(fc.nat(s.words.length), fc.constantFrom(...s.harmless)), {
                maxLength: 3,
              }),
      }),
    );
    await neverAllowed(
      'writer spellings',
      explain,
      cases,
      ({ s, inserts }) => withFlags(s, inserts),
      600,
    );
  });

  it('every spelling of every case, once, bare and after each harmless flag', async () => {
    const lines = SHAPES.flatMap((s) => [
      lineOf(s.program, s.words),
      ...s.harmless.map((flag) => withFlags(s, [[0, flag]])),
    ]);
    expect(await allowedAmong(explain, lines)).toEqual([]);
  });
});

/** Everyday spellings: the fixes must leave them allowed. */
const BENIGN: readonly string[] = [
  'gzip -k README.md',
  'gzip -c README.md',
  'gzip -9 -k README.md',
  'gzip -t README.md.gz',
  'gzip -l README.md.gz',
  'gunzip -c README.md.gz',
  'gunzip -k README.md.gz',
  'gzip -dk README.md.gz',
  'zstd -q README.md',
  'zstd -d -q README.md.zst',
  'zstd -c README.md',
  'unzstd README.md.zst',
  'xz -k README.md',
  'xz -dc README.md.xz',
  'xz -t README.md.xz',
  'xz -l README.md.xz',
  'bzip2 -k README.md',
  'bunzip2 -k README.md.bz2',
  'unzip -l a.zip',
  'unzip -p a.zip member',
  'unzip -t a.zip',
  'unzip -q -l a.zip',
  'split -l 10 README.md out/part-',
  'split -n 2 README.md',
  'csplit -f part README.md 2',
  'csplit -s -b %03d.txt README.md 2',
  'uniq -c README.md',
  'uniq README.md out.txt',
  'uniq -d -f 1 README.md',
  'declare -a arr',
  'declare x=1',
  'local x=1',
  'export LANG=C',
  'readonly x=1',
  'typeset -i n=1',
  'declare -p x',
  'unset x',
  'unset -v x',
  'read -r line',
  'read -ra parts',
  'mapfile -t lines',
  'readarray -t lines',
  'test -f README.md',
  '[ -v x ]',
  '[ "$#" -eq 1 ]',
  'printf -v x %s y',
  "printf '%s\\n' hi",
  'echo hi',
  'ls -la',
  'ls -R src',
  'ls -la src',
  'ls -d */',
];

describe('the everyday spellings stay allowed', () => {
  it.each(BENIGN)('%s', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
});
