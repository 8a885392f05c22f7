/**
 * Mutation round seven, the readers' models: the scripts they judge (scripts.ts: a sed script, an
 * awk program, a jq filter), the builtins (builtins.ts) and the readers (readers.ts). Each case
 * fails under a change the mutation run (`pnpm mutate:permission`) found surviving, or under the
 * old code of a fix made in that round.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, filePolicy, makeProject } from '../../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../../index';

const { root, home } = makeProject();
const { explain } = filePolicy({
  cwd: root,
  home,
  rules: {
    allow: ['Bash(sed:*)', 'Bash(awk:*)', 'Bash(gawk:*)', 'Bash(mawk:*)', 'Bash(jq:*)'],
    deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Bash(rm:*)'],
  },
});
const { explain: inPlan } = filePolicy({
  cwd: root,
  home,
  mode: 'plan',
  rules: { allow: ['Bash'] },
});
const has = (program: string) => spawnSync(program, ['--version']).status === 0;

/** Runs `line` with bash in a fresh project (with `slash.txt` holding a `/`); returns stdout. */
const runFor = (line: string): { dir: string; out: string } => {
  const dir = makeProject().root;
  writeFileSync(join(dir, 'slash.txt'), 'a/b\n');
  mkdirSync(join(dir, 'secrets'), { recursive: true });
  writeFileSync(join(dir, 'secrets', 'data.json'), '{"key":"s3cret"}\n');
  const r = spawnSync('bash', ['-c', line], { cwd: dir, encoding: 'utf8', timeout: 10_000 });
  return { dir, out: r.stdout };
};

describe('what a sed, awk or jq program did unseen (round seven; each ran for real)', () => {
  // Before, each of these was allowed under Bash(sed:*), Bash(awk:*) or Bash(jq:*): the model read
  // the program otherwise than the program does, and what it did was not seen.
  const writes: [string, string, string][] = [
    // GNU sed ends a label at a blank and reads a command after it; the model took the rest of
    // the line as the label.
    ['sed', "sed -n ':x w src/pwned' README.md", 'deny'],
    ['sed', "sed -n 'b x w src/pwned' README.md", 'deny'],
    ['sed', "sed ':x s/.*/touch src\\/pwned/e' README.md", 'ask'],
    // `[/]` is one bracket expression to sed: the pattern is `[/]`, and `e` is a flag.
    ['sed', "sed 's/.*[/].*/touch src\\/pwned/e;s/a/b/' slash.txt", 'ask'],
    // A `"` in a comment or in a regular expression began a "string" for the model, which then
    // hid the code up to the next `"`.
    ['awk', `awk '# "\nBEGIN { system("touch src/pwned") } # "'`, 'ask'],
    ['awk', `awk 'BEGIN { if (/"/) {}; system("touch src/pwned"); if (/"/) {} }'`, 'ask'],
    ['awk', `awk 'BEGIN { if (1) /"/; system("touch src/pwned"); if (1) /"/ }'`, 'ask'],
    ['mawk', `mawk 'BEGIN { if (/"/) {}; system("touch src/pwned"); if (/"/) {} }'`, 'ask'],
    // A print's words go on after a comma on the next line, and a `;` or `}` in a regular
    // expression ends no statement: the redirection was not seen.
    ['gawk', `gawk 'BEGIN { print "x",\n"y" > "src/pwned" }'`, 'ask'],
    ['gawk', `gawk 'BEGIN { print /}/ > "src/pwned" }'`, 'ask'],
    ['mawk', `mawk 'BEGIN { print /;/ > "src/pwned" }'`, 'ask'],
    ['gawk', `gawk 'BEGIN { print 1 + /;/ > "src/pwned" }'`, 'ask'],
  ];
  it.each(writes)('%s: %j writes src/pwned', (program, line) => {
    if (!has(program)) return;
    const { dir } = runFor(line);
    expect(existsSync(join(dir, 'src', 'pwned'))).toBe(true);
  });
  it.each(writes)('%s: %j is %s', async (_program, line, behavior) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe(behavior);
  });

  const reads: [string, string, string, string][] = [
    ['sed', "sed -n ':x r .env' README.md", 'TOKEN', 'deny'],
    // awk reads the files named in ARGV when its BEGIN ends, changed or not.
    ['gawk', `gawk 'BEGIN { ARGV[1] = ".env"; ARGC = 2 } { print }'`, 'TOKEN', 'ask'],
    ['mawk', `mawk 'BEGIN { ARGV[1] = ".env"; ARGC = 2 } { print }'`, 'TOKEN', 'ask'],
    // jq imports a JSON file as data (`import "x" as $d` reads x.json); the `"` in the comment
    // hid the `import` from the model.
    ['jq', `jq -n '# "\nimport "./secrets/data" as $d; $d'`, 's3cret', 'ask'],
  ];
  it.each(reads)('%s: %j prints the protected file', (program, line, secret) => {
    if (!has(program)) return;
    expect(runFor(line).out).toContain(secret);
  });
  it.each(reads)('%s: %j (prints %s) is %s', async (_program, line, _secret, behavior) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe(behavior);
  });
});

describe('the sed script reader', () => {
  // Each allowed script is one the model must follow to its end: were a separator, an address
  // or a command misread, it would ask (or, for the timeouts, never end).
  it.each([
    "sed 's/a/b/' README.md",
    "sed 's/a/b/g' README.md",
    "sed -n 's/a/b/2p' README.md",
    "sed -n '/x/Ip' README.md",
    "sed -n '/x/Mp' README.md",
    "sed -n '$p' README.md",
    "sed -n '\\%x%p' README.md",
    "sed -n '1,3p' README.md",
    "sed -n '1,+2p' README.md",
    "sed -n '1,~2p' README.md",
    "sed -n '0,/x/p' README.md",
    "sed -n '0~2p' README.md",
    "sed -n '1!p' README.md",
    "sed -n '1 p' README.md",
    "sed -n '$' README.md",
    "sed 'q5' README.md",
    "sed -n '1{p}' README.md",
    "sed -n '1{\np\n}' README.md",
    "sed 'y/abc/xyz/' README.md",
    // y's parts are no regular expressions: `[` is itself (sed maps it to x).
    "sed 'y/[/x/' README.md",
    "sed '1a text' README.md",
    // Text, a label and the blanks before a label are not read as commands: `hello` and `end`
    // would be (`e` runs a command).
    "sed '1a hello' README.md",
    "sed '1i hello' README.md",
    "sed '1c hello' README.md",
    "sed -n ':end' README.md",
    "sed -n 'b end;:end' README.md",
    "sed -n 'bend;tend;Tend;:end' README.md",
    "sed -n 'b  end;p' README.md",
    "sed -n 'b\tend;p' README.md",
    "sed '1i text' README.md",
    "sed '1c text' README.md",
    "sed -n ':x' README.md",
    "sed -n 'bx' README.md",
    "sed -n 'tx' README.md",
    "sed -n 'Tx' README.md",
    "sed -n 'b  x;p' README.md",
    "sed -n '1{bx};p' README.md",
    "sed -n ':a;N;$!ba;p' README.md",
    "sed -n '# a note\n1p' README.md",
    "sed -n 's/[[:alpha:]]/x/p' README.md",
    // `:` or `.` after another character than `[` opens no class.
    "sed -n 's/[a:b.c]/x/p' README.md",
    "sed -n 's/[]a]/x/p' README.md",
    "sed -n 's/[^]a]/x/p' README.md",
    "sed -n 's/[[=a=][.-.]]/x/p' README.md",
    "sed -n 's/\\[/x/p' README.md",
    "sed -n 's/[\\]/x/p' README.md",
    "sed -n 's/a/[/p' README.md",
    "sed -n '/[0-9]/p' README.md",
  ])('%j: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  // Each write (or read) is found only when the reader gets to it: past the address, the
  // separator or the command before it.
  it.each([
    ["sed -n '1w src/out' README.md", 'sed w'],
    ["sed -n '$w src/out' README.md", 'sed w'],
    ["sed -n '\\%x%w src/out' README.md", 'sed w'],
    ["sed -n '/x/Iw src/out' README.md", 'sed w'],
    ["sed -n '/x/Mw src/out' README.md", 'sed w'],
    ["sed -n '1,3w src/out' README.md", 'sed w'],
    ["sed -n '1,+2w src/out' README.md", 'sed w'],
    ["sed -n '1,~2w src/out' README.md", 'sed w'],
    ["sed -n '1,/x/w src/out' README.md", 'sed w'],
    ["sed -n '1!w src/out' README.md", 'sed w'],
    ["sed -n '1 w src/out' README.md", 'sed w'],
    ["sed -n 'q5;w src/out' README.md", 'sed w'],
    ["sed -n '1{w src/out\n}' README.md", 'sed w'],
    ["sed -n 'y/a/b/;w src/out' README.md", 'sed w'],
    ["sed -n 'p;\tw src/out' README.md", 'sed w'],
    ["sed -n 'p\nw src/out' README.md", 'sed w'],
    ["sed -n 'p;w src/out' README.md", 'sed w'],
    ["sed -n '# note\nw src/out' README.md", 'sed w'],
    ["sed -n '1r README.md\nw src/out' README.md", 'sed w'],
    ["sed -n '1a text\nw src/out' README.md", 'sed w'],
    ["sed -n 'bx;w src/out' README.md", 'sed w'],
    ["sed -n 'W src/out' README.md", 'sed W'],
    ["sed -n 's/a\\/b/c/w src/out' README.md", 'sed s///w'],
    ["sed -n 's/a/b/w src/out' README.md", 'sed s///w'],
    ["sed -n 's/a/b/gw src/out' README.md", 'sed s///w'],
    ["sed -n 's/[[:alpha:]]/x/w src/out' README.md", 'sed s///w'],
  ])('%j: denied, the write seen (%s)', async (line, op) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.reason).toContain(`"${op} src/out"`);
  });
  it.each(["sed -n '1r .env' README.md", "sed -n '1R .env' README.md"])(
    '%s: reads .env, denied',
    async (line) => {
      const d = await explain(line);
      expect(d.behavior, d.reason).toBe('deny');
      expect(d.reason).toContain('reading');
    },
  );

  it.each([
    ["sed -n 's/a/b/e' README.md", 's///e runs the pattern space as a command'],
    ["sed -n '1e id' README.md", 'e runs a command'],
    ["sed -n 'y/a/b/e' README.md", 'e runs a command'],
    ["sed -n 'v' README.md", 'command "v" is not one the model knows'],
    ["sed -n '1\\' README.md", 'command "\\\\" is not one the model knows'],
    ["sed -n 's' README.md", 's has no delimiter'],
    ["sed -n 's\na\nb\n' README.md", 's has no delimiter'],
    ["sed -n 's\\a\\b\\' README.md", 's has no delimiter'],
    ["sed -n 's/abc' README.md", 's is not closed'],
    ["sed -n 's/a/b' README.md", 's is not closed'],
    ["sed -n 's/[abc' README.md", 's is not closed'],
    ["sed -n 's/a\n/b/' README.md", 's is not closed'],
    ["sed -n 'y/a/b' README.md", 'y is not closed'],
    ["sed -n '/abc' README.md", 'an address is not closed'],
    ["sed -n '1,/abc' README.md", 'an address is not closed'],
    ["sed -n '/[/]/p' README.md", 'an address is not closed'],
    ["sed -n 's/[/]/x/' README.md", 'a bracket expression holds the delimiter'],
    ["sed -n 's/[]/]/x/' README.md", 'a bracket expression holds the delimiter'],
    ["sed -n 's/[\\\\/]/x/' README.md", 'a bracket expression holds the delimiter'],
    ["sed -n 's/[[:alpha:/]/x/' README.md", 'a bracket expression holds the delimiter'],
    ["sed -n 's/[[:alpha:]/x/' README.md", 'a bracket expression holds the delimiter'],
    // `]` right after `[^` is in the bracket, which goes on past the `/` (sed: not terminated).
    ["sed -n 's/[^]/x/p' README.md", 'a bracket expression holds the delimiter'],
    ["sed -n 'r' README.md", 'r names no file'],
    ["sed --sandbox -n '1r README.md' README.md", 'r is refused under --sandbox'],
    ["sed --sandbox -n '1w out.txt' README.md", 'w is refused under --sandbox'],
  ])('%j: asked (%s)', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  it('names the script by its first 40 characters', async () => {
    const script = `${'p;'.repeat(25)}v`;
    const d = await explain(`sed -n '${script}' README.md`);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(`sed script ${JSON.stringify(script.slice(0, 40))}: command "v"`);
  });

  it('a script that writes is not read-only: plan mode refuses it', async () => {
    // Without it, `w` to a file no rule guards ran in plan mode.
    const d = await inPlan("sed -n '1w out.txt' README.md");
    expect(d.behavior, d.reason).toBe('deny');
    const ok = await inPlan("sed -n '1r README.md' README.md");
    expect(ok.behavior, ok.reason).toBe('allow');
  });
});

describe('the awk program reader', () => {
  // Each allowed program is one the reader must take apart as awk does: a comment, a string, a
  // regular expression or a division misread would ask.
  it.each([
    `awk '{ print $1 }' README.md`,
    `awk '/"/' README.md`,
    `awk '$0 ~ "a|b"' README.md`,
    `awk '{ print "a\\"|b" }' README.md`,
    `awk '# it says "hi\n{ print }' README.md`,
    `awk '{ print $1/2; x = $2 / 3 }' README.md`,
    `awk '{ s += $1 } END { print s / NR }' README.md`,
    `awk '{ x = n++ / 2 }' README.md`,
    `awk '{ x = n-- / 2 }' README.md`,
    `awk '{ x = a[1] / 2 }' README.md`,
    `awk '{ x = (1) / 2 }' README.md`,
    `awk '{ x = f(1) / 2 }' README.md`,
    `awk '{ x = 1.5 / 2 }' README.md`,
    `awk '{ print "4" / 2; x = 1 / 3 > "f" }' README.md`,
    // A division with no second `/` on its line, and the call of a function whose name ends or
    // begins like if / for: no condition, the `/` divides.
    `awk '{ print $1/1024 " KB" }' README.md`,
    `awk 'function gif(a) { return a } { x = gif(1) / 2 }' README.md`,
    `awk 'function format(a) { return a } { x = format(1) / 2 }' README.md`,
    `awk '{ x = $1 - /"/ }' README.md`,
    `awk '{ if ($1) /"/ }' README.md`,
    `awk '{ while (0) /"/ }' README.md`,
    `awk '{ for (;0;) /"/ }' README.md`,
    `awk '{ print /"/ }' README.md`,
    `awk '{ printf /"/ }' README.md`,
    `awk '{ exit /"/ }' README.md`,
    `awk 'function f() { return /"/ } { f() }' README.md`,
    `awk '{ if (0) x = 1; else /"/ }' README.md`,
    `awk '{ do /"/; while (0) }' README.md`,
    `gawk '{ switch (1) { case /"/: break } }' README.md`,
    `awk '{ x = 1\n/"/ }' README.md`,
    `awk '{ x = a \\\n/ 2 }' README.md`,
    `awk '$3 > 100 { print $1 }' README.md`,
    `awk '{ a[$1]++ } END { for (k in a) print k, a[k] }' README.md`,
    `awk 'a || b' README.md`,
  ])('%j: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    [`awk '{ print > "out" }' README.md`, '"print >"'],
    [`awk 'BEGIN { print "x" \\\n> "out" }'`, 'print'],
    [`awk 'BEGIN { print ARGV[1] }'`, '"ARGV"'],
    // What comes before a `++` is kept, and a string ends an operand: `"4" / 2` divides, so the
    // `;` after it ends the print (read as a regular expression, `/ 2; x = 1 /` hid it).
    [`awk '{ system("x"); n++ }' README.md`, '"system("'],
    [`awk '{ print > "f"; n-- }' README.md`, '"print >"'],
    [`awk '{ print /;/ > "f"; n++ }' README.md`, '"print // >"'],
    [`awk 'BEGIN { print ENVIRON["HOME"] }'`, '"ENVIRON"'],
    [`awk 'BEGIN { "date" | getline d }'`, '"|"'],
    [`awk 'BEGIN { getline d < "x" }'`, '"getline"'],
    [`awk 'BEGIN { close("x") }'`, '"close("'],
    [`awk 'BEGIN { fflush() }'`, '"fflush("'],
    // A blank may stand between a function's name and its `(` (awk calls it all the same).
    [`awk 'BEGIN { system ("x") }'`, '"system ("'],
    [`awk 'BEGIN { close ("x") }'`, '"close ("'],
    [`awk 'BEGIN { fflush () }'`, '"fflush ("'],
    [`awk '{ printf("x") > "out" }' README.md`, '"printf(\\"\\") >"'],
    [`awk '@include "x"'`, '"@include"'],
    [`awk '{ print "a }' README.md`, 'a string is not closed'],
    [`awk '/abc' README.md`, 'a regular expression is not closed where awk closes it'],
    // gawk and mawk read `[/]` as one bracket expression; the plain reading ends at its `/`.
    [`awk '{ x = /[/]/ }' README.md`, 'a regular expression is not closed where awk closes it'],
    [`awk '{ x = /[/]"/ }' README.md`, 'a regular expression is not closed where awk closes it'],
    [`awk '{ x = $1 / 2 "/" }' README.md`, 'a / may begin a regular expression holding " or #'],
    [`awk '{ x = $1 / 2 # / }' README.md`, 'a / may begin a regular expression holding " or #'],
    [`awk -- "$p" README.md`, 'the awk program "$p" is not known before it runs'],
  ])('%j: asked (%s)', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });
});

describe('the jq filter reader', () => {
  it.each([
    `jq '.a' README.md`,
    `jq '.a | select(.b == "import")' README.md`,
    `jq '# a "quote\n.a' README.md`,
    // A comment is left out whatever it holds, an interpolation's `\\(` too.
    `jq '# \\(import "a" as a;\n.a' README.md`,
    `jq '"a\\"import"' README.md`,
  ])('%j: allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
  it.each([
    [`jq 'import "a" as a; .' README.md`, 'imports a module'],
    [`jq 'include "a"; .' README.md`, 'imports a module'],
    [`jq '# "\nimport "a" as a; .' README.md`, 'imports a module'],
    // A string with an interpolation holds code: it is not blanked (over-approximates).
    [`jq -n '"\\(.include)"'`, 'imports a module'],
    [`jq -- "$f" README.md`, 'the jq filter "$f" is not known before it runs'],
  ])('%j: asked (%s)', async (line, why) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });
});

describe('what a builtin or a reader did unseen (round seven; each ran for real)', () => {
  let none: PermissionInterceptor;
  let printf: PermissionInterceptor;
  beforeAll(async () => {
    none = permissionInterceptor({
      cwd: root,
      home,
      rules: { deny: ['Edit(./src/**)', 'Bash(rm:*)'] },
    });
    printf = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(printf:*)'], deny: ['Edit(./src/**)', 'Bash(rm:*)'] },
    });
    await Promise.all([none.ready, printf.ready]);
  });

  // Before, declare assigning `(…)` was "declare changes nothing outside the shell": allowed with
  // no rule at all (and run in plan mode), while bash evaluated each `[subscript]` as arithmetic
  // and ran the command substitution in it.
  const compound = [
    `declare -a a='([$(touch src/pwned)]=1)'`,
    `typeset -A a='([$(touch src/pwned)]=1)'`,
    `a=(); declare a='([$(touch src/pwned)]=1)'`,
    `v='([$(touch src/pwned)]=1)'; declare -a a="$v"`,
    `v='([$(touch src/pwned)]=1)'; a=(); declare a="$v"`,
    `v='[$(touch src/pwned)]=1'; declare -a a="($v)"`,
    `readonly -a a='([$(touch src/pwned)]=1)'`,
    `export -a a='([$(touch src/pwned)]=1)'`,
    `f() { local -a a='([$(touch src/pwned)]=1)'; }; f`,
  ];
  it.each(compound)('%j writes src/pwned', (line) => {
    expect(existsSync(join(runFor(line).dir, 'src', 'pwned'))).toBe(true);
  });
  it.each(compound)('%j: asked', async (line) => {
    const d = await none.explain(bash(line));
    expect(d.behavior, d.reason).toBe('ask');
  });
  it.each([
    `declare x=1`,
    `declare x=y"$v"`,
    `declare -i n=5`,
    `local x=a`,
    `typeset -A m`,
    `readonly r='(1)'`,
    `a=(); readonly a='([$(touch src/pwned)]=1)'`,
  ])('%j: assigns no list (export and readonly need -a), allowed', async (line) => {
    const d = await none.explain(bash(line));
    expect(d.behavior, d.reason).toBe('allow');
  });
  it.each([
    // bash does not evaluate these (checked): export and readonly assign `(…)` as text.
    [`a=(); export a='([$(touch src/pwned)]=1)'`, false],
    [`a=(); readonly a='([$(touch src/pwned)]=1)'`, false],
    [`a=(); declare a=x'([$(touch src/pwned)]=1)'`, false],
  ])('%j runs nothing (run for real)', (line, runs) => {
    expect(existsSync(join(runFor(line).dir, 'src', 'pwned'))).toBe(runs);
  });

  // Before, printf looked for `-v` only as a word of its own: `-vNAME` (bash's attached form) and
  // a word not known before it runs that expands to `-v…` assigned to `a[$(cmd)]` unseen, allowed
  // under Bash(printf:*).
  const printfs = [
    `printf -v'a[$(touch src/pwned)]' x`,
    `f='-va[$(touch src/pwned)]'; printf "$f" y`,
    `f=-v; printf "$f" 'a[$(touch src/pwned)]' y`,
  ];
  it.each(printfs)('%j writes src/pwned', (line) => {
    expect(existsSync(join(runFor(line).dir, 'src', 'pwned'))).toBe(true);
  });
  it.each(printfs)('%j: asked', async (line) => {
    const d = await printf.explain(bash(line));
    expect(d.behavior, d.reason).toBe('ask');
  });
  it.each([
    `printf -vx y`,
    `printf -v x '%s' y`,
    `printf '%s\\n' "$x"`,
    `printf "%s $x"`,
    `printf x"$f"`,
    `printf -- -v`,
    `printf`,
  ])('%j: allowed', async (line) => {
    const d = await printf.explain(bash(line));
    expect(d.behavior, d.reason).toBe('allow');
  });

  // Before, `-i` took no suffix the model saw: `-i'src/*'` writes each file's backup under src/
  // (`src/README.md`), and `-i.bak` writes README.md.bak; only the edited file was judged.
  it('sed -i with a suffix writes a backup (run for real)', () => {
    const { dir } = runFor(`sed -i'src/*' -n p README.md && sed -i.bak -n p README.md`);
    expect(existsSync(join(dir, 'src', 'README.md'))).toBe(true);
    expect(existsSync(join(dir, 'README.md.bak'))).toBe(true);
  });
  it.each([
    [`sed -i'src/*' -n p README.md`, 'ask', 'sed -isrc/* writes each backup where its suffix says'],
    [`sed -i'bak_*' -n p README.md`, 'ask', 'sed -ibak_* writes each backup'],
    [`sed -i.bak -n p README.md`, 'deny', '"sed -i README.md.bak"'],
    [`sed -ni.bak p README.md`, 'deny', '"sed -i README.md.bak"'],
    [`sed --in-place=.bak -n p README.md`, 'deny', '"sed -i README.md.bak"'],
    [`sed -i -n p README.md`, 'allow', ''],
    [`sed --in-place -n p README.md`, 'allow', ''],
    [`sed -ni p README.md`, 'allow', ''],
  ])('%j: %s', async (line, behavior, why) => {
    const edits = permissionInterceptor({
      cwd: root,
      home,
      rules: {
        allow: ['Bash(sed:*)', 'Edit(./README.md)'],
        deny: ['Edit(./src/**)', 'Edit(./README.md.bak)'],
      },
    });
    await edits.ready;
    const d = await edits.explain(bash(line));
    expect(d.behavior, d.reason).toBe(behavior);
    expect(d.reason).toContain(why);
  });

  // Before, `--args` anywhere made every operand a value: `jq -R . .env --args x` printed .env,
  // allowed under Read(./.env).
  it('jq reads the files before --args (run for real)', () => {
    expect(runFor(`jq -R . .env --args x`).out).toContain('TOKEN');
  });
  it.each([
    [`jq -R . .env --args x`, 'deny'],
    [`jq -R . .env --jsonargs 1`, 'deny'],
    [`jq -R . --args .env`, 'allow'],
    [`jq --args -R . .env`, 'allow'],
    [`jq -n '$ARGS' --args a b`, 'allow'],
    [`jq -R . README.md --args .env`, 'allow'],
  ])('%j: %s', async (line, behavior) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe(behavior);
  });
});

describe('the builtins: names assigned, test and [[ ]], unset, ls, echo, printf', () => {
  let builtins: PermissionInterceptor;
  beforeAll(async () => {
    builtins = permissionInterceptor({
      cwd: root,
      home,
      rules: {
        allow: [
          'Bash(test:*)',
          'Bash(printf:*)',
          'Bash(unset:*)',
          'Bash(ls:*)',
          'Bash(echo:*)',
          'Bash(declare:*)',
          'Bash(readonly:*)',
          'Bash(export:*)',
        ],
        deny: ['Read(./.env)', 'Edit(./src/**)'],
      },
    });
    await builtins.ready;
  });
  const judge = (line: string) => builtins.explain(bash(line));

  // Each allowed line is one the model must read to its end as harmless: a name, a subscript of
  // digits, an option or a number misread would ask.
  it.each([
    `readonly a="$v"`,
    `readonly ab="$v"`,
    // Only -a / -A make export and readonly assign a list; a value known to begin with another
    // character than `(` is none.
    `readonly -p x="$v"`,
    `export LANG="$v"`,
    `declare a="x$v"`,
    `declare ab="x$v"`,
    `declare 'a[1]=x'`,
    `declare 'a[12]=x'`,
    `declare 'ab[1]=x'`,
    `declare ab=1`,
    `declare foo=1`,
    `declare -r x=a`,
    `declare -rg x=1`,
    `declare -ia n=1`,
    `declare -i n=5`,
    `declare -i n=-5`,
    `declare -i n=12`,
    `declare x=a`,
    `[[ $# -eq 1 ]]`,
    `[[ "\${#x}" -gt 0 ]]`,
    `[[ \${#ab} -gt 0 ]]`,
    `[[ $? -ne 0 ]]`,
    `[[ ' 1' -eq 1 ]]`,
    `[[ '1 ' -eq 1 ]]`,
    `[[ 12 -eq 1 ]]`,
    `[[ -1 -lt 2 ]]`,
    'test',
    'test -v',
    'test -v x',
    `test -v 'a[12]'`,
    `test -v 'a[@]'`,
    `[ "$a" = "$b" ]`,
    // A word not known before it runs, followed by a binary operator, is its left operand.
    ...[
      '=',
      '==',
      '!=',
      "'<'",
      "'>'",
      '-nt',
      '-ot',
      '-ef',
      '-a',
      '-o',
      '-eq',
      '-ne',
      '-lt',
      '-le',
      '-gt',
      '-ge',
    ].map((op) => `test "$a" ${op} "$b"`),
    'unset x',
    'unset -v x',
    `unset 'a[1]'`,
    `unset 'a[12]'`,
    `unset 'a[@]'`,
    'ls -la',
    'ls .e*',
    'echo hi',
  ])('%j: allowed', async (line) => {
    const d = await judge(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  it.each([
    [`readonly "$v"`, '"$v" is not known before it runs'],
    [`readonly "a[1]=$v"`, 'is not known before it runs'],
    [`readonly "x-y=$v"`, 'is not known before it runs'],
    [`declare 'a[1+1]=x'`, 'the subscript of a[1+1] is evaluated as arithmetic'],
    [`declare '1a[1]=x'`, 'the subscript of 1a[1] is evaluated as arithmetic'],
    [`declare 'a[1]x=1'`, 'the subscript of a[1]x is evaluated as arithmetic'],
    [`declare '[1]=x'`, 'the subscript of [1] is evaluated as arithmetic'],
    [`declare a-b=1`, 'a-b is not a variable name'],
    // An option is `-` or `+` and letters, all of the word: these are names.
    [`declare a-b`, 'a-b is not a variable name'],
    [`printf -v 'a[$(id)]' x`, 'the subscript of a[$(id)] is evaluated as arithmetic'],
    [`printf -v'a[$(id)]' x`, 'the subscript of a[$(id)] is evaluated as arithmetic'],
    [`printf "$f" y`, '"$f" may be the option -v, which assigns to a name'],
    [`declare a="$v"b=c`, 'may assign a list whose subscripts are evaluated as arithmetic'],
    [
      `declare -a a='([$(id)]=1)'`,
      'may assign a list whose subscripts are evaluated as arithmetic',
    ],
    [`declare -r=1`, '-r is not a variable name'],
    [`declare -- x=1`, '-- is not a variable name'],
    [`export foo=1`, 'it sets foo'],
    [`declare -x foo=1`, 'it sets foo'],
    [`export BASH_ENV=x`, 'it sets BASH_ENV, which may change what later commands run or load'],
    [`declare -n ref=x`, 'declare -n makes a name refer to another, evaluated later'],
    [`declare -Z x`, 'declare option -Z is not one the model knows'],
    [`declare -i n=1+1`, 'declare -i evaluates n=1+1 as arithmetic'],
    [`declare -i n=a1`, 'declare -i evaluates n=a1 as arithmetic'],
    [`declare -i n=1a`, 'declare -i evaluates n=1a as arithmetic'],
    [`declare -i n`, 'declare -i makes later assignments to n arithmetic'],
    [`[[ $x$# -eq 1 ]]`, '-eq evaluates $x$# as arithmetic'],
    [`[[ $#x -eq 1 ]]`, '-eq evaluates $#x as arithmetic'],
    [`[[ 1 -eq $x ]]`, '-eq evaluates $x as arithmetic'],
    [`[[ $x -ne 1 ]]`, '-ne evaluates $x as arithmetic'],
    [`[[ $x -lt 1 ]]`, '-lt evaluates $x as arithmetic'],
    [`[[ $x -le 1 ]]`, '-le evaluates $x as arithmetic'],
    [`[[ $x -gt 1 ]]`, '-gt evaluates $x as arithmetic'],
    [`[[ $x -ge 1 ]]`, '-ge evaluates $x as arithmetic'],
    [`[[ a1 -eq 1 ]]`, '-eq evaluates a1 as arithmetic'],
    [`[[ 1a -eq 1 ]]`, '-eq evaluates 1a as arithmetic'],
    [`test -R "$x"`, '-R "$x" names a variable not known before it runs'],
    [`test -R 'a[$i]'`, `-R 'a[$i]' evaluates a subscript`],
    [`test -v 'a[1]b'`, `-v 'a[1]b' evaluates a subscript`],
    [`test '[' "$op" x`, '"$op" may be the operator -v, which evaluates a subscript'],
    [`unset "$x"`, 'unset "$x" evaluates a subscript'],
    [`unset 'a[$i]'`, `unset 'a[$i]' evaluates a subscript`],
    [`unset -v 'a[$i]'`, `unset 'a[$i]' evaluates a subscript`],
    [`unset 'a[1]b'`, `unset 'a[1]b' evaluates a subscript`],
  ])('%j: asked (%s)', async (line, why) => {
    const d = await judge(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });

  it.each(['ls .env', 'echo .env', 'printf .env'])(
    '%s names .env: denied (its operands are checked as paths)',
    async (line) => {
      const d = await judge(line);
      expect(d.behavior, d.reason).toBe('deny');
    },
  );
});

describe('the readers: grep, rg, sed, awk, sort, jq and find', () => {
  let readers: PermissionInterceptor;
  beforeAll(async () => {
    readers = permissionInterceptor({
      cwd: root,
      home,
      rules: {
        allow: ['grep', 'egrep', 'rg', 'sed', 'awk', 'jq', 'sort', 'find'].map(
          (p) => `Bash(${p}:*)`,
        ),
        deny: ['Read(./.env)', 'Read(./secrets/**)', 'Edit(./src/**)', 'Bash(rm:*)'],
      },
    });
    await readers.ready;
  });
  const judge = (line: string) => readers.explain(bash(line));

  it('grep -R and rg -L print .env through src/env-link (run for real)', () => {
    expect(runFor('grep -R TOKEN src').out).toContain('TOKEN');
    if (has('rg')) expect(runFor('rg -L TOKEN src').out).toContain('TOKEN');
    expect(runFor('grep -r TOKEN src').out).not.toContain('TOKEN');
  });

  // A pattern, a value or a script is no file: were it read as one, the line would be denied.
  it.each([
    'grep x README.md',
    'grep .env README.md',
    'grep -e .env README.md',
    'grep --regexp=.env README.md',
    'grep --regexp .env README.md',
    'grep -ie .env README.md',
    'grep -5 .env README.md',
    'grep -A 2 .env README.md',
    'grep --context 2 .env README.md',
    'grep --color=always .env README.md',
    'grep -d skip x src',
    'grep --directories=skip x src',
    'grep -r x src',
    'grep --include .env x README.md',
    'egrep -w .env README.md',
    'rg x README.md',
    'rg .env README.md',
    'rg -e x README.md',
    'rg --files src',
    "rg --pre-glob '*.md' x README.md",
    "rg -g '*.md' .env README.md",
    'rg --max-depth 1 x src',
    'sed -n p README.md',
    'sed -l 5 -n p README.md',
    'sed --line-length 5 -n p README.md',
    'sed -s -n -z -E p README.md',
    'sed --posix --debug -n p README.md',
    "awk -v x=.env '{ print }' README.md",
    "awk --assign x=.env '{ print }' README.md",
    "awk -F : '{ print }' README.md",
    "awk --field-separator=: '{ print }' README.md",
    "awk '{ print }' x=.env README.md",
    "awk --posix -b '{ print }' README.md",
    'sort README.md',
    'sort -k 2 -t , README.md',
    'sort --key=2 --field-separator=, README.md',
    'sort -T /tmp -S 1M README.md',
    'sort --check=quiet README.md',
    'sort -c -u -n README.md',
    'jq --arg x .env . README.md',
    'jq --argjson x 1 . README.md',
    'jq --indent 2 . README.md',
    'jq -L .env . README.md',
    'jq --library-path .env . README.md',
    'jq -n .',
    'jq -r .a README.md',
    'jq -cS . README.md',
    'find src -name x',
    'find -L src -name x',
    'find -H -P src -type f -print0',
    'find src \\( -name a -o -name b \\)',
    'find src ! -name a -newer .env',
    "find src -name '*.ts'",
    'find src -name "$x"',
    'find',
  ])('%j: allowed', async (line) => {
    const d = await judge(line);
    expect(d.behavior, d.reason).toBe('allow');
  });

  // A file read or written, found however the option that names it is spelled.
  it.each([
    'grep x .env',
    'grep -e x .env',
    'grep --regexp=x .env',
    'grep -f .env README.md',
    'grep -f.env README.md',
    'grep --file=.env README.md',
    'grep --file .env README.md',
    'grep -e x -f .env README.md',
    'grep --exclude-from .env x README.md',
    'grep -R x secrets',
    // -R and rg's -L follow src/env-link to .env (grep -r and rg do not): before, allowed, and
    // they printed it.
    'grep -R TOKEN src',
    'grep --dereference-recursive TOKEN src',
    'rg -L TOKEN src',
    'rg --follow TOKEN src',
    'rg x .env',
    'rg -e x .env',
    'rg --regexp x .env',
    'rg -f .env README.md',
    'rg --file .env README.md',
    'rg --ignore-file .env x README.md',
    'rg --files .env',
    'rg --type-list .env',
    'sed -e p .env',
    'sed --expression=p .env',
    'sed --expression p .env',
    'sed -f .env README.md',
    'sed --file=.env README.md',
    'sed -i p src/a.ts',
    'sed -i -e p src/a.ts',
    "awk -e '{ print }' .env",
    "awk --source '{ print }' .env",
    "awk '{ print }' x=1 .env",
    "awk -F: '{ print }' .env",
    'awk -f .env README.md',
    'awk --file=.env README.md',
    'sort .env',
    'sort -o src/out README.md',
    'sort --output=src/out README.md',
    'sort --random-source=.env README.md',
    'sort --files0-from=.env',
    'jq . .env',
    'jq --slurpfile x .env . README.md',
    "jq --rawfile x .env -n '$x'",
    'jq --from-file .env README.md',
    'jq -f .env README.md',
    'jq -n -f .env',
    'find .env',
    'find src -exec cat .env \\;',
    'find src -exec rm {} +',
    'find src -ok rm {} \\;',
    'find src -fprint src/out',
    "find src -fprintf src/out '%p'",
    'find src -fls src/out',
    'find src -fprint0 src/out',
    'find src -files0-from .env',
  ])('%j: denied', async (line) => {
    const d = await judge(line);
    expect(d.behavior, d.reason).toBe('deny');
  });

  it.each([
    ['grep -r x', 'holds paths rule Read(./.env) protects'],
    ['grep -d recurse x', 'holds paths rule Read(./.env) protects'],
    ['grep --directories=recurse x', 'holds paths rule Read(./.env) protects'],
    ['rg x', 'holds paths rule Read(./.env) protects'],
    ['rg --files', 'holds paths rule Read(./.env) protects'],
    ['rg --type-list', 'holds paths rule Read(./.env) protects'],
    ['rg --pre cat x README.md', 'option --pre of rg runs another program'],
    ['rg --hostname-bin x y README.md', 'option --hostname-bin of rg runs another program'],
    ['sed -f x.sed README.md', 'sed -f runs a script from a file the model cannot see'],
    ['sed -- "$s" README.md', 'the sed script "$s" is not known before it runs'],
    ['awk -f prog.awk README.md', 'awk -f runs a program from a file the model cannot see'],
    ['awk --file=prog.awk README.md', 'awk -f runs a program from a file'],
    [`awk -e 'BEGIN { system("x") }'`, 'reaches beyond its input'],
    [
      'sort --compress-program=gzip README.md',
      'option --compress-program of sort runs another program',
    ],
    ['jq -f prog.jq README.md', 'jq -f runs a filter from a file the model cannot see'],
    ['find *.md -name x', 'may expand to a file named like a find action'],
    ['find src -delete', 'find -delete deletes what it finds'],
    ['find src -name $x', 'may split into several words'],
    ['find src -foo', 'find -foo is not an expression the model knows'],
    ['find src -exec', 'find -exec names no command'],
    ['find src -name x "$x"', 'could be a find action'],
    ["find src -fprintf out.txt '%p' -delete", 'find -delete deletes what it finds'],
  ])('%j: asked (%s)', async (line, why) => {
    const d = await judge(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain(why);
  });
});
