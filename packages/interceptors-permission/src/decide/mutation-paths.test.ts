/**
 * Path decisions (paths.ts): which path rules and grants match, what they say, and what a tool's
 * own path rules add. Each test fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving in paths.ts.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { bash, call, edit, makeProject, read } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision, PermissionMode, PermissionRuleSet } from '../types';

const { root, home } = makeProject();
const decideIn = async (
  rules: PermissionRules | PermissionRuleSet[],
  exec: InterceptedExecution,
  options: { mode?: PermissionMode; grant?: string } = {},
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode: options.mode ?? 'default' });
  await policy.ready;
  if (options.grant !== undefined) await policy.addGrant({ rule: options.grant });
  return policy.explain(exec);
};
const GREP = { readOnly: true, paths: [{ arg: 'path', access: 'read' as const }] };
const COPY = {
  paths: [
    { arg: 'from', access: 'read' as const },
    { arg: 'to', access: 'write' as const },
  ],
};
const copy = (from: string) => call('Copy', { from, to: 'x.txt' }, COPY);

describe('path rules', () => {
  it('a deny or ask also catches the name used, an allow only where the kernel goes', async () => {
    // src/env-link → .env; the patterns have a wildcard, so they do not follow the link themselves.
    const denied = await decideIn({ deny: ['Read(./src/*-link)'] }, read('src/env-link'));
    expect(denied.behavior).toBe('deny');
    expect(denied.reason).toBe(
      `deny rule "Read(./src/*-link)" (options, deny[0]) matched "file_path=src/env-link": reading ${root}/.env`,
    );
    const notAllowed = await decideIn({ allow: ['Edit(./src/*-link)'] }, edit('src/env-link'));
    expect(notAllowed.behavior).toBe('ask');
  });

  it('a rule whose own path runs through a symlink matches where the link leads', async () => {
    // Read(./src/secrets-link/**) compiles to the link's path and to secrets/**: either matches.
    const d = await decideIn({ deny: ['Read(./src/secrets-link/**)'] }, read('secrets/key'));
    expect(d.behavior).toBe('deny');
  });

  it('each kind of rule says what the access does, for reads and writes', async () => {
    const reasons = async (rules: PermissionRules, exec: InterceptedExecution) =>
      (await decideIn(rules, exec)).reason;
    expect(await reasons({ deny: ['Edit(./x.txt)'] }, edit('x.txt'))).toBe(
      `deny rule "Edit(./x.txt)" (options, deny[0]) matched "file_path=x.txt": writing ${root}/x.txt`,
    );
    expect(await reasons({ ask: ['Edit(./x.txt)'] }, edit('x.txt'))).toBe(
      `ask rule "Edit(./x.txt)" (options, ask[0]) matched "file_path=x.txt": writes ${root}/x.txt`,
    );
    expect(await reasons({ ask: ['Read(./README.md)'] }, read('README.md'))).toBe(
      `ask rule "Read(./README.md)" (options, ask[0]) matched "file_path=README.md": reads ${root}/README.md`,
    );
    const allowed = await decideIn({ allow: ['Edit(./x.txt)'] }, edit('x.txt'));
    expect(allowed.behavior).toBe('allow');
    expect(allowed.trail).toContainEqual(
      expect.objectContaining({ kind: 'path', resolved: `${root}/x.txt` }),
    );
    const none = await decideIn(
      { deny: ['Read(./.env)'] },
      call(
        'Peek',
        { path: 'README.md' },
        {
          paths: [{ arg: 'path', access: 'read' }],
        },
      ),
    );
    expect(none.reason).toContain('no rule allows "path=README.md; Peek"');
  });

  it('an ask path rule is one bypassPermissions skips', async () => {
    const d = await decideIn({ ask: ['Edit(./x.txt)'] }, edit('x.txt'), {
      mode: 'bypassPermissions',
    });
    expect(d.behavior).toBe('allow');
  });

  it('of two allow rules, the first is the one that decides', async () => {
    const d = await decideIn({ allow: ['Edit(./x.txt)', 'Edit(./*.txt)'] }, edit('x.txt'));
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toMatchObject({ kind: 'rule', rule: 'Edit(./x.txt)' });
    // Once one allow matched, the next is not even checked.
    expect(d.trail.filter((e) => e.kind === 'rule' && e.rule === 'Edit(./*.txt)')).toEqual([]);
  });

  it('an allow checked before a deny does not stop the deny', async () => {
    const d = await decideIn(
      [
        { source: 'project settings', allow: ['Read(./**)'] },
        { source: 'user settings', deny: ['Read(./.env)'] },
      ],
      read('.env'),
    );
    expect(d.behavior).toBe('deny');
  });
});

describe('path grants', () => {
  it('a grant of the same family allows the path, and is recorded', async () => {
    const d = await decideIn({}, edit('x.txt'), { grant: `Edit(/${root}/x.txt)` });
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toMatchObject({ kind: 'grant' });
    expect(d.reason).toBe('every part is allowed (file_path=x.txt; file_path=x.txt)');
    expect(d.trail).toContainEqual(
      expect.objectContaining({ kind: 'grant', matched: true, subject: 'file_path=x.txt' }),
    );
  });

  it('a grant of the other family does not', async () => {
    const d = await decideIn({}, edit('x.txt'), { grant: `Read(/${root}/x.txt)` });
    expect(d.behavior).toBe('ask');
  });

  it('a grant naming a tool without a path does not allow paths of other tools', async () => {
    for (const grant of ['Write', 'Deploy', 'Bash(ls:*)'])
      expect((await decideIn({}, edit('x.txt'), { grant })).behavior, grant).toBe('ask');
  });

  it('a grant for another path does not allow this one', async () => {
    const d = await decideIn({}, edit('x.txt'), { grant: `Edit(/${root}/other.txt)` });
    expect(d.behavior).toBe('ask');
    expect(d.trail).toContainEqual(expect.objectContaining({ kind: 'grant', matched: false }));
  });

  it('a grant must hold where the kernel goes, not only for the name used', async () => {
    const d = await decideIn({}, edit('src/env-link'), { grant: `Edit(/${root}/src/*-link)` });
    expect(d.behavior).toBe('ask');
  });
});

describe('path arguments', () => {
  const PEEK = { paths: [{ arg: 'path', access: 'read' as const }] };
  const GUARD = { deny: ['Read(./.env)'] };
  it('a writer given no path is judged as the tool alone; a reader without one reads "."', async () => {
    const writer = call('Write', {}, { paths: [{ arg: 'file_path', access: 'write' }] });
    expect((await decideIn(GUARD, writer)).reason).toBe(
      'no rule allows "Write" and mode "default" asks for tools that may change things',
    );
    expect((await decideIn(GUARD, call('Peek', {}, PEEK))).reason).toBe(
      '. is a directory that holds paths rule Read(./.env) protects, and the tool may read everything inside it',
    );
  });

  it('an argument present but undefined is read as absent: a reader then reads where it runs', async () => {
    // The body sees `undefined` as no path, and reads its working directory: judged as that
    // directory, as an absent path is (the kit's reader, shared with the sandbox, skips it).
    const d = await decideIn(GUARD, call('Peek', { path: undefined }, PEEK));
    const absent = await decideIn(GUARD, call('Peek', {}, PEEK));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(absent.reason);
    expect(d.reason).toContain('. is a directory that holds paths');
  });

  it('a value that is not a usable path string is not understood, shown as JSON', async () => {
    const why =
      'argument path is declared a path but is not a usable path string (empty, NUL, or not a string)';
    const object = await decideIn(GUARD, call('Peek', { path: { a: 1 } }, PEEK));
    expect(object.behavior).toBe('ask');
    expect(object.reason).toBe(
      `"path={\\"a\\":1}" cannot be fully understood (${why}), so it is never allowed without asking`,
    );
    for (const path of ['', 'a\u0000b']) {
      const d = await decideIn(GUARD, call('Peek', { path }, PEEK));
      expect(d.behavior, JSON.stringify(path)).toBe('ask');
      expect(d.decidedBy).toEqual({ kind: 'unparsed', reason: why });
    }
  });

  it('a deny outside the working directories says so', async () => {
    const d = await decideIn({ deny: ['Read(//etc/**)'] }, read('/etc/passwd'));
    expect(d.reason).toBe(
      'deny rule "Read(//etc/**)" (options, deny[0]) matched "file_path=/etc/passwd": reading /etc/passwd (outside the working directories)',
    );
  });

  it('a directory given to a writer is not read with what is inside it', async () => {
    const d = await decideIn({ deny: ['Read(./src/a.ts)'] }, edit('src'), { mode: 'acceptEdits' });
    expect(d.behavior).toBe('allow');
  });
});

describe('a reader given a directory', () => {
  it('is asked for when a rule protects a path inside it, the trail naming the directory', async () => {
    const d = await decideIn({ deny: ['Read(./.env)'] }, call('Grep', { path: '.' }, GREP));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      '. is a directory that holds paths rule Read(./.env) protects, and the tool may read everything inside it',
    );
    expect(d.trail).toContainEqual(
      expect.objectContaining({ rule: 'Read(./.env)', matched: 'maybe', note: 'directory .' }),
    );
    const clean = await decideIn({ deny: ['Read(./.env)'] }, call('Grep', { path: 'src' }, GREP));
    expect(clean.behavior).toBe('allow');
    expect(clean.reason).toBe('Grep is read-only and mode "default" runs read-only tools');
  });

  it('a path that does not exist is not a directory holding protected files', async () => {
    const d = await decideIn({ deny: ['Read(**/.env)'] }, call('Grep', { path: 'missing' }, GREP));
    expect(d.behavior).toBe('allow');
  });
});

describe("a tool's own path rules", () => {
  it('a deny on the tool denies, saying what the argument does', async () => {
    const d = await decideIn(
      { allow: ['Read(./**)'], deny: ['Copy(./secrets/**)'] },
      copy('secrets/key'),
    );
    expect(d.behavior).toBe('deny');
    expect(d.reason).toBe(
      `deny rule "Copy(./secrets/**)" (options, deny[0]) matched "from=secrets/key": read ${root}/secrets/key`,
    );
  });

  it('a deny on the tool holds whichever of its rules is checked first', async () => {
    for (const sets of [
      [
        { source: 'project settings', deny: ['Copy(./secrets/**)'] },
        { source: 'user settings', allow: ['Copy(./**)'] },
      ],
      [
        { source: 'project settings', allow: ['Copy(./**)'] },
        { source: 'user settings', deny: ['Copy(./secrets/**)'] },
      ],
    ]) {
      const d = await decideIn(sets, copy('secrets/key'));
      expect(d.behavior).toBe('deny');
      expect(d.decidedBy).toMatchObject({ rule: 'Copy(./secrets/**)' });
    }
  });

  it('an ask on the tool asks, and bypassPermissions skips it; a family deny outweighs it', async () => {
    const asked = await decideIn({ ask: ['Copy(./secrets/**)'] }, copy('secrets/key'));
    expect(asked.behavior).toBe('ask');
    expect(asked.decidedBy).toMatchObject({ rule: 'Copy(./secrets/**)' });
    const bypassed = await decideIn({ ask: ['Copy(./secrets/**)'] }, copy('secrets/key'), {
      mode: 'bypassPermissions',
    });
    expect(bypassed.behavior).toBe('allow');
    const denied = await decideIn(
      { ask: ['Copy(./secrets/**)'], deny: ['Read(./secrets/**)'] },
      copy('secrets/key'),
    );
    expect(denied.behavior).toBe('deny');
  });

  it('of two own rules of the same kind, the first is the one named', async () => {
    const d = await decideIn(
      { deny: ['Copy(./secrets/**)', 'Copy(./secrets/key)'] },
      copy('secrets/key'),
    );
    expect(d.decidedBy).toMatchObject({ rule: 'Copy(./secrets/**)' });
  });

  it('of an equal own and family rule, the family rule is the one named', async () => {
    const d = await decideIn(
      { deny: ['Copy(./secrets/**)', 'Read(./secrets/**)'] },
      copy('secrets/key'),
    );
    expect(d.decidedBy).toMatchObject({ rule: 'Read(./secrets/**)' });
  });
});

describe('shell operands', () => {
  const CAT = { allow: ['Bash(cat:*)', 'Bash(grep:*)'] };
  it('/proc/$$/ is the shell itself', async () => {
    const d = await decideIn({ ...CAT, deny: ['Read(./.env)'] }, bash('cat /proc/$$/cwd/.env'));
    expect(d.behavior).toBe('deny');
  });

  it('an operand is checked against deny and ask path rules only', async () => {
    const d = await decideIn(
      { ...CAT, allow: [...CAT.allow, 'Read(./**)'], deny: ['Read(./.env)'] },
      bash('cat README.md'),
    );
    expect(d.behavior).toBe('allow');
    expect(d.trail.filter((e) => e.kind === 'rule' && e.rule === 'Read(./**)')).toEqual([]);
    expect(d.trail).toContainEqual(
      expect.objectContaining({ rule: 'Read(./.env)', matched: false, subject: 'cat README.md' }),
    );
  });

  it('an ask path rule on an operand asks', async () => {
    const d = await decideIn({ ...CAT, ask: ['Read(./README.md)'] }, bash('cat README.md'));
    expect(d.behavior).toBe('ask');
    expect(d.decidedBy).toMatchObject({ rule: 'Read(./README.md)' });
  });

  it('a glob read recursively may reach what a rule protects deeper down', async () => {
    const rules = { ...CAT, deny: ['Read(./secrets/key)'] };
    expect((await decideIn(rules, bash('grep x s*'))).behavior).toBe('allow');
    const d = await decideIn(rules, bash('grep -r x s*'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe('the glob s* could match a path rule Read(./secrets/key) protects');
  });

  it('a directory read recursively holds what is inside it; read plainly, it does not', async () => {
    const rules = { ...CAT, deny: ['Read(./src/a.ts)', 'Read(**/.env)'] };
    expect((await decideIn(rules, bash('cat src'))).behavior).toBe('allow');
    const d = await decideIn(rules, bash('grep -r x src'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'src is a directory read recursively that holds paths rule Read(./src/a.ts) protects',
    );
    expect(d.trail).toContainEqual(
      expect.objectContaining({ rule: 'Read(./src/a.ts)', note: 'directory operand src' }),
    );
    // A path that does not exist (a pathspec of history) may have held anything; a file holds
    // nothing.
    expect((await decideIn(rules, bash('grep -r x missing'))).behavior).toBe('ask');
    expect((await decideIn(rules, bash('grep -r x README.md'))).behavior).toBe('allow');
  });

  it('with no path rule at all, an operand not known before it runs needs no question', async () => {
    expect((await decideIn(CAT, bash('cat "$F"'))).behavior).toBe('allow');
    // With one, it may be the protected file.
    expect((await decideIn({ ...CAT, deny: ['Read(./.env)'] }, bash('cat "$F"'))).behavior).toBe(
      'ask',
    );
  });

  it("a glob meets a rule through either of the rule's paths, and the trail says which may", async () => {
    const d = await decideIn(
      { ...CAT, deny: ['Read(./README.md)', 'Read(./src/secrets-link/**)'] },
      bash('cat secrets/*'),
    );
    expect(d.behavior).toBe('ask');
    expect(d.trail).toContainEqual({
      kind: 'rule',
      rule: 'Read(./README.md)',
      origin: { list: 'deny', index: 0, source: 'options' },
      matched: false,
      subject: 'cat secrets/*',
      note: 'glob operand secrets/*',
    });
    expect(d.trail).toContainEqual({
      kind: 'rule',
      rule: 'Read(./src/secrets-link/**)',
      origin: { list: 'deny', index: 1, source: 'options' },
      matched: 'maybe',
      subject: 'cat secrets/*',
      note: 'glob operand secrets/*',
    });
  });

  it('a redirection to a new file is not read as a directory', async () => {
    const d = await decideIn(
      { allow: ['Bash(echo:*)', 'Edit(./new.txt)'], deny: ['Edit(**/.env)'] },
      bash('echo x > new.txt'),
    );
    expect(d.behavior).toBe('allow');
  });

  const GUARDED = {
    allow: ['Bash(cat:*)', 'Bash(cd:*)', 'Bash(touch:*)'],
    deny: ['Read(./.env)', 'Edit(./.env)'],
  };
  it('~- is the directory before a cd on this line, and only then', async () => {
    const behavior = async (line: string) => (await decideIn(GUARDED, bash(line))).behavior;
    expect(await behavior('cd src; cat ~-/.env')).toBe('deny');
    expect(await behavior('cd src; cat ~-')).toBe('allow');
    // Before any cd, $OLDPWD is the host's: not known.
    expect(await behavior('cat ~-/.env')).toBe('ask');
    // Quoted, it is a directory named ~-; with an expansion in it, not known.
    expect(await behavior("cd src; cat '~-/.env'")).toBe('allow');
    expect(await behavior('cd src; cat ~-/$X')).toBe('ask');
    expect(await behavior('cd src; cat $X~-/.env')).toBe('ask');
  });

  it('/proc/$$/ is rewritten only unquoted, whole, and without a glob or expansion after it', async () => {
    const behavior = async (line: string) => (await decideIn(GUARDED, bash(line))).behavior;
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell words, not templates
    for (const pid of ['$$', '${$}', '$BASHPID', '${BASHPID}'])
      expect(await behavior(`cat /proc/${pid}/cwd/.env`), pid).toBe('deny');
    expect(await behavior("cat '/proc/$$/cwd/.env'")).toBe('allow');
    expect(await behavior('cat /proc/$$/cwd/*.env')).toBe('ask');
    expect(await behavior('cat /proc/$$/cwd/$X')).toBe('ask');
    expect(await behavior('cat x/proc/$$/cwd/.env')).toBe('ask');
  });

  it('an operand not known before it runs says whether it is read or written', async () => {
    expect((await decideIn(GUARDED, bash('touch "$F"'))).reason).toBe(
      'the file operand "$F" is not known before it runs and could be a file a path rule protects (write)',
    );
    expect((await decideIn(GUARDED, bash('cat "$F"'))).reason).toBe(
      'the file operand "$F" is not known before it runs and could be a file a path rule protects (read)',
    );
  });

  it('after a cd to a directory not known, a relative operand may be anything; others are judged', async () => {
    const d = await decideIn(GUARDED, bash('cd "$D"; cat x'));
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'the file operand x is relative to a directory changed by cd to a value not known before it runs',
    );
    expect((await decideIn(GUARDED, bash('cd "$D"; cat ~/x'))).behavior).toBe('allow');
    expect((await decideIn(GUARDED, bash(`cd "$D"; cat ${root}/.env`))).behavior).toBe('deny');
  });
});

describe('history without a pathspec', () => {
  // A project that is a repository, and another repository in the home directory.
  const world = makeProject();
  mkdirSync(join(world.root, '.git'));
  mkdirSync(join(world.home, 'vault', '.git'), { recursive: true });
  const LOG = ['Bash(cd:*)', 'Bash(git log:*)'];
  const decideHere = async (deny: string[], line: string) => {
    const policy = permissionInterceptor({
      cwd: world.root,
      home: world.home,
      rules: { allow: LOG, deny },
    });
    await policy.ready;
    return policy.explain(bash(line));
  };

  it('is a read of the whole repository, checked against the rules, saying so', async () => {
    const d = await decideHere(['Read(**/.env)'], 'git log -p');
    expect(d.behavior).toBe('ask');
    expect(d.trail).toContainEqual(
      expect.objectContaining({ matched: 'maybe', note: 'the history of the repository' }),
    );
    expect(d.reason).toBe(
      "it shows the repository's history, which may hold files rule Read(**/.env) protects (name the paths it may show after --)",
    );
    // A rule outside the repository is not met by its history.
    expect((await decideHere(['Read(//etc/shadow)'], 'git log -p')).reason).toBe(
      'git log -p is allowed',
    );
  });

  it('after a cd, is the history of the repository it went to', async () => {
    const vault = ['Read(~/vault/secret.txt)'];
    expect((await decideHere(vault, 'git log -p')).behavior).toBe('allow');
    expect((await decideHere(vault, 'cd ~/vault && git log -p')).behavior).toBe('ask');
  });

  // The bypass this run found: the repository was taken to be the working directory's.
  it('after a cd to a directory not known before it runs, may be any repository', async () => {
    const d = await decideHere(['Read(~/vault/secret.txt)'], 'cd "$D" && git log -p');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain("it shows the repository's history");
  });
});
