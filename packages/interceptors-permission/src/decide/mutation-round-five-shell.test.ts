/**
 * The fifth round's tests for decide/shell.ts: the words deny, ask and allow rules see for git (its
 * canonical form, without global options), which of a command's operand and history parts speaks
 * for it, and which reads plan mode checks. Each test fails under a one-line change that survived
 * the mutation runs (`pnpm mutate:permission`), listed in docs/permission-mutation.md.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision, PermissionMode } from '../types';

// A project that is a repository, so that history is read from it.
const { root, home } = makeProject();
mkdirSync(join(root, '.git'));
const decideIn = async (
  rules: PermissionRules,
  line: string,
  mode: PermissionMode = 'default',
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode });
  await policy.ready;
  return policy.explain(bash(line));
};

describe('deny rules on git see its canonical form, and the worse of the two matches', () => {
  it('a deny matched only without the global options denies', async () => {
    // The words `git -C . push` do not match `git push`; its canonical form does. Were the
    // canonical match dropped, or the worse of the two taken as the better, it would be asked.
    const d = await decideIn({ allow: ['Bash'], deny: ['Bash(git push:*)'] }, 'git -C . push');
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain('deny rule "Bash(git push:*)"');
  });

  it('neither form matching is no match: the whole-tool allow allows', async () => {
    // Were "no" and "no" taken as a match, or as a maybe, `git -C . status` would be denied or
    // asked under a deny on push.
    const d = await decideIn({ allow: ['Bash'], deny: ['Bash(git push:*)'] }, 'git -C . status');
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('the whole tool is allowed');
  });

  it('a canonical form that may match is a maybe, though the words do not match', async () => {
    // `git -C . $sub` may be `git push`: the words say no (`-C` is not push), the canonical form
    // `git $sub` says maybe. Were the maybe lost, the whole-tool allow would allow it.
    const d = await decideIn({ allow: ['Bash'], deny: ['Bash(git push:*)'] }, 'git -C . $sub');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('may match deny rule Bash(git push:*)');
  });

  it('words that may match are a maybe, though the canonical form does not match', async () => {
    // `git -C $d push` may be `git -C x main push`... by its words (a word not known), not by its
    // canonical form `git push`: the worse of the two is the maybe.
    const d = await decideIn({ allow: ['Bash'], deny: ['Bash(git * main)'] }, 'git -C $d push');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('may match deny rule Bash(git * main)');
  });
});

describe('allow rules on git match its canonical form when the words do not', () => {
  it('git --no-pager log is allowed by an allow on git log', async () => {
    const d = await decideIn({ allow: ['Bash(git log:*)'] }, 'git --no-pager log');
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('git --no-pager log is allowed');
  });

  it('an allow that names a global option is matched by the words, not undone by the canonical form', async () => {
    // Were the canonical form matched when the words already match, `git --no-pager log` (whose
    // canonical form `git log` has one word less) would not be allowed by this exact rule.
    const d = await decideIn({ allow: ['Bash(git --no-pager log)'] }, 'git --no-pager log');
    expect(d.behavior).toBe('allow');
  });
});

describe('the operand part that speaks for a command', () => {
  it('an operand no rule covers does not erase a deny rule that may match', async () => {
    // `cat $f README.md` may be `cat .env`; README.md is covered by no path rule. Were the
    // operand's "nothing" taken over the maybe, the whole-tool allow would allow it.
    const rules = { allow: ['Bash'], deny: ['Bash(cat .env)', 'Read(./secrets/**)'] };
    const d = await decideIn(rules, 'cat $f README.md');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('may match deny rule Bash(cat .env)');
  });

  it('an ask path rule on an operand asks, even with an allow on the program', async () => {
    const d = await decideIn({ allow: ['Bash(cat:*)'], ask: ['Read(./.env)'] }, 'cat .env');
    expect(d.behavior).toBe('ask');
  });

  it('the worse of two operands speaks, wherever it stands; of two equal, the first', async () => {
    // An operand not known (`$f`) is a maybe, which bypassPermissions asks; an ask path rule is
    // soft, which bypassPermissions skips. Were the later part always taken, or the first kept,
    // one of these orders would be allowed.
    const rules = { ask: ['Read(./.env)', 'Read(./secrets/**)'] };
    for (const line of ['cat $f .env', 'cat .env $f']) {
      const d = await decideIn(rules, line, 'bypassPermissions');
      expect(d.behavior, line).toBe('ask');
      expect(d.reason, line).toContain('the file operand $f is not known before it runs');
    }
    const d = await decideIn(rules, 'cat .env secrets/key');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain(`reads ${root}/.env`);
    expect(d.reason).not.toContain(`reads ${root}/secrets/key`);
  });
});

describe('a denied operand beside a grant', () => {
  it('is denied: a grant on the program does not outweigh a deny path rule', async () => {
    // Were a denied operand kept as the worst part so far instead of returned, the grant for
    // `cat` further down would allow `cat .env`.
    const policy = permissionInterceptor({ cwd: root, home, rules: { deny: ['Read(./.env)'] } });
    await policy.ready;
    await policy.addGrant({ rule: 'Bash(cat:*)' });
    const d = await policy.explain(bash('cat .env'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain('deny rule "Read(./.env)"');
  });
});

describe('the history part beside the operand parts', () => {
  // `git log -p -- PATHSPEC` with a glob pathspec shows the history of the whole repository.
  const LOG = 'Bash(git log:*)';

  it('a history that holds nothing protected does not erase an operand that may be protected', async () => {
    // The pathspec `/etc/*` (read recursively, as history pathspecs are) may be /etc/shadow; the
    // repository's history holds no path the rule protects. Were the history's "nothing" taken
    // over the operand's maybe, it would be allowed.
    const d = await decideIn(
      { allow: [LOG], deny: ['Read(//etc/shadow)'] },
      "git log -p -- '/etc/*'",
    );
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain("'/etc/*' is a directory read recursively");
  });

  it('a history that may hold a protected file outweighs an asked operand', async () => {
    // src/a.ts is asked (soft, skipped by bypassPermissions); the history may hold secrets/key
    // (a maybe, asked). Were the ask kept, bypassPermissions would allow it.
    const rules = { allow: [LOG], ask: ['Read(./src/a.ts)'], deny: ['Read(./secrets/key)'] };
    const line = "git log -p -- src/a.ts '*.md'";
    const d = await decideIn(rules, line, 'bypassPermissions');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain("it shows the repository's history");
  });

  it('of an operand and a history equally in doubt, the operand speaks', async () => {
    // Were the history taken at equal rank, the reason would be the history's.
    const d = await decideIn({ allow: [LOG], deny: ['Read(**/.env)'] }, "git log -p -- '*.env'");
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain("'*.env' is a directory read recursively");
  });
});

describe('plan mode reads what a full model says is read', () => {
  it('an option value that looks like a path is not a read', async () => {
    // A full model knows which words are files (cut's `-d /` is a delimiter, find's `-name` a
    // pattern, sed's script a script); read by the fallback for programs without a model, some
    // of these words are files outside the working directories and plan mode would refuse.
    for (const line of [
      'cut -d / -f 1 README.md',
      'find src -name /etc/passwd',
      'grep -e /etc/passwd README.md',
      'sort -t / README.md',
      'sed -n /etc/p README.md',
      'git log --format=/etc/x',
      'jq . README.md',
      'rg /etc README.md',
      'awk /etc/ README.md',
    ])
      expect((await decideIn({}, line, 'plan')).behavior, line).toBe('allow');
  });

  it('a directory the line may have left by cd is one a read must stay inside', async () => {
    // After `cd src || true` the line is in src or, if the cd failed, still in the project:
    // ../README.md may be the one above the project, outside. Were a read inside any one of the
    // directories enough, it would run.
    expect((await decideIn({}, 'cd src || true; cat ../README.md', 'plan')).behavior).toBe('deny');
    expect((await decideIn({}, 'cd src || true; cat a.ts', 'plan')).behavior).toBe('allow');
  });
});
