/**
 * `env -S STRING WORDS…` runs STRING split into words followed by WORDS: GNU env appends them. The
 * model judged STRING alone, so `env -S cat .env` was `cat` (allowed under `Bash(cat:*)`) and
 * printed .env under `Read(./.env)`; `-Scat` and clusters such as `-iScat` were not read as `-S`
 * at all (`.env` was taken for the program, allowed under a whole-tool `Bash` allow). Found by the
 * eighth mutation round (glue8). Each shape runs for real first.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../test/helpers';
import { envOption } from './env-options';

const { root, home } = makeProject();
const byPrefix = filePolicy({
  cwd: root,
  home,
  rules: { allow: ['Bash(cat:*)', 'Bash(env:*)'], deny: ['Read(./.env)'] },
});
const wholeTool = filePolicy({
  cwd: root,
  home,
  rules: { allow: ['Bash'], deny: ['Read(./.env)'] },
});

const printed = (line: string): string =>
  spawnSync('bash', ['-c', line], { cwd: root, encoding: 'utf8' }).stdout;
const envSplits = printed('env -S "echo x" y') === 'x y\n';

const ATTACKS = [
  'env -S cat .env',
  'env -S "cat" .env',
  'env -S "cat -n" .env',
  'env --split-string=cat .env',
  'env --split-string cat .env',
  'env --sp=cat .env',
  'env -Scat .env',
  'env -iScat .env',
  'env -iS cat .env',
  'env -u X -S cat .env',
  'env -S cat -- .env',
];

describe('env -S with words after its string', () => {
  it.runIf(envSplits).each(ATTACKS)('%s prints .env when run', (line) => {
    expect(printed(line)).toContain('TOKEN=1');
  });
  it.each(ATTACKS)(
    '%s: denied under Bash(cat:*) and under a whole-tool Bash allow',
    async (line) => {
      expect(await byPrefix.behaviorOf(line)).toBe('deny');
      expect(await wholeTool.behaviorOf(line)).toBe('deny');
    },
  );
  it.each([
    'env -S cat README.md',
    "env -S 'cat -n README.md'",
    'env -i cat README.md',
    'env - cat README.md',
  ])('%s: allowed', async (line) => {
    expect(await byPrefix.behaviorOf(line)).toBe('allow');
  });
  it.each(['env --frobnicate cat README.md', 'env -x cat README.md', 'env --s cat README.md --'])(
    '%s: an option the model does not know asks',
    async (line) => {
      const decision = await byPrefix.explain(line);
      if (line.startsWith('env --s ')) {
        // `--s` is `--split-string` abbreviated: cat README.md -- is judged.
        expect(decision.behavior).toBe('allow');
      } else {
        expect(decision.behavior).toBe('ask');
        expect(decision.reason).toContain('env option');
      }
    },
  );
  it('env -C and --chdir (abbreviated too) ask: the command runs elsewhere', async () => {
    for (const line of [
      'env -C /tmp cat README.md',
      'env -iC/tmp cat README.md',
      'env --ch=/tmp cat README.md',
    ]) {
      expect(await byPrefix.behaviorOf(line), line).toBe('ask');
    }
  });
});

describe('envOption: getopt reading of one word', () => {
  it.each([
    ['X=1', undefined],
    ['cat', undefined],
    ['-', {}],
    ['-i', {}],
    ['-i0v', {}],
    ['-u', { takesNext: true }],
    ['-uX', { takesNext: false }],
    ['-iuX', { takesNext: false }],
    ['--unset', { takesNext: true }],
    ['--unset=X', { takesNext: false }],
    ['--ignore-environment', { takesNext: false }],
    ['--ignore-e', { takesNext: false }],
    // Ambiguous: --ignore-environment and --ignore-signal.
    ['--ig', 'unknown'],
    ['-x', 'unknown'],
    ['-ix', 'unknown'],
    ['--', 'unknown'],
    ['--nope', 'unknown'],
    ['--d', 'unknown'],
  ])('%s', (word, expected) => {
    const option = envOption(word);
    if (typeof expected === 'object') expect(option).toMatchObject(expected);
    else expect(option).toBe(expected);
  });
  it('-S with its value attached, separated, or long', () => {
    expect(envOption('-Scat')).toMatchObject({ split: true, value: { value: 'cat' } });
    expect(envOption('-S')).toMatchObject({ split: true, takesNext: true, value: undefined });
    expect(envOption('--split-string=cat -n')).toMatchObject({
      split: true,
      value: { value: 'cat -n' },
    });
    expect(envOption('--spl')).toMatchObject({ split: true, takesNext: true });
  });
});
