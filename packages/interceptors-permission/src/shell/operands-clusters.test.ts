/**
 * Short options given together (`-vf.env`, `-co src/a.ts`): getopt reads the letters as flags up
 * to the first that takes a value, which takes the rest of the word or else the next word. The
 * operand reader only looked for a file option at the start of the word, so `hexdump -vf.env`
 * read `.env` and `iconv -cosrc/a.ts` wrote under `src/` while both were allowed under a path deny.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../index';
import { FILE_PROGRAMS } from './file-programs';
import { fileOperands } from './operands';
import { syntheticWord } from './words';

const words = (line: string) => line.split(' ').map((w) => syntheticWord(w, true));
const valuesOf = (list: readonly { value: string }[]) => list.map((w) => w.value);

/** A letter no table names for `program`: a flag, as far as the reader knows. */
const flagOf = (program: string): string => {
  const spec = FILE_PROGRAMS[program];
  const taken = new Set(
    [...(spec?.values ?? []), ...(spec?.readOpts ?? []), ...(spec?.writeOpts ?? [])].map((o) =>
      o.slice(1),
    ),
  );
  return [...'vqxyzVQ'].find((letter) => !taken.has(letter)) as string;
};

/** Every short option of the table whose value is a file: [program, option, read or write]. */
const FILE_OPTIONS = Object.entries(FILE_PROGRAMS).flatMap(([program, spec]) => [
  ...(spec.readOpts ?? [])
    .filter((o) => /^-[a-zA-Z]$/.test(o))
    .map((o) => [program, o, 'reads'] as const),
  ...(spec.writeOpts ?? [])
    .filter((o) => /^-[a-zA-Z]$/.test(o))
    .map((o) => [program, o, 'writes'] as const),
]);

describe('a file option after flags in one word', () => {
  it('the table has short file options to try', () => {
    expect(FILE_OPTIONS.length).toBeGreaterThan(20);
  });

  it.each(FILE_OPTIONS)('%s: %s after a flag, its value attached', (program, option, into) => {
    const flag = flagOf(program);
    const found = fileOperands(words(`${program} -${flag}${option.slice(1)}the-file other`));
    expect(valuesOf(found[into])).toContain('the-file');
  });

  it.each(FILE_OPTIONS)(
    '%s: %s after two flags, its value the next word',
    (program, option, into) => {
      const flag = flagOf(program);
      const found = fileOperands(
        words(`${program} -${flag}${flag}${option.slice(1)} the-file other`),
      );
      expect(valuesOf(found[into])).toContain('the-file');
    },
  );

  it('a value option in the cluster takes its value, which is no file', () => {
    // `-n` takes a count: `-vn5` is -v, then -n 5; `-vn 5` the same with the value apart.
    expect(valuesOf(fileOperands(words('head -vn5 README.md')).reads)).toEqual(['README.md']);
    expect(valuesOf(fileOperands(words('head -vn 5 README.md')).reads)).toEqual(['README.md']);
  });

  it('a pattern given in a cluster makes the first operand a file (zgrep -ie PATTERN FILE)', () => {
    expect(valuesOf(fileOperands(words('zgrep -ie x .env')).reads)).toEqual(['.env']);
    expect(valuesOf(fileOperands(words('zgrep -iex .env')).reads)).toEqual(['.env']);
  });

  it('a cluster of flags leaves the first operand of chmod its mode', () => {
    expect(valuesOf(fileOperands(words('chmod -v 644 README.md')).writes)).toEqual(['README.md']);
  });
});

describe('decisions: the cluster spellings are denied like the separate ones', () => {
  const { root, home } = makeProject();
  let policy: PermissionInterceptor;
  beforeAll(async () => {
    policy = permissionInterceptor({
      cwd: root,
      home,
      rules: {
        allow: ['Bash(hexdump:*)', 'Bash(iconv:*)', 'Bash(zip:*)', 'Bash(zgrep:*)'],
        deny: ['Read(./.env)', 'Edit(./src/**)'],
      },
    });
    await policy.ready;
  });
  const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

  it.each([
    'hexdump -vf.env README.md',
    'hexdump -vCf.env README.md',
    'hexdump -Cvf .env README.md',
    'zgrep -if.env README.md',
    'zgrep -ie x .env',
    'iconv -cosrc/a.ts README.md',
    'iconv -co src/a.ts README.md',
    'zip -qOsrc/a.zip old.zip',
  ])('%s: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });

  it.each(['hexdump -vC README.md', 'zgrep -ie x README.md', 'iconv -co out.txt README.md'])(
    '%s: allowed',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );

  it.skipIf(spawnSync('hexdump', ['--version']).status !== 0)(
    'hexdump -vf FILE prints FILE in its error, so the read is real',
    () => {
      const file = join(root, 'format');
      writeFileSync(file, 'CANARY-FORMAT\n');
      const run = spawnSync('hexdump', [`-vf${file}`, join(root, 'README.md')], {
        encoding: 'utf8',
      });
      expect(run.stdout + run.stderr).toContain('CANARY-FORMAT');
    },
  );
});
