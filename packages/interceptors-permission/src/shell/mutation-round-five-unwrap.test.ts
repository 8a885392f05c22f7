// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell words, not templates
/**
 * The fifth round's tests for shell/unwrap.ts: what a wrapper's words that are not known say,
 * `env` with nothing to run, `env -C`, `command`'s own options and `coproc NAME`. Each test fails
 * under a one-line change that survived the mutation runs (`pnpm mutate:permission`), listed in
 * docs/permission-mutation.md.
 */
import { describe, expect, it } from 'vitest';
import { analyzeShellCommand } from '../index';

const analysis = (line: string) => analyzeShellCommand(line, { cwd: '/tmp/p', home: '/tmp/h' });
/** Each command as `words [via] (why it is not known)`. */
const commands = async (line: string) =>
  (await analysis(line)).commands.map(
    (c) =>
      `${c.argv.map((w) => w.value).join(' ')}${c.via.length > 0 ? ` [${c.via.join(' ')}]` : ''}${c.unknown === undefined ? '' : ` (${c.unknown})`}`,
  );

describe("a wrapper's option not known before it runs", () => {
  it('is the reason the command is not known', async () => {
    // Were the message taken for an index, the wrapper would be unwrapped again and again until
    // the stack ran out, and the reason would be lost.
    expect(await commands('timeout $x rm x')).toEqual([
      'timeout $x rm x (an option of timeout is not a literal word ($x))',
    ]);
    expect((await analysis('timeout $x rm x')).problems).toEqual([]);
  });
});

describe('env', () => {
  it('with only assignments runs nothing more, and each assignment is a doubt', async () => {
    // Were the loop to read one word past the end, this line would throw.
    expect(await commands('env A=1')).toEqual([
      'A=1 (env sets A, which may change what the command runs or loads)',
      'env A=1',
    ]);
    expect(await commands('env -i')).toEqual(['env -i']);
  });

  it.each(['env -C /tmp rm x', 'env --chdir /tmp rm x', 'env --chdir=/tmp rm x'])(
    '%s runs its command elsewhere: not known',
    async (line) => {
      expect(await commands(line)).toEqual([
        `${line} (env -C runs the command in another directory)`,
      ]);
    },
  );

  it('an option that only starts like --chdir is not -C', async () => {
    // env refuses an option it does not know: the model judges what env would run (a deny on rm
    // holds) and asks for the option, rather than taking it for -C (which hides the command).
    expect(await commands('env --chdirx rm x')).toEqual([
      '--chdirx [env] (env option --chdirx is not one the model knows)',
      'rm x [env]',
    ]);
    expect(await commands('env -i rm x')).toEqual(['rm x [env]']);
  });
});

describe("command's own options", () => {
  it('end at the first word that is not an option, or at --', async () => {
    // `-v` after the name (or after --) is the command's own option: rm runs.
    expect(await commands('command rm -v x')).toEqual(['rm -v x [command]']);
    expect(await commands('command -- rm -v x')).toEqual(['rm -v x [command]']);
    expect(await commands('command -p rm -v x')).toEqual(['rm -v x [command]']);
    // `-v` or `-V` among command's own options only looks a name up.
    expect(await commands('command -v rm')).toEqual(['command -v rm']);
    expect(await commands('command -p -V rm')).toEqual(['command -p -V rm']);
    expect(await commands('command -pv rm')).toEqual(['command -pv rm']);
    // After --, even a word like -v is the program that runs.
    expect(await commands('command -- -v x')).toEqual(['-v x [command]']);
  });
});

describe('coproc', () => {
  it('NAME before a compound command names it; the compound command runs', async () => {
    expect(await commands('coproc NAME { rm x; }')).toContainEqual('rm x [coproc]');
    expect(await commands('coproc _n1 { rm x; }')).toContainEqual('rm x [coproc]');
    expect(await commands('coproc { rm x; }')).toContainEqual('rm x [coproc]');
  });

  it('a word that is not a name, or not followed by { or (, is the command', async () => {
    // `coproc NAME rm x` runs NAME (bash names only a compound command's coprocess).
    expect(await commands('coproc NAME rm x')).toEqual(['NAME rm x [coproc]']);
    expect(await commands('coproc rm x')).toEqual(['rm x [coproc]']);
    expect((await commands('coproc a-b { rm x; }'))[0]).toBe('a-b { rm x [coproc]');
    expect(await commands("coproc '' rm x")).toEqual([' rm x [coproc]']);
    expect((await commands('coproc 1x { rm x; }'))[0]).toBe('1x { rm x [coproc]');
    expect((await commands('coproc $n { rm x; }'))[0]).toBe(
      '$n { rm x [coproc] (the command name $n is not known before it runs (expansion or substitution))',
    );
  });

  it('alone runs nothing more', async () => {
    // Were argv[1] read without a check, this line would throw.
    expect(await commands('coproc')).toEqual(['coproc']);
  });
});

describe('exec', () => {
  it('runs its command', async () => {
    expect(await commands('exec rm x')).toEqual(['rm x [exec]']);
  });
});

describe('eval and watch', () => {
  it('run their words as a line of their own', async () => {
    expect(await commands('eval ls x')).toEqual(['ls x [eval]']);
    expect(await commands('watch ls x')).toEqual(['ls x [watch]']);
    // With no words they run nothing, and the line is eval itself.
    expect(await commands('eval')).toEqual(['eval']);
  });

  it('name the word not known before it runs', async () => {
    expect(await commands('eval $x')).toEqual([
      'eval $x (eval runs $x, which is not known before it runs)',
    ]);
    expect(await commands('watch ls $x')).toEqual([
      'watch ls $x (watch runs $x, which is not known before it runs)',
    ]);
  });
});

describe('the wrappers of unwrap.ts:241-367, each as the analysis shows it', () => {
  // What a wrapper runs (`[via]`), or why it is not known: each line is one shape of sudo, xargs,
  // flock, watch, chroot, chrt / taskset and the shells' options.
  it.each([
    ['sudo rm x', ['rm x [sudo]']],
    ['sudo -u root rm x', ['rm x [sudo]']],
    ['sudo -Es', ['sudo -Es (sudo -s / -i starts an interactive shell)']],
    ['sudo -u root -i', ['sudo -u root -i (sudo -s / -i starts an interactive shell)']],
    ['sudo --login', ['sudo --login (sudo -s / -i starts an interactive shell)']],
    ['sudo --shell', ['sudo --shell (sudo -s / -i starts an interactive shell)']],
    ['sudo -v', ['sudo -v']],
    // With a command after it, sudo -s runs that command (through the shell's -c).
    ['sudo -s rm x', ['rm x [sudo]']],
    ['sudo --list', ['sudo --list']],
    ['sudo', ['sudo']],
    ['sudo $x rm', ['sudo $x rm (an option of sudo is not a literal word ($x))']],
    ['xargs rm', ['rm {xargs input} [xargs]']],
    ['xargs', ['echo {xargs input} [xargs]']],
    ['xargs -n 1 rm x', ['rm x {xargs input} [xargs]']],
    ['xargs $x rm', ['xargs $x rm (an option of xargs is not a literal word ($x))']],
    ['flock lk -c "rm x"', ['rm x [flock]']],
    ['flock lk --command "rm x"', ['rm x [flock]']],
    [
      'flock lk -c $y',
      ['flock lk -c $y (flock -c runs a string that is not known before it runs)'],
    ],
    ['flock lk -c', ['flock lk -c (flock -c runs a string that is not known before it runs)']],
    ['flock -n lk rm x', ['rm x [flock]']],
    ['flock lk', ['flock lk']],
    ['flock $x rm', ['flock $x rm (an option of flock is not a literal word ($x))']],
    ['watch -n 1 ls x', ['ls x [watch]']],
    ['watch $x', ['watch $x (an option of watch is not a literal word ($x))']],
    ['watch', ['watch']],
    ['chroot /x rm y', ['chroot /x rm y (chroot runs its command under another root (/x))']],
    ['chroot', ['chroot (chroot runs its command under another root (?))']],
    ['chroot $x rm', ['chroot $x rm (an option of chroot is not a literal word ($x))']],
    ['chrt -f 5 rm x', ['rm x [chrt]']],
    ['taskset 1 rm x', ['rm x [taskset]']],
    ['chrt $x rm', ['chrt $x rm (an option of chrt is not a literal word ($x))']],
    ['timeout -s KILL 5 rm x', ['rm x [timeout]']],
    ['bash -c "rm x"', ['rm x [bash]']],
    ['bash --norc -c "rm x"', ['rm x [bash]']],
    ['bash --rcfile f -c "rm x"', ['rm x [bash]']],
    ['bash -o posix -c "rm x"', ['rm x [bash]']],
    ['bash +o posix -c "rm x"', ['rm x [bash]']],
    ['bash -O extglob -c "rm x"', ['rm x [bash]']],
    ['bash -xc "rm x"', ['rm x [bash]']],
    ['sh -ec "rm x"', ['rm x [sh]']],
    [
      'bash -s',
      [
        'bash -s (bash reads the commands it runs from its standard input, which cannot be checked)',
      ],
    ],
    [
      'bash -i',
      [
        'bash -i (bash reads the commands it runs from its standard input, which cannot be checked)',
      ],
    ],
    [
      'bash',
      ['bash (bash reads the commands it runs from its standard input, which cannot be checked)'],
    ],
    [
      'bash -',
      ['bash - (bash reads the commands it runs from its standard input, which cannot be checked)'],
    ],
    ['bash script.sh', ['bash script.sh']],
    ['bash -- script.sh', ['bash -- script.sh']],
    ['bash +x script.sh', ['bash +x script.sh']],
    ['bash +c script.sh', ['bash +c script.sh']],
    ['bash --init-file f script.sh', ['bash --init-file f script.sh']],
    ['bash --verbose script.sh', ['bash --verbose script.sh']],
    ['bash -c', ['bash -c (bash -c has no command string)']],
    ['bash -c $x', ['bash -c $x (bash gets $x, which is not known before it runs)']],
    ['bash $x', ['bash $x (bash gets $x, which is not known before it runs)']],
  ])('%s', async (line, expected) => {
    expect(await commands(line)).toEqual(expected);
  });

  it('the files wrappers open themselves', async () => {
    const files = async (line: string) =>
      (await analysis(line)).redirects.map((r) => `${r.op} ${r.target} ${r.access}`);
    expect(await files('flock lk rm x')).toEqual(['flock lk write']);
    expect(await files('flock 9 rm x')).toEqual([]);
    expect(await files('time -o out rm x')).toEqual(['time -o out write']);
    expect(await files('xargs -a in rm')).toEqual(['xargs -a in read']);
  });
});
