/**
 * `ln` makes a second name for a file: reading or writing the link reads or writes the source.
 * Before, the model said ln "only names" its sources, so `ln -s .env x && cat x` printed `.env`
 * under `Read(./.env)` with `Bash(ln:*)` and `Bash(cat:*)` (the link did not exist when the line
 * was judged, so `cat x` looked harmless). Each shape runs for real first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
mkdirSync(join(root, 'docs'));
const { behaviorOf, explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Read(./**)', 'Bash(ln:*)', 'Bash(cat:*)', 'Bash(grep:*)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)'],
  },
});
/** Runs `line` in a fresh copy of the project; returns what it printed. */
const printed = (line: string): string => {
  const copy = join(mkdtempSync(join(tmpdir(), 'ln-')), 'p');
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  return spawnSync('bash', ['-c', line], { cwd: copy, encoding: 'utf8' }).stdout;
};

describe('a link reads and writes its source', () => {
  it.each([
    'ln -s .env x && cat x',
    'ln .env x && cat x',
    'ln -sf .env README.md; cat README.md',
    'ln -s ../.env docs/x; cat docs/x',
    'ln -s ../.env docs; cat docs/.env',
    'ln -st docs ../.env; cat docs/.env',
    'ln -s secrets s2 && cat s2/key',
    'ln --symbolic .env x && cat x',
    // `-S` takes a value: `-Ss` is the backup suffix `s`, so this is a hard link to ./.env (an
    // early version read the `s` as -s and took .env from the link's directory, docs/).
    'ln -Ss .env docs/y && cat docs/y',
    'ln -bSs .env docs/z && cat docs/z',
  ])('%s prints a protected file, and is denied', async (line) => {
    expect(printed(line)).toMatch(/TOKEN=1|k\n/);
    const decision = await explain(line);
    expect(decision.behavior).toBe('deny');
    expect(decision.reason).toMatch(/"ln /);
  });

  it('a link into a protected tree is a write there, denied', async () => {
    expect(await behaviorOf('ln -s src out')).toBe('deny');
    expect(await behaviorOf('ln -s README.md src/a.ts')).toBe('deny');
  });

  it('a link to a directory holding a protected file asks', async () => {
    expect(await behaviorOf('ln -s . x && cat x/.env')).toBe('ask');
  });

  it('a link whose directory is not known before it runs asks', async () => {
    const decision = await explain('ln -s ../README.md "$D"');
    expect(decision.behavior).toBe('ask');
  });

  it('links to what no rule protects are allowed', async () => {
    expect(await behaviorOf('ln -s README.md r')).toBe('allow');
    expect(await behaviorOf('ln -s ../README.md docs/r')).toBe('allow');
    expect(await behaviorOf('ln -s /usr/bin/env e')).toBe('allow');
  });

  it('a path through a file is no directory: a recursive read of one is judged, not thrown', async () => {
    expect(await behaviorOf('grep -r TODO README.md/x')).toBe('allow');
  });
});
