/**
 * tar's old style (`tar cvfz out.tgz files`): the letters of the first word are options, and those
 * that take a value take the next words in the order of the letters. Read as `-cvfz`, f took the
 * `z` after it as the archive and `src/x.tgz` became a file read into it: the archive written under
 * `src/` was allowed under a `Write(./src/**)` deny.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../../index';

const { root, home } = makeProject();
let policy: PermissionInterceptor;
beforeAll(async () => {
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: { allow: ['Bash(tar:*)'], deny: ['Read(./.env)', 'Write(./src/**)'] },
  });
  await policy.ready;
});
const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

describe('tar in the old style', () => {
  it.each([
    // f is not the last letter: its value is still the word after the letters.
    'tar cvfz src/x.tgz README.md',
    'tar cfz src/x.tgz README.md',
    'tar cfj src/x.tbz README.md',
    'tar cfv src/x.tar README.md',
    // b takes the first word, f the second.
    'tar cvbf 20 src/x.tar README.md',
    'tar cvf src/x.tar README.md',
  ])('%s: the archive is written under src/, denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });

  it.each(['tar cvfz out.tgz .env', 'tar cfT out.tar .env'])(
    '%s: reads .env, denied',
    async (line) => {
      expect(await behaviorOf(line)).toBe('deny');
    },
  );

  it.each(['tar cvfz out.tgz README.md', 'tar tvf old.tar', 'tar tzf old.tgz'])(
    '%s: allowed',
    async (line) => {
      expect(await behaviorOf(line)).toBe('allow');
    },
  );

  it.skipIf(spawnSync('tar', ['--version']).status !== 0)(
    'GNU tar gives f the word after the letters (so the denied write is real)',
    () => {
      const dir = join(root, 'old-style');
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'README.md'), 'readme\n');
      const run = spawnSync('tar', ['cvfz', 'src/x.tgz', 'README.md'], { cwd: dir });
      expect(run.status).toBe(0);
      expect(existsSync(join(dir, 'src', 'x.tgz'))).toBe(true);
      expect(existsSync(join(dir, 'z'))).toBe(false);
    },
  );
});

describe('tar in the old style, run by a git alias', () => {
  // The words an alias runs are read by the operand table, not by tar's model: the table must
  // read the old style too, or in bypassPermissions (where what only asks runs) the write passed.
  let bypass: PermissionInterceptor;
  beforeAll(async () => {
    bypass = permissionInterceptor({
      cwd: root,
      home,
      mode: 'bypassPermissions',
      rules: { allow: ['Bash(git:*)'], deny: ['Write(./src/**)'] },
    });
    await bypass.ready;
  });

  it.each([
    "git -c alias.x='!tar cvfz src/x.tgz README.md' x",
    "git -c alias.x='!tar cfv src/x.tar README.md' x",
    "git -c alias.x='!tar -czf src/x.tgz README.md' x",
  ])('%s: denied', async (line) => {
    expect((await bypass.explain(bash(line))).behavior).toBe('deny');
  });

  it("git -c alias.x='!tar cvfz out.tgz README.md' x: not denied", async () => {
    expect(
      (await bypass.explain(bash("git -c alias.x='!tar cvfz out.tgz README.md' x"))).behavior,
    ).not.toBe('deny');
  });
});
