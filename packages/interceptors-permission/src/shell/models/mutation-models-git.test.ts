/**
 * The git models (git.ts, git-more.ts): which subcommands and options read history, write, run a
 * program or change something. Each case fails under a change the mutation run
 * (`pnpm mutate:permission`) found surviving, or under the old code of a fix made in that round.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../../index';
import { loadShellParser } from '../parser';

/** The project as a real repository, with a change to `.env` stashed. */
const { root, home } = makeProject();
const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: root,
    encoding: 'utf8',
  });
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'init');
writeFileSync(join(root, '.env'), 'TOKEN=stashed-secret\n');
git('stash', '-q');

let policy: PermissionInterceptor;
beforeAll(async () => {
  await loadShellParser();
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: {
      allow: ['Bash(git stash:*)', 'Bash(git config:*)', 'Bash(git tag:*)'],
      deny: ['Read(./.env)', 'Edit(./.git/**)'],
    },
  });
  await policy.ready;
});
const explain = (line: string) => policy.explain(bash(line));

describe('a stash shown with its patch is history: any file ever stashed', () => {
  // Before, `git stash list -p` was read-only and read nothing (list takes log's options), and
  // `git stash show -up` was not seen as showing the patch: both printed .env's stashed change.
  it('prints the stashed change (run for real)', () => {
    expect(git('stash', 'list', '-p').stdout).toContain('stashed-secret');
    expect(git('stash', 'show', '-up').stdout).toContain('stashed-secret');
  });
  it.each([
    'git stash list -p',
    'git stash list --patch',
    'git stash show -p',
    'git stash show -up',
    'git stash show -pu',
    'git stash show --patch',
  ])('%s: asked', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain("it shows the repository's history");
  });
  it.each(['git stash list', 'git stash show', 'git stash show --stat', 'git stash list -u'])(
    '%s: no patch, allowed',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('allow');
    },
  );
});

describe('git config', () => {
  it.each([
    'git config edit',
    'git config core.pager cat',
    'git config --unset core.pager',
    'git config --add core.x y',
  ])('%s writes .git/config: denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });
  it.each([
    'git config core.pager',
    'git config --get core.pager',
    'git config --list',
    'git config -l',
  ])('%s reads: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
});

describe('git tag', () => {
  // Before, --file took a value that is not a file (-F read one): `git tag -a v1 --file .env`
  // was allowed under Read(./.env) and kept .env as the tag's message.
  it.each(['git tag -a v1 --file .env', 'git tag -a v1 --file=.env', 'git tag -a v1 -F .env'])(
    '%s reads .env: denied',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );
  it.each(['git tag', 'git tag -l', "git tag -l 'v*'", 'git tag --list --sort -version:refname'])(
    '%s lists: allowed',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('allow');
    },
  );
});
