/**
 * What the analyzer makes of nesting, arithmetic contexts, redirections and directory changes,
 * where no other test pinned it: each test fails under a one-line change the mutation run
 * (`pnpm mutate:permission`) found surviving or without coverage in shell/analyze.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../test/helpers';
import { analyzeShellCommand, type PermissionInterceptor, permissionInterceptor } from '../index';

const analysis = (line: string) => analyzeShellCommand(line, { cwd: '/tmp/p', home: '/tmp/h' });

/** `line` nested in `levels` levels of `bash -c '…'`. */
const nestBashC = (line: string, levels: number): string => {
  let out = line;
  for (let i = 0; i < levels; i++) out = `bash -c '${out.replaceAll("'", `'\\''`)}'`;
  return out;
};

describe('nesting', () => {
  it('past the limit, the problem names the way down', async () => {
    expect((await analysis(nestBashC('ls', 9))).problems).toEqual([
      `commands nested more than 8 levels deep (${Array(9).fill('bash').join(' → ')})`,
    ]);
  });

  it('a command a program runs one level above the limit is followed', async () => {
    const a = await analysis(nestBashC('find . -exec rm {} +', 7));
    expect(a.problems).toEqual([]);
    expect(a.commands.map((c) => c.via.at(-1))).toContain('find -exec');
  });

  it('a shell that a program runs one level above the limit is past it', async () => {
    const a = await analysis(nestBashC("find . -exec bash -c 'ls' \\;", 7));
    expect(a.problems).toEqual([
      `commands nested more than 8 levels deep (${[...Array(7).fill('bash'), 'find -exec', 'bash'].join(' → ')})`,
    ]);
  });

  it('a command a program runs counts as a level too (find -exec at the limit)', async () => {
    const a = await analysis(nestBashC('find . -exec rm {} +', 8));
    expect(a.problems).toEqual([
      `commands nested more than 8 levels deep (${[...Array(8).fill('bash'), 'find'].join(' → ')})`,
    ]);
  });
});

describe('a line nested deeper than the parser can walk', () => {
  // Deep enough that copying or walking the tree overflows the stack on any host (how deep a
  // stack goes varies, so a depth where only the walk overflows cannot be pinned).
  it('is a problem, never a line that runs nothing', async () => {
    const line = `${'('.repeat(32_000)}rm x${')'.repeat(32_000)}`;
    const a = await analysis(line);
    expect(a.problems).toEqual(['the command is nested too deeply to read']);
  });
});

describe('arithmetic contexts', () => {
  it.each([
    ['(( x ))', 'x'],
    ['for ((i=0; i<n; i++)); do echo; done', 'i'],
  ])('%s evaluates %s as code', async (line, name) => {
    expect((await analysis(line)).problems).toContain(
      `arithmetic on ${JSON.stringify(name)}, whose value bash evaluates as an expression that may run commands`,
    );
  });

  it.each(['{ echo "$x"; }', '( echo "$x" )', 'echo $(( 1 + 2 ))'])(
    '%s evaluates no variable',
    async (line) => {
      expect((await analysis(line)).problems).toEqual([]);
    },
  );
});

describe('code inside words', () => {
  it('a substitution in a default value runs, one level down', async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    const a = await analysis('echo "${x:-`rm y`}"');
    expect(a.commands).toContainEqual(expect.objectContaining({ via: ['expansion'] }));
    expect(a.commands.map((c) => c.argv.map((w) => w.value).join(' '))).toContain('rm y');
  });

  it('a substitution in the target of <> runs', async () => {
    const a = await analysis('echo x <> $(rm y)');
    expect(a.commands.map((c) => c.argv.map((w) => w.value).join(' '))).toEqual(['echo x', 'rm y']);
  });

  it('an array element assigned by a number evaluates nothing; by anything else it may', async () => {
    expect((await analysis('a[10]=1')).problems).toEqual([]);
    expect((await analysis('a[@]=1')).problems).toEqual([
      'the subscript of a[@] is evaluated as arithmetic, which may run commands',
    ]);
  });
});

describe('assignments', () => {
  it('say whether they change the command or the commands after them', async () => {
    const reasons = async (line: string) =>
      (await analysis(line)).commands.flatMap((c) => (c.unknown === undefined ? [] : [c.unknown]));
    expect(await reasons('FOO=1 cat x')).toEqual([
      'it sets FOO, which may change what the command run or load',
    ]);
    expect(await reasons('FOO=1; cat x')).toEqual([
      'it sets FOO, which may change what later commands run or load',
    ]);
  });
});

describe('declarations', () => {
  it.each(['local x=1', 'unset x', 'declare -r y=2'])(
    '%s is the command, its keyword once',
    async (line) => {
      const a = await analysis(line);
      expect(a.commands.map((c) => c.argv.map((w) => w.value).join(' '))).toEqual([line]);
    },
  );
});

describe('redirections', () => {
  it.each([
    ['echo x &>> f', [{ op: '&>>', target: 'f', access: 'write' }]],
    ['echo x >& f', [{ op: '>&', target: 'f', access: 'write' }]],
    [
      'echo x 1<> f',
      [
        { op: '<>', target: 'f', access: 'write' },
        { op: '<>', target: 'f', access: 'read' },
      ],
    ],
    ['cat < f', [{ op: '<', target: 'f', access: 'read' }]],
    // Descriptors, not files.
    ['echo 2>&1', []],
    ['echo >&-', []],
    ['cat <&3', []],
  ])('%s', async (line, redirects) => {
    expect((await analysis(line)).redirects).toEqual(redirects);
  });
});

describe('directory changes', () => {
  let policy: PermissionInterceptor;
  beforeAll(async () => {
    const { root, home } = makeProject();
    policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(cat:*)', 'Bash(cd:*)'], deny: ['Read(./.env)', 'Read(~/.ssh/**)'] },
    });
    await policy.ready;
  });
  const behaviorOf = async (line: string) => (await policy.explain(bash(line))).behavior;

  it.each([
    'cd ~ && cat .ssh/id_rsa',
    'cd ~/.ssh && cat id_rsa',
    'cd src && cat ../.env',
    'pushd src && cat ../.env',
  ])('%s reads where the directory change leads: denied', async (line) => {
    expect(await behaviorOf(line)).toBe('deny');
  });

  it("cd's options are not its directory", async () => {
    const { root, home } = makeProject();
    const narrow = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(cat:*)', 'Bash(cd:*)'], deny: ['Read(./src/a.ts)'] },
    });
    expect((await narrow.explain(bash('cd -P src && cat a.ts'))).behavior).toBe('deny');
    expect((await narrow.explain(bash('cd -L src && cat README.md'))).behavior).toBe('allow');
  });

  it('relative reads after a known change stay known', async () => {
    expect(await behaviorOf('cd src && cat a.ts')).toBe('allow');
    expect(await behaviorOf('cd -P src && cat a.ts')).toBe('allow');
  });

  it('after popd, a bare cd, or more directory changes than are followed, a relative read may be anywhere', async () => {
    expect(await behaviorOf('popd && cat a.ts')).toBe('ask');
    expect(await behaviorOf('popd src && cat a.ts')).toBe('ask');
    expect(await behaviorOf('cd && cat a.ts')).toBe('ask');
    // Each cd may fail, so the directories double: 8 are followed, 16 are not.
    expect(await behaviorOf('cd a; cd b; cd c; cat README.md')).toBe('allow');
    expect(await behaviorOf('cd a; cd b; cd c; cd d; cat README.md')).toBe('ask');
  });
});
