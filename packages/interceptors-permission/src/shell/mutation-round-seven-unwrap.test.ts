/**
 * The seventh round's tests for the shell's option loop (shell/unwrap.ts, `bash` / `sh` / …): the
 * survivors of `:321-367` left "not analysed" by the fourth round. Each test fails under a one-line
 * change that survived (`pnpm mutate:permission`), listed in docs/permission-mutation.md; each
 * shape's meaning was checked with bash 5.2.
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

describe('the end of a shell’s options', () => {
  it.each([
    // `--` and `-` end bash's options: `-c` after them is the name of a script file bash runs
    // (`bash: -c: No such file or directory`), not an option. Were either read as an option to
    // skip, the word after `-c` would be judged as the command line, and the script file (which a
    // read rule may protect, and whose content is not seen) never looked at.
    ['bash -- -c "rm x"', ['bash -- -c rm x']],
    ['bash - -c "rm x"', ['bash - -c rm x']],
    ['sh -- -c "rm x"', ['sh -- -c rm x']],
    ['bash -x -- -c "rm x"', ['bash -x -- -c rm x']],
  ])('%s runs a script file named -c', async (line, expected) => {
    expect(await commands(line)).toEqual(expected);
  });

  it.each([
    // `--init-file FILE` and `--rcfile FILE` take a value: were FILE read as the script, `-c`
    // after it would not be seen, and the command it runs not judged.
    ['bash --init-file f -c "rm x"', ['rm x [bash]']],
    ['bash --rcfile f -c "rm x"', ['rm x [bash]']],
  ])('%s: the option’s value is skipped, and -c is still seen', async (line, expected) => {
    expect(await commands(line)).toEqual(expected);
  });
});
