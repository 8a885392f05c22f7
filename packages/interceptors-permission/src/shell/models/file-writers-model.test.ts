/**
 * The models of file-writers.ts word by word: what each invocation reads, writes and runs, and what
 * is not understood, as the model answers it (the decision then checks these against the path
 * rules; file-writers.test.ts shows that with the real programs). A write left out here is a write
 * no `Edit(...)` deny meets; each case fails under a change the mutation run found surviving.
 */
import { describe, expect, it } from 'vitest';
import { type ShellWord, syntheticWord } from '../words';
import { modelCommand } from './index';

/** Words of a line split on spaces; `$X` is a word not known before it runs. */
const words = (line: string): ShellWord[] =>
  line.split(' ').map((w) => syntheticWord(w, !w.startsWith('$')));

/** The model's answer, as plain lists (a glob write ends in `*` and is marked `(glob)`). */
const effects = (line: string) => {
  const fx = modelCommand(words(line));
  if (fx === undefined) throw new Error(`no model for ${line}`);
  const name = (w: ShellWord) =>
    `${w.value}${w.glob ? ' (glob)' : ''}${w.literal ? '' : ' (not known)'}`;
  return {
    reads: fx.reads.map(name),
    writes: fx.writes.map(name),
    sideWrites: fx.sideWrites.map((s) => `${s.op}: ${s.target.value}`),
    runs: fx.runs.map((r) => r.map((w) => w.value).join(' ')),
    unknown: fx.unknown,
    readOnly: fx.readOnly,
    recursive: fx.recursive,
  };
};

describe('uniq', () => {
  it.each([
    ['uniq in', ['in'], []],
    ['uniq in out', ['in'], ['out']],
    ['uniq - out', [], ['out']],
    ['uniq in -', ['in'], []],
    ['uniq -', [], []],
    ['uniq', [], []],
    ['uniq -c -d -D -i -u -z in out', ['in'], ['out']],
    ['uniq --count --repeated --ignore-case --unique --zero-terminated in out', ['in'], ['out']],
    ['uniq -f 1 -s 2 -w 3 in out', ['in'], ['out']],
    ['uniq -f1 -s2 -w3 in', ['in'], []],
    ['uniq --skip-fields 1 --skip-chars 2 --check-chars 3 in', ['in'], []],
    ['uniq --all-repeated=separate --group=both in', ['in'], []],
    ['uniq --all-repeated in', ['in'], []],
    ['uniq -- -x out', ['-x'], ['out']],
  ])('%s reads %j and writes %j', (line, reads, writes) => {
    const fx = effects(line);
    expect(fx.reads).toEqual(reads);
    expect(fx.writes).toEqual(writes);
    expect(fx.unknown).toBeUndefined();
    expect(fx.readOnly).toBe(writes.length === 0);
  });

  it('a third operand is not understood, and names it', () => {
    expect(effects('uniq a b c').unknown).toBe('uniq takes at most two files (c)');
  });
});

describe('split and csplit', () => {
  it.each([
    ['split in', ['in'], ['x', 'x* (glob)']],
    ['split in out/p', ['in'], ['out/p', 'out/p* (glob)']],
    ['split - p', [], ['p', 'p* (glob)']],
    ['split', [], ['x', 'x* (glob)']],
    ['split -l 1 -a 3 -b 10 -C 10 -n 2 -t , in p', ['in'], ['p', 'p* (glob)']],
    ['split -d -x -e -u in p', ['in'], ['p', 'p* (glob)']],
    [
      'split --lines=1 --suffix-length=3 --additional-suffix=.ts --bytes=1 --line-bytes=1 --number=2 --separator=, in p',
      ['in'],
      ['p', 'p* (glob)'],
    ],
    [
      'split --elide-empty-files --unbuffered --verbose --numeric-suffixes=1 --hex-suffixes in p',
      ['in'],
      ['p', 'p* (glob)'],
    ],
    ['csplit in 2', ['in'], ['xx', 'xx* (glob)']],
    ['csplit -f p in 2', ['in'], ['p', 'p* (glob)']],
    ['csplit -fp in 2', ['in'], ['p', 'p* (glob)']],
    ['csplit --prefix p in 2', ['in'], ['p', 'p* (glob)']],
    ['csplit --prefix=p in 2', ['in'], ['p', 'p* (glob)']],
    ['csplit - 2', [], ['xx', 'xx* (glob)']],
    ['csplit -k -s -q -z -b %02d -n 3 in 2', ['in'], ['xx', 'xx* (glob)']],
    [
      'csplit --keep-files --quiet --silent --elide-empty-files --suppress-matched --suffix-format=%d --digits=3 in 2',
      ['in'],
      ['xx', 'xx* (glob)'],
    ],
  ])('%s reads %j and writes %j', (line, reads, writes) => {
    const fx = effects(line);
    expect(fx.reads).toEqual(reads);
    expect(fx.writes).toEqual(writes);
    expect(fx.readOnly).toBe(false);
    expect(fx.unknown).toBeUndefined();
  });

  it('split --filter runs its command through a shell, and writes nothing itself', () => {
    for (const line of ['split --filter=cmd in', 'split --filter cmd in']) {
      const fx = effects(line);
      expect(fx.runs, line).toEqual(['sh -c cmd']);
      expect(fx.writes, line).toEqual([]);
      expect(fx.reads, line).toEqual(['in']);
      expect(fx.readOnly, line).toBe(false);
    }
  });

  it('a prefix not known before it runs is written as itself, and asks', () => {
    expect(effects('split in $P')).toMatchObject({
      writes: ['$P (not known)'],
      unknown: '$P is not known before it runs and could be an option',
    });
    expect(effects('csplit -f $P in 2')).toMatchObject({
      writes: ['$P (not known)'],
      unknown: 'the value $P of -f may split into several words',
    });
    expect(effects('gzip $F')).toMatchObject({
      reads: ['$F (not known)'],
      writes: ['$F (not known)', '$F (not known)'],
      unknown: '$F is not known before it runs and could be an option',
    });
  });

  it('a third operand of split is not understood, and names it', () => {
    expect(effects('split a b c').unknown).toBe('split takes at most a file and a prefix (c)');
  });
});

describe('the compressors', () => {
  it.each([
    // In place: the operand read, its copy written, the operand removed (written).
    ['gzip a', ['a'], ['a', 'a.gz']],
    ['gzip a b', ['a', 'b'], ['a', 'a.gz', 'b', 'b.gz']],
    ['bzip2 a', ['a'], ['a', 'a.bz2']],
    ['xz a', ['a'], ['a', 'a.xz']],
    ['lzma a', ['a'], ['a', 'a.lzma']],
    ['pigz a', ['a'], ['a', 'a.gz']],
    // Kept: only the copy.
    ['gzip -k a', ['a'], ['a.gz']],
    ['gzip --keep a', ['a'], ['a.gz']],
    ['gzip -9k a', ['a'], ['a.gz']],
    ['gzip -k --no-keep a', ['a'], ['a', 'a.gz']],
    // zstd keeps unless --rm.
    ['zstd a', ['a'], ['a.zst']],
    ['zstd --rm a', ['a'], ['a', 'a.zst']],
    ['zstd -o out a', ['a'], []],
    ['zstd --rm -o out a', ['a'], ['a']],
    // Decompression: the suffix stripped (a tarball's becomes .tar).
    ['gunzip a.gz', ['a.gz'], ['a.gz', 'a']],
    ['gzip -d a.gz', ['a.gz'], ['a.gz', 'a']],
    ['gzip --decompress a.gz', ['a.gz'], ['a.gz', 'a']],
    ['gzip --uncompress a.gz', ['a.gz'], ['a.gz', 'a']],
    ['gzip -dk a.gz', ['a.gz'], ['a']],
    ['gunzip a.tgz', ['a.tgz'], ['a.tgz', 'a.tar']],
    ['gunzip a.taz', ['a.taz'], ['a.taz', 'a.tar']],
    ['bunzip2 a.tbz2', ['a.tbz2'], ['a.tbz2', 'a.tar']],
    ['bunzip2 a.tbz', ['a.tbz'], ['a.tbz', 'a.tar']],
    ['unxz a.txz', ['a.txz'], ['a.txz', 'a.tar']],
    ['unzstd a.tzst', ['a.tzst'], ['a.tar']],
    ['gunzip a-gz', ['a-gz'], ['a-gz', 'a']],
    ['gunzip a.z', ['a.z'], ['a.z', 'a']],
    ['gunzip a.Z', ['a.Z'], ['a.Z', 'a']],
    ['bunzip2 a.bz2', ['a.bz2'], ['a.bz2', 'a']],
    ['bunzip2 a.bz', ['a.bz'], ['a.bz', 'a']],
    ['unxz a.xz', ['a.xz'], ['a.xz', 'a']],
    ['unlzma a.lzma', ['a.lzma'], ['a.lzma', 'a']],
    ['unzstd a.zst', ['a.zst'], ['a']],
    ['unpigz a.gz', ['a.gz'], ['a.gz', 'a']],
    // No known suffix: nothing decompressed, only the (refused) operand.
    ['gunzip a.txt', ['a.txt'], ['a.txt']],
    // A suffix of its own, a recursive run, a name not known: every name beginning with the stem.
    ['gzip -S .x a.txt', ['a.txt'], ['a.txt', 'a', 'a* (glob)']],
    ['gzip --suffix .x a.txt', ['a.txt'], ['a.txt', 'a', 'a* (glob)']],
    ['gzip --suffix=.x a.txt', ['a.txt'], ['a.txt', 'a', 'a* (glob)']],
    ['gzip -Sct a.txt', ['a.txt'], ['a.txt', 'a', 'a* (glob)']],
    ['gzip -r dir', ['dir'], ['dir', 'dir', 'dir* (glob)']],
    ['gzip --recursive dir', ['dir'], ['dir', 'dir', 'dir* (glob)']],
    ['gzip -- -c', ['-c'], ['-c', '-c.gz']],
  ])('%s reads %j and writes %j', (line, reads, writes) => {
    const fx = effects(line);
    expect(fx.reads).toEqual(reads);
    expect(fx.writes).toEqual(writes);
    expect(fx.readOnly).toBe(false);
    expect(fx.unknown).toBeUndefined();
  });

  it.each([
    'gzip -c a',
    'gzip --stdout a',
    'gzip --to-stdout a',
    'gzip -t a.gz',
    'gzip --test a.gz',
    'gzip -l a.gz',
    'gzip --list a.gz',
    'gzip -dc a.gz',
    'gzip -cf a',
    'zstd -c a',
    'gzip -',
    'gzip',
  ])('%s only reads', (line) => {
    const fx = effects(line);
    expect(fx.writes).toEqual([]);
    expect(fx.readOnly).toBe(true);
    expect(fx.unknown).toBeUndefined();
  });

  it('the options are read as the program reads them, every common one understood', () => {
    expect(
      effects(
        'gzip -f -n -N -q -v -1 -2 -3 -4 -5 -6 -7 -8 -9 -z --force --no-name --name --quiet --verbose --fast --best --rsyncable --synchronous -k a',
      ),
    ).toMatchObject({ writes: ['a.gz'], unknown: undefined });
    expect(effects('xz --threads=2 --format=xz --compress -k a')).toMatchObject({
      writes: ['a.xz'],
      unknown: undefined,
    });
    expect(effects('zstd --output out a').sideWrites).toEqual(['zstd --output: out']);
    expect(effects('zstd -o out a').sideWrites).toEqual(['zstd -o: out']);
    // A long option's value is not read as an option: `--suffix -c` is the suffix `-c`.
    expect(effects('gzip --suffix -c a').writes).toEqual(['a', 'a', 'a* (glob)']);
    expect(effects('gzip -S -c a').writes).toEqual(['a', 'a', 'a* (glob)']);
  });
});

describe('patch and unzip', () => {
  it('patch is never understood: the files it writes are named in the patch', () => {
    const fx = effects('patch -p1 a.txt fix.diff');
    expect(fx.unknown).toBe(
      'patch writes the files its patch names, which are not known before it runs',
    );
    expect(fx.reads).toEqual(['a.txt', 'fix.diff']);
    expect(fx.readOnly).toBe(false);
    expect(effects('patch $F').reads).toEqual(['$F (not known)']);
  });

  it.each([
    ['unzip -l a.zip', ['a.zip']],
    ['unzip -t a.zip', ['a.zip']],
    ['unzip -p a.zip member', ['a.zip']],
    ['unzip -c a.zip', ['a.zip']],
    ['unzip -v a.zip', ['a.zip']],
    ['unzip -Z a.zip', ['a.zip']],
    ['unzip -lq a.zip', ['a.zip']],
    ['unzip -qql a.zip', ['a.zip']],
    ['unzip -l -P pw a.zip', ['a.zip']],
  ])('%s only reads its archive', (line, reads) => {
    const fx = effects(line);
    expect(fx.reads).toEqual(reads);
    expect(fx.readOnly).toBe(true);
    expect(fx.unknown).toBeUndefined();
  });

  it('unzip -l -d DIR names DIR as written, and an unknown option asks', () => {
    expect(effects('unzip -l a.zip -d out').sideWrites).toEqual(['unzip -d: out']);
    expect(effects('unzip -l -Y a.zip').unknown).toBe('unzip option -Y is not one the model knows');
  });

  it.each(['unzip a.zip', 'unzip -o a.zip', 'unzip -q a.zip', 'unzip a.zip -d out', 'unzip'])(
    '%s extracts: not understood',
    (line) => {
      const fx = effects(line);
      expect(fx.unknown).toBe(
        'unzip writes the files the archive names, which are not known before it runs',
      );
      expect(fx.readOnly).toBe(false);
    },
  );

  it('an extracting unzip still has its archive read', () => {
    expect(effects('unzip -o a.zip -d out').reads).toEqual(['a.zip', 'out']);
  });
});

describe('what the first mutation run of file-writers.ts left', () => {
  it('each model names its program in what it does not understand', () => {
    for (const program of [
      'uniq',
      'split',
      'csplit',
      'gzip',
      'gunzip',
      'pigz',
      'unpigz',
      'bzip2',
      'bunzip2',
      'xz',
      'unxz',
      'lzma',
      'unlzma',
      'zstd',
      'unzstd',
    ])
      expect(effects(`${program} --bogus a`).unknown, program).toBe(
        `${program} option --bogus is not one the model knows`,
      );
    expect(effects('unzip -l -Y a.zip').unknown).toBe('unzip option -Y is not one the model knows');
  });

  it('split --filter runs by way of split', () => {
    expect(modelCommand(words('split --filter=cmd in'))?.program).toBe('split');
  });

  it('an option after an attached value is still seen: -S.x -c only prints', () => {
    // A value attached to -S leaves the next word alone: were it skipped, -c would not be seen
    // and the operand taken as replaced (more writes than happen, and plan mode refusing it).
    expect(effects('gzip -S.x -c a')).toMatchObject({ writes: [], readOnly: true });
    expect(effects('gzip -S .x -c a')).toMatchObject({ writes: [], readOnly: true });
  });

  it('a name not known among known ones: every copy is unknown, none taken as literal', () => {
    // Were the names "plain" because one of them is literal, `$F.gz` would be checked as a file
    // literally named so, and the real copy's name never.
    expect(effects('gzip a $F').writes).toEqual([
      'a',
      'a',
      'a* (glob)',
      '$F (not known)',
      '$F (not known)',
    ]);
  });

  it("the stem is the name less its last suffix only: a.b.txt's is a.b", () => {
    expect(effects('gzip -S .x a.b.txt').writes).toEqual(['a.b.txt', 'a.b', 'a.b* (glob)']);
    expect(effects('gzip -S .x dir.d/a').writes).toEqual(['dir.d/a', 'dir.d/a', 'dir.d/a* (glob)']);
  });

  it("an output's value is not read as an option: gzip -o -k a still removes a", () => {
    expect(effects('gzip -o -k a').writes).toEqual(['a']);
    expect(effects('gzip --output -k a').writes).toEqual(['a']);
  });

  it('--output, like -o, takes the place of the copy', () => {
    expect(effects('zstd --output out a')).toMatchObject({
      writes: [],
      sideWrites: ['zstd --output: out'],
    });
  });

  it('unzip reads its mode from the options before the archive, as unzip reads them', () => {
    // `-Pl` is the password `l` (unzip extracts); `unzip a.zip -l` extracts a member named -l.
    for (const line of ['unzip -Pl a.zip', 'unzip -P l a.zip', 'unzip a.zip -l'])
      expect(effects(line).unknown, line).toBe(
        'unzip writes the files the archive names, which are not known before it runs',
      );
    expect(effects('unzip -q -l a.zip')).toMatchObject({ reads: ['a.zip'], readOnly: true });
  });

  it('unzip lists only with an option that lists before the archive', () => {
    // `my-l.zip` is an archive, not `-l`: it is extracted.
    expect(effects('unzip my-l.zip').unknown).toBe(
      'unzip writes the files the archive names, which are not known before it runs',
    );
    expect(effects('unzip -l a.zip -x member')).toMatchObject({
      reads: ['a.zip'],
      unknown: undefined,
    });
    expect(effects('unzip -l')).toMatchObject({ reads: [], unknown: undefined, readOnly: true });
  });
});
