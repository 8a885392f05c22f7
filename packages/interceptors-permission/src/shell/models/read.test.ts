/**
 * read and mapfile assign names: a subscript in a name is evaluated as arithmetic, command
 * substitutions included, and mapfile's `-C CALLBACK` evaluates its callback as code. Without a
 * model, `Bash(read:*)` allowed `read 'a[$(touch src/pwned)]' <<< x`, which ran touch (bash 5.2);
 * each shape runs for real first.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
writeFileSync(join(root, 'lines.txt'), 'a\nb\n');
const { behaviorOf, explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Bash(read:*)', 'Bash(mapfile:*)', 'Bash(readarray:*)'],
    deny: ['Bash(touch:*)'],
  },
});
/** Whether `line` creates src/pwned, run in a fresh copy of the project. */
const pwns = (line: string): boolean => {
  const copy = join(mkdtempSync(join(tmpdir(), 'read-')), 'p');
  cpSync(root, copy, { recursive: true, verbatimSymlinks: true });
  spawnSync('bash', ['-c', line], { cwd: copy });
  return existsSync(join(copy, 'src', 'pwned'));
};

describe('read and mapfile', () => {
  it.each([
    "read 'a[$(touch src/pwned)]' <<< x",
    "read -r x 'a[$(touch src/pwned)]' <<< 'y z'",
    "mapfile -C 'touch src/pwned; :' -c 1 arr < lines.txt",
    "readarray -t -C 'touch src/pwned; :' -c 1 arr < lines.txt",
  ])('%s runs a command, and asks', async (line) => {
    expect(pwns(line)).toBe(true);
    const decision = await explain(line);
    expect(decision.behavior).toBe('ask');
  });

  it('read -a with a subscript asks too (bash refuses such an array name: asking costs nothing)', async () => {
    expect(await behaviorOf("read -a 'a[$(touch src/pwned)]' <<< x")).toBe('ask');
    expect(await behaviorOf("read -ra'a[$(touch src/pwned)]' <<< x")).toBe('ask');
  });

  it('a name not known before it runs, or one that changes later commands, asks', async () => {
    expect(await behaviorOf('read "$n" <<< x')).toBe('ask');
    expect(await behaviorOf('read PATH <<< /tmp')).toBe('ask');
  });

  it('plain names and numeric subscripts are allowed', async () => {
    expect(await behaviorOf('read -r line <<< x')).toBe('allow');
    expect(await behaviorOf('read -r -p "name? " -t 5 a b <<< x')).toBe('allow');
    expect(await behaviorOf("read -d '' -a parts <<< x")).toBe('allow');
    expect(await behaviorOf('read "a[0]" <<< x')).toBe('allow');
    expect(await behaviorOf('mapfile -t lines < lines.txt')).toBe('allow');
    expect(await behaviorOf('readarray -n 2 -s 1 lines < lines.txt')).toBe('allow');
  });
});
