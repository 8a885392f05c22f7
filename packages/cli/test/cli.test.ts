import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  CHANGING_SERVER,
  CLI,
  CRASH_SERVER,
  cleanEnv,
  EXAMPLE_SERVER,
  runCli,
  tempDir,
  writeConfig,
} from './helpers';

// Each test starts real processes (the CLI, MCP servers); on a loaded two-core machine running
// every package's tests at once that takes far longer than a unit test may.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

const ESC = '\x1b[';

describe('dsh-tools inspect', () => {
  it('without a config shows the embedded default: example tools and the example MCP server', async () => {
    const cwd = tempDir();
    const { code, stdout, stderr } = await runCli(['inspect'], { cwd });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('embedded default');
    for (const name of [
      'read_file',
      'list_dir',
      'write_file',
      'mcp__notes__add_note',
      'mcp__notes__search_notes',
    ]) {
      expect(stdout).toContain(name);
    }
    expect(stdout).toContain(`workspace (${cwd})`);
    expect(stdout).not.toContain(ESC);
  });

  it('--json prints the tools as the model sees them, with hints, source and their o200k tokens', async () => {
    const { code, stdout } = await runCli(['inspect', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.config).toBeNull();
    expect(report.servers).toEqual([{ name: 'notes', status: 'connected', tools: 5 }]);
    const readFile = report.tools.find((t: { name: string }) => t.name === 'read_file');
    expect(readFile.parameters.required).toEqual(['path']);
    expect(readFile.hints).toMatchObject({
      readOnly: true,
      paths: [{ arg: 'path', access: 'read' }],
    });
    expect(readFile.source).toEqual({ kind: 'local', plugin: 'examples' });
    const search = report.tools.find(
      (t: { name: string }) => t.name === 'mcp__notes__search_notes',
    );
    expect(search.source).toEqual({ kind: 'mcp', server: 'notes', tool: 'search_notes' });
    // The default trusts its own example server, so its annotations became hints.
    expect(search.hints.readOnly).toBe(true);
    for (const tool of report.tools) {
      expect(tool.tokens).toBeGreaterThan(10);
      // The package's own o200k build counts exactly as gpt-tokenizer does.
      const json = JSON.stringify({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      });
      expect(tool.tokens).toBe(countTokens(json));
    }
    expect(report.totalTokens).toBe(
      report.tools.reduce((s: number, t: { tokens: number }) => s + t.tokens, 0),
    );
  });

  it('with a config shows exactly what it configures', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { changing: { command: process.execPath, args: [CHANGING_SERVER] } },
    });
    const { code, stdout } = await runCli(['inspect', '--json'], { cwd: dir });
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.config).toBe(join(dir, 'dsh-tools.json'));
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual([
      'mcp__changing__echo',
      'mcp__changing__fail',
      'mcp__changing__grow',
    ]);
    // Not trusted (no "trust": true): the server's annotations are not believed.
    expect(report.tools[0].hints).toEqual({});
  });

  it('--config names the file to use, relative paths in it resolve against its folder', async () => {
    const dir = tempDir();
    const work = join(dir, 'work');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(work);
    writeFileSync(join(work, 'x.txt'), 'x');
    const file = writeConfig(
      dir,
      { exampleTools: { cwd: 'work', writable: false } },
      'custom.json',
    );
    const { code, stdout } = await runCli(['inspect', '--json', '--config', file]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.tools.map((t: { name: string }) => t.name)).toEqual(['read_file', 'list_dir']);
    expect(report.tools[0].description).toContain(work);
  });

  it('a server that fails to start is named with its reason; the other tools are still shown; exit 4', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      exampleTools: true,
      mcpServers: {
        broken: { command: process.execPath, args: [CRASH_SERVER] },
        notes: { command: process.execPath, args: [EXAMPLE_SERVER] },
      },
    });
    const { code, stdout, stderr } = await runCli(['inspect'], { cwd: dir });
    expect(code).toBe(4);
    expect(stderr).toContain('MCP server "broken" failed to start');
    expect(stderr).toContain('exit code 3');
    expect(stderr).toContain('missing API key FAKE_KEY');
    expect(stdout).toContain('mcp__notes__add_note');
    expect(stdout).toContain('read_file');
    expect(stdout).toMatch(/broken\s+failed/);
  });

  it('a command that does not exist is a failed server with what to check', async () => {
    const dir = tempDir();
    writeConfig(dir, { mcpServers: { ghost: { command: 'dsh-tools-no-such-command-xyz' } } });
    const { code, stderr } = await runCli(['inspect', '--json'], { cwd: dir });
    expect(code).toBe(4);
    expect(stderr).toContain('"ghost"');
    expect(stderr.toLowerCase()).toContain('not found');
  });
});

describe('dsh-tools call', () => {
  it('without a config runs an example tool and prints the trail and the result', async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'hello.txt'), 'hello from a file');
    const { code, stdout } = await runCli(['call', 'read_file', '{"path":"hello.txt"}'], { cwd });
    expect(code).toBe(0);
    expect(stdout).toContain('trail');
    expect(stdout).toMatch(/tool\s+ran/);
    expect(stdout).toContain('hello from a file');
  });

  it('calls a tool of the example MCP server; --json has the trail and the result', async () => {
    const { code, stdout } = await runCli([
      'call',
      'mcp__notes__search_notes',
      '{"query":"welcome"}',
      '--json',
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.tool).toBe('mcp__notes__search_notes');
    expect(out.trail).toEqual([expect.objectContaining({ layer: 'tool', outcome: 'ran' })]);
    expect(out.result.isError).toBe(false);
    expect(out.result.content[0].text).toContain('Welcome');
  });

  it('an error result exits 1 and says why', async () => {
    const cwd = tempDir();
    const { code, stdout } = await runCli(['call', 'read_file', '{"path":"../outside.txt"}'], {
      cwd,
    });
    expect(code).toBe(1);
    expect(stdout).toContain('SANDBOX_VIOLATION');
    expect(stdout).toContain('outside the workspace');
  });

  it('invalid arguments are refused by the registry before any tool runs (exit 1, the field named)', async () => {
    const { code, stdout } = await runCli(['call', 'read_file', '{"path":42}', '--json']);
    expect(code).toBe(1);
    const out = JSON.parse(stdout);
    expect(out.trail).toEqual([
      expect.objectContaining({ layer: 'registry', outcome: 'refused', code: 'INVALID_ARGS' }),
    ]);
    expect(out.result.error.message).toContain('path');
  });

  it('with a config: an MCP tool, its error result (exit 1), and arguments from stdin', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { changing: { command: process.execPath, args: [CHANGING_SERVER] } },
    });
    const ok = await runCli(['call', 'mcp__changing__echo', '-'], {
      cwd: dir,
      input: '{"text":"from stdin"}',
    });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('from stdin');
    const failed = await runCli(['call', 'mcp__changing__fail'], { cwd: dir });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('MCP_ERROR');
    expect(failed.stdout).toContain('failing on purpose');
  });

  it('write_file writes inside the workspace only', async () => {
    const cwd = tempDir();
    const { code } = await runCli(
      ['call', 'write_file', '{"path":"sub/new.txt","content":"written"}'],
      { cwd },
    );
    expect(code).toBe(0);
    expect(readFileSync(join(cwd, 'sub', 'new.txt'), 'utf8')).toBe('written');
  });

  it('arguments that are not a JSON object are a usage error (exit 2) with an example', async () => {
    for (const bad of ['{bad', '[1,2]', '"text"', 'null']) {
      const { code, stderr } = await runCli(['call', 'read_file', bad]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/JSON/);
    }
  });

  it('an unknown tool when a server failed to start points at that server (exit 4)', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { broken: { command: process.execPath, args: [CRASH_SERVER] } },
    });
    const { code, stderr, stdout } = await runCli(['call', 'mcp__broken__anything', '{}'], {
      cwd: dir,
    });
    expect(code).toBe(4);
    expect(stdout).toContain('UNKNOWN_TOOL');
    expect(stderr).toContain('"broken" failed to start');
  });
});

describe('config errors', () => {
  it('a bad config names the file, each field and what was expected (exit 3)', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, {
      mcpServers: { fs: { command: 3 }, web: { type: 'http', url: 'not a url' } },
      permissions: { defaultMode: 'yolo' },
      sandbox: { mode: 'read-only', netwrok: true },
      colour: true,
    });
    const { code, stderr, stdout } = await runCli(['inspect'], { cwd: dir });
    expect(code).toBe(3);
    expect(stdout).toBe('');
    expect(stderr).toContain(file);
    expect(stderr).toContain('mcpServers.fs.command: expected a string, got number 3');
    expect(stderr).toContain('mcpServers.web.url');
    expect(stderr).toContain(
      'permissions.defaultMode: expected one of "default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", got the string "yolo"',
    );
    expect(stderr).toContain('sandbox.netwrok: unknown key');
    expect(stderr).toContain('colour: unknown key');
  });

  it('a named config that does not exist, and a file that is not JSON', async () => {
    const missing = await runCli(['inspect', '--config', 'nope.json']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nope.json');
    expect(missing.stderr).toContain('does not exist');
    const dir = tempDir();
    writeConfig(dir, '{ "mcpServers": ');
    const broken = await runCli(['call', 'list_dir'], { cwd: dir });
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain('not valid JSON');
  });

  it('a policy section the interceptor refuses is a config error naming the section (exit 3)', async () => {
    const dir = tempDir();
    writeConfig(dir, { exampleTools: true, sandbox: { mode: 'workspace-write', roots: ['/'] } });
    const { code, stderr } = await runCli(['call', 'list_dir'], { cwd: dir });
    expect(code).toBe(3);
    expect(stderr).toContain('The "sandbox" section of');
  });
});

describe('a person at the command line', () => {
  it('a reader that stops early (| head) ends the CLI quietly, exit 0, not with an EPIPE crash', async () => {
    const child = spawn(process.execPath, [CLI, 'inspect'], {
      cwd: tempDir(),
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader goes away before the CLI writes anything.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('--help on every command, exit 0, exit codes documented', async () => {
    for (const args of [
      ['--help'],
      ['inspect', '--help'],
      ['call', '--help'],
      ['serve', '--help'],
      ['check', '--help'],
      ['demo', '--help'],
    ]) {
      const { code, stdout } = await runCli(args);
      expect(code).toBe(0);
      expect(stdout).toContain('Usage: dsh-tools');
      expect(stdout).toContain('Exit codes:');
    }
  });

  it('an unknown command or option is a usage error (exit 2)', async () => {
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    const option = await runCli(['inspect', '--jsno']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('--jsno');
  });

  it('colour only when forced or on a terminal; NO_COLOR wins over a terminal', async () => {
    const plain = await runCli(['call', 'list_dir']);
    expect(plain.stdout).not.toContain(ESC);
    const forced = await runCli(['call', 'list_dir'], { env: cleanEnv({ FORCE_COLOR: '1' }) });
    expect(forced.stdout).toContain(ESC);
    const ci = await runCli(['call', 'list_dir'], { env: cleanEnv({ CI: 'true' }) });
    expect(ci.stdout).not.toContain(ESC);
  });
});
