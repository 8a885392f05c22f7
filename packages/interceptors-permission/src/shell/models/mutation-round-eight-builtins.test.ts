/**
 * Mutation round eight, the parts of builtins.ts the seventh round did not reach: the tables of
 * test and `[[ ]]` (the numeric parameters, the arithmetic, unary and binary operators), unset,
 * ls, read and mapfile. Each case fails under a change the mutation run (`pnpm mutate:permission`)
 * found surviving. The seventh round's cases of these lines are named by their line, whose `[[`,
 * `(` or `*` Stryker's test filter reads specially, so it ran too few of them: these cases are
 * named without such characters.
 */
import { describe, expect, it } from 'vitest';
import { filePolicy, makeProject } from '../../../test/helpers';

const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['test', 'unset', 'ls', 'read', 'mapfile', 'readarray', 'echo'].map(
      (p) => `Bash(${p}:*)`,
    ),
    deny: ['Read(./.env)', 'Edit(./src/**)'],
  },
});

/** A test name without the characters Stryker's test filter reads specially. */
const named = (lines: readonly string[]): [string, string][] =>
  lines.map((line) => [line.replace(/[[\]()*]/g, '_'), line]);

describe('test and [[ ]]: the tables (round eight)', () => {
  // Each is allowed: a number compared runs nothing, and a word after an operator of the table
  // BINARY is its right operand. Were a parameter not read as a number, or an operator missing
  // from its table, the line would ask.
  it.each(
    named([
      '[[ $# -eq 1 ]]',
      '[[ "$#" -eq 1 ]]',
      '[[ $? -ne 0 ]]',
      '[[ $$ -gt 0 ]]',
      '[[ $! -ge 0 ]]',
      `[[ \${#x} -lt 2 ]]`,
      `[[ "\${#abc}" -le 2 ]]`,
      `[[ \${#_a1} -gt 0 ]]`,
      '[[ 1 -eq 1 ]]',
      ...['=', '==', '!=', "'<'", "'>'", '-nt', '-ot', '-ef', '-a', '-o'].map(
        (op) => `test "$a" ${op} "$b"`,
      ),
      ...['-eq', '-ne', '-lt', '-le', '-gt', '-ge'].map((op) => `test "$a" ${op} "$b"`),
      'test x "$a" y',
    ]),
  )('%s: allowed', async (_name, line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  // Each asks: a side of an arithmetic operator that is not a number is evaluated as code, and a
  // word not known before it runs after a unary position may be the operator -v.
  it.each([
    ['[[ a$# -eq 1 ]]', '-eq evaluates a$# as arithmetic'],
    ['[[ $#a -eq 1 ]]', '-eq evaluates $#a as arithmetic'],
    ['[[ "$#"a -eq 1 ]]', '-eq evaluates "$#"a as arithmetic'],
    [`[[ \${#x}y -eq 1 ]]`, `-eq evaluates \${#x}y as arithmetic`],
    [`[[ \${x} -eq 1 ]]`, `-eq evaluates \${x} as arithmetic`],
    [`[[ \${#1x} -eq 1 ]]`, `-eq evaluates \${#1x} as arithmetic`],
    ['[[ $x -eq 1 ]]', '-eq evaluates $x as arithmetic'],
    ['[[ $x -ne 1 ]]', '-ne evaluates $x as arithmetic'],
    ['[[ $x -lt 1 ]]', '-lt evaluates $x as arithmetic'],
    ['[[ $x -le 1 ]]', '-le evaluates $x as arithmetic'],
    ['[[ $x -gt 1 ]]', '-gt evaluates $x as arithmetic'],
    ['[[ $x -ge 1 ]]', '-ge evaluates $x as arithmetic'],
    ['test ! "$op" x', '"$op" may be the operator -v'],
    ['test x -a "$op" y', '"$op" may be the operator -v'],
    ['test x -o "$op" y', '"$op" may be the operator -v'],
    ["test '(' \"$op\" x ')'", '"$op" may be the operator -v'],
    ['test \'[\' "$op" x', '"$op" may be the operator -v'],
  ])('%#: asked', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });
});

describe('unset, ls, read and mapfile (round eight)', () => {
  it.each(
    named([
      'unset x',
      'unset -v x',
      'unset -f x',
      'unset -- x',
      "unset 'a[1]'",
      "unset 'a[12]'",
      "unset 'a[@]'",
      "unset 'a[*]'",
      'ls',
      'ls -la',
      'ls src',
      'ls .e*',
      'ls "$d"',
      'read -r line',
      'read -e -s x',
      'read -p prompt -t 5 -n 1 -N 1 -d x -i y -u 0 a b',
      'read -a parts',
      'read -ra parts',
      'read "a[0]"',
      'mapfile -t lines',
      'mapfile -d x -n 2 -O 1 -s 1 -u 0 -c 1 lines',
      'readarray -t lines',
    ]),
  )('%s: allowed', async (_name, line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    ['unset "$x"', 'unset "$x" evaluates a subscript'],
    ["unset 'a[$i]'", "unset 'a[$i]' evaluates a subscript"],
    ["unset -v 'a[$i]'", "unset 'a[$i]' evaluates a subscript"],
    ["unset 'a[1]b'", "unset 'a[1]b' evaluates a subscript"],
    ["unset 'a[1]b]'", "unset 'a[1]b]' evaluates a subscript"],
    ["unset 'a[]'", "unset 'a[]' evaluates a subscript"],
    ["unset x 'a[$i]'", "unset 'a[$i]' evaluates a subscript"],
    ["read 'a[$i]'", 'the subscript of a[$i] is evaluated as arithmetic'],
    ["read -a 'a[$i]'", 'the subscript of a[$i] is evaluated as arithmetic'],
    ['read PATH', 'it sets PATH'],
    ['read -z x', 'read option -z is not one the model knows'],
    ["mapfile 'a[$i]'", 'the subscript of a[$i] is evaluated as arithmetic'],
    ["mapfile -C 'f' lines", 'option -C of mapfile runs another program'],
    ["readarray -C 'f' lines", 'option -C of readarray runs another program'],
    ['readarray -z lines', 'readarray option -z is not one the model knows'],
  ])('%#: asked', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  // ls's literal operands are checked as paths, however many and wherever they stand.
  it.each(['ls .env', 'ls -la .env', 'ls src .env', 'ls -- .env'])('%s: denied', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
  });
});
