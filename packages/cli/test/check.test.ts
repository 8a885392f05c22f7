import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CRASH_SERVER, EXAMPLE_SERVER, runCli, tempDir, writeConfig } from './helpers';

// Each test starts real processes (the CLI, an MCP server); a loaded machine makes that slow.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

beforeAll(() => assertBuilt());

/** A workspace whose config has every policy: a hook (that leaves a mark when it runs), a sandbox, rules. */
function policyWorkspace(): { dir: string; file: string; mark: string } {
  const dir = tempDir();
  const mark = join(dir, 'hook-ran.txt');
  const hook = join(dir, 'hook.mjs');
  writeFileSync(
    hook,
    `import { writeFileSync } from 'node:fs';
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const call = JSON.parse(input);
  writeFileSync(${JSON.stringify(mark)}, call.tool_name);
  const out = call.tool_input.title === 'forbidden'
    ? { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no forbidden notes' } }
    : { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { tags: ['checked'] } } };
  process.stdout.write(JSON.stringify(out));
});
`,
  );
  const file = writeConfig(dir, {
    exampleTools: true,
    mcpServers: { notes: { command: process.execPath, args: [EXAMPLE_SERVER], trust: true } },
    permissions: {
      allow: ['list_dir', 'mcp__notes__add_note'],
      ask: ['Write(./docs/**)'],
      deny: ['Write(./src/**)'],
    },
    sandbox: { mode: 'workspace-write', denyRead: ['**/secret.txt'] },
    hooks: {
      PreToolUse: [
        {
          matcher: 'mcp__notes__add_note',
          hooks: [{ type: 'command', command: `"${process.execPath}" "${hook}"` }],
        },
      ],
    },
  });
  return { dir, file, mark };
}

interface Report {
  verdict: string;
  decidedBy: {
    layer: string;
    outcome: string;
    rule?: string;
    source?: string;
    code?: string;
  } | null;
  steps: { layer: string; outcome: string; rule?: string; source?: string }[];
  hooks: { ran: boolean; matched: { path: string; command: string }[] };
  effectiveArguments?: Record<string, unknown>;
  permission?: { behavior: string; decidedBy: { kind: string } };
  sandbox?: {
    mode: string;
    writable: string[];
    denyRead: string[];
    denyWrite: string[];
    network: boolean;
    limits: Record<string, number>;
    narrowedBy: string[];
  };
  config: string | null;
}

async function check(args: string[], cwd: string) {
  const run = await runCli(['check', ...args, '--json'], { cwd });
  return { ...run, report: run.stdout ? (JSON.parse(run.stdout) as Report) : undefined };
}

describe('dsh-tools check', () => {
  it('names the deny rule, its list and its file, and never runs the tool (exit 1)', async () => {
    const { dir, file } = policyWorkspace();
    const { code, report, stderr } = await check(
      ['write_file', '{"path":"src/app.js","content":"x"}'],
      dir,
    );
    expect(stderr).toBe('');
    expect(code).toBe(1);
    expect(report?.verdict).toBe('deny');
    expect(report?.decidedBy).toMatchObject({
      layer: 'permission',
      outcome: 'vetoed',
      rule: 'Write(./src/**)',
      source: `permissions.deny[0] in ${file}`,
    });
    expect(report?.steps.map((s) => `${s.layer}:${s.outcome}`)).toEqual([
      'sandbox:passed',
      'permission:vetoed',
    ]);
    expect(existsSync(join(dir, 'src', 'app.js'))).toBe(false);
  });

  it('shows the sandbox limits the call would run under, narrowed by the permission rules', async () => {
    const { dir } = policyWorkspace();
    const { report } = await check(['list_dir', '{"path":"."}'], dir);
    expect(report?.verdict).toBe('allow');
    const sandbox = report?.sandbox;
    expect(sandbox?.mode).toBe('workspace-write');
    expect(sandbox?.narrowedBy).toEqual(['permission rules']);
    // The config's own deny glob, then the permission rules' Write deny as the sandbox's denyWrite.
    expect(sandbox?.denyRead).toContain('**/secret.txt');
    expect(sandbox?.denyWrite).toContain(`${dir}/src/**`);
    // No allow rule names a network tool: the call's processes get none.
    expect(sandbox?.network).toBe(false);
    expect(sandbox?.limits.processes).toBeGreaterThan(0);
    const text = await runCli(['check', 'list_dir', '{"path":"."}'], { cwd: dir });
    expect(text.stdout).toMatch(
      /sandbox {2}every process of the call runs in mode "workspace-write", narrowed by permission rules/,
    );
    expect(text.stdout).toMatch(/no write .*\/src\/\*\*/);
    expect(text.stdout).toMatch(/network {4}none/);
    expect(text.stdout).toMatch(/limits {5}\d+ processes/);
    // A denied call shows no limits: it would not run.
    const denied = await runCli(['check', 'write_file', '{"path":"src/a","content":"x"}'], {
      cwd: dir,
    });
    expect(denied.stdout).not.toContain('every process of the call');
  });

  it('an ask rule is exit 6 and names the rule; an allowed write is exit 0 and writes nothing', async () => {
    const { dir, file } = policyWorkspace();
    const ask = await check(['write_file', '{"path":"docs/a.md","content":"x"}'], dir);
    expect(ask.code).toBe(6);
    expect(ask.report?.verdict).toBe('ask');
    expect(ask.report?.decidedBy).toMatchObject({
      layer: 'permission',
      rule: 'Write(./docs/**)',
      source: `permissions.ask[0] in ${file}`,
    });
    // Nobody was asked: stdin is not a terminal and check never asks anyway.
    expect(ask.stderr).toBe('');
    const allowed = await check(['list_dir', '{"path":"."}'], dir);
    expect(allowed.code).toBe(0);
    expect(allowed.report?.verdict).toBe('allow');
    expect(allowed.report?.decidedBy).toBeNull();
    expect(allowed.report?.steps.find((s) => s.layer === 'permission')).toMatchObject({
      outcome: 'passed',
      rule: 'list_dir',
      source: `permissions.allow[0] in ${file}`,
    });
    expect(existsSync(join(dir, 'docs'))).toBe(false);
  });

  it('the sandbox: a path escape and a denyRead glob, each with where the rule came from', async () => {
    const { dir, file } = policyWorkspace();
    const escaping = await check(['write_file', '{"path":"../out.txt","content":"x"}'], dir);
    expect(escaping.code).toBe(1);
    expect(escaping.report?.decidedBy).toMatchObject({
      layer: 'sandbox',
      code: 'SANDBOX_VIOLATION',
      source: `sandbox.mode in ${file}`,
    });
    expect(escaping.report?.decidedBy?.rule).toContain('workspace-write');
    const secret = await check(['read_file', '{"path":"secret.txt"}'], dir);
    expect(secret.report?.decidedBy).toMatchObject({
      layer: 'sandbox',
      rule: 'denyRead "**/secret.txt"',
      source: `sandbox.denyRead[0] in ${file}`,
    });
    const env = await check(['read_file', '{"path":".env"}'], dir);
    expect(env.report?.decidedBy?.source).toContain("the sandbox's built-in denyRead list");
  });

  it('lists matching hooks without running them; --run-hooks runs them (a rewrite, a deny)', async () => {
    const { dir, file, mark } = policyWorkspace();
    const listed = await check(['mcp__notes__add_note', '{"title":"t","text":"x"}'], dir);
    expect(listed.code).toBe(0);
    expect(listed.report?.hooks.ran).toBe(false);
    expect(listed.report?.hooks.matched).toEqual([
      expect.objectContaining({ path: 'hooks.PreToolUse[0].hooks[0]' }),
    ]);
    expect(listed.report?.steps[0]).toMatchObject({
      layer: 'hooks',
      outcome: 'not-run',
      source: `hooks.PreToolUse[0].hooks[0] in ${file}`,
    });
    expect(existsSync(mark)).toBe(false);

    const ran = await runCli(
      ['check', 'mcp__notes__add_note', '{"title":"t","text":"x"}', '--json', '--run-hooks'],
      { cwd: dir },
    );
    expect(ran.code).toBe(0);
    const report = JSON.parse(ran.stdout) as Report;
    expect(existsSync(mark)).toBe(true);
    expect(report.hooks.ran).toBe(true);
    expect(report.effectiveArguments).toEqual({ title: 't', text: 'x', tags: ['checked'] });
    expect(report.steps.map((s) => `${s.layer}:${s.outcome}`)).toEqual([
      'hooks:rewrote',
      'sandbox:passed',
      'permission:passed',
    ]);

    const denied = await check(
      ['mcp__notes__add_note', '{"title":"forbidden","text":"x"}', '--run-hooks'],
      dir,
    );
    expect(denied.code).toBe(1);
    expect(denied.report?.decidedBy).toMatchObject({ layer: 'hooks', outcome: 'vetoed' });
    expect(JSON.stringify(denied.report?.decidedBy)).toContain('no forbidden notes');
  });

  it('the registry refuses an unknown tool and invalid arguments, naming the field (exit 1)', async () => {
    const { dir } = policyWorkspace();
    const unknown = await check(['wirte_file', '{}'], dir);
    expect(unknown.code).toBe(1);
    expect(unknown.report?.decidedBy).toMatchObject({ layer: 'registry', code: 'UNKNOWN_TOOL' });
    expect(JSON.stringify(unknown.report?.decidedBy)).toContain('write_file');
    const invalid = await check(['read_file', '{"path":7}'], dir);
    expect(invalid.report?.decidedBy).toMatchObject({ layer: 'registry', code: 'INVALID_ARGS' });
    expect(JSON.stringify(invalid.report?.decidedBy)).toContain('path');
  });

  it('without a config: the embedded default has no policies, so the call would run', async () => {
    const cwd = tempDir();
    const { code, stdout, stderr } = await runCli(
      ['check', 'write_file', '{"path":"a.txt","content":"x"}'],
      {
        cwd,
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('embedded default');
    expect(stdout).toContain('no policy is configured, so the call would run');
    expect(stdout).toContain('The tool was not run.');
    expect(existsSync(join(cwd, 'a.txt'))).toBe(false);
    const json = await check(['mcp__notes__get_note', '{"id":1}'], cwd);
    expect(json.report).toMatchObject({ config: null, verdict: 'allow', steps: [] });
  });

  it('a bad config names the field (exit 3); bad arguments are a usage error (exit 2)', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, {
      permissions: { deny: 'write_file' },
      sandbox: { mode: 'open' },
    });
    const bad = await runCli(['check', 'list_dir'], { cwd: dir });
    expect(bad.code).toBe(3);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain(file);
    expect(bad.stderr).toContain('permissions.deny');
    expect(bad.stderr).toContain('sandbox.mode');
    const args = await runCli(['check', 'list_dir', '[1]'], { cwd: tempDir() });
    expect(args.code).toBe(2);
    expect(args.stderr).toContain('JSON object');
  });

  it("the README's example config: the config file itself may not be written, a note asks", async () => {
    const example = fileURLToPath(new URL('../example/dsh-tools.json', import.meta.url));
    const own = await check(
      ['write_file', '{"path":"dsh-tools.json","content":"{}"}', '--config', example],
      tempDir(),
    );
    expect(own.code).toBe(1);
    expect(own.report?.decidedBy).toMatchObject({
      layer: 'permission',
      rule: 'Write(./dsh-tools.json)',
      source: `permissions.deny[0] in ${example}`,
    });
    const note = await check(
      ['mcp__notes__add_note', '{"title":"t","text":"x"}', '--config', example],
      tempDir(),
    );
    expect(note.code).toBe(6);
    expect(note.report?.decidedBy).toMatchObject({
      layer: 'permission',
      rule: 'mcp__notes__add_note',
    });
  });

  it('an unknown tool while a server failed to start points at that server (exit 4)', async () => {
    const dir = tempDir();
    writeConfig(dir, {
      mcpServers: { broken: { command: process.execPath, args: [CRASH_SERVER] } },
    });
    const { code, stderr } = await runCli(['check', 'mcp__broken__x', '{}'], { cwd: dir });
    expect(code).toBe(4);
    expect(stderr).toContain('"broken" failed to start');
  });
});
