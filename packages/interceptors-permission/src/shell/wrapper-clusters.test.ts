/**
 * A wrapper's short options given together, as getopt reads them: letters are flags up to the
 * first that takes a value, which takes the rest of the word or else the next word. The wrappers'
 * reader took a cluster for one unknown flag, so `xargs -ra.env echo` (found by the option-spelling
 * property) printed .env under `Read(./.env)` with `Bash(xargs:*)` allowed, and `xargs -ra .env
 * echo` took `.env` for the command; another option's separated value (`-I {}`) ended the search
 * for `-a`. Each xargs shape runs for real first.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../test/helpers';

const { root, home } = makeProject();
const { behaviorOf } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Bash(xargs:*)', 'Bash(echo:*)', 'Bash(time:*)'],
    deny: ['Read(./.env)', 'Edit(./src/**)'],
  },
});
const printed = (line: string): string =>
  spawnSync('bash', ['-c', line], { cwd: root, encoding: 'utf8' }).stdout;

const XARGS = [
  'xargs -ra.env echo',
  'xargs -0a.env echo',
  'xargs -ra .env echo',
  'xargs -rta .env echo',
  'xargs -I {} -a .env echo {}',
  'xargs -n 1 -a .env echo',
  'xargs --max-args 1 -a .env echo',
];

describe('xargs -a in a cluster, or after another option and its value', () => {
  it.each(XARGS)('%s prints .env when run', (line) => {
    expect(printed(line)).toContain('TOKEN=1');
  });
  it.each(XARGS)('%s: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });
  it.each(['xargs -r echo', 'xargs -n 1 echo README.md', 'xargs -ra README.md echo'])(
    '%s: allowed',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );
});

describe('time -o in a cluster', () => {
  it.each(['time -po src/x echo hi', 'time -posrc/x echo hi', 'time -f %e -o src/x echo hi'])(
    '%s writes under src: denied',
    async (line) => {
      expect(await behaviorOf(line)).toBe('deny');
    },
  );
});
