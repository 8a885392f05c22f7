/**
 * What a wrapper runs, as `analyzeShellCommand` reports it: wrapper spellings no other test
 * pinned (the mutation run, `pnpm mutate:permission`, found them without coverage or surviving in
 * shell/unwrap.ts and shell/analyze.ts).
 */
import { describe, expect, it } from 'vitest';
import { analyzeShellCommand } from '../index';

/** Each command as `[argv, via]`, or `[argv, via, why it is not understood]`. */
const runs = async (line: string) => {
  const analysis = await analyzeShellCommand(line, { cwd: '/tmp/p', home: '/tmp/h' });
  return {
    commands: analysis.commands.map((c) => {
      const shown = [c.argv.map((w) => w.value).join(' '), c.via.join(' > ')];
      return c.unknown === undefined ? shown : [...shown, c.unknown];
    }),
    problems: analysis.problems,
  };
};

describe('wrappers seen through', () => {
  it.each([
    ['timeout -- 5 rm x', 'rm x', 'timeout'],
    ['env -- rm x', 'rm x', 'env'],
    ['env -u X rm y', 'rm y', 'env'],
    ['env -S "rm x"', 'rm x', 'env'],
    ['env --split-string="rm x"', 'rm x', 'env'],
    ['chrt 10 rm x', 'rm x', 'chrt'],
    ['taskset -c 1 rm x', 'rm x', 'taskset'],
    ['xargs', 'echo {xargs input}', 'xargs'],
    ['flock /tmp/l -c "rm x"', 'rm x', 'flock'],
    ['bash --norc -c "rm x"', 'rm x', 'bash'],
    // --rcfile takes a value: the file is not the script.
    ['bash --rcfile x.sh -c "rm x"', 'rm x', 'bash'],
    ['sudo -s rm x', 'rm x', 'sudo'],
  ])('%s runs %s', async (line, argv, via) => {
    expect((await runs(line)).commands).toEqual([[argv, via]]);
  });

  it.each([
    // A wrapper with nothing to run is itself the command.
    'nohup',
    'eval',
    // `command -v` only looks the name up; `bash -- FILE` / `bash FILE` run a script file.
    'command -v rm',
    'command -V rm',
    'bash -- x.sh',
    'bash x.sh',
  ])('%s runs itself', async (line) => {
    expect((await runs(line)).commands).toEqual([[line, '']]);
  });
});

describe('wrappers not understood', () => {
  it.each([
    ['env "$X" ls', 'env $X ls', 'env gets "$X", which is not known before it runs'],
    ['env -S', 'env -S', 'env -S splits a string that is not known before it runs'],
    ['env -S "$X"', 'env -S $X', 'env -S splits a string that is not known before it runs'],
    ['env -C /tmp rm x', 'env -C /tmp rm x', 'env -C runs the command in another directory'],
    [
      'env --chdir=/tmp rm x',
      'env --chdir=/tmp rm x',
      'env -C runs the command in another directory',
    ],
    ['chroot /x rm y', 'chroot /x rm y', 'chroot runs its command under another root (/x)'],
    ['chroot', 'chroot', 'chroot runs its command under another root (?)'],
    ['flock l -c "$X"', 'flock l -c $X', 'flock -c runs a string that is not known before it runs'],
    ['flock l -c', 'flock l -c', 'flock -c runs a string that is not known before it runs'],
    [
      'bash -',
      'bash -',
      'bash reads the commands it runs from its standard input, which cannot be checked',
    ],
    ['bash -c', 'bash -c', 'bash -c has no command string'],
    ['sudo -u root -i', 'sudo -u root -i', 'sudo -s / -i starts an interactive shell'],
  ])('%s', async (line, argv, why) => {
    expect((await runs(line)).commands).toEqual([[argv, '', why]]);
  });
});

describe('assignments the analyzer judges', () => {
  it('a loop variable is an assignment', async () => {
    expect((await runs('for PATH in /tmp; do ls; done')).problems).toEqual([
      'the loop sets PATH, which may change what later commands run or load',
    ]);
    expect((await runs('for f in a; do ls; done')).problems).toEqual([]);
  });

  it('an assignment to an array element evaluates its subscript unless it is a number', async () => {
    expect((await runs('a[0]=1')).problems).toEqual([]);
    expect((await runs('a[i]=1')).problems).toEqual([
      'the subscript of a[i] is evaluated as arithmetic, which may run commands',
    ]);
    expect((await runs('a[$(rm x)]=1')).commands).toEqual([['rm x', '']]);
  });
});
