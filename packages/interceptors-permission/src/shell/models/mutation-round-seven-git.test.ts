/**
 * The git models (git-more.ts, git.ts), seventh mutation round: each case fails under a change
 * the run (`pnpm mutate:permission`) found surviving, or under the old code of a fix made in that
 * round. The fixes are shown with the real git first.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, filePolicy, makeProject } from '../../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../../index';

/** The project as a real repository with everything committed, a config-shaped secret among it. */
const { root, home } = makeProject();
const git = (...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd: root,
    encoding: 'utf8',
  });
writeFileSync(join(root, 'secrets', 'db.ini'), '[db]\n\tpassword = hunter2\n');
git('init', '-q');
git('add', '-A');
git('commit', '-qm', 'init');

const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Bash(git:*)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./.git/**)', 'Edit(~/.gitconfig)'],
  },
});
// Plan mode with no rules: a command runs only when its models prove it read-only.
const { explain: inPlan } = filePolicy({ cwd: root, home, mode: 'plan' });

/** Lines whose decision under `policy` is `behavior`. */
const decides = (behavior: 'allow' | 'ask' | 'deny', lines: string[]) =>
  it.each(lines)(`%s: ${behavior}`, async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe(behavior);
  });
/** Lines plan mode runs (proven read-only), or refuses. */
const planRuns = (lines: string[]) =>
  it.each(lines)('%s: runs in plan mode', async (line) => {
    const d = await inPlan(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
const planRefuses = (lines: string[]) =>
  it.each(lines)('%s: not read-only, refused in plan mode', async (line) => {
    const d = await inPlan(line);
    expect(d.behavior, d.reason).not.toBe('allow');
  });

describe('bypasses found in the seventh round, shown with git first', () => {
  // Before, `--oneline` counted among the options that replace the patch, so `git show
  // --oneline` was not history and printed every committed file, .env among them.
  it('git show --oneline and git log --binary print the patch (run for real)', () => {
    expect(git('show', '--oneline', 'HEAD').stdout).toContain('TOKEN=1');
    expect(
      git('diff', '--oneline', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'HEAD').stdout,
    ).toContain('TOKEN=1');
    expect(git('log', '--binary').stdout).toContain('TOKEN=1');
  });
  decides('ask', [
    'git show --oneline HEAD',
    'git show --oneline',
    'git diff --oneline 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD',
    'git log --binary',
    'git whatchanged --binary',
  ]);
  decides('allow', [
    'git show --stat --oneline HEAD',
    'git log --oneline',
    'git show -s --oneline',
  ]);

  // Before, cat-file took everything after the first colon as the path: `:0:.env` (the index's
  // stage 0) read a file named `0:.env`, and .env was printed.
  it('git cat-file -p :0:.env prints .env (run for real)', () => {
    expect(git('cat-file', '-p', ':0:.env').stdout).toBe('TOKEN=1\n');
  });
  decides('deny', [
    'git cat-file -p :0:.env',
    'git cat-file -p :2:secrets/key',
    'git cat-file -p :.env',
    'git cat-file -p HEAD:.env',
    'git cat-file blob HEAD~0:secrets/key',
  ]);

  // Before, --blob took a value that names nothing: the configuration read from a committed
  // file was printed, a protected one too.
  it('git config --blob HEAD:secrets/db.ini --list prints it (run for real)', () => {
    expect(git('config', '--blob', 'HEAD:secrets/db.ini', '--list').stdout).toContain('hunter2');
  });
  decides('deny', [
    'git config --blob HEAD:secrets/db.ini --list',
    'git config --blob=:0:secrets/db.ini --get db.password',
  ]);
  // A blob named by its hash may be any file ever committed.
  decides('ask', ['git config --blob 4b825dc6 --list']);
  decides('allow', ['git config --blob HEAD:README.md --list']);

  // Before, any word `-l` made git tag and git branch list, a value of --format or --sort too:
  // both created a tag or a branch in plan mode. `-u` (set the upstream) was a harmless value.
  it('git tag --format -l v2 and git branch --sort -l topic create them (run for real)', () => {
    git('tag', '--format', '-l', 'v2');
    git('branch', '--sort', '-l', 'topic');
    expect(git('tag').stdout).toContain('v2');
    expect(git('branch').stdout).toContain('topic');
    git('branch', '-u', 'topic');
    expect(git('config', '--get-regexp', '^branch').stdout).toContain('refs/heads/topic');
  });
  planRefuses([
    'git tag --format -l v3',
    'git tag --sort -l v3',
    'git tag --message -l v3',
    'git tag -u -l v3',
    'git branch --format -l topic2',
    'git branch --sort -l topic2',
    'git branch --contains -l topic2',
    'git branch -u topic',
    'git branch -utopic',
    'git --namespace -l branch topic2',
  ]);
  planRuns(['git tag -l v1', "git tag --list 'v*'", 'git branch -l topic', 'git branch --list']);
});

describe('a word before -- that names no file is a revision: history of every file', () => {
  // Before, a word with a slash or a dot was taken for a path that limits the history, but git
  // takes a word that names no file for a revision: `git log -p feature/x`, `git show v1.0` and
  // `git grep TOKEN feature/x` printed .env and were allowed.
  it('git log -p feature/x, git show v1.0 and git grep TOKEN feature/x print .env (run for real)', () => {
    git('branch', 'feature/x');
    git('tag', 'v1.0');
    expect(git('log', '-p', 'feature/x').stdout).toContain('TOKEN=1');
    expect(git('show', 'v1.0').stdout).toContain('TOKEN=1');
    expect(git('diff', '4b825dc642cb6eb9a060e54bf8d69288fbee4904', 'feature/x').stdout).toContain(
      'TOKEN=1',
    );
    expect(git('grep', 'TOKEN', 'feature/x').stdout).toContain('feature/x:.env:TOKEN=1');
  });
  decides('ask', [
    'git log -p feature/x',
    'git log -p origin/main',
    'git show v1.0',
    'git show feature/x',
    'git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 feature/x',
    'git diff v1.0..v2.0',
    'git log -p src/a.ts',
  ]);
  // git grep reads the whole tree of the revision, which holds .env.
  decides('ask', ['git grep TOKEN feature/x', 'git grep -e TOKEN v1.0 README.md']);
  // After --, or spelled as no ref can be (`./x`, a component starting with a dot, a trailing /),
  // a word is a path, and the history is that path's.
  decides('allow', [
    'git log -p -- src/a.ts',
    'git log -p ./src/a.ts',
    'git log -p src/',
    'git show v1.0 -- README.md',
    'git diff HEAD~1 ./README.md',
    'git grep TOKEN feature/x -- README.md',
    'git grep TOKEN HEAD ./README.md',
    'git log --stat feature/x',
  ]);
});

describe('git cat-file', () => {
  // Without the table, -p / -t / --batch-check were options the model does not know: asked.
  decides('allow', [
    'git cat-file -p HEAD:README.md',
    'git cat-file -t HEAD:src/a.ts',
    'git cat-file -s :README.md',
    'git cat-file --textconv HEAD:README.md',
  ]);
  // An object name without a path, or --batch (names from stdin), may show any file committed.
  decides('ask', [
    'git cat-file -p HEAD',
    'git cat-file -p 4b825dc6',
    'git cat-file --batch',
    'git cat-file --batch-check',
    'git cat-file --batch-all-objects --batch-check',
  ]);
  // `HEAD:` names the root tree: its listing of names reads the directory.
  it('git cat-file -p HEAD: reads the top directory', async () => {
    const d = await explain('git cat-file -p HEAD:');
    expect(d.behavior, d.reason).toBe('allow');
  });
});

describe('git describe and shortlog read their options', () => {
  // Without their tables, every option was one the model does not know: asked.
  decides('allow', [
    'git describe --tags',
    "git describe --match 'v*' --abbrev=4",
    'git describe --dirty',
    'git shortlog -sn',
    'git shortlog -sw76,4,8',
    'git shortlog --summary --group author',
  ]);
  planRuns(['git describe --always', 'git shortlog -s']);
});

describe('git tag', () => {
  decides('allow', ['git tag --list', 'git tag -n5', 'git tag --sort=-version:refname']);
  // A flag given a value is an option the model does not know.
  decides('ask', ['git tag --list=x']);
  planRuns(['git tag', 'git tag -l', "git tag -l 'rc-m*'", 'git tag -n3 -l']);
  // A name given without -l creates the tag; -m / -F / an option that changes never only lists.
  planRefuses([
    'git tag v9',
    'git tag release-l',
    'git tag -l -d v1',
    'git tag -l -mmsg',
    'git tag -l --message=m',
    'git tag -l --file=README.md',
    'git tag -l -FREADME.md',
  ]);
});

describe('git remote', () => {
  planRuns(['git remote', 'git remote -v', 'git remote get-url origin']);
  // show, update and prune ask the remote; add, set-url and the others change the configuration.
  planRefuses([
    'git remote show origin',
    'git remote update',
    'git remote prune origin',
    'git remote add x /tmp',
    'git remote set-url origin /tmp',
  ]);
});

describe('git config', () => {
  // Setting a value writes .git/config, or ~/.gitconfig with --global.
  decides('deny', [
    'git config core.pager x--list',
    'git config -- core.pager -less',
    'git config core.pager my--global',
  ]);
  it('git config --global writes ~/.gitconfig', async () => {
    const d = await explain('git config --global core.pager cat');
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain('Edit(~/.gitconfig)');
    expect(d.reason).toContain('git config');
  });
  it('git config without --global writes .git/config', async () => {
    const d = await explain('git config core.pager cat');
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain('Edit(./.git/**)');
  });
  // One operand is a key read, `--add` or the like aside.
  decides('allow', ['git config a.b--add', 'git config --get-regexp core']);
  planRuns(['git config core.pager', 'git config -l']);
  planRefuses(['git config core.pager cat', 'git config edit']);
});

describe('git stash', () => {
  // `git stash` alone pushes: no operand is no error.
  decides('allow', ['git stash', 'git stash show topic-p']);
  planRuns(['git stash list', 'git stash show']);
  planRefuses(['git stash', 'git stash pop', 'git stash drop']);
});

describe('git global options', () => {
  // -c with a key that only changes how output looks, and -C . (this repository), are safe;
  // without the checks, they asked (or every -c key became an alias).
  decides('allow', [
    'git',
    'git --version',
    'git -c color.ui=always status',
    'git -C . status',
    'git -C ./ status',
  ]);
  // A pager runs a program, however the key is cased; another directory has its own config.
  decides('ask', ['git -c pager.log=cat log', 'git -c Pager.log=cat log', 'git -C src status']);
  it('git --exec-path=DIR says why it asks', async () => {
    const d = await explain('git --exec-path=/tmp status');
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain('runs programs from there');
  });
});

describe('git log -L reads the file of the range', () => {
  decides('deny', ['git log -L1,2:.env', 'git log -L1,2:secrets/key', 'git log -L:.env']);
  // It shows content: without a path after --, the history of the file is asked.
  decides('ask', ['git log -L1,2:README.md']);
});

describe('what git diff, log and show read', () => {
  // A path after -- is read with the history inside it; a word before it that names a
  // revision (no dot, no slash) is not read.
  // A word with a slash is read as a path even when it reads like a revision (`~1`).
  decides('deny', [
    'git log -- secrets',
    'git show HEAD:README.md -- secrets',
    'git show :0:.env',
    'git log secrets/key~1',
  ]);
  decides('allow', [
    'git log -p secrets -- README.md',
    'git show HEAD:README.md',
    'git show HEAD:README.md HEAD:src/a.ts',
    "git log -- ':!secrets'",
    'git log -- :/',
    "git show 'HEAD:(x)'",
    'git diff --no-index README.md src/a.ts',
    // README's limits: plain git diff reads the working tree's tracked files without asking.
    'git diff',
    'git diff --cached',
  ]);
  // Pathspec magic matches as wide as a glob: a path beside it does not limit the history.
  decides('ask', ["git log -p -- src/a.ts ':(icase)SECRETS'"]);
  // Options that replace the patch: no content shown, so no history.
  decides('allow', [
    'git show -s HEAD',
    'git show --no-patch HEAD',
    'git show --stat HEAD',
    'git show --shortstat HEAD',
    'git show --numstat HEAD',
    'git show --name-only HEAD',
    'git show --name-status HEAD',
    'git show --summary HEAD',
    'git show --raw HEAD',
  ]);
  // log, whatchanged and reflog show no patch unless asked to; these are the ways to ask.
  decides('allow', [
    'git log',
    'git whatchanged',
    'git reflog',
    'git log --no-merges',
    'git log --no-patch',
    'git log --grep=x-U',
    'git log --grep=x--patch',
  ]);
  decides('ask', [
    'git log --cc',
    'git log --dd',
    'git log --remerge-diff',
    'git log --full-diff',
    'git log --textconv',
    'git log --function-context',
    'git log -Rp',
    'git log -Rap',
    'git log -U3',
    'git log --unified=3',
    'git whatchanged -p',
    'git reflog -p',
  ]);
});

describe('git itself: the subcommand, its canonical words, aliases', () => {
  let guarded: PermissionInterceptor;
  beforeAll(async () => {
    guarded = permissionInterceptor({
      cwd: root,
      home,
      rules: {
        allow: ['Bash(git:*)'],
        deny: ['Bash(git push:*)', 'Bash(rm:*)', 'Read(./.env)', 'Read(./secrets/**)'],
      },
    });
    await guarded.ready;
  });
  const inGuarded = (line: string) => guarded.explain(bash(line));
  /** `git -c alias.a1=a2 … -c alias.aN=push a1`: N aliases, each naming the next. */
  const chain = (n: number) =>
    `git ${Array.from({ length: n }, (_, i) => `-c alias.a${i + 1}=${i + 1 === n ? 'push' : `a${i + 2}`}`).join(' ')} a1`;

  it.each(["git -c alias.p='!git  push' p", "git -c 'alias.x=!rm -rf src' x", chain(8)])(
    '%s runs what a deny rule names: denied',
    async (line) => {
      const d = await inGuarded(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );
  // Only an alias. key defines an alias: color.ui=push is no alias of push.
  it('git -c color.ui=push ui is not git push', async () => {
    const d = await inGuarded('git -c color.ui=push ui');
    expect(d.behavior, d.reason).toBe('allow');
  });
  // Aliases are followed 8 steps, as far as the loop goes; a 9th is not expanded (and asks, as
  // every alias does). A loop of aliases ends.
  it.each([chain(9), 'git -c alias.a=b -c alias.b=a a'])('%s: asked', async (line) => {
    const d = await inGuarded(line);
    expect(d.behavior, d.reason).toBe('ask');
  });
  // An alias of only global options names no subcommand: the alias is what is not understood.
  it('git -c alias.p=--no-pager p asks for the alias', async () => {
    const d = await inGuarded('git -c alias.p=--no-pager p');
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain('sets configuration that may run a program');
  });
  // The words after the alias are its operands; the alias's own name is not one.
  it("git -c 'alias.secrets=!cat' secrets reads no secrets", async () => {
    const d = await inGuarded("git -c 'alias.secrets=!cat' secrets");
    expect(d.behavior, d.reason).toBe('ask');
  });
  it('messages name git and the subcommand', async () => {
    expect((await explain('git --frobnicate status')).reason).toContain(
      'git option --frobnicate is not one the model knows',
    );
    expect((await explain('git tag --frobnicate')).reason).toContain(
      'git tag option --frobnicate is not one the model knows',
    );
    const d = await explain('git "$SUB" status');
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain('the git subcommand "$SUB" is not known before it runs');
  });
  // -p before the subcommand is git's --paginate, not the subcommand's --patch.
  decides('allow', ['git -p stash list', 'git --no-pager', 'git grep .env -- README.md']);
  // A subcommand without a model: its operands are found as for a program without one.
  decides('deny', ['git add .env', 'git checkout -- secrets/key']);
  planRefuses(['git push', 'git commit -m x', 'git checkout main']);
});

describe('git-more tables, each option known', () => {
  // Without these names in the tables, each option was one the model does not know: asked.
  decides('allow', [
    'git tag --column',
    'git tag --delete v1',
    'git tag -a v1 --message x',
    'git tag -a v1 -m x',
    'git config --type bool core.pager',
    'git cat-file -p HEAD:a--batch',
  ]);
  planRuns(['git remote --verbose']);
  // --file / -f of git config read the file.
  decides('deny', ['git config --file .env --list', 'git config -f .env --list']);
  // An option that changes, long or among letters after -l, is never only a listing.
  planRefuses(['git tag -l --delete v1', 'git tag -lFREADME.md v1']);
  // The file written is .git/config unless --global is given as a word of its own.
  it.each(['git config core.pager my--global', 'git config --globalx core.pager cat'])(
    '%s writes .git/config',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('deny');
      expect(d.reason).toContain('Edit(./.git/**)');
    },
  );
});

describe('git grep, blame and branch (written after the last run)', () => {
  // The pattern given by option leaves every operand a path; a path after -- or spelled as no
  // ref can be limits the search; without one, a revision or an option that widens it reads all.
  decides('deny', [
    'git grep -f README.md .env',
    'git grep --file README.md .env',
    'git grep --file .env -- README.md',
    'git grep -e TOKEN .env',
    'git grep TOKEN -- secrets',
    'git blame .env',
  ]);
  decides('allow', [
    'git grep -e TOKEN -- README.md',
    'git grep TOKEN -- README.md',
    'git grep TOKEN ./README.md',
    // README's limits: plain git grep reads the working tree's tracked files without asking.
    'git grep TOKEN',
    // -p before the subcommand is --paginate.
    'git -p log',
  ]);
  decides('ask', [
    'git grep TOKEN --untracked',
    'git grep TOKEN --no-index',
    'git grep TOKEN --no-exclude-standard',
  ]);
  planRuns(['git branch', 'git branch -a', 'git rev-parse HEAD', 'git ls-files src']);
  planRefuses(['git branch x-l', 'git branch newb']);
});
