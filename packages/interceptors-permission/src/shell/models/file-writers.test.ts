/**
 * The models of file-writers.ts: programs that write files their operands name without an option
 * saying so. Before them, an allow rule on these programs kept its prefix meaning and read every
 * operand as a file read, so each "write" case below was allowed under an `Edit(./src/**)` deny.
 * Every write case first runs the real program in a copy of the project, to show the write happens
 * (skipped only where the program is not installed; CI installs them).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
writeFileSync(join(root, 'lines.txt'), 'a\nb\nb\nc\n');

const { behaviorOf, explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: [
      'Read(./**)',
      'Bash(cat:*)',
      ...['uniq', 'split', 'csplit', 'gzip', 'gunzip', 'xz', 'zstd', 'patch', 'unzip'].map(
        (p) => `Bash(${p}:*)`,
      ),
    ],
    deny: ['Read(./.env)', 'Edit(./src/**)', 'Bash(rm:*)'],
  },
});

const installed = (program: string): boolean =>
  spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

/** Runs `line` in a fresh copy of the project; returns the files under src/ afterwards. */
const srcAfter = (line: string): string[] => {
  const copy = join(mkdtempSync(join(tmpdir(), 'writers-')), 'p');
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  spawnSync('bash', ['-c', line], { cwd: copy, encoding: 'utf8' });
  return readdirSync(join(copy, 'src')).sort();
};
const SRC_BEFORE = ['a.ts', 'env-link', 'secrets-link', 'sub'];

/** Writes under src/, shown with the real program, and denied. */
const writesUnderSrc: [program: string, line: string][] = [
  ['uniq', 'uniq lines.txt src/x'],
  ['uniq', 'uniq -c lines.txt src/x'],
  ['uniq', 'uniq --skip-chars 1 lines.txt src/x'],
  ['uniq', 'uniq -s1 -- lines.txt src/x'],
  ['split', 'split lines.txt src/piece'],
  ['split', 'split -l1 lines.txt src/piece'],
  ['split', 'split -l 1 lines.txt src/piece'],
  ['split', 'split --lines=1 -d lines.txt src/piece'],
  ['split', 'split -a3 --additional-suffix=.ts lines.txt src/p'],
  ['csplit', 'csplit -f src/p lines.txt 2'],
  ['csplit', 'csplit -fsrc/p lines.txt 2'],
  ['csplit', 'csplit --prefix=src/p lines.txt 2'],
  ['csplit', 'csplit -s --prefix src/p lines.txt 2'],
  ['gzip', 'gzip src/a.ts'],
  ['gzip', 'gzip -k src/a.ts'],
  ['gzip', 'gzip -9 -f src/a.ts'],
  // `-S` takes a value: `-Sct` is the suffix `ct`, not -c (which would only print).
  ['gzip', 'gzip -Sct src/a.ts'],
  ['gzip', 'gzip -S .c src/a.ts'],
  ['gzip', 'gzip -r src'],
  ['gzip', 'gzip -- src/a.ts'],
  ['xz', 'xz src/a.ts'],
  ['xz', 'xz -k src/a.ts'],
  ['zstd', 'zstd -q src/a.ts'],
  ['zstd', 'zstd -q --rm src/a.ts'],
  ['zstd', 'zstd -q README.md -o src/x.zst'],
];

describe('programs that write what their operands name', () => {
  it.each(writesUnderSrc)('%s: %s writes under src/ and is denied', async (program, line) => {
    if (installed(program)) expect(srcAfter(line)).not.toEqual(SRC_BEFORE);
    expect(await behaviorOf(line)).toBe('deny');
  });

  it('gunzip and gzip -d write the file less its suffix, and remove the archive', async () => {
    const copy = join(mkdtempSync(join(tmpdir(), 'writers-')), 'p');
    cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
    spawnSync('gzip', ['-k', 'README.md'], { cwd: copy });
    cpSync(join(copy, 'README.md.gz'), join(root, 'README.md.gz'));
    // Outside src/: allowed. Into src/ (the archive moved there by its name): denied.
    expect(await behaviorOf('gunzip -c README.md.gz')).toBe('allow');
    expect(await behaviorOf('gunzip -f README.md.gz')).toBe('allow');
    expect(await behaviorOf('gunzip src/x.ts.gz')).toBe('deny');
    expect(await behaviorOf('gzip -d src/x.ts.gz')).toBe('deny');
    expect(await behaviorOf('gzip -dc src/x.ts.gz')).toBe('allow');
    expect(await behaviorOf('gzip --decompress --stdout src/x.ts.gz')).toBe('allow');
  });

  it('reads are checked: a compressor or uniq that reads .env is denied', async () => {
    for (const line of [
      'uniq .env',
      'gzip -c .env',
      'gzip -ck .env',
      'zstd -c .env',
      'split .env /tmp/x',
      'csplit .env 1',
    ])
      expect(await behaviorOf(line), line).toBe('deny');
  });

  it('what only reads or writes outside the denied paths is allowed', async () => {
    for (const line of [
      'uniq lines.txt',
      'uniq -c lines.txt out.txt',
      'uniq - out.txt',
      'split -l 1 lines.txt piece',
      'split lines.txt',
      'csplit lines.txt 2',
      'gzip -k README.md',
      'gzip -c src/a.ts',
      'gzip -l README.md.gz',
      'gzip -t README.md.gz',
      'zstd -q README.md',
      'xz -k README.md',
    ])
      expect(await behaviorOf(line), line).toBe('allow');
  });

  it("split --filter runs its command: judged as a command line, so rm's deny holds", async () => {
    if (installed('split')) {
      const copy = join(mkdtempSync(join(tmpdir(), 'writers-')), 'p');
      cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
      spawnSync('split', ['--filter=rm -f src/a.ts', 'lines.txt'], { cwd: copy });
      expect(existsSync(join(copy, 'src', 'a.ts'))).toBe(false);
    }
    expect(await behaviorOf("split --filter='rm -f src/a.ts' lines.txt")).toBe('deny');
    expect(await behaviorOf("split --filter 'rm -f src/a.ts' lines.txt")).toBe('deny');
    expect(await behaviorOf('split --filter="$X" lines.txt')).toBe('ask');
    expect(await behaviorOf("split -l1 --filter='cat > /dev/null' lines.txt")).toBe('allow');
  });

  it('patch and unzip write files named inside their input: asked, unless unzip only lists', async () => {
    for (const line of [
      'patch -p1 -i fix.diff',
      'patch < fix.diff',
      'patch README.md fix.diff',
      'unzip a.zip',
      'unzip -o a.zip -d out',
      'unzip -q a.zip',
      // The password `l`, not -l: unzip extracts.
      'unzip -Pl a.zip',
    ]) {
      const decision = await explain(line);
      expect(decision.behavior, line).toBe('ask');
      expect(decision.reason, line).toMatch(/not known before it runs/);
    }
    for (const line of [
      'unzip -l a.zip',
      'unzip -t a.zip',
      'unzip -p a.zip member',
      'unzip -v a.zip',
    ])
      expect(await behaviorOf(line), line).toBe('allow');
    expect(await behaviorOf('unzip -p .env')).toBe('deny');
  });

  it('an option the models do not know asks, and names the option', async () => {
    for (const [line, option] of [
      ['uniq --bogus lines.txt', '--bogus'],
      ['split -Q lines.txt', '-Q'],
      ['gzip --bogus README.md', '--bogus'],
      ['xz -T0 README.md', '-T'],
    ] as const) {
      const decision = await explain(line);
      expect(decision.behavior, line).toBe('ask');
      expect(decision.reason, line).toContain(option);
    }
  });
});
