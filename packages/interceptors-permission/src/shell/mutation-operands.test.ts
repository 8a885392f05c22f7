/**
 * Which words of a program without a model are the files it reads and writes (the operand table
 * in file-programs.ts, read by operands.ts): each line below is judged against deny rules on the
 * files it may name. The tests fail under one-line changes the mutation run
 * (`pnpm mutate:permission`) found surviving in shell/operands.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';

let policy: PermissionInterceptor;
beforeAll(async () => {
  const { root, home } = makeProject();
  policy = permissionInterceptor({
    cwd: root,
    home,
    // The whole tool is allowed, so only the path rules decide.
    rules: {
      allow: ['Bash'],
      deny: ['Read(./.env)', 'Read(./-secret)', 'Read(./--)', 'Edit(./src/**)'],
    },
  });
  await policy.ready;
});
const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

describe('operands of programs without a model', () => {
  it.each([
    // After `--` every word is an operand, a second `--` too.
    'cat -- -secret',
    'cat -- --',
    'zcat -n .env',
    // An option that takes a value skips it, and the next word is a file again.
    'head -n 5 .env',
    'head --lines=5 .env',
    // An unknown option's attached value may be a file.
    'cat --x=.env',
    // `-` is standard input, and what follows is still read.
    'cat - .env',
    // Options whose value is a file, separated or attached.
    'scp -F .env a b',
    'scp -F.env a b',
    'scp -i.env a b',
    'iconv -o src/a.ts README.md',
    'iconv --output=src/a.ts README.md',
    // The pattern comes first; what follows is read.
    'zgrep x .env',
    // Operands read but the last written; written but the first (a mode).
    'xxd README.md src/a.ts',
    'chmod 644 src/a.ts',
    'chmod 644 src/a.ts README.md',
    // Operands written.
    'touch src/a.ts',
    'rm -f src/a.ts',
    'dd if=.env of=/dev/null',
    'dd if=README.md of=src/a.ts',
  ])('%s touches a denied file: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });

  it.each([
    // The value of an option that takes one is not a file, whatever it looks like.
    'head -n .env README.md',
    'head --lines=.env README.md',
    // A value option given last, with nothing to take.
    'iconv README.md -o',
    // Only sed's -i edits in place.
    'zgrep -i x src/a.ts',
    'cat -',
    'iconv -f .env -t ascii README.md',
    // The first operand of a searcher is its pattern.
    'zgrep .env README.md',
    // One operand is read, not written; a mode is not a file.
    'xxd src/a.ts',
    'chmod 644 README.md',
    'dd if=README.md of=/dev/null',
  ])('%s touches no denied file: allowed', async (line) => {
    expect(await behaviorOf(line)).toBe('allow');
  });

  it('a searcher given no path searches the working directory, which holds a denied file', async () => {
    expect(await behaviorOf('ag x')).toBe('ask');
    expect(await behaviorOf('ag x README.md')).toBe('allow');
    expect(await behaviorOf('zgrep -R x')).toBe('ask');
    expect(await behaviorOf('zgrep --recursive x')).toBe('ask');
    expect(await behaviorOf('zgrep -ir x')).toBe('ask');
    expect(await behaviorOf('zgrep x')).toBe('allow');
  });

  it('a program the table does not know is not taken to recurse', async () => {
    expect(await behaviorOf('frobnicate -r')).toBe('allow');
    expect(await behaviorOf('frobnicate -r .')).toBe('allow');
  });

  it('a copier given a directory reads everything in it', async () => {
    expect(await behaviorOf('scp -r . h:')).toBe('ask');
    expect(await behaviorOf('scp . h:')).toBe('ask');
    expect(await behaviorOf('rsync -a . h:')).toBe('ask');
    expect(await behaviorOf('scp README.md h:')).toBe('allow');
    // A reader given a directory does not read what is inside it.
    expect(await behaviorOf('cat .')).toBe('allow');
  });
});
