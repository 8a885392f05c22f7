import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeShell } from './analyze';
import { joinContinuations } from './evaluation';
import { loadShellParser } from './parser';
import { isDescriptorPath, unaliasProc } from './proc-alias';
import { unwrap } from './unwrap';
import type { ShellWord } from './words';

beforeAll(async () => {
  await loadShellParser();
});

const words = (line: string): ShellWord[] =>
  line.split(' ').map((value) => ({ value, literal: true, glob: false, text: value }));
const values = (argv: readonly ShellWord[]) => argv.map((w) => w.value).join(' ');

describe('unwrap', () => {
  it.each([
    ['timeout 5 npm test', 'npm test', ['timeout']],
    ['timeout -s KILL 5 npm test', 'npm test', ['timeout']],
    ['nice -n 5 git status', 'git status', ['nice']],
    ['env NODE_ENV=test npm test', 'npm test', ['env']],
    ['command time -p npm test', 'npm test', ['command', 'time']],
    ['sudo -u bob ls', 'ls', ['sudo']],
    ['stdbuf -o L grep x', 'grep x', ['stdbuf']],
    ['coproc NAME { rm x', 'rm x', ['coproc']],
    ['coproc rm x', 'rm x', ['coproc']],
    ['xargs -n 1 rm', 'rm {xargs input}', ['xargs']],
  ])('%s runs %s', (line, runs, via) => {
    const result = unwrap(words(line), []);
    expect(result.kind).toBe('run');
    if (result.kind !== 'run') return;
    expect(values(result.argv)).toBe(runs);
    expect(result.via).toEqual(via);
  });

  it('records the files wrappers open themselves', () => {
    expect(unwrap(words('time -o out.txt npm test'), []).files).toEqual([
      { op: 'time -o', target: expect.objectContaining({ value: 'out.txt' }), access: 'write' },
    ]);
    expect(unwrap(words('command time --output=o.txt ls'), []).files?.[0]?.target.value).toBe(
      'o.txt',
    );
    expect(unwrap(words('xargs -a .env echo'), []).files?.[0]).toMatchObject({
      op: 'xargs -a',
      access: 'read',
    });
    expect(unwrap(words('xargs -a.env echo'), []).files?.[0]?.target.value).toBe('.env');
    expect(unwrap(words('flock src/x.lock echo hi'), []).files?.[0]).toMatchObject({
      op: 'flock',
      access: 'write',
    });
    // A file descriptor is not a file.
    expect(unwrap(words('flock 9 echo hi'), []).files).toBeUndefined();
  });

  it('env with a variable outside the allowlist still unwraps what it runs, with a doubt', () => {
    const result = unwrap(words('env GIT_DIR=/x FOO=1 NODE_ENV=t rm x'), []);
    expect(result.kind).toBe('run');
    if (result.kind === 'run') expect(values(result.argv)).toBe('rm x');
    expect(result.doubts?.map((d) => d.word.value)).toEqual(['GIT_DIR=/x', 'FOO=1']);
  });

  it.each([
    ['sudo -i', 'interactive shell'],
    ['sudo -s', 'interactive shell'],
    ['bash -s', 'standard input'],
    ['sh', 'standard input'],
    ['let x=1', 'arithmetic'],
    ['chroot /x ls', 'another root'],
  ])('%s is not understood (%s)', (line, why) => {
    const result = unwrap(words(line), []);
    expect(result.kind).toBe('unknown');
    if (result.kind === 'unknown') expect(result.reason).toContain(why);
  });

  it('bash -c and eval give a script', () => {
    const script = unwrap(
      [...words('bash -c'), { value: 'rm x', literal: true, glob: false, text: "'rm x'" }],
      [],
    );
    expect(script).toMatchObject({ kind: 'script', script: { value: 'rm x' }, via: ['bash'] });
    expect(unwrap(words('eval rm x'), [])).toMatchObject({
      kind: 'script',
      script: { value: 'rm x' },
    });
  });
});

describe('what bash reads before it parses', () => {
  it('removes backslash-newline outside single quotes', () => {
    expect(joinContinuations('r\\\nm -rf x')).toBe('rm -rf x');
    expect(joinContinuations('echo "a\\\nb"')).toBe('echo "ab"');
    expect(joinContinuations("echo 'a\\\nb'")).toBe("echo 'a\\\nb'");
    expect(joinContinuations('echo a\\\\\nb')).toBe('echo a\\\\\nb');
    // A comment joins nothing: what follows the backslash's newline still runs.
    expect(joinContinuations('echo hi # note \\\ntouch x')).toBe('echo hi # note \\\ntouch x');
    expect(
      analyzeShell('echo hi # note \\\nrm x', '/p', '/h').commands.map((c) => c.argv[0]?.value),
    ).toContain('rm');
    expect(joinContinuations("echo $'a\\'b' r\\\nm")).toBe("echo $'a\\'b' rm");
    expect(analyzeShell('r\\\nm -rf x', '/p', '/h').commands[0]?.argv[0]?.value).toBe('rm');
  });

  it('/proc aliases name the command directory, descriptors are not followed', () => {
    expect(unaliasProc('/proc/self/cwd/.env', '/p')).toBe('/p/.env');
    expect(unaliasProc('/proc/thread-self/cwd', '/p')).toBe('/p');
    expect(unaliasProc('/proc/1234/task/1234/cwd/a', '/p')).toBe('/p/a');
    expect(unaliasProc('/proc//self/./cwd/a', '/p')).toBe('/p/a');
    expect(unaliasProc('/proc/self/root/etc/passwd', '/p')).toBe('/etc/passwd');
    expect(unaliasProc('/proc/self/status', '/p')).toBe('/proc/self/status');
    expect(unaliasProc('/procx/self/cwd', '/p')).toBe('/procx/self/cwd');
    expect(isDescriptorPath('/dev/fd/3')).toBe(true);
    expect(isDescriptorPath('/dev/stdin')).toBe(true);
    expect(isDescriptorPath('/proc/self/fd/0')).toBe(true);
    expect(isDescriptorPath('/dev/null')).toBe(false);
  });

  it('cd into a /proc alias stays in the command directory', () => {
    const a = analyzeShell('cd /proc/self/cwd && cat .env', '/p', '/h');
    expect(a.commands[1]?.cwds).toEqual(['/p']);
  });

  it('<> is one read-write redirection, not a syntax error', () => {
    const a = analyzeShell('echo x 1<> f', '/p', '/h');
    expect(a.problems).toEqual([]);
    expect(a.redirects.map((r) => [r.op, r.access])).toEqual([
      ['<>', 'write'],
      ['<>', 'read'],
    ]);
  });

  it.each([
    ["test -v 'a[$(id)]'", 'subscript'],
    ["[[ -v 'a[$(id)]' ]]", 'subscript'],
    ['[[ y -eq 0 ]]', 'arithmetic'],
    ["declare 'a[$(id)]=1'", 'subscript'],
    ['declare -i z=y', 'arithmetic'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['echo ${x@P}', 'prompt'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['echo ${!x}', 'names'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['echo ${x:y}', 'offset'],
    ['y=1; b=([y]=1)', 'index'],
    ['for PATH in /x; do git status; done', 'loop sets PATH'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    ['echo ${a[y]}', 'subscript'],
  ])('%s is code (%s)', (line, what) => {
    const a = analyzeShell(line, '/p', '/h');
    const unknown = [
      ...a.problems,
      ...a.commands.map((c) => c.unknown ?? c.effects?.unknown ?? ''),
    ];
    expect(unknown.join(' | ')).toContain(what);
  });

  it.each([
    '[ y -eq 0 ]',
    '[ "$y" -lt 1 ]',
    'test $y -eq 0',
    '[[ $# -eq 0 ]]',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    '[[ ${#a} -gt 1 ]]',
    '(( $? == 0 ))',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    'echo ${a[0]} ${a[@]}',
  ])(
    '%s evaluates nothing (test and [ compare integers; $# and the length of x are numbers)',
    (line) => {
      const a = analyzeShell(line, '/p', '/h');
      expect(a.problems).toEqual([]);
      expect(
        a.commands.every((c) => c.unknown === undefined && c.effects?.unknown === undefined),
      ).toBe(true);
    },
  );

  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
  it('backticks inside ${x:-…} are commands', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell text, not a template
    const a = analyzeShell('echo ${x:-`rm -rf y`}', '/p', '/h');
    expect(a.commands.map((c) => c.argv[0]?.value)).toContain('rm');
  });
});
