/**
 * Class 9 of issue 20: single-line slips a refactor makes, each turning an ask or a deny into an
 * allow. Every test here fails if its line is changed back.
 */
import { describe, expect, it } from 'vitest';
import { bash, call, makeProject } from '../../test/helpers';
import { grantInForce } from '../grants/book';
import { type PermissionRules, permissionInterceptor } from '../index';
import { MAX_DEPTH, WRITE_OPS } from '../shell/analyze';
import { DANGEROUS_ENV, envAllowed } from '../shell/names';

const { root, home } = makeProject();
const policyOf = async (rules: PermissionRules, now?: () => number) => {
  const policy = permissionInterceptor({ cwd: root, home, rules, ...(now && { now }) });
  await policy.ready;
  return policy;
};
const behaviorOf = async (rules: PermissionRules, line: string) =>
  (await (await policyOf(rules)).explain(bash(line))).behavior;

/** `line` nested in `levels` levels of `bash -c '…'`, quoted as a person would. */
const nestBashC = (line: string, levels: number): string => {
  let out = line;
  for (let i = 0; i < levels; i++) out = `bash -c '${out.replaceAll("'", `'\\''`)}'`;
  return out;
};

describe('class 9 pins', () => {
  it('BASH_ENV is a variable that changes what runs, however it is set', async () => {
    expect(DANGEROUS_ENV.has('BASH_ENV')).toBe(true);
    expect(envAllowed('BASH_ENV', true)).toBe(false);
    expect(envAllowed('BASH_ENV', false)).toBe(false);
    const rules = { allow: ['Bash(echo:*)', 'Bash(export:*)', 'Bash(env:*)'] };
    for (const line of [
      "BASH_ENV=./x.sh bash -c 'echo hi'",
      "env BASH_ENV=./x.sh bash -c 'echo hi'",
      "export BASH_ENV=./x.sh; bash -c 'echo hi'",
      "export BASH''_ENV=./x.sh; bash -c 'echo hi'",
      "declare -x BASH_ENV=./x.sh; bash -c 'echo hi'",
    ]) {
      expect(await behaviorOf(rules, line), line).toBe('ask');
    }
    // The same command without the variable is allowed: the variable is what asks.
    expect(await behaviorOf(rules, "bash -c 'echo hi'")).toBe('allow');
  });

  it('&>> and >| are writes: a Write deny meets them', async () => {
    expect(WRITE_OPS.has('&>>')).toBe(true);
    expect(WRITE_OPS.has('>|')).toBe(true);
    const rules = { allow: ['Bash(echo:*)'], deny: ['Write(./src/**)'] };
    expect(await behaviorOf(rules, 'echo x &>> src/a.ts')).toBe('deny');
    expect(await behaviorOf(rules, 'echo x >| src/a.ts')).toBe('deny');
    expect(await behaviorOf(rules, 'echo x 1<> src/a.ts')).toBe('deny');
  });

  it('<> is parsed as read-write (an Edit deny meets it)', async () => {
    const rules = { allow: ['Bash(echo:*)'], deny: ['Edit(./.git/**)'] };
    expect(await behaviorOf(rules, 'echo x 1<> .git/config')).toBe('deny');
    expect(await behaviorOf(rules, 'echo x <> .git/config')).toBe('deny');
  });

  it(`bash -c is followed ${MAX_DEPTH} levels deep and no further`, async () => {
    const rules = { allow: ['Bash(touch:*)'] };
    expect(await behaviorOf(rules, nestBashC('touch ok', MAX_DEPTH))).toBe('allow');
    expect(await behaviorOf(rules, nestBashC('touch ok', MAX_DEPTH + 1))).toBe('ask');
    // And a deny holds at the limit.
    const deny = { allow: ['Bash(touch:*)'], deny: ['Bash(rm:*)'] };
    expect(await behaviorOf(deny, nestBashC('rm x', MAX_DEPTH))).toBe('deny');
  });

  it('mv reads its source: moving a protected file out is a read of it', async () => {
    const rules = { allow: ['Bash(mv:*)'], deny: ['Read(./.env)'] };
    expect(await behaviorOf(rules, 'mv .env /tmp/x')).toBe('deny');
    expect(await behaviorOf(rules, 'mv -t /tmp .env')).toBe('deny');
    expect(await behaviorOf(rules, 'mv README.md /tmp/x')).toBe('allow');
  });

  it('find -ok and -okdir run their command, judged like -exec', async () => {
    const rules = { allow: ['Bash(find:*)'], deny: ['Bash(rm:*)'] };
    for (const action of ['-exec', '-execdir', '-ok', '-okdir']) {
      expect(await behaviorOf(rules, `find src ${action} rm {} ;`), action).toBe('deny');
    }
  });

  it('after cd - or cd $X a relative path may be anywhere: it asks where a rule may apply', async () => {
    const rules = { allow: ['Bash(cat:*)', 'Bash(cd:*)'], deny: ['Read(./secrets/**)'] };
    // In the project, `key` is not protected; in secrets/ it is, and cd - or $X may lead there.
    expect(await behaviorOf(rules, 'cat key')).toBe('allow');
    expect(await behaviorOf(rules, 'cd - && cat key')).toBe('ask');
    expect(await behaviorOf(rules, 'cd $X && cat key')).toBe('ask');
    expect(await behaviorOf(rules, 'cd secrets && cat key')).toBe('deny');
  });

  it('sudo -i and sudo -s start an interactive shell', async () => {
    const rules = { allow: ['Bash(sudo:*)', 'Bash(echo:*)'] };
    expect(await behaviorOf(rules, "echo 'touch x' | sudo -i")).toBe('ask');
    expect(await behaviorOf(rules, "echo 'touch x' | sudo -s")).toBe('ask');
    expect(await behaviorOf(rules, 'sudo --login')).toBe('ask');
  });

  it('an ask rule with a specifier on a tool without hints applies even when the tool is allowed', async () => {
    const policy = await policyOf({ allow: ['Deploy'], ask: ['Deploy(prod)'] });
    const decision = await policy.explain(call('Deploy', { target: 'prod' }));
    expect(decision.behavior).toBe('ask');
    expect(decision.reason).toContain('Deploy(prod)');
  });

  it('a grant at its exact expiry is expired', async () => {
    const grant = { id: 'g', rule: 'Bash(touch:*)', expiresAt: 1000, origin: { by: 'x', at: 0 } };
    expect(grantInForce(grant, 999)).toBe(true);
    expect(grantInForce(grant, 1000)).toBe(false);
    let t = 0;
    const policy = await policyOf({}, () => t);
    await policy.addGrant({ rule: 'Bash(touch:*)', expiresInMs: 1000 });
    t = 999;
    expect((await policy.explain(bash('touch x'))).behavior).toBe('allow');
    t = 1000;
    expect((await policy.explain(bash('touch x'))).behavior).toBe('ask');
  });
});

describe('plan mode runs shell commands proven read-only', () => {
  it.each([
    'git status',
    'git log --oneline -3',
    'ls -la',
    'cat README.md',
    'grep -n x README.md src/a.ts',
    'wc -l src/*.ts',
    'sed -n 1p README.md | sort -u',
    'node --version',
  ])('%s runs', async (line) => {
    const policy = permissionInterceptor({ cwd: root, home, mode: 'plan' });
    await policy.ready;
    const decision = await policy.explain(bash(line));
    expect(decision.behavior, decision.reason).toBe('allow');
  });

  it.each([
    'echo x > notes.txt',
    'sort -o notes.txt README.md',
    'git branch topic',
    'git diff --output=notes.txt',
    'touch x',
    'cat /etc/hostname',
    'sudo cat README.md',
    'find . -exec cat {} +',
    'cat < /dev/tcp/127.0.0.1/9',
    'npm test',
    'sed -n 1p README.md -i',
  ])('%s is refused', async (line) => {
    const policy = permissionInterceptor({
      cwd: root,
      home,
      mode: 'plan',
      rules: { allow: ['Bash'] },
    });
    await policy.ready;
    const decision = await policy.explain(bash(line));
    expect(decision.behavior, decision.reason).toBe('deny');
  });
});
