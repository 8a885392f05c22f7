// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell words, not templates
/**
 * What bash evaluates before and while it runs a line (evaluation.ts): backslash-newline joining,
 * expansions that evaluate code, `[[ ]]`, declarations' words. Each test fails under a one-line
 * change the mutation run (`pnpm mutate:permission`) found surviving or without coverage in
 * shell/evaluation.ts; the pattern attack was found reading those survivors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { analyzeShellCommand, permissionInterceptor } from '../index';
import { joinContinuations } from './evaluation';

const analysis = (line: string) => analyzeShellCommand(line, { cwd: '/tmp/p', home: '/tmp/h' });
const problems = async (line: string) => (await analysis(line)).problems;
const programs = async (line: string) =>
  (await analysis(line)).commands.map((c) => c.argv.map((w) => w.value).join(' '));

describe('backslash-newline', () => {
  it('is joined after a quoted part ends, and inside double quotes', () => {
    expect(joinContinuations("echo 'a' r\\\nm")).toBe("echo 'a' rm");
    expect(joinContinuations('echo "a" r\\\nm')).toBe('echo "a" rm');
    expect(joinContinuations('echo " #x\\\ny"')).toBe('echo " #xy"');
    expect(joinContinuations('echo "it\'s \\\nx" r\\\nm')).toBe('echo "it\'s x" rm');
    expect(joinContinuations('echo a#b\\\nc')).toBe('echo a#bc');
  });

  it("is kept inside $'…', and $'…' ends at its unescaped quote", () => {
    expect(joinContinuations("echo $'a\\\nb' r\\\nm")).toBe("echo $'a\\\nb' rm");
    expect(joinContinuations("echo $'a\\'b\\\n' r\\\nm")).toBe("echo $'a\\'b\\\n' rm");
  });

  it('a comment joins nothing, at the start of the line or after a separator', () => {
    expect(joinContinuations('# c \\\nrm x')).toBe('# c \\\nrm x');
    expect(joinContinuations('r\\\nm;# c \\\nx')).toBe('rm;# c \\\nx');
    expect(joinContinuations('r\\\nm # c')).toBe('rm # c');
  });

  it('a comment ends at its line; a single-quoted backslash is plain; quotes alternate', () => {
    expect(joinContinuations('r\\\nm # c\nl\\\ns')).toBe('rm # c\nls');
    expect(joinContinuations("echo 'a\\' r\\\nm")).toBe("echo 'a\\' rm");
    expect(joinContinuations('echo "a" \'b\\\nc\'')).toBe('echo "a" \'b\\\nc\'');
  });

  it('a backslash at the very end is kept', () => {
    expect(joinContinuations('r\\\nm a\\')).toBe('rm a\\');
    expect(joinContinuations("r\\\nm $'a\\")).toBe("rm $'a\\");
  });
});

describe('expansions', () => {
  it.each([
    '${x}',
    '${x@Q}',
    '${#x}',
    '${x:1}',
    '${x:12}',
    '${x: -1}',
    '${x:1:2}',
    '${x: 1 }',
    '${x:-a}',
    '${x:-1}',
    '${x/a/b}',
    '${x#*/}',
    '${x%.*}',
    '${x/a|b/c}',
    "${x#'$(rm y)'}",
    '${x#$y}',
    '${x#(a)}',
    '${x/:/a}',
  ])('%s evaluates nothing', async (word) => {
    expect(await problems(`echo ${word}`)).toEqual([]);
  });

  it.each([
    ['${x@P}', 'expands a value as a prompt, which runs the commands it holds'],
    ['${!x}', 'expands the variable a value names, which may evaluate a subscript'],
    ['${x:a}', 'evaluates its offset or length as arithmetic, which may run commands'],
    ['${x:a1}', 'evaluates its offset or length as arithmetic, which may run commands'],
    ['${x:1:a}', 'evaluates its offset or length as arithmetic, which may run commands'],
    ['${x:0x1}', 'evaluates its offset or length as arithmetic, which may run commands'],
    ['${x#$((a[1]))}', 'evaluates arithmetic in its pattern, which may run commands'],
  ])('%s evaluates code', async (word, what) => {
    expect(await problems(`echo ${word}`)).toEqual([`${word} ${what}`]);
  });

  it('a long expansion is named by its first 40 characters', async () => {
    const long = `\${${'a'.repeat(38)}@P}`;
    expect(await problems(`echo ${long}`)).toEqual([
      `${long.slice(0, 40)}… expands a value as a prompt, which runs the commands it holds`,
    ]);
    const exact = `\${${'a'.repeat(35)}@P}`;
    expect(exact).toHaveLength(40);
    expect((await problems(`echo ${exact}`))[0]).toMatch(new RegExp(`^\\${exact.slice(0, 39)}} `));
  });

  it('backticks inside a default value run, and only they', async () => {
    expect((await programs('echo `ls` ${x:-a}')).filter((p) => p === 'ls')).toHaveLength(1);
    expect(await programs('echo ${x:-`ls` `pwd`}')).toEqual(['echo ${x:-`ls` `pwd`}', 'ls', 'pwd']);
  });

  it.each([
    ['echo ${x#$(rm -rf src)}', 'rm -rf src'],
    ['echo ${x/`rm -rf src`/b}', 'rm -rf src'],
    ['echo ${x,,$(rm -rf src)}', 'rm -rf src'],
    ['echo "${x%%$(rm -rf src)}"', 'rm -rf src'],
    ['echo ${x#a$(ls)b$(rm c)}', 'rm c'],
    ['echo ${x#${y:-$(rm a)}}', 'rm a'],
    ['echo ${x#`echo \\`rm y\\``}', 'rm y'],
    ['echo ${x#<(rm x)}', 'rm x'],
    ['echo "${x#>(rm x)}"', 'rm x'],
  ])('the pattern of %s runs %s', async (line, runs) => {
    expect(await programs(line)).toContain(runs);
  });

  it('a substitution the parser reads is walked once; only backticks lose a level of escapes', async () => {
    expect((await programs('echo ${x:-$(ls)}')).filter((p) => p === 'ls')).toHaveLength(1);
    const inner = (await analysis('echo ${x#$(echo \\$y)}')).commands[1]?.argv[1];
    expect(inner).toEqual({ value: '$y', literal: true, glob: false });
  });

  it('a pattern that does not parse, or that evaluates, is not understood', async () => {
    expect((await problems('echo ${x#$(ls (}'))[0]).toContain('holds a pattern');
    expect(await problems('echo ${x#${y@P}}')).toEqual([
      '${y@P} expands a value as a prompt, which runs the commands it holds',
    ]);
  });
});

describe('an attack: a command inside the pattern of ${x#…}', () => {
  it('runs in bash, and is denied by the rule on what it runs', async () => {
    const { root, home } = makeProject();
    const marker = join(root, 'pwned');
    const line = 'echo ${x#$(touch pwned)} ${x/`touch pwned2`/b} "${x,,<(touch pwned3)}"';
    // Unguarded, bash runs all three.
    // `wait` lets the process substitution, which bash does not wait for, finish.
    spawnSync('bash', ['-c', `x=abc; ${line}; wait`], { cwd: root, stdio: 'ignore' });
    expect([marker, `${marker}2`, `${marker}3`].map((f) => existsSync(f))).toEqual([
      true,
      true,
      true,
    ]);
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(echo:*)'], deny: ['Bash(touch:*)'] },
    });
    await policy.ready;
    const d = await policy.explain(bash(line));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain('deny rule "Bash(touch:*)"');
  });
});

describe('[[ ]] and declarations', () => {
  it.each(['[[ a == b ]]', '[[ -n x ]]', '[[ 1 -eq 0 ]]', '[[ $# -eq 0 ]]'])(
    '%s evaluates nothing',
    async (line) => {
      expect(await problems(line)).toEqual([]);
    },
  );

  it.each([
    ["export A''B=1", { value: 'AB=1', literal: true, glob: false }],
    ['export A"$x"B=1', { value: 'A$xB=1', literal: false, glob: false }],
    ["export a*''b", { value: 'a*b', literal: true, glob: true }],
    ['export X', { value: 'X', literal: true, glob: false }],
    ['export $x', { value: '$x', literal: false, glob: false }],
    ['declare a[1]=2', { value: 'a[1]=2', literal: false, glob: false }],
  ])('%s: the pieces of one word are joined', async (line, word) => {
    const a = await analysis(line);
    expect(a.commands[0]?.argv.slice(1)).toEqual([word]);
  });

  it('an assignment without a value is the name and =, known', async () => {
    const a = await analysis('export X=');
    expect(a.commands[0]?.argv[1]).toEqual({ value: 'X=', literal: true, glob: false });
  });
});
