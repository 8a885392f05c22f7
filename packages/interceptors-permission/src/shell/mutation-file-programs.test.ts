/**
 * The operand table of programs without a model (file-programs.ts): for each option the table
 * names, whether its value is a file read, a file written or neither, and for each program which
 * operands it reads and writes. Each case fails under a one-line change to the table that the
 * mutation run (`pnpm mutate:permission`) found surviving: a value taken for a file denies or asks
 * what touches no protected file, and a file taken for a value lets a protected one through.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';

const { root, home } = makeProject();
let policy: PermissionInterceptor;
beforeAll(async () => {
  // The whole tool is allowed, so only the path rules decide.
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: { allow: ['Bash'], deny: ['Read(./.env)', 'Edit(./src/**)'] },
  });
  await policy.ready;
});
const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

describe('the value of an option that takes one is not a file', () => {
  // A value here is `.env` (or `src/a.ts` for a program that writes its operands): taken for a
  // file, it would be denied. The option's place is chosen so that its value, taken for an
  // operand, is one the program reads or writes (not a searcher's pattern, not chmod's mode).
  const cases: [string, string[]][] = [
    [
      'head OPT .env README.md',
      ['-n', '-c', '--lines', '--bytes', '-s', '--pid', '--sleep-interval'],
    ],
    [
      'tail OPT .env README.md',
      ['-n', '-c', '--lines', '--bytes', '-s', '--pid', '--sleep-interval'],
    ],
    ['hexdump OPT .env README.md', ['-n', '-s', '-e']],
    ['base64 OPT .env README.md', ['-w', '--wrap']],
    ['base32 OPT .env README.md', ['-w', '--wrap']],
    ['basenc OPT .env README.md', ['-w', '--wrap']],
    // One operand is read; two would make the last one written and the first read.
    [
      'xxd OPT .env README.md',
      ['-l', '-s', '-c', '-g', '-o', '-n', '-len', '-seek', '-cols', '-groupsize'],
    ],
    [
      'od OPT .env README.md',
      [
        '-A',
        '-t',
        '-N',
        '-j',
        '-w',
        '--address-radix',
        '--format',
        '--read-bytes',
        '--skip-bytes',
        '--width',
      ],
    ],
    [
      'cut OPT .env README.md',
      ['-d', '-f', '-b', '-c', '--delimiter', '--fields', '--bytes', '--characters'],
    ],
    ['iconv OPT .env README.md', ['-f', '-t', '--from-code', '--to-code']],
    // The pattern is given by -e, so every operand is a file.
    [
      'zgrep -e x OPT .env README.md',
      [
        '-m',
        '-A',
        '-B',
        '-C',
        '-d',
        '-D',
        '--max-count',
        '--context',
        '--after-context',
        '--before-context',
        '--include',
        '--exclude',
        '--exclude-dir',
        '--color',
        '--colour',
        '--label',
      ],
    ],
    // The first operand is the pattern: `.env` here is a pattern unless the value is taken for it.
    ['ag OPT x .env README.md', ['-G', '-m', '-A', '-B', '-C', '--ignore']],
    ['ack OPT x .env README.md', ['-m', '-A', '-B', '-C', '--type']],
    ['yq OPT x .env README.md', ['--arg', '-o', '--output-format', '-p', '--input-format']],
    // Every operand but the last is read.
    [
      'rsync OPT .env README.md backup/',
      ['-e', '--rsh', '--exclude', '--include', '--filter', '--chmod'],
    ],
    ['scp OPT .env README.md host:', ['-P', '-o', '-c', '-l']],
    // Every operand is written.
    ['touch OPT src/a.ts README.md', ['-d', '-t', '-r', '--date', '--reference']],
    ['mkdir OPT src/a.ts new', ['-m', '--mode']],
    ['truncate OPT src/a.ts README.md', ['-s', '--size', '-r', '--reference']],
    ['shred OPT src/a.ts README.md', ['-n', '-s', '--iterations', '--size']],
    // After the owner, every operand is written.
    ['chown me OPT src/a.ts README.md', ['--from']],
    // The archive is written, the rest read.
    [
      'zip out.zip OPT .env README.md',
      ['-x', '-i', '-n', '-t', '-tt', '-P', '--password', '-Z', '-s'],
    ],
  ];
  const lines = cases.flatMap(([shape, options]) =>
    options.map((option) => shape.replace('OPT', option)),
  );
  it.each(lines)('%s: allowed', async (line) => {
    expect(await behaviorOf(line)).toBe('allow');
  });
  it.each([
    'zgrep -e x --max-count=.env README.md',
    'head --lines=.env README.md',
    'touch --reference=.env README.md',
    'chmod --reference=README.md README.md',
    // --reference reads the mode of the file it names, not its content.
    'chmod --reference=.env README.md',
    'chgrp --reference=.env README.md',
    'chown --reference=.env README.md',
  ])('%s (the value attached): allowed', async (line) => {
    expect(await behaviorOf(line)).toBe('allow');
  });
});

describe('an option whose value is a file', () => {
  it.each([
    // Read: its content is used (and a bad format or pattern file is printed in the error).
    'hexdump -f .env README.md',
    'hexdump -f.env README.md',
    'zgrep --file .env README.md',
    'zgrep --file=.env README.md',
    'scp -i .env a host:',
    'scp -F .env a host:',
    // Written.
    'iconv --output src/a.ts README.md',
    'iconv -osrc/a.ts README.md',
    'zip -O src/a.zip old.zip',
    'zip --output-file src/a.zip old.zip',
    'zip -Osrc/a.zip old.zip',
    'zip -b src out.zip README.md',
    'zip --temp-path src out.zip README.md',
    // After =, or attached: the value is no operand, so only the table makes it written.
    'zip --output-file=src/a.zip old.zip',
    'zip --temp-path=src out.zip README.md',
    'zip -bsrc out.zip README.md',
  ])('%s: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
});

describe("a searcher's pattern comes first, unless an option gives it", () => {
  it.each([
    // The pattern is given by an option, so `.env` before it is a file.
    'zgrep .env -e x',
    'zgrep .env --regexp x',
    'zgrep .env --regexp=x',
    'zgrep .env -f README.md',
    'zgrep .env --file README.md',
  ])('%s reads .env: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
  it.each(['zgrep .env README.md', 'ag .env README.md', 'ack .env README.md', 'yq .env README.md'])(
    '%s: .env is the pattern, allowed',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );
  it('ack with no path searches the working directory, which holds .env: asked', async () => {
    expect(await behaviorOf('ack x')).toBe('ask');
    expect(await behaviorOf('ack x README.md')).toBe('allow');
  });
});

describe('which operands are written', () => {
  it.each([
    'rm src/a.ts',
    'rmdir src/sub',
    'unlink src/a.ts',
    'mkdir src/b',
    'truncate -s 0 src/a.ts',
    'shred src/a.ts',
    'chown me src/a.ts',
    'chgrp staff src/a.ts',
    'rsync README.md src/',
    'scp host:a src/a.ts',
  ])('%s writes under src: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
  it.each([
    'chgrp src/a.ts README.md',
    'chown src/a.ts README.md',
    'rsync src/a.ts backup/',
    'scp src/a.ts host:',
  ])('%s only names src/a.ts as a mode, an owner or a source: allowed', async (line) => {
    expect(await behaviorOf(line)).toBe('allow');
  });
});

describe('chmod, chown and chgrp --reference: the first operand is a file too', () => {
  // Before, the first operand was always skipped as the mode or the owner, so
  // `chmod --reference=README.md src/a.ts` changed src/a.ts under an Edit deny, without a question.
  it('changes the file it names (run for real)', () => {
    const dir = makeProject().root;
    const file = join(dir, 'src', 'a.ts');
    spawnSync('chmod', ['600', file]);
    const done = spawnSync('chmod', ['--reference=README.md', 'src/a.ts'], { cwd: dir });
    expect(done.status).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(statSync(join(dir, 'README.md')).mode & 0o777);
  });
  it.each([
    'chmod --reference=README.md src/a.ts',
    'chmod --reference README.md src/a.ts',
    'chown --reference=README.md src/a.ts',
    'chgrp --reference README.md src/a.ts',
  ])('%s: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
  it('without it, the first operand is still the mode', async () => {
    expect(await behaviorOf('chmod src/a.ts README.md')).toBe('allow');
  });
});

describe('hexdump -f reads its format from a file', () => {
  // Before, -f took a value that is not a file: `hexdump -f .env README.md` was allowed under a
  // Read(./.env) deny, and hexdump prints a format it cannot read in its error message.
  it('prints the file in its error (run for real)', () => {
    const done = spawnSync('hexdump', ['-f', '.env', 'README.md'], { cwd: root, encoding: 'utf8' });
    expect(done.stderr).toContain('TOKEN=1');
  });
  it.each(['hexdump -f .env README.md', 'hexdump -C -f.env README.md'])(
    '%s: denied',
    async (line) => {
      expect(await behaviorOf(line)).toBe('deny');
    },
  );
});

describe('programs with a model, run by a git alias: the table decides deny or ask', () => {
  // A git alias that runs a program (`-c alias.x='!sort -o src/a.ts README.md' x`) asks under a
  // rule for git (the configuration is not one known to be safe), and the words it runs are found
  // by this table, not by the program's model. Whether a path rule denies it or it only asks
  // matters: in bypassPermissions mode what only asks runs.
  const alias = (line: string) => `git -c alias.x='!${line}' x`;
  it.each([
    // Written: the option's value, the last operand, every operand, a file edited in place.
    'sort -o src/a.ts README.md',
    'sort --output src/a.ts README.md',
    'sed -i p src/a.ts',
    'cp README.md src/a.ts',
    'cp -t src README.md',
    'cp --target-directory src README.md',
    'mv README.md src/a.ts',
    'mv -t src README.md',
    'mv --target-directory src README.md',
    // After = or attached the value is no operand: only the table makes it written.
    'mv --target-directory=src README.md',
    'mv -tsrc README.md',
    'cp -tsrc README.md',
    'ln --target-directory=src README.md',
    'install README.md src/a.ts',
    'install -t src README.md',
    'install --target-directory src README.md',
    'ln README.md src/a.ts',
    'ln -t src README.md',
    'ln --target-directory src README.md',
    'tee src/a.ts',
    'dd of=src/a.ts',
    'tar -c -f src/a.tar README.md',
    'tar -c --file src/a.tar README.md',
    // Read: the option's value, an operand before the pattern given by option.
    'dd if=.env',
    'mv .env out',
    'grep .env -e x',
    'grep .env -f README.md',
    'grep .env --regexp x',
    'grep .env --file README.md',
    'grep -f.env x',
    'egrep .env -e x',
    'egrep .env -f README.md',
    'egrep -f.env x',
    'fgrep .env -e x',
    'fgrep .env -f README.md',
    'fgrep -f.env x',
    'rg .env -e x',
    'rg .env -f README.md',
    'rg .env --regexp x',
    'rg .env --file README.md',
    'rg .env --files',
    'rg -f.env x',
    'rg --ignore-file .env x',
    'sed .env -e p',
    'sed .env -f README.md',
    'sed .env --expression p',
    'sed .env --file README.md',
    'sed -f.env README.md',
    'awk .env -f README.md',
    'awk .env --file README.md',
    'awk -f.env README.md',
    'gawk .env -f README.md',
    'gawk .env --file README.md',
    'gawk -f.env README.md',
    'mawk .env -f README.md',
    'mawk -f.env README.md',
    'nawk .env -f README.md',
    'nawk -f.env README.md',
    'jq --slurpfile .env . x',
    'jq --rawfile .env . x',
    'jq --from-file .env x',
    'jq -f .env x',
    'tar -c -T .env -f out.tar',
    'tar -c --files-from .env -f out.tar',
  ])('%s: denied', async (line) => {
    const d = await policy.explain(bash(alias(line)));
    expect(d.behavior, d.reason).toBe('deny');
  });
  const valueCases: [string, string[]][] = [
    [
      'sort OPT .env README.md',
      ['-k', '-t', '-S', '-T', '--key', '--field-separator', '--buffer-size'],
    ],
    ['sed -e p OPT .env README.md', ['-l', '--line-length']],
    ['awk -f p.awk OPT .env README.md', ['-v', '-F', '--assign', '--field-separator']],
    ['gawk -f p.awk OPT .env README.md', ['-v', '-F', '--assign', '--field-separator']],
    ['mawk -f p.awk OPT .env README.md', ['-v', '-F']],
    ['nawk -f p.awk OPT .env README.md', ['-v', '-F']],
    ['jq OPT=.env . README.md', ['--arg', '--argjson', '--indent', '--tab']],
    [
      'rg -e x OPT .env README.md',
      [
        '-g',
        '-t',
        '-T',
        '-m',
        '-A',
        '-B',
        '-C',
        '-j',
        '-M',
        '-E',
        '-r',
        '--glob',
        '--type',
        '--type-not',
        '--max-count',
        '--context',
        '--replace',
        '--encoding',
        '--max-columns',
        '--threads',
        '--sort',
        '--sortr',
        '--color',
        '--colors',
      ],
    ],
    ['cp OPT .env README.md out', ['-S', '--suffix']],
    ['mv OPT .env README.md out', ['-S', '--suffix']],
    ['install OPT .env README.md out', ['-m', '-o', '-g', '--mode', '--owner', '--group']],
    ['tar -c OPT .env -f out.tar README.md', ['-C', '--directory', '--exclude']],
  ];
  it.each([
    ...valueCases.flatMap(([shape, options]) => options.map((o) => shape.replace('OPT', o))),
    // The first operand of a searcher is its pattern.
    'grep .env README.md',
    'egrep .env README.md',
    'fgrep .env README.md',
    'rg .env README.md',
    'sed .env README.md',
    'awk .env README.md',
    'gawk .env README.md',
    'mawk .env README.md',
    'nawk .env README.md',
    'jq .env README.md',
    // A file read by sed, not written.
    'sed p src/a.ts',
  ])('%s: the value is no file, not denied', async (line) => {
    // The whole tool is allowed here, so what no path rule denies is allowed.
    const d = await policy.explain(bash(alias(line)));
    expect(d.behavior, d.reason).toBe('allow');
  });
});

it('rg given no path searches the working directory, which holds .env: asked, through an alias too', async () => {
  const d = await policy.explain(bash("git -c alias.x='!rg x' x"));
  expect(d.behavior, d.reason).toBe('ask');
  expect((await policy.explain(bash("git -c alias.x='!rg x README.md' x"))).behavior).toBe('allow');
});
