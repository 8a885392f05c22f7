/**
 * What the spelling properties of writer-spellings.test.ts found in the compressors, unzip, csplit
 * and ls (ninth round), pinned: each line was allowed before the fixes and does its write or read
 * when run for real; and the names the compressors write, word by word, as the fixes read them.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';
import { syntheticWord } from '../words';
import { modelCommand } from './index';

const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: [
      'gzip',
      'gunzip',
      'bzip2',
      'bunzip2',
      'xz',
      'unxz',
      'lzma',
      'unlzma',
      'zstd',
      'unzstd',
      'unzip',
      'csplit',
      'ls',
    ].map((p) => `Bash(${p}:*)`),
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Read(./backup.zip)'],
  },
});

/**
 * The spellings that were allowed before these fixes, each run for real in a temp dir first (it
 * did the write or the read it names); each fails on the models before them.
 */
describe('what the spelling properties found (ninth round)', () => {
  it.each([
    // xz, lzma, bzip2 and zstd take the last of -z / -d / -t / -l: these compress src/a.ts.
    'xz -k -t -z src/a.ts',
    'xz -kl -z src/a.ts',
    'xz --keep --test --compress src/a.ts',
    'lzma -k -t -z src/a.ts',
    'bzip2 -ktz src/a.ts',
    'zstd -t -z src/a.ts',
    'zstd -l --compress src/a.ts',
    // And -d after -t decompresses.
    'xz -k -t -d src/x.xz',
    // A decompressor told -z compresses.
    'unxz -kz src/a.ts',
    'unlzma -kz src/a.ts',
    'bunzip2 -kz src/a.ts',
    'unzstd -z src/a.ts',
    // zstd's -S is a flag: src/a.ts is compressed, not a suffix.
    'zstd -S src/a.ts',
    // Suffixes gzip matches ignoring case, and the other programs' own.
    'gunzip -k src/x.GZ',
    'gunzip -k src/x-z',
    'gunzip -k src/x_z',
    'gunzip -k src/x.TGZ',
    'unxz -k src/x.tlz',
    'unzstd src/x.lz4',
    'unzstd src/x.tlz4',
    // bzip2 writes FILE.out for a suffix it does not know.
    'bunzip2 -k src/x',
    'bunzip2 -k src/x.BZ2',
  ])('%s: its write under src is denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain('Edit(./src/**)');
  });

  it.each([
    ['gunzip -kN x.gz', 'gunzip -N writes the name stored in the archive'],
    ['gzip -dk --name x.gz', 'gzip -N writes the name stored in the archive'],
    ['gunzip -k -S "$S" x.gz', 'gunzip -S "$S" strips a suffix not known before it runs'],
    ['zstd -cS src/a.ts', 'zstd option -S is not one the model knows'],
    ['zstd --suffix=.x README.md', 'zstd option --suffix is not one the model knows'],
    ['unzip -l -- -l a.zip', 'unzip -- negates the option after it'],
    ['unzip -t -- -t a.zip', 'unzip -- negates the option after it'],
    ["csplit -b '/../src/p%d' README.md 1", "csplit -b '/../src/p%d' may put the pieces"],
    ["csplit -kb'/../src/p%d' README.md 1", 'csplit -b /../src/p%d may put the pieces'],
    [
      "csplit --suffix-format='/../src/p%d' README.md 1",
      'csplit --suffix-format /../src/p%d may put the pieces',
    ],
    ['csplit -b "$F" README.md 1', 'csplit -b "$F" may put the pieces'],
    ['ls -R', 'is a directory read recursively'],
    ['ls -laR', 'is a directory read recursively'],
    ['ls --recursive', 'is a directory read recursively'],
    ['ls --rec .', 'is a directory read recursively'],
    ['ls -R s*', 'the glob s* could match'],
    ['ls -R"$x"', 'is not known before it runs'],
    ['ls -R "$d"', 'is not known before it runs'],
  ])('%s: asked (%s)', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  it('ls -R follows symbolic links only with -L: src/secrets-link leads to secrets', async () => {
    for (const line of ['ls -RL src', 'ls -LR src', 'ls -R -L src', 'ls --dereference -R src'])
      expect((await explain(line)).behavior, line).not.toBe('allow');
    expect((await explain('ls -R src')).behavior).toBe('allow');
    expect((await explain('ls -L src')).behavior).toBe('allow');
  });

  it('unzip reads NAME.zip for NAME, and matches a wildcard in the archive itself', async () => {
    for (const line of ['unzip -p backup', 'unzip -l backup'])
      expect((await explain(line)).behavior, line).toBe('deny');
    for (const line of [
      "unzip -p 'backup?zip'",
      "unzip -p 'b*'",
      "unzip -p '[b]ackup.zip'",
      'unzip -p b\\*',
    ])
      expect((await explain(line)).behavior, line).not.toBe('allow');
    expect((await explain('unzip -p a')).behavior).toBe('allow');
  });
});

describe('the names the compressors write, word by word', () => {
  it.each([
    // The last of -z / -d / -t / -l wins: -t or -l checks only when neither -z nor -d is given.
    ['xz -t -z a', ['a', 'a.xz']],
    ['xz -z -t a', ['a', 'a.xz']],
    ['xz -t -d a.xz', ['a.xz', 'a']],
    ['gzip -t -d a.gz', ['a.gz', 'a']],
    ['unxz -z a', ['a', 'a.xz']],
    ['unlzma -kz a', ['a.lzma']],
    ['bunzip2 -kz a', ['a.bz2', 'a.out']],
    ['gunzip -kz a', ['a.gz']],
    // Both ways when both are given: the copy of either.
    ['unxz -zk a.xz', ['a.xz.xz', 'a']],
    ['xz -dzk a.xz', ['a.xz.xz', 'a']],
    // The format names the copy: --format=gzip writes .gz.
    ['zstd --format=gzip a', ['a.gz']],
    ['zstd --format=lz4 a', ['a.lz4']],
    ['xz --format=lzma -k a', ['a.lzma']],
    ['xz --format=alone -k a', ['a.lzma']],
    ['zstd --format=zstd a', ['a.zst']],
    // pigz's -z is --zlib: FILE.zz.
    ['pigz -kz a', ['a.zz']],
    ['unpigz -kz a.gz', ['a.gz.zz', 'a']],
    ['gzip -kz a', ['a.gz']],
    ['xz --format=xz -k a', ['a.xz']],
    ['xz --format raw -k a', ['a', 'a* (glob)']],
    ['xz --format=constructor -k a', ['a', 'a* (glob)']],
    // Suffixes, ignoring case; bzip2 names what it does not know FILE.out.
    ['gunzip -k a.GZ', ['a']],
    ['gunzip -k a.Tgz', ['a.tar']],
    ['gunzip -k a-z', ['a']],
    ['gunzip -k a_Z', ['a']],
    ['gunzip -k a.txt', []],
    ['bunzip2 -k a.txt', ['a.txt.out']],
    ['bunzip2 -k a.tbz2', ['a.tar']],
    ['unzstd a.lz4', ['a']],
    ['unzstd a.tlz4', ['a.tar']],
    ['unxz -k a.tlz', ['a.tar']],
    // -S: the copy less that suffix too, ignoring case (gzip also strips its own).
    ['gunzip -kS _q a_q', ['a_q', 'a_q* (glob)', 'a']],
    ['gunzip -kS -Q a-q', ['a-q', 'a-q* (glob)', 'a']],
    ['gunzip -kS _q a.gz', ['a', 'a* (glob)', 'a']],
    ["gunzip -kS '' a.gz", ['a', 'a* (glob)', 'a']],
    // zstd takes no -S: it asks, and the file is still written.
    ['zstd -kS a', ['a.zst']],
  ])('%s writes %j', (line, writes) => {
    const fx = modelCommand(
      line.split(' ').map((w) => syntheticWord(w === "''" ? '' : w, !w.startsWith('$'))),
    );
    expect(
      fx?.writes.map((w) => `${w.value}${w.glob ? ' (glob)' : ''}`),
      line,
    ).toEqual(writes);
  });

  it('a check (-t, -l) or standard output (-c) writes nothing, and asks nothing', () => {
    for (const line of [
      'xz -t a.xz',
      'xz -l a.xz',
      'zstd -c a',
      'bzip2 -t a.bz2',
      'gzip -tv a.gz',
    ]) {
      const fx = modelCommand(line.split(' ').map((w) => syntheticWord(w, true)));
      expect(fx?.writes, line).toEqual([]);
      expect(fx?.readOnly, line).toBe(true);
      expect(fx?.unknown, line).toBeUndefined();
    }
  });

  it('-N asks only when decompressing; a suffix not known asks only when decompressing', () => {
    const fx = (line: string) =>
      modelCommand(line.split(' ').map((w) => syntheticWord(w, !w.includes('$'))));
    expect(fx('gzip -kN a')?.unknown).toBeUndefined();
    expect(fx('gzip -k -S "$S" a')?.unknown).toBeUndefined();
    expect(fx('gzip -dk -S "$S" a.gz')?.unknown).toBe(
      'gzip -S "$S" strips a suffix not known before it runs',
    );
    expect(fx('gzip -dkN a.gz')?.unknown).toBe(
      'gzip -N writes the name stored in the archive, not known before it runs',
    );
  });

  it('unzip reads NAME, NAME.zip and NAME.ZIP; a wildcard as a glob', () => {
    const reads = (line: string) =>
      modelCommand(line.split(' ').map((w) => syntheticWord(w, !w.includes('$'))))?.reads.map(
        (w) => `${w.value}${w.glob ? ' (glob)' : ''}${w.literal ? '' : ' (not known)'}`,
      );
    expect(reads('unzip -l a')).toEqual(['a', 'a.zip', 'a.ZIP']);
    expect(reads('unzip -l a.ZIP')).toEqual(['a.ZIP']);
    expect(reads('unzip -l a.zip.d')).toEqual(['a.zip.d', 'a.zip.d.zip', 'a.zip.d.ZIP']);
    expect(reads('unzip -l a?zip')).toEqual([
      'a?zip (glob)',
      'a?zip.zip (glob)',
      'a?zip.ZIP (glob)',
    ]);
    expect(reads('unzip -l [a].zip')).toEqual(['[a].zip (glob)']);
    expect(reads('unzip -l a*.zip')).toEqual(['a*.zip (glob)']);
    expect(reads('unzip -l $A')).toEqual(['$A (not known)']);
  });

  it('ls reads its operands recursively with -R only, and . without one', () => {
    const fx = (line: string) =>
      modelCommand(line.split(' ').map((w) => syntheticWord(w, !w.includes('$'))));
    expect(fx('ls -R')).toMatchObject({ recursive: true });
    expect(fx('ls -R')?.reads.map((w) => w.value)).toEqual(['.']);
    expect(fx('ls -R a $d')?.reads.map((w) => w.value)).toEqual(['a', '$d']);
    expect(fx('ls a $d')?.reads.map((w) => w.value)).toEqual(['a']);
    expect(fx('ls -la')).toMatchObject({ recursive: false, reads: [] });
    expect(fx('ls --reverse')).toMatchObject({ recursive: false, reads: [] });
    expect(fx('ls -l --recursive')).toMatchObject({ recursive: true });
    expect(fx('ls -R a')?.followsLinks).toBeUndefined();
    expect(fx('ls -RL a')?.followsLinks).toBe(true);
    expect(fx('ls --dereference a')?.followsLinks).toBe(true);
    expect(fx('ls --dereference-command-line a')?.followsLinks).toBeUndefined();
    expect(fx('ls -- -R')).toMatchObject({ recursive: true });
    expect(fx('ls x-R')).toMatchObject({ recursive: false });
    // A value that holds -R or --rec after another dash is no recursion.
    expect(fx('ls --hide=x-R a')).toMatchObject({ recursive: false });
    expect(fx('ls --hide=--rec a')).toMatchObject({ recursive: false });
    expect(fx('ls -R --hide=x-L a')?.followsLinks).toBeUndefined();
    // An option with an expansion attached is still that option: -R"$x" is -R.
    expect(fx('ls -R"$x" a')).toMatchObject({ recursive: true });
    expect(fx('ls -R a -L"$x"')?.followsLinks).toBe(true);
    expect(fx('ls "$o" a')).toMatchObject({ recursive: false });
  });
});
