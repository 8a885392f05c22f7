// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell words, not templates
/**
 * The fifth round's tests for shell/evaluation.ts (and the `-v` fix in models/builtins.ts): which
 * words of `[[ … ]]` the test model sees, a pattern with nothing to expand, and glob pieces of a
 * declaration word. Each test fails under a one-line change that survived the mutation runs
 * (`pnpm mutate:permission`), listed in docs/permission-mutation.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { analyzeShellCommand, type PermissionRules, permissionInterceptor } from '../index';

const { root, home } = makeProject();
const problems = async (line: string) =>
  (await analyzeShellCommand(line, { cwd: '/tmp/p', home: '/tmp/h' })).problems;
const decide = async (rules: PermissionRules, line: string) => {
  const policy = permissionInterceptor({ cwd: root, home, rules });
  await policy.ready;
  return policy.explain(bash(line));
};

describe('an attack: -v on a name not known before it runs', () => {
  it('runs the subscript in bash, and is asked, not allowed as "runs nothing"', async () => {
    const { root: dir } = makeProject();
    const lines = [
      "x='a[$(touch pwned1)]'; [[ -v $x ]]",
      'x=\'a[$(touch pwned2)]\'; [ -v "$x" ]',
      'x=\'a[$(touch pwned3)]\'; test -v "$x"',
      'op=-v; x=\'a[$(touch pwned4)]\'; test $op "$x"',
    ];
    // Unguarded, bash expands the name and then evaluates its subscript, which runs touch.
    for (const line of lines) spawnSync('bash', ['-c', line], { cwd: dir, stdio: 'ignore' });
    expect([1, 2, 3, 4].map((n) => existsSync(join(dir, `pwned${n}`)))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    // Without the fix the first two were allowed under any policy ("the command line runs
    // nothing"), the last two by an allow on test.
    const rules = { allow: ['Bash(test:*)'], deny: ['Bash(touch:*)'] };
    for (const line of lines) expect((await decide(rules, line)).behavior, line).toBe('ask');
    expect((await decide(rules, "x='a[$(touch p)]'; [[ -v $x ]]")).reason).toContain(
      '-v $x names a variable not known before it runs, whose subscript may run commands',
    );
  });

  it('a known name, a string test or a comparison of unknown words still runs nothing', async () => {
    for (const line of [
      '[[ -v x ]]',
      '[ -n "$x" ]',
      '[ "$a" = "$b" ]',
      '[ "$a" ]',
      '[ -f "$f" -a "$b" = 1 ]',
      '[[ -n $x ]]',
    ])
      expect(await problems(line), line).toEqual([]);
    expect((await decide({ allow: ['Bash(test:*)'] }, 'test -n "$x"')).behavior).toBe('allow');
    expect((await decide({ allow: ['Bash(test:*)'] }, 'test "$a" != x')).behavior).toBe('allow');
  });

  it('an operator not known before it runs is asked, after [, !, -a, -o or (, not before ]', async () => {
    for (const line of ['test $op "$x"', 'test ! $op x', 'test x -a $op y', 'test \\( $op x \\)'])
      expect((await decide({ allow: ['Bash(test:*)'] }, line)).behavior, line).toBe('ask');
    expect((await decide({ allow: ['Bash(test:*)'] }, 'test $op')).behavior).toBe('allow');
    expect((await decide({ allow: ['Bash(test:*)'] }, 'test x $op y')).behavior).toBe('allow');
  });
});

describe('the words of [[ … ]]: each kind of word is one word, whole', () => {
  // Were a kind of word not taken whole, its pieces would be the words: `-v` would see `$` or
  // `"` (a literal without a subscript) instead of a name not known before it runs.
  it.each([
    '[[ -v $x ]]',
    '[[ -v ${x} ]]',
    '[[ -v $(echo x) ]]',
    '[[ -v $((i)) ]]',
    '[[ -v "$x" ]]',
    '[[ -v x$y ]]',
  ])('%s asks: the name is not known before it runs', async (line) => {
    expect(await problems(line)).toContainEqual(
      expect.stringContaining('names a variable not known before it runs'),
    );
  });

  it('a plain word and a quoted one are words of their own', async () => {
    // Were a word without children not a word, `y` would vanish and `-eq` see nothing to its left.
    expect(await problems('[[ y -eq 0 ]]')).toContainEqual(
      '-eq evaluates y as arithmetic, which may run commands',
    );
    expect(await problems("[[ -v 'a[$(rm x)]' ]]")).toContainEqual(
      "-v 'a[$(rm x)]' evaluates a subscript, which may run commands",
    );
    expect(await problems('[[ -v a ]]')).toEqual([]);
  });

  it('[[ and ]] are not operands, and only [[ ]] evaluates arithmetic', async () => {
    // bash refuses `[[ -eq 1 ]]` (a syntax error), so it runs nothing; were `[[` an operand,
    // `-eq` would evaluate it and the line would ask. Were `[` read as `[[`, `[ y -eq 0 ]` would.
    expect(await problems('[[ -eq 1 ]]')).toEqual([]);
    expect(await problems('[ y -eq 0 ]')).toEqual([]);
    expect(await problems('[[ y -eq 0 ]]')).not.toEqual([]);
  });
});

describe('a pattern with nothing to expand', () => {
  it('is not parsed, so a character that would not parse alone is plain text', async () => {
    // `${x#)}` removes a `)`: bash reads it as text. Were every pattern parsed as `: )`, the
    // syntax error would make this line a problem, asked for nothing.
    for (const line of ['echo ${x#)}', 'echo ${x/a/|}', 'echo ${x%;}'])
      expect(await problems(line), line).toEqual([]);
    expect((await decide({ allow: ['Bash(echo:*)'] }, 'echo ${x#)}')).behavior).toBe('allow');
  });
});

describe('a declaration word split by the parser', () => {
  it('is a glob when any of its pieces is one', async () => {
    // `export F''*` expands `F*` to the names of files there, which may be FOO: it may match
    // the deny. Were the joined word a glob only when every piece is, `F` would make it a plain
    // `F*`, which matches no deny, and the whole-tool allow would allow it.
    const d = await decide({ allow: ['Bash'], deny: ['Bash(export FOO)'] }, "export F''*");
    expect(d.behavior).toBe('ask');
    expect(d.reason).toContain('may match deny rule Bash(export FOO)');
  });
});
