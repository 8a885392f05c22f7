import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, EXAMPLE_SERVER, runCli, tempDir, writeConfig } from './helpers';

// Each test starts real processes (the CLI, MCP servers); on a loaded two-core machine running
// every package's tests at once that takes far longer than a unit test may.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

interface Step {
  layer: string;
  outcome: string;
  code?: string;
  message?: string;
}

async function callJson(dir: string, tool: string, args: unknown) {
  const run = await runCli(['call', tool, JSON.stringify(args), '--json'], { cwd: dir });
  if (run.stdout === '') throw new Error(`no output (exit ${run.code}): ${run.stderr}`);
  const out = JSON.parse(run.stdout) as {
    trail: Step[];
    result: { isError: boolean; error?: { code: string; message: string } };
  };
  return { ...run, ...out };
}

describe('the policies of the config, through dsh-tools call (the real interceptor packages)', () => {
  it('hooks, sandbox and permission wrap a call in that order, and the trail shows each', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.txt'), 'content of a');
    writeConfig(dir, {
      exampleTools: true,
      hooks: {
        PreToolUse: [
          { matcher: 'read_file', hooks: [{ type: 'command', command: 'cat > hook-input.json' }] },
        ],
      },
      sandbox: { mode: 'workspace-write' },
      permissions: { allow: ['read_file'] },
    });
    const run = await callJson(dir, 'read_file', { path: 'a.txt' });
    expect(run.code).toBe(0);
    expect(run.trail.map((s) => `${s.layer}:${s.outcome}`)).toEqual([
      'hooks:passed',
      'sandbox:passed',
      'permission:passed',
      'tool:ran',
    ]);
    // The hook really ran, with Claude Code's PreToolUse payload on stdin.
    const payload = JSON.parse(readFileSync(join(dir, 'hook-input.json'), 'utf8'));
    expect(payload).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'read_file',
      tool_input: { path: 'a.txt' },
    });
  });

  it('a deny rule vetoes the call, names the rule and its file; nothing is written', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { exampleTools: true, permissions: { deny: ['write_file'] } });
    const run = await callJson(dir, 'write_file', { path: 'x.txt', content: 'no' });
    expect(run.code).toBe(1);
    expect(run.trail).toEqual([
      expect.objectContaining({ layer: 'permission', outcome: 'vetoed', code: 'DENIED' }),
    ]);
    expect(run.result.error?.message).toContain('deny rule "write_file"');
    expect(run.result.error?.message).toContain(file);
    expect(existsSync(join(dir, 'x.txt'))).toBe(false);
  });

  it('an ask with nobody to ask (no terminal) is denied, saying so', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { notes: { command: process.execPath, args: [EXAMPLE_SERVER] } },
      permissions: { ask: ['mcp__notes__add_note'] },
    });
    const run = await callJson(dir, 'mcp__notes__add_note', { title: 't', text: 'x' });
    expect(run.code).toBe(1);
    expect(run.result.error?.code).toBe('DENIED');
    expect(run.result.error?.message).toMatch(/no approver/);
  });

  it('a read-only sandbox vetoes a write before the tool runs', async () => {
    const dir = tempDir();
    writeConfig(dir, { exampleTools: true, sandbox: { mode: 'read-only' } });
    const run = await callJson(dir, 'write_file', { path: 'y.txt', content: 'no' });
    expect(run.code).toBe(1);
    expect(run.trail).toEqual([
      expect.objectContaining({ layer: 'sandbox', outcome: 'vetoed', code: 'SANDBOX_VIOLATION' }),
    ]);
    expect(existsSync(join(dir, 'y.txt'))).toBe(false);
  });

  it('a PreToolUse hook that exits 2 blocks the call with its reason, outermost', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      exampleTools: true,
      hooks: {
        PreToolUse: [
          {
            matcher: 'write_file|read_file',
            hooks: [{ type: 'command', command: 'echo "writes are frozen today" >&2; exit 2' }],
          },
        ],
      },
      permissions: { allow: ['write_file'] },
    });
    const run = await callJson(dir, 'write_file', { path: 'z.txt', content: 'no' });
    expect(run.code).toBe(1);
    expect(run.trail).toEqual([
      expect.objectContaining({ layer: 'hooks', outcome: 'vetoed', code: 'DENIED' }),
    ]);
    expect(run.result.error?.message).toContain('writes are frozen today');
    expect(existsSync(join(dir, 'z.txt'))).toBe(false);
  });

  it('a hook event that is not about tools is accepted with a warning', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      exampleTools: true,
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] },
    });
    const run = await runCli(['call', 'list_dir'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('hooks.Stop is not a tool event');
  });
});
