/**
 * How one shell command line is judged (decide/shell.ts): its connections, builtins, redirections,
 * the allow rules a model doubts, and what each part says. Each test fails under a one-line change
 * the mutation run (`pnpm mutate:permission`) found surviving in decide/shell.ts.
 */
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { type PermissionRules, permissionInterceptor } from '../index';
import type { PermissionDecision, PermissionMode } from '../types';

const { root, home } = makeProject();
const decideIn = async (
  rules: PermissionRules,
  line: string,
  options: { mode?: PermissionMode; grant?: string } = {},
): Promise<PermissionDecision> => {
  const policy = permissionInterceptor({ cwd: root, home, rules, mode: options.mode ?? 'default' });
  await policy.ready;
  if (options.grant !== undefined) await policy.addGrant({ rule: options.grant });
  return policy.explain(bash(line));
};
const NOTE = 'a connection opened by a /dev/tcp or /dev/udp redirection';

describe('a connection bash opens itself', () => {
  const TCP = 'echo x > /dev/tcp/example.com/80';
  it('is denied by a WebFetch deny, which says the policy wants no network', async () => {
    const d = await decideIn({ deny: ['WebFetch'] }, TCP);
    expect(d.behavior).toBe('deny');
    expect(d.reason).toBe(
      'deny rule "WebFetch" (options, deny[0]) matched "> /dev/tcp/example.com/80": it connects to the network (> /dev/tcp/example.com/80)',
    );
    expect(d.trail).toContainEqual(
      expect.objectContaining({ rule: 'WebFetch', matched: true, note: NOTE }),
    );
  });

  it('is denied by a deny on a network program, in the prefix or the glob form', async () => {
    for (const rule of ['Bash(curl:*)', 'Bash(wget *)', 'Bash(nc)']) {
      const d = await decideIn({ deny: [rule] }, 'echo x > /dev/udp/1.2.3.4/53');
      expect(d.behavior, rule).toBe('deny');
    }
  });

  it('asks, soft, when no deny is about the network; a whole-tool allow allows it', async () => {
    const d = await decideIn({ deny: ['Bash(rm:*)', 'Read(./.env)'] }, TCP);
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      '"> /dev/tcp/example.com/80": it connects to the network through > /dev/tcp/example.com/80',
    );
    for (const rule of ['Bash(rm:*)', 'Read(./.env)'])
      expect(d.trail).toContainEqual(expect.objectContaining({ rule, matched: false, note: NOTE }));
    expect((await decideIn({ allow: ['Bash'] }, TCP)).behavior).toBe('allow');
    const alone = await decideIn({ allow: ['Bash'] }, '> /dev/tcp/example.com/80');
    expect(alone.reason).toBe('the whole tool is allowed');
    expect(alone.decidedBy).toMatchObject({ kind: 'rule', rule: 'Bash' });
    expect((await decideIn({}, TCP, { mode: 'bypassPermissions' })).behavior).toBe('allow');
  });

  it('a deny on any of the network programs says so', async () => {
    for (const program of ['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'telnet']) {
      const d = await decideIn({ deny: [`Bash(${program}:*)`] }, TCP);
      expect(d.behavior, program).toBe('deny');
    }
  });

  it('only a path that starts with /dev/tcp/ or /dev/udp/ is a connection', async () => {
    const d = await decideIn({ allow: ['Bash(cat:*)'] }, 'cat < ./dev/tcp/h/1');
    expect(d.behavior).toBe('allow');
  });

  it('only deny rules say "no network": an allow or ask on a network program does not', async () => {
    for (const rules of [{ allow: ['Bash(curl:*)', 'WebFetch'] }, { ask: ['Bash(curl:*)'] }]) {
      const d = await decideIn(rules, TCP);
      expect(d.behavior).toBe('ask');
      expect(d.reason).toContain('it connects to the network through');
    }
  });
});

describe('builtins that change nothing outside the shell', () => {
  it('are allowed when their words are known, saying so', async () => {
    for (const name of [
      'cd src',
      'pushd src',
      'popd',
      'true',
      'false',
      ':',
      "'[' -f x ]",
      'test -f x',
      'unset x',
      'declare x',
      'typeset x',
      'export -p',
      'local x',
      'readonly x',
    ]) {
      const d = await decideIn({}, name);
      expect(d.behavior, name).toBe('allow');
      expect(d.reason).toBe(
        `${name.split(' ')[0]?.replaceAll("'", '')} changes nothing outside the shell`,
      );
    }
  });

  it('are not allowed with a word not known before it runs, one the model does not know, or as a path', async () => {
    for (const line of ['cd "$X"', 'declare --frobnicate x', './true', '/bin/true'])
      expect((await decideIn({}, line)).behavior, line).toBe('ask');
  });
});

describe('redirections', () => {
  it('a write to a file asks, naming it; /dev/null does not', async () => {
    const d = await decideIn({ allow: ['Bash(echo:*)'] }, 'echo x > out.txt');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe('"> out.txt": it redirects output to the file out.txt');
    for (const sink of ['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']) {
      expect((await decideIn({ allow: ['Bash(echo:*)'] }, `echo x > ${sink}`)).behavior).toBe(
        'allow',
      );
      expect((await decideIn({}, `ls > ${sink}`, { mode: 'plan' })).behavior, sink).toBe('allow');
    }
  });

  it('a read from a file is judged as a read, not a write', async () => {
    const rules = { allow: ['Bash(cat:*)'], deny: ['Read(./.env)'] };
    expect((await decideIn(rules, 'cat < README.md')).behavior).toBe('allow');
    expect((await decideIn(rules, 'cat < "$F"')).behavior).toBe('ask');
    expect((await decideIn(rules, 'cat < .env')).behavior).toBe('deny');
  });

  it('an allowed write holds in every directory the line may be in', async () => {
    const rules = { allow: ['Bash(echo:*)', 'Bash(cd:*)', 'Edit(./out.txt)'] };
    expect((await decideIn(rules, 'echo x > out.txt')).behavior).toBe('allow');
    expect((await decideIn(rules, 'cd "$D"; echo x > out.txt')).behavior).toBe('ask');
  });

  it('acceptEdits allows a write inside any working directory', async () => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: {},
      mode: 'acceptEdits',
      additionalDirectories: [home],
    });
    await policy.ready;
    expect((await policy.explain(bash(`> ${home}/x.txt`))).behavior).toBe('allow');
    expect((await decideIn({}, `> ${home}/x.txt`, { mode: 'acceptEdits' })).behavior).toBe('ask');
    expect((await decideIn({}, '> o*.txt', { mode: 'acceptEdits' })).behavior).toBe('ask');
    const cd = { allow: ['Bash(cd:*)'] };
    expect((await decideIn(cd, 'cd src && > out.txt', { mode: 'acceptEdits' })).behavior).toBe(
      'allow',
    );
    expect((await decideIn(cd, 'cd "$D" && > out.txt', { mode: 'acceptEdits' })).behavior).toBe(
      'ask',
    );
  });

  it('acceptEdits allows a write inside the working directories, and only there', async () => {
    const inside = await decideIn({}, '> out.txt', { mode: 'acceptEdits' });
    expect(inside.behavior).toBe('allow');
    expect(inside.reason).toBe(
      'acceptEdits: output redirected to out.txt inside the working directories',
    );
    const outside = await decideIn({}, '> /tmp/out.txt', { mode: 'acceptEdits' });
    expect(outside.behavior).toBe('ask');
    const unknown = await decideIn({}, 'cd "$D" && > out.txt', { mode: 'acceptEdits' });
    expect(unknown.behavior).toBe('ask');
  });
});

describe('an allow the model doubts', () => {
  it('a prefix rule asks when the model does not know an option, saying why', async () => {
    const d = await decideIn({ allow: ['Bash(git log:*)'] }, 'git log --frobnicate');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      '"git log --frobnicate": allow rule "Bash(git log:*)" covers git log --frobnicate by its prefix, but git log option --frobnicate is not one the model knows, so it asks',
    );
  });

  it('is an ask bypassPermissions skips', async () => {
    const d = await decideIn({ allow: ['Bash(git log:*)'] }, 'git log --frobnicate', {
      mode: 'bypassPermissions',
    });
    expect(d.behavior).toBe('allow');
  });

  it('a grant on another tool does not allow a command', async () => {
    expect((await decideIn({}, 'touch x', { grant: 'Deploy' })).behavior).toBe('ask');
  });

  it('an exact rule names every word itself, and allows', async () => {
    const d = await decideIn({ allow: ['Bash(git log --frobnicate)'] }, 'git log --frobnicate');
    expect(d.behavior).toBe('allow');
    expect(d.reason).toBe('git log --frobnicate is allowed');
  });

  it('a grant by prefix is doubted as an allow rule is; an exact grant is not', async () => {
    const prefix = await decideIn({}, 'git log --frobnicate', { grant: 'Bash(git log:*)' });
    expect(prefix.behavior).toBe('ask');
    expect(prefix.reason).toContain('by its prefix, but');
    const exact = await decideIn({}, 'git log --frobnicate', {
      grant: 'Bash(git log --frobnicate)',
    });
    expect(exact.behavior).toBe('allow');
    expect(exact.reason).toBe('granted (Bash(git log --frobnicate))');
  });
});

describe('what each part says', () => {
  it('a deny rule a word not known may match asks, naming the rule', async () => {
    const d = await decideIn({ deny: ['Bash(rm -rf:*)'] }, 'rm $F /');
    expect(d.behavior).toBe('ask');
    expect(d.reason).toBe(
      'rm $F / may match deny rule Bash(rm -rf:*) (a word is not known before it runs)',
    );
    expect(d.decidedBy).toMatchObject({ kind: 'rule', rule: 'Bash(rm -rf:*)' });
  });

  it('a command under a wrapper is named with it, and each command is in the trail', async () => {
    const d = await decideIn({ deny: ['Bash(rm:*)'] }, 'env rm x');
    expect(d.reason).toBe(
      'deny rule "Bash(rm:*)" (options, deny[0]) matched "env → rm x": it runs env → rm x',
    );
    const none = await decideIn({}, 'touch x');
    expect(none.trail).toContainEqual({
      kind: 'shell',
      subject: 'touch x',
      verdict: 'none',
      note: 'no rule covers touch x',
    });
    expect(d.trail).toContainEqual({
      kind: 'shell',
      subject: 'env → rm x',
      verdict: 'deny',
      note: 'it runs env → rm x',
    });
  });

  it('a name with a look-alike character is not understood, naming the character', async () => {
    const d = await decideIn({ allow: ['Bash'] }, 'r\u0435m x');
    expect(d.behavior).toBe('ask');
    expect(d.decidedBy).toEqual({
      kind: 'unparsed',
      reason:
        'the command name "r\u0435m" contains U+0435, a character that can imitate another name',
    });
  });

  it('a line that cannot be parsed is named by its first 80 characters', async () => {
    const long = `ls; ${'x'.repeat(100)} $(`;
    const d = await decideIn({}, long);
    expect(d.reason).toBe(
      `"${long.slice(0, 80)}…" cannot be fully understood (a syntax error near "$("), so it is never allowed without asking`,
    );
    const short = `${'x'.repeat(77)} $(`;
    expect(short).toHaveLength(80);
    expect((await decideIn({}, short)).reason.startsWith(`"${short}" cannot`)).toBe(true);
  });

  it('an empty line runs nothing, and is allowed saying so', async () => {
    const d = await decideIn({ deny: ['Bash(rm:*)'] }, '');
    expect(d.behavior).toBe('allow');
    expect(d.decidedBy).toEqual({ kind: 'policy', reason: 'the command line runs nothing' });
  });

  it('a whole-tool allow names itself for each command', async () => {
    const d = await decideIn({ allow: ['Bash'] }, 'touch x');
    expect(d.reason).toBe('the whole tool is allowed');
    expect(d.trail).toContainEqual({
      kind: 'shell',
      subject: 'touch x',
      verdict: 'allow',
      note: 'the whole tool is allowed',
    });
  });
});

describe('deny rules across global options', () => {
  it('a deny meets the command the global options hide, or may meet it', async () => {
    const denied = await decideIn({ deny: ['Bash(git push:*)'] }, 'git --no-pager push');
    expect(denied.behavior).toBe('deny');
    const maybe = await decideIn(
      { deny: ['Bash(git push origin:*)'], allow: ['Bash(git:*)'] },
      'git --no-pager push "$R"',
    );
    expect(maybe.behavior).toBe('ask');
    expect(maybe.reason).toBe(
      'git --no-pager push "$R" may match deny rule Bash(git push origin:*) (a word is not known before it runs)',
    );
  });
});

describe('a deny rule on what a command runs', () => {
  it("meets the program a git alias runs, though the command's own words do not", async () => {
    const d = await decideIn({ deny: ['Bash(rm:*)'] }, "git -c alias.x='!rm -rf /' x");
    expect(d.behavior).toBe('deny');
  });
});

describe('the worst operand', () => {
  const rules = { deny: ['Read(./.env)'], ask: ['Read(./README.md)'] };
  it('an operand that may be a denied file outweighs one an ask rule names, and a grant', async () => {
    const d = await decideIn({ ...rules, allow: ['Bash(cat:*)'] }, 'cat README.md "$F"');
    expect(d.reason).toBe(
      'the file operand "$F" is not known before it runs and could be a file a path rule protects (read)',
    );
    const granted = await decideIn(rules, 'cat README.md "$F"', { grant: 'Bash(cat:*)' });
    expect(granted.behavior).toBe('ask');
    // A denied operand is denied at once: a grant does not reach it.
    const denied = await decideIn(rules, 'cat .env', { grant: 'Bash(cat:*)' });
    expect(denied.behavior).toBe('deny');
    // Without it, the grant outranks the ask rule.
    expect((await decideIn(rules, 'cat README.md', { grant: 'Bash(cat:*)' })).behavior).toBe(
      'allow',
    );
  });
});

describe('plan mode runs what only reads inside the working directories', () => {
  const inPlan = async (line: string) => (await decideIn({}, line, { mode: 'plan' })).behavior;
  it('reads of known files and globs inside them, process substitutions, printers', async () => {
    for (const line of [
      'cat src/a.ts',
      'cat src/*.ts',
      'cat sr?/a.ts',
      'cat src/{a,b}.ts',
      'cat <(ls)',
      'cat < README.md',
      'ls > /dev/null',
      'echo /etc/passwd',
      'printf %s /etc/passwd',
    ])
      expect(await inPlan(line), line).toBe('allow');
  });

  it('a glob with .. anywhere is not proven inside (it can climb out after the pattern)', async () => {
    for (const line of [
      'cat src/*/../../../../etc/hostname',
      'cat src/*/../../../etc/*',
      'cat s*/../../x',
      'cat src/{a,b}/../../../y',
    ])
      expect(await inPlan(line), line).toBe('deny');
    // Without a glob, .. is resolved and judged where it lands.
    expect(await inPlan('cat src/../README.md')).toBe('allow');
  });

  it('a read inside any working directory', async () => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: {},
      mode: 'plan',
      additionalDirectories: [home],
    });
    await policy.ready;
    expect((await policy.explain(bash(`cat ${home}/x`))).behavior).toBe('allow');
  });

  it('not reads outside them, of words not known, elevated, writing or connecting', async () => {
    for (const line of [
      'cat ../*.ts',
      'cat src/../../*.ts',
      'cat src/../*.ts',
      'cd /tmp; cat x',
      'cat /etc/*.conf',
      'cat /etc/hostname',
      'cat < /etc/hostname',
      'cat "$F"',
      'cd "$D"; cat x',
      'sudo cat x',
      'doas cat x',
      'chroot / cat x',
      'su -c "cat x"',
      'runuser -u u cat x',
      'pkexec cat x',
      'ls > x',
      'cat < /dev/tcp/h/1',
      'touch x',
      'find . -exec ls {} ;',
      'git log --frobnicate',
      'ls; $X',
    ])
      expect(await inPlan(line), line).toBe('deny');
  });
});

describe('the deny rules a command is checked against', () => {
  it('are those naming its program: others are not checked, nor recorded', async () => {
    const d = await decideIn({ deny: ['Bash(rm:*)', 'Bash(curl:*)'] }, 'ls');
    expect(d.trail.filter((e) => e.kind === 'rule')).toEqual([]);
    // A program without a model is matched by its words alone.
    const plain = await decideIn({ deny: ['Bash(frobnicate:*)'] }, 'frobnicate x');
    expect(plain.reason).toBe(
      'deny rule "Bash(frobnicate:*)" (options, deny[0]) matched "frobnicate x": it runs frobnicate x',
    );
    const maybe = await decideIn({ deny: ['Bash(frobnicate -rf:*)'] }, 'frobnicate $F /');
    expect(maybe.reason).toBe(
      'frobnicate $F / may match deny rule Bash(frobnicate -rf:*) (a word is not known before it runs)',
    );
    const rm = await decideIn({ deny: ['Bash(rm:*)', 'Bash(curl:*)'] }, 'rm x');
    expect(
      rm.trail.filter((e) => e.kind === 'rule').map((e) => e.kind === 'rule' && e.rule),
    ).toEqual(['Bash(rm:*)']);
  });
});

describe('grants and whole-tool rules on commands', () => {
  it('each grant checked is in the trail, matched or not', async () => {
    const policy = permissionInterceptor({ cwd: root, home, rules: {} });
    await policy.ready;
    const grant = await policy.addGrant({ rule: 'Bash(ls:*)' });
    const entry = { kind: 'grant', id: grant.id, rule: 'Bash(ls:*)' };
    expect((await policy.explain(bash('ls'))).trail).toContainEqual({
      ...entry,
      matched: true,
      subject: 'ls',
    });
    expect((await policy.explain(bash('pwd'))).trail).toContainEqual({
      ...entry,
      matched: false,
      subject: 'pwd',
    });
  });

  it('a grant matches the program as written, not by its base name', async () => {
    expect((await decideIn({}, '/usr/bin/ls', { grant: 'Bash(ls:*)' })).behavior).toBe('ask');
  });

  it('a grant of the whole tool is not doubted by the model', async () => {
    const d = await decideIn({}, 'git log --frobnicate', { grant: 'Bash' });
    expect(d.behavior).toBe('allow');
  });

  it('a whole-tool ask is one bypassPermissions skips', async () => {
    const d = await decideIn({ ask: ['Bash'] }, 'touch x', { mode: 'bypassPermissions' });
    expect(d.behavior).toBe('allow');
  });

  it('an allow naming global options matches as written, not only as the model reads it', async () => {
    const d = await decideIn({ allow: ['Bash(git --no-pager log:*)'] }, 'git --no-pager log');
    expect(d.behavior).toBe('allow');
    // Across global options the program is still the one written: /usr/bin/git is not git.
    const path = await decideIn({ allow: ['Bash(git log:*)'] }, '/usr/bin/git --no-pager log');
    expect(path.behavior).toBe('ask');
    expect((await decideIn({ allow: ['Bash(git log:*)'] }, 'git --no-pager log')).behavior).toBe(
      'allow',
    );
  });
});
