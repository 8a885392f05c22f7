/**
 * `@deepseek-ai/dsh-hooks-claude-code` on both tools services: a user's unmodified Claude Code
 * hook config, run by the plugin through the harness's real shell stack (`dsh-bash-local` over
 * `dsh-subprocess-local`, real `bash` processes). A PreToolUse hook that exits 2 denies the call
 * through `tools/pre-execute`; one that asks needs an approver; a PostToolUse block turns the
 * result into a failure through `tools/post-execute`; the hook reads the call as Claude Code
 * would send it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import LocalBashExecutor from '@deepseek-ai/dsh-bash-local';
import * as ClaudeCodeHooks from '@deepseek-ai/dsh-hooks-claude-code';
import LocalSubprocessRuntime from '@deepseek-ai/dsh-subprocess-local';
import { defineTool } from '@deepseek-ai/dsh-tools';
import ApprovalService from '@deepseek-ai/dsh-user-approval';
import { afterEach, describe, expect, it } from 'vitest';
import { boot, HOSTS, type Host, type HostName, liveAgent } from '../test/hosts';

const hosts: Host[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const writer = (written: string[]) =>
  defineTool({
    name: 'write_file',
    description: 'Write a file.',
    parameters: { path: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, value) => [{ type: 'text', text: value }] },
    execute: async (args) => {
      written.push(args.path);
      return `wrote ${args.path}`;
    },
  });

/** Hook commands by Claude Code event, each a shell script given the payload on stdin. */
type HookScripts = { PreToolUse?: string; PostToolUse?: string };

/** One host with the hooks plugin reading a `hooks.json` made from `scripts`. */
async function scenario(
  name: HostName,
  scripts: HookScripts,
  options: { approve?: 'allowed-once' | 'rejected' } = {},
) {
  const path = 'notes.txt';
  const dir = mkdtempSync(join(tmpdir(), 'dsh-hooks-'));
  dirs.push(dir);
  const payloads = join(dir, 'payloads.jsonl');
  const hooks = Object.fromEntries(
    Object.entries(scripts).map(([event, script]) => [
      event,
      [
        {
          matcher: 'write_file',
          // Every hook first appends the payload it was given, then runs its script.
          hooks: [
            {
              type: 'command',
              command: `tee -a ${payloads} > /dev/null; echo >> ${payloads}; ${script}`,
            },
          ],
        },
      ],
    ]),
  );
  const configPath = join(dir, 'hooks.json');
  writeFileSync(configPath, JSON.stringify({ hooks }));
  const host = await boot(name);
  hosts.push(host);
  await host.root.plugin(LocalSubprocessRuntime, {});
  await host.root.plugin(LocalBashExecutor, {});
  await host.root.plugin(ClaudeCodeHooks as never, { configPath } as never);
  const approve = options.approve;
  if (approve !== undefined) {
    await host.root.plugin(ApprovalService, {});
    host.root.on('approval/request' as never, (async () => approve) as never);
  }
  const written: string[] = [];
  await host.root.plugin({
    name: 'files',
    inject: ['tools'],
    apply: (ctx: Context) => {
      (ctx as unknown as { tools: { register(d: unknown): void } }).tools.register(writer(written));
    },
  } as never);
  // The approval seam audits to the calling agent's session, so an ask needs a live agent.
  const agent = approve === undefined ? undefined : liveAgent(host.root);
  const result = await host.call('write_file', { path }, agent);
  const seen = readLines(payloads);
  return { result, written, seen };
}

const readLines = (file: string): Record<string, unknown>[] => {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } catch {
    return [];
  }
};

describe('dsh-hooks-claude-code', () => {
  it('denies a call whose PreToolUse hook exits 2, with the hook’s reason, on both services', async () => {
    const script = `echo 'writes are blocked by policy' >&2; exit 2`;
    const [upstream, ours] = [
      await scenario('upstream', { PreToolUse: script }),
      await scenario('ours', { PreToolUse: script }),
    ];
    expect(upstream.result).toEqual({
      isError: true,
      text: 'Error: writes are blocked by policy',
      code: undefined,
    });
    expect(upstream.written).toEqual([]);
    expect(ours.result.isError).toBe(true);
    expect(ours.result.code).toBe('DENIED');
    expect(ours.result.text).toContain('writes are blocked by policy');
    expect(ours.result.text).toContain('plugin "hooks-claude-code"');
    expect(ours.written).toEqual([]);
  });

  it('runs a call its PreToolUse hook lets through, and gives the hook the same payload, on both services', async () => {
    const runs = [];
    for (const name of HOSTS) {
      const run = await scenario(name, { PreToolUse: 'exit 0' });
      expect(run.result, name).toEqual({
        isError: false,
        text: 'wrote notes.txt',
        code: undefined,
      });
      expect(run.written, name).toEqual(['notes.txt']);
      runs.push(run);
    }
    const [upstream, ours] = runs;
    expect(upstream?.seen).toEqual([
      expect.objectContaining({
        hook_event_name: 'PreToolUse',
        tool_name: 'write_file',
        tool_input: { path: 'notes.txt' },
      }),
    ]);
    // The same payload but for the call id each service made up.
    const strip = (p: Record<string, unknown> | undefined) => ({ ...p, tool_use_id: undefined });
    expect(strip(ours?.seen[0])).toEqual(strip(upstream?.seen[0]));
  });

  it('denies a call whose hook asks when no approver is loaded, on both services', async () => {
    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm writes"}}'`;
    for (const name of HOSTS) {
      const run = await scenario(name, { PreToolUse: ask });
      expect(run.result.isError, name).toBe(true);
      expect(run.written, name).toEqual([]);
    }
  });

  it('runs a call whose hook asks only when the approver allows it, on both services', async () => {
    const ask = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"confirm writes"}}'`;
    for (const name of HOSTS) {
      const allowed = await scenario(name, { PreToolUse: ask }, { approve: 'allowed-once' });
      expect(allowed.result, name).toEqual({
        isError: false,
        text: 'wrote notes.txt',
        code: undefined,
      });
      const rejected = await scenario(name, { PreToolUse: ask }, { approve: 'rejected' });
      expect(rejected.result.isError, name).toBe(true);
      expect(rejected.written, name).toEqual([]);
    }
  });

  it('carries the additional context a PostToolUse hook gives to the next request, on both services', async () => {
    const remind = `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"run the linter next"}}'`;
    for (const name of HOSTS) {
      const run = await scenario(name, { PostToolUse: remind });
      expect(run.result, name).toEqual({
        isError: false,
        text: 'wrote notes.txt',
        code: undefined,
        contexts: ['run the linter next'],
      });
    }
  });

  it('turns a result its PostToolUse hook blocks into a failure carrying the reason, on both services', async () => {
    const block = `echo '{"decision":"block","reason":"do not write notes"}'`;
    for (const name of HOSTS) {
      const run = await scenario(name, { PostToolUse: block });
      expect(run.result.isError, name).toBe(true);
      expect(run.result.text, name).toContain('do not write notes');
      // PostToolUse runs after the tool: the write happened, its result is withheld.
      expect(run.written, name).toEqual(['notes.txt']);
      expect(
        run.seen.map((p) => p.hook_event_name),
        name,
      ).toEqual(['PostToolUse']);
    }
  });
});
