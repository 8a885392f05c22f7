import { describe, expect, it } from 'vitest';
import { bash, call, makeProject } from '../test/helpers';
import { PermissionRuleError, permissionInterceptor } from './index';

describe('rules at load', () => {
  it.each([
    ['', 'is empty'],
    [' Bash', 'leading or trailing whitespace'],
    ['Bash(', 'opens "(" but does not end with ")"'],
    ['Bash)', 'has ")" without "("'],
    ['Bash()', 'empty parentheses'],
    ['(ls)', 'no tool name'],
    ['Ba sh', 'characters other than'],
    ['Bash*', 'uses "*" in a tool name'],
    ['mcp__', 'names no MCP server'],
    ['mcp__github__', 'malformed MCP tool name'],
    ['mcp__github(x)', 'gives a specifier to a whole MCP server'],
    ['Bash(:*)', 'nothing before ":*"'],
    ['Bash(npm:*run)', 'uses ":*" before the end'],
    ['Bash(echo "x)', 'unterminated " quote'],
    ['Bash(npm * :*)', 'mixes the prefix form'],
    ['Bash(x\\)', 'lone backslash'],
  ])('%j fails loading, quoted, saying what is wrong', (rule, what) => {
    const load = () => permissionInterceptor({ rules: { allow: ['Bash(ls)', rule] } });
    expect(load).toThrow(PermissionRuleError);
    expect(load).toThrow(`Permission rule ${JSON.stringify(rule)} in options, allow[1]`);
    expect(load).toThrow(what);
  });

  it('refuses hostile rule containers and options', () => {
    expect(() => permissionInterceptor({ rules: { deny: 'Bash' as never } })).toThrow(
      /"deny" must be an array/,
    );
    expect(() => permissionInterceptor({ rules: { deny: [42 as never] } })).toThrow(
      /is a number, not a string/,
    );
    expect(() => permissionInterceptor({ rules: { deny: ['x'.repeat(5000)] } })).toThrow(
      /longer than 4096/,
    );
    expect(() => permissionInterceptor({ rules: [null as never] })).toThrow(/rule set is null/);
    expect(() => permissionInterceptor({ mode: 'auto' as never })).toThrow(/"auto" is not one of/);
    expect(() => permissionInterceptor({ approveTimeoutMs: -1 })).toThrow(/approveTimeoutMs/);
    expect(() => permissionInterceptor(null as never)).toThrow(/options must be an object/);
  });

  it('examples prove a policy at load: compact and object forms', async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(npm test:*)', 'mcp__github'], deny: ['Read(./.env)', 'Bash(rm:*)'] },
      examples: {
        allow: [
          'Bash(npm test -- --watch)',
          'Read(./src/a.ts)',
          'mcp__github__create_issue',
          { tool: 'Bash', args: { command: 'npm test' } },
        ],
        ask: ['Bash(npm publish)', 'Edit(./src/a.ts)'],
        deny: [
          'Bash(npm test && rm -rf /)',
          'Read(.env)',
          {
            tool: 'cat_file',
            args: { p: '.env' },
            hints: { paths: [{ arg: 'p', access: 'read' }] },
          },
        ],
      },
    });
    await expect(policy.ready).resolves.toBeUndefined();
  });

  it('MCP rules match by server and by tool, through the source the bridge records', async () => {
    const policy = permissionInterceptor({
      rules: { allow: ['mcp__github__*'], deny: ['mcp__fs__delete_file'] },
    });
    await policy.ready;
    const mcp = (server: string, tool: string, name = `mcp__${server}__${tool}`) =>
      call(name, {}, {}, { kind: 'mcp', server, tool });
    expect((await policy.explain(mcp('github', 'create_issue'))).behavior).toBe('allow');
    expect((await policy.explain(mcp('fs', 'delete_file'))).behavior).toBe('deny');
    // The bridge may normalise a public name; the source still says which server and tool it is.
    expect(
      (await policy.explain(mcp('fs', 'delete_file', 'mcp__fs__delete_file_1a2b'))).behavior,
    ).toBe('deny');
    expect((await policy.explain(mcp('other', 'x'))).behavior).toBe('ask');
  });

  it('a specifier on a tool without path or command hints denies (fail closed) but never allows', async () => {
    const policy = permissionInterceptor({
      rules: { deny: ['WebFetch(domain:evil.example)'], allow: ['Fetch(domain:ok.example)'] },
    });
    await policy.ready;
    expect((await policy.explain(call('WebFetch', { url: 'https://ok.example' }))).behavior).toBe(
      'deny',
    );
    expect((await policy.explain(call('Fetch', { url: 'https://ok.example' }))).behavior).toBe(
      'ask',
    );
  });

  it('explain shows every rule considered, the one that fired, the mode, without running anything', async () => {
    const policy = permissionInterceptor({
      rules: { allow: ['Bash(git status)'], ask: ['Bash(git push:*)'] },
    });
    await policy.ready;
    const d = await policy.explain(bash('git status; git push'));
    expect(d.behavior).toBe('ask');
    expect(d.decidedBy).toMatchObject({
      kind: 'rule',
      rule: 'Bash(git push:*)',
      origin: { list: 'ask', index: 0 },
    });
    expect(d.trail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'rule',
          rule: 'Bash(git status)',
          matched: true,
          subject: 'git status',
        }),
        expect.objectContaining({
          kind: 'rule',
          rule: 'Bash(git push:*)',
          matched: true,
          subject: 'git push',
        }),
        expect.objectContaining({ kind: 'shell', subject: 'git status', verdict: 'allow' }),
        expect.objectContaining({ kind: 'shell', subject: 'git push', verdict: 'ask' }),
      ]),
    );
  });

  it('a shell rule named Bash applies to every tool with a command hint', async () => {
    const policy = permissionInterceptor({
      rules: { deny: ['Bash(rm:*)'], allow: ['run_shell(ls:*)'] },
    });
    await policy.ready;
    const shell = (command: string) => call('run_shell', { cmd: command }, { command: 'cmd' });
    expect((await policy.explain(shell('rm -rf x'))).behavior).toBe('deny');
    expect((await policy.explain(shell('ls -la'))).behavior).toBe('allow');
  });

  it('path hints with wildcards reach every nested path; one denied path denies the call', async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Edit(./src/**)'], deny: ['Edit(./.git/**)'] },
    });
    await policy.ready;
    const multi = (paths: string[]) =>
      call(
        'multi_edit',
        { edits: paths.map((path) => ({ path })) },
        { paths: [{ arg: 'edits.*.path', access: 'write' }] },
      );
    expect((await policy.explain(multi(['src/a.ts', 'src/b.ts']))).behavior).toBe('allow');
    expect((await policy.explain(multi(['src/a.ts', '.git/config']))).behavior).toBe('deny');
    expect((await policy.explain(multi(['src/a.ts', 'README.md']))).behavior).toBe('ask');
  });

  it('hostile and huge calls are decided (never thrown), and never allowed without a rule', async () => {
    const policy = permissionInterceptor();
    await policy.ready;
    const cases = [
      call('Bash', { command: 42 }, { command: 'command' }),
      call('Bash', {}, { command: 'command' }),
      call('Bash', { command: 'x'.repeat(70_000) }, { command: 'command' }),
      call('Bash', { command: '$('.repeat(5000) }, { command: 'command' }),
      call('Bash', { command: `${'('.repeat(3000)}ls${')'.repeat(3000)}` }, { command: 'command' }),
      call('Bash', { command: `${'eval '.repeat(50)}ls` }, { command: 'command' }),
      call(
        'Read',
        { file_path: { evil: true } },
        { readOnly: true, paths: [{ arg: 'file_path', access: 'read' }] },
      ),
      call(
        'Read',
        { file_path: '\u0000/etc/passwd' },
        { readOnly: true, paths: [{ arg: 'file_path', access: 'read' }] },
      ),
    ];
    for (const exec of cases) {
      const d = await policy.explain(exec);
      expect(d.behavior, JSON.stringify(exec.arguments).slice(0, 60)).not.toBe('allow');
    }
  });
});
