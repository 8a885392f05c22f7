// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are the ${VAR} syntax of .mcp.json, not templates
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from './config';

const FILE = '/cfg/dsh-tools.json';

function issuesOf(value: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(value, FILE, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(FILE);
    return (error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  return [];
}

describe('parseConfig', () => {
  it('accepts every section in its documented shape', () => {
    const { config, warnings } = parseConfig(
      {
        $schema: 'https://example.com/schema.json',
        mcpServers: {
          fs: {
            command: 'npx',
            args: ['-y', 'server'],
            env: { A: '1' },
            cwd: 'sub',
            trust: true,
            include: ['read_*'],
          },
          'web.docs': {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer x' },
          },
          typed: { type: 'stdio', command: 'node' },
        },
        exampleTools: { cwd: '.', writable: false },
        permissions: {
          allow: ['Read', 'Bash(npm test:*)', 'mcp__fs__read_file'],
          ask: ['mcp__fs'],
          deny: ['Write(/etc/**)'],
          defaultMode: 'acceptEdits',
          additionalDirectories: ['../shared'],
        },
        sandbox: {
          mode: 'workspace-write',
          roots: ['.'],
          denyRead: ['**/.env'],
          denyWrite: [],
          network: false,
          allowUnsandboxed: false,
        },
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh', timeout: 5 }] },
          ],
          PostToolUse: [],
        },
      },
      FILE,
      { env: {} },
    );
    expect(warnings).toEqual([]);
    expect(Object.keys(config.mcpServers)).toEqual(['fs', 'web.docs', 'typed']);
    expect(config.mcpServers['web.docs']).toMatchObject({
      type: 'http',
      url: 'https://mcp.example.com/mcp',
    });
    expect(config.permissions?.defaultMode).toBe('acceptEdits');
    expect(config.sandbox?.mode).toBe('workspace-write');
  });

  it('an empty object is a valid config with no servers', () => {
    expect(parseConfig({}, FILE).config).toEqual({ mcpServers: {} });
  });

  it('names every field at fault, with what was expected', () => {
    expect(
      issuesOf({
        mcpServers: {
          a: { command: '' },
          b: { args: 'x' },
          c: { type: 'http' },
          d: 'node server.js',
        },
        sandbox: {},
        hooks: { PreToolUse: [{ hooks: [{ type: 'prompt', command: 'x' }] }] },
        permissions: { allow: 'Read' },
        exampleTools: 'yes',
      }),
    ).toEqual(
      expect.arrayContaining([
        'mcpServers.a.command: must not be empty',
        'mcpServers.b.args: expected an array, got the string "x"',
        'mcpServers.b.command: required: expected a string',
        'mcpServers.c.url: required: expected a string',
        'mcpServers.d: expected an object with "command" or "url", got the string "node server.js"',
        'sandbox.mode: required: expected one of "read-only", "workspace-write", "full-access"',
        'hooks.PreToolUse[0].hooks[0].type: expected one of "command", got the string "prompt"',
        'permissions.allow: expected an array, got the string "Read"',
        'exampleTools: expected true, false or an object { "cwd", "writable" }',
      ]),
    );
  });

  it('reports unknown keys at every level', () => {
    expect(
      issuesOf({
        mcpServer: {},
        mcpServers: { a: { command: 'x', comand: 'y' } },
        permissions: { alow: [] },
        hooks: { PreToolUse: [{ matcher: '', hooks: [], extra: 1 }] },
      }),
    ).toEqual(
      expect.arrayContaining([
        'mcpServer: unknown key (remove it, or check its spelling)',
        'mcpServers.a.comand: unknown key (remove it, or check its spelling)',
        'permissions.alow: unknown key (remove it, or check its spelling)',
        'hooks.PreToolUse[0].extra: unknown key (remove it, or check its spelling)',
      ]),
    );
  });

  it('tells the transports apart and refuses the deprecated SSE one', () => {
    expect(issuesOf({ mcpServers: { s: { type: 'sse', url: 'https://x' } } })[0]).toContain(
      'SSE transport is deprecated',
    );
    expect(issuesOf({ mcpServers: { s: { url: 'https://x' } } })[0]).toContain(
      'write "type": "http"',
    );
    expect(issuesOf({ mcpServers: { s: { type: 'ws', url: 'https://x' } } })[0]).toContain(
      'expected "stdio" or "http"',
    );
    expect(issuesOf({ mcpServers: { s: { type: 'http', url: 'ftp://x' } } })[0]).toContain(
      'http(s) URL',
    );
    expect(
      issuesOf({ mcpServers: { s: { type: 'http', url: 'https://x', command: 'y' } } }),
    ).toEqual(['mcpServers.s.command: unknown key (remove it, or check its spelling)']);
  });

  it('refuses server names that cannot become tool names', () => {
    expect(issuesOf({ mcpServers: { 'a b': { command: 'x' } } })[0]).toContain(
      'a server name is 1-64 characters',
    );
    expect(issuesOf({ mcpServers: { ['x'.repeat(65)]: { command: 'x' } } })[0]).toContain('1-64');
  });

  it('expands ${VAR} and ${VAR:-default} as Claude Code does, naming an unset variable', () => {
    const { config } = parseConfig(
      {
        mcpServers: {
          a: {
            command: '${BIN}',
            args: ['--key=${KEY}', '${MISSING:-fallback}'],
            env: { T: '${KEY}' },
          },
          b: {
            type: 'http',
            url: 'https://${HOST}/mcp',
            headers: { Authorization: 'Bearer ${KEY}' },
          },
        },
      },
      FILE,
      { env: { BIN: '/usr/bin/node', KEY: 'secret', HOST: 'mcp.example.com' } },
    );
    expect(config.mcpServers.a).toMatchObject({
      command: '/usr/bin/node',
      args: ['--key=secret', 'fallback'],
      env: { T: 'secret' },
    });
    expect(config.mcpServers.b).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer secret' },
    });
    expect(issuesOf({ mcpServers: { a: { command: 'x', args: ['${NOPE}'] } } })).toEqual([
      'mcpServers.a.args[0]: refers to the environment variable NOPE, which is not set: set it, or write ${NOPE:-default}',
    ]);
  });

  it('the state section: a Redis URL (or ${VAR} naming one), a prefix and a deadline, each checked', () => {
    const { config } = parseConfig(
      { state: { redis: '${REDIS_URL}', prefix: 'team-a:', deadlineMs: 500 } },
      FILE,
      { env: { REDIS_URL: 'redis://:pw@10.0.0.5:6379/1' } },
    );
    expect(config.state).toEqual({
      redis: 'redis://:pw@10.0.0.5:6379/1',
      prefix: 'team-a:',
      deadlineMs: 500,
    });
    expect(
      parseConfig({ state: { redis: '${R:-rediss://cache:6380}' } }, FILE, { env: {} }).config
        .state,
    ).toEqual({ redis: 'rediss://cache:6380' });
    expect(issuesOf({ state: { redis: 'http://cache:6379' } })).toEqual([
      expect.stringMatching(/^state\.redis: expected a Redis URL/),
    ]);
    expect(issuesOf({ state: { redis: '${R}' } }, { R: 'localhost:6379' })).toEqual([
      'state.redis: expected a Redis URL once expanded: redis://[user:password@]host:port[/db]',
    ]);
    expect(issuesOf({ state: { redis: '${R}' } })).toEqual([
      'state.redis: refers to the environment variable R, which is not set: set it, or write ${R:-default}',
    ]);
    expect(issuesOf({ state: { redis: 'redis://x', prefix: 'a b' } })[0]).toMatch(
      /^state\.prefix:/,
    );
    expect(issuesOf({ state: { redis: 'redis://x', deadlineMs: 10 } })[0]).toMatch(
      /^state\.deadlineMs:/,
    );
    expect(issuesOf({ state: { redis: 'redis://x', cluster: true } })[0]).toMatch(/^state/);
  });

  it('warns about Claude Code hook events that are not about tools, refuses unknown ones', () => {
    const { warnings } = parseConfig({ hooks: { Stop: [], SessionStart: [] } }, FILE);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('hooks.Stop is not a tool event');
    expect(issuesOf({ hooks: { PreToolUs: [] } })).toEqual([
      'hooks.PreToolUs: unknown hook event (dsh-tools runs PreToolUse and PostToolUse)',
    ]);
  });

  it('a value that is not an object is one clear issue', () => {
    for (const value of [null, [], 'text', 3, true]) {
      const issues = issuesOf(value);
      expect(issues).toHaveLength(1);
      expect(issues[0]).toContain('expected a JSON object');
    }
  });

  it('property: any JSON value either parses or throws a ConfigError whose issues all name a path and a message', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.record(
            { mcpServers: fc.dictionary(fc.string(), fc.jsonValue()) },
            { requiredKeys: [] },
          ),
          fc.record(
            {
              permissions: fc.jsonValue(),
              sandbox: fc.jsonValue(),
              hooks: fc.jsonValue(),
              exampleTools: fc.jsonValue(),
            },
            { requiredKeys: [] },
          ),
        ),
        (value) => {
          try {
            const { config } = parseConfig(value, FILE, { env: {} });
            expect(typeof config.mcpServers).toBe('object');
          } catch (error) {
            expect(error).toBeInstanceOf(ConfigError);
            const issues = (error as ConfigError).issues;
            expect(issues.length).toBeGreaterThan(0);
            for (const issue of issues) expect(issue.message.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hostile: a deep or huge value does not crash it', () => {
    let deep: unknown = {};
    for (let i = 0; i < 5000; i++) deep = { a: deep };
    expect(issuesOf({ permissions: deep }).length).toBeGreaterThan(0);
    const many = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`s${i}`, { command: 'x' }]),
    );
    expect(Object.keys(parseConfig({ mcpServers: many }, FILE).config.mcpServers)).toHaveLength(
      5000,
    );
    // JSON.parse makes "__proto__" an own key: an unknown key like any other, and no pollution.
    expect(issuesOf(JSON.parse('{"__proto__": {"polluted": true}}'))).toEqual([
      '__proto__: unknown key (remove it, or check its spelling)',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('loadConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-cfg-'));

  it('reads ./dsh-tools.json of cwd, else the fallback; a named missing file is an error', async () => {
    const fallback = () => ({
      config: { mcpServers: {} },
      file: undefined,
      baseDir: dir,
      warnings: [],
    });
    expect((await loadConfig(undefined, { cwd: dir, fallback })).file).toBeUndefined();
    await expect(loadConfig('missing.json', { cwd: dir, fallback })).rejects.toThrow(
      /does not exist/,
    );
    writeFileSync(join(dir, 'dsh-tools.json'), '\ufeff{ "exampleTools": true }');
    const loaded = await loadConfig(undefined, { cwd: dir, fallback });
    expect(loaded.file).toBe(join(dir, 'dsh-tools.json'));
    expect(loaded.baseDir).toBe(dir);
    expect(loaded.config.exampleTools).toBe(true);
  });

  it('refuses a directory, a file that is not JSON, and a file over 1 MiB, naming the file', async () => {
    await expect(loadConfig(dir)).rejects.toThrow(/is a directory/);
    writeFileSync(join(dir, 'bad.json'), '{ "mcpServers": { }');
    await expect(loadConfig('bad.json', { cwd: dir })).rejects.toThrow(
      /bad\.json is not a valid dsh-tools config:\n.*not valid JSON/,
    );
    writeFileSync(join(dir, 'huge.json'), `{"$schema":"${'x'.repeat(1024 * 1024)}"}`);
    await expect(loadConfig('huge.json', { cwd: dir })).rejects.toThrow(
      /a config is at most 1048576/,
    );
  });
});
