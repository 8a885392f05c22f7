/**
 * Operands of programs without a full model, found letting a denied effect through by the
 * mutation run: zip reads every operand but the archive, an attached `-oFILE` writes, and zgrep's
 * `-f FILE` reads its patterns from a file. Each is judged against the path rules under an allow
 * rule that names the program. (The attack corpus runs zip and iconv for real, unguarded first.)
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { permissionInterceptor } from '../index';
import { fileOperands } from './operands';
import { syntheticWord } from './words';

const { root, home } = makeProject();
const DENY = ['Read(./.env)', 'Edit(./src/**)'];
const decide = async (allow: string, line: string) => {
  const policy = permissionInterceptor({ cwd: root, home, rules: { allow: [allow], deny: DENY } });
  await policy.ready;
  return (await policy.explain(bash(line))).behavior;
};
const operands = (line: string) => {
  const found = fileOperands(line.split(' ').map((w) => syntheticWord(w, true)));
  return { reads: found.reads.map((w) => w.value), writes: found.writes.map((w) => w.value) };
};

describe('zip: the archive is written, the rest is read', () => {
  it('names them so', () => {
    expect(operands('zip -q out.zip a b')).toEqual({ reads: ['a', 'b'], writes: ['out.zip'] });
    expect(operands('zip -r -x skip out.zip dir')).toEqual({ reads: ['dir'], writes: ['out.zip'] });
    // With -O the first operand is the archive read, counted written too (over-approximated).
    expect(operands('zip -O src/new.zip old.zip').writes).toContain('src/new.zip');
  });
  it('an archive under a denied path, or a denied file put into one, is denied', async () => {
    expect(await decide('Bash(zip:*)', 'zip -q src/a.zip README.md')).toBe('deny');
    expect(await decide('Bash(zip:*)', 'zip -0 -q - .env')).toBe('deny');
    expect(await decide('Bash(zip:*)', 'zip -q docs.zip README.md')).toBe('allow');
  });
});

describe('an option value attached to a write option (-oFILE) is written', () => {
  it('names it so', () => {
    expect(operands('iconv -f utf8 -t utf8 -osrc/a.ts README.md')).toEqual({
      reads: ['README.md'],
      writes: ['src/a.ts'],
    });
  });
  it('is denied under a denied path', async () => {
    expect(await decide('Bash(iconv:*)', 'iconv -f utf8 -t utf8 -osrc/a.ts README.md')).toBe(
      'deny',
    );
    expect(await decide('Bash(iconv:*)', 'iconv -f utf8 -t utf8 -oout.txt README.md')).toBe(
      'allow',
    );
  });
});

describe('zgrep -f reads its patterns from a file', () => {
  it('names it so, in every spelling', () => {
    for (const line of ['zgrep -f .env x', 'zgrep --file .env x', 'zgrep -f.env x'])
      expect(operands(line).reads, line).toContain('.env');
    expect(operands('zgrep --file=.env x').reads).toContain('.env');
  });
  it('a denied file as its pattern file is denied', async () => {
    expect(await decide('Bash(zgrep:*)', 'zgrep -f .env README.md')).toBe('deny');
    expect(await decide('Bash(zgrep:*)', 'zgrep -e TOKEN README.md')).toBe('allow');
  });
});

describe('shuf, mktemp, mkfifo, mknod and sponge write what they name', () => {
  // Without these entries an allow rule on them kept its prefix meaning and every operand was a
  // file read: `shuf -o src/x in` (coreutils 9 writes src/x), `mktemp -p src` and
  // `mktemp src/t.XXXX` (each creates a file under src/) passed an `Edit(./src/**)` deny.
  it('names them so', () => {
    expect(operands('shuf -o src/x in')).toEqual({ reads: ['in'], writes: ['src/x'] });
    expect(operands('shuf -n 2 --random-source=.env in')).toEqual({
      reads: ['.env', 'in'],
      writes: [],
    });
    expect(operands('mktemp -p src')).toEqual({ reads: [], writes: ['src'] });
    expect(operands('mktemp --suffix .ts src/t.XXXX')).toEqual({
      reads: [],
      writes: ['src/t.XXXX'],
    });
    expect(operands('mkfifo -m 600 src/p')).toEqual({ reads: [], writes: ['src/p'] });
    expect(operands('mknod src/n p')).toEqual({ reads: [], writes: ['src/n', 'p'] });
    expect(operands('sponge src/a.ts')).toEqual({ reads: [], writes: ['src/a.ts'] });
  });
  it.each([
    ['Bash(shuf:*)', 'shuf -o src/x README.md'],
    ['Bash(shuf:*)', 'shuf -osrc/x README.md'],
    ['Bash(shuf:*)', 'shuf --output=src/x README.md'],
    ['Bash(shuf:*)', 'shuf --random-source=.env README.md'],
    ['Bash(mktemp:*)', 'mktemp -p src'],
    ['Bash(mktemp:*)', 'mktemp --tmpdir=src'],
    ['Bash(mktemp:*)', 'mktemp src/t.XXXX'],
    ['Bash(mkfifo:*)', 'mkfifo src/p'],
    ['Bash(sponge:*)', 'sponge src/a.ts'],
  ])('under %s, %s is denied', async (allow, line) => {
    expect(await decide(allow, line)).toBe('deny');
  });
  it('what they do outside the denied paths is allowed', async () => {
    expect(await decide('Bash(shuf:*)', 'shuf -n 1 README.md')).toBe('allow');
    expect(await decide('Bash(mktemp:*)', 'mktemp -p /tmp')).toBe('allow');
  });
});
