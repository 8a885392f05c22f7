import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApprovalRequest, errorResult, type InterceptedExecution } from '@dsh-tools/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bashHook,
  decisionJson,
  eventually,
  isAlive,
  makeTempDir,
  nodeHook,
  pre,
  printing,
  setup,
  waitForFile,
} from '../test/helpers';
import { HOOKS_META_KEY, hooksInterceptor } from './interceptor';
import type { HookDenialDetails, HookFeedbackMeta } from './types';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  await cleanup();
});

const details = (result: { error?: { details?: unknown } }) =>
  result.error?.details as HookDenialDetails;

describe('PreToolUse decisions (real hook scripts through the registry)', () => {
  it('allow: the tool runs, and the run is recorded with its decision', async () => {
    const hook = await bashHook(
      dir,
      'allow.sh',
      `cat >/dev/null; echo '${decisionJson('allow', 'fine')}'`,
    );
    const { call, bodyCalls, runs } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'ls' });
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'ran: ls' }] });
    expect(bodyCalls).toEqual([{ command: 'ls' }]);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      callId: 'call-1',
      tool: 'Bash',
      status: 'ok',
      decision: 'allow',
      reason: 'fine',
      exitCode: 0,
      rewrote: false,
      hook: { event: 'PreToolUse', command: hook, matcher: 'Bash', source: 'the hooks option' },
    });
    expect(runs[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('deny: the tool does not run; the model reads the reason and the hook; details list the runs', async () => {
    const hook = await bashHook(dir, 'deny.sh', `echo '${decisionJson('deny', 'no rm -rf here')}'`);
    const { call, bodyCalls } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'rm -rf /' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('no rm -rf here');
    expect(result.error?.message).toContain(hook);
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error?.message}` }]);
    expect(details(result)).toMatchObject({ event: 'PreToolUse', reason: 'deny' });
    expect(details(result).hooks[0]).toMatchObject({ decision: 'deny', status: 'ok' });
    expect(bodyCalls).toEqual([]);
  });

  it('a node hook reads the Claude Code payload from stdin and decides on tool_input', async () => {
    const payloadFile = join(dir, 'payload.json');
    const hook = await nodeHook(
      dir,
      'guard.mjs',
      `import { readFileSync, writeFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
writeFileSync(${JSON.stringify(payloadFile)}, JSON.stringify(input));
const deny = input.tool_input.command.includes('curl');
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse',
  permissionDecision: deny ? 'deny' : 'allow', permissionDecisionReason: deny ? 'no network' : 'ok' } }));`,
    );
    const { call } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        sessionId: 'session-1',
        permissionMode: 'acceptEdits',
        transcriptPath: '/tmp/t.jsonl',
      },
    );
    expect((await call('Bash', { command: 'ls' })).isError).toBe(false);
    expect(JSON.parse(await readFile(payloadFile, 'utf8'))).toEqual({
      session_id: 'session-1',
      transcript_path: '/tmp/t.jsonl',
      cwd: dir,
      permission_mode: 'acceptEdits',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'call-1',
    });
    const denied = await call('Bash', { command: 'curl evil.example' });
    expect(denied.error?.code).toBe('DENIED');
    expect(denied.error?.message).toContain('no network');
  });

  it('the legacy top-level decision: "block" denies and "approve" allows', async () => {
    const block = await bashHook(
      dir,
      'block.sh',
      `echo '{"decision":"block","reason":"legacy says no"}'`,
    );
    const approve = await bashHook(dir, 'approve.sh', `echo '{"decision":"approve"}'`);
    const { call } = setup(
      { PreToolUse: [pre('Bash', block), pre('echo', approve)] },
      { cwd: dir },
    );
    const denied = await call('Bash', { command: 'x' });
    expect(denied.error?.message).toContain('legacy says no');
    expect((await call('echo', { text: 'hi' })).isError).toBe(false);
  });

  it('exit 2 blocks with stderr as the reason', async () => {
    const hook = await bashHook(dir, 'exit2.sh', 'echo "secrets in command" >&2; exit 2');
    const { call, bodyCalls, runs } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'cat .env' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('secrets in command');
    expect(runs[0]).toMatchObject({ status: 'blocked', decision: 'deny', exitCode: 2 });
    expect(bodyCalls).toEqual([]);
  });

  it('continue: false denies the call and tells the host to stop, with the stopReason', async () => {
    const hook = await bashHook(
      dir,
      'stop.sh',
      `echo '{"continue":false,"stopReason":"budget exhausted","systemMessage":"hi user"}'`,
    );
    const { call, runs } = setup({ PreToolUse: [pre('*', hook)] }, { cwd: dir });
    const result = await call('echo', { text: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('budget exhausted');
    expect(details(result).stop).toEqual({ reason: 'budget exhausted' });
    expect(runs[0]).toMatchObject({
      systemMessage: 'hi user',
      stop: { reason: 'budget exhausted' },
    });
  });

  it('deny wins over allow and ask, whichever finishes first', async () => {
    const allow = await bashHook(dir, 'a.sh', `echo '${decisionJson('allow', 'ok')}'`);
    const ask = await bashHook(dir, 'b.sh', `echo '${decisionJson('ask', 'hmm')}'`);
    const deny = await bashHook(
      dir,
      'c.sh',
      `sleep 0.2; echo '${decisionJson('deny', 'slow no')}'`,
    );
    let asked = 0;
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', allow, ask), pre('.*', deny)] },
      {
        cwd: dir,
        approve: () => {
          asked += 1;
          return { kind: 'allow' };
        },
      },
    );
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.message).toContain('slow no');
    expect(
      details(result)
        .hooks.map((r) => r.decision)
        .sort(),
    ).toEqual(['allow', 'ask', 'deny']);
    expect(asked).toBe(0);
    expect(bodyCalls).toEqual([]);
  });

  it('non-JSON stdout on exit 0 is plain output: no decision, the call goes on, the output is recorded', async () => {
    const hook = await bashHook(dir, 'plain.sh', 'echo "formatted 3 files"');
    const { call, runs } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
    expect(runs[0]).toMatchObject({ status: 'ok', decision: 'none', stdout: 'formatted 3 files' });
  });

  it('runs hooks in cwd with CLAUDE_PROJECT_DIR and extra env set', async () => {
    const out = join(dir, 'env.txt');
    const hook = await bashHook(
      dir,
      'env.sh',
      `printf '%s|%s|%s\\n' "$PWD" "$CLAUDE_PROJECT_DIR" "$EXTRA" > ${out}`,
    );
    const { call } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      { cwd: dir, projectDir: '/srv/project', env: { EXTRA: 'yes' } },
    );
    await call('Bash', { command: 'x' });
    expect(await readFile(out, 'utf8')).toBe(`${dir}|/srv/project|yes\n`);
  });

  it('matches MCP tools by their mcp__server__tool names, and skips tools no matcher selects', async () => {
    const marker = join(dir, 'ran.txt');
    const hook = await bashHook(
      dir,
      'mcp.sh',
      `echo ran >> ${marker}; echo '${decisionJson('deny', 'mcp blocked')}'`,
    );
    const { registry, call } = setup({ PreToolUse: [pre('mcp__github__.*', hook)] }, { cwd: dir });
    registry.register({
      name: 'mcp__github__create_issue',
      description: 'Creates an issue',
      parameters: { type: 'object', properties: { title: { type: 'string' } } },
      source: { kind: 'mcp', server: 'github', tool: 'create_issue' },
      execute: () => [{ type: 'text', text: 'created' }],
    });
    expect((await call('mcp__github__create_issue', { title: 't' })).error?.message).toContain(
      'mcp blocked',
    );
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
    expect(await readFile(marker, 'utf8')).toBe('ran\n');
  });

  it('matching hooks run in parallel: two hooks that each wait for the other both finish', async () => {
    // Run one after the other, each would wait for a marker the other never writes, and time out.
    const waitFor = (mine: string, theirs: string) =>
      bashHook(
        dir,
        `${mine}.sh`,
        `touch ${join(dir, mine)}; for i in $(seq 1 500); do [ -e ${join(dir, theirs)} ] && exit 0; sleep 0.02; done; exit 1`,
      );
    const a = await waitFor('a', 'b');
    const b = await waitFor('b', 'a');
    const { call, runs } = setup(
      { PreToolUse: [pre('Bash', { type: 'command', command: a, timeout: 30 }), pre('*', b)] },
      { cwd: dir },
    );
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
    expect(runs.map((r) => r.status)).toEqual(['ok', 'ok']);
  });

  it('identical commands run once, even from two matcher groups', async () => {
    const counter = join(dir, 'count.txt');
    const command = `echo run >> ${counter}`;
    const { call, runs } = setup(
      {
        PreToolUse: [
          pre('Bash', command),
          pre('*', command, { type: 'command', command, timeout: 5 }),
        ],
      },
      { cwd: dir },
    );
    await call('Bash', { command: 'x' });
    expect(await readFile(counter, 'utf8')).toBe('run\n');
    expect(runs).toHaveLength(1);
  });
});

describe('ask', () => {
  it('goes to approve; allow runs the tool, and the request says who asked and why', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'pushing to main')}'`);
    const requests: ApprovalRequest[] = [];
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        approve: (request) => {
          requests.push(request);
          return { kind: 'allow' };
        },
      },
    );
    expect((await call('Bash', { command: 'git push' })).isError).toBe(false);
    expect(bodyCalls).toEqual([{ command: 'git push' }]);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      asker: 'hooks',
      rule: hook,
      ruleSource: 'hooks.PreToolUse[0].hooks[0] in the hooks option',
      exec: { name: 'Bash', arguments: { command: 'git push' } },
      tool: { name: 'Bash' },
    });
    expect(requests[0]!.reason).toContain('pushing to main');
    expect(requests[0]!.signal).toBeInstanceOf(AbortSignal);
  });

  it('approve deny denies with the approver reason', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'pushing to main')}'`);
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      { cwd: dir, approve: async () => ({ kind: 'deny', reason: 'not today' }) },
    );
    const result = await call('Bash', { command: 'git push' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('not today');
    expect(details(result).reason).toBe('ask');
    expect(bodyCalls).toEqual([]);
  });

  it('without an approver denies, saying so', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'pushing to main')}'`);
    const { call, bodyCalls } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'git push' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toMatch(/no approver is configured/);
    expect(result.error?.message).toContain('pushing to main');
    expect(bodyCalls).toEqual([]);
  });

  it('an approver that throws or answers garbage denies', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'sure?')}'`);
    const throwing = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        approve: () => {
          throw new Error('prompt crashed');
        },
      },
    );
    const r1 = await throwing.call('Bash', { command: 'x' });
    expect(r1.error?.message).toContain('prompt crashed');
    const garbage = setup(
      { PreToolUse: [pre('Bash', hook)] },
      // biome-ignore lint/suspicious/noExplicitAny: a malformed answer on purpose
      { cwd: dir, approve: () => 'yes' as any },
    );
    const r2 = await garbage.call('Bash', { command: 'x' });
    expect(r2.error?.code).toBe('DENIED');
    expect(r2.error?.message).toContain('"yes"');
    expect(throwing.bodyCalls.length + garbage.bodyCalls.length).toBe(0);
  });

  it('an approver that never answers is denied after approveTimeoutMs, its signal aborted', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'sure?')}'`);
    let requestSignal: AbortSignal | undefined;
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        approveTimeoutMs: 50,
        approve: (request) => {
          requestSignal = request.signal;
          return new Promise(() => {});
        },
      },
    );
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('no answer came within 50 ms');
    expect(requestSignal?.aborted).toBe(true);
    expect(bodyCalls).toEqual([]);
  });

  it('aborting the call while the approver waits resolves ABORTED and aborts the request signal', async () => {
    const hook = await bashHook(dir, 'ask.sh', `echo '${decisionJson('ask', 'sure?')}'`);
    const controller = new AbortController();
    let requestSignal: AbortSignal | undefined;
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        approve: (request) => {
          requestSignal = request.signal;
          setTimeout(() => controller.abort(), 10);
          return new Promise(() => {});
        },
      },
    );
    const result = await call('Bash', { command: 'x' }, controller.signal);
    expect(result.error?.code).toBe('ABORTED');
    expect(requestSignal?.aborted).toBe(true);
    expect(bodyCalls).toEqual([]);
  });
});

describe('updatedInput', () => {
  const rewriteTo = (args: unknown) => decisionJson('allow', 'rewritten', { updatedInput: args });

  it('continues through next(): the inner interceptor and the body see the rewritten arguments', async () => {
    const hook = await bashHook(
      dir,
      'rewrite.sh',
      `echo '${rewriteTo({ command: 'ls --color=never' })}'`,
    );
    const { call, bodyCalls, innerSaw, runs } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      { cwd: dir },
    );
    const result = await call('Bash', { command: 'ls' });
    expect(result.isError).toBe(false);
    expect(innerSaw.map((e) => e.arguments)).toEqual([{ command: 'ls --color=never' }]);
    expect(bodyCalls).toEqual([{ command: 'ls --color=never' }]);
    expect(result.arguments).toEqual({
      original: { command: 'ls' },
      effective: { command: 'ls --color=never' },
    });
    expect(runs[0]?.rewrote).toBe(true);
  });

  it('a rewrite cannot launder a call past an inner rule: the rule judges the rewritten command', async () => {
    const hook = await bashHook(dir, 'launder.sh', `echo '${rewriteTo({ command: 'rm -rf /' })}'`);
    const { registry, call, bodyCalls } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    registry.use(
      (exec, next) =>
        String(exec.arguments.command).startsWith('rm ')
          ? errorResult(exec.callId, 'DENIED', 'rule Bash(rm:*) denies this')
          : next(),
      { name: 'rule', priority: 5 },
    );
    const result = await call('Bash', { command: 'ls' });
    expect(result.error).toMatchObject({ code: 'DENIED', message: 'rule Bash(rm:*) denies this' });
    expect(bodyCalls).toEqual([]);
  });

  it('updatedInput holds the fields to change or add: the others are kept (shallow), as Claude Code documents', async () => {
    const hook = await bashHook(dir, 'partial.sh', `echo '${rewriteTo({ command: 'ls -1' })}'`);
    const { call, bodyCalls } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'ls', timeout: 5 });
    expect(result.isError).toBe(false);
    expect(bodyCalls).toEqual([{ command: 'ls -1', timeout: 5 }]);
  });

  it('a rewrite that breaks the schema is refused by the registry (INVALID_ARGS), not run', async () => {
    const hook = await bashHook(
      dir,
      'bad.sh',
      `echo '${rewriteTo({ command: 42, sneaky: true })}'`,
    );
    const { call, bodyCalls, innerSaw } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'ls' });
    expect(result.error?.code).toBe('INVALID_ARGS');
    expect(bodyCalls).toEqual([]);
    expect(innerSaw).toEqual([]);
  });

  it('two hooks rewriting the same call deny it, naming both', async () => {
    const a = await bashHook(dir, 'rw-a.sh', `echo '${rewriteTo({ command: 'a' })}'`);
    const b = await bashHook(dir, 'rw-b.sh', `echo '${rewriteTo({ command: 'b' })}'`);
    const { call, bodyCalls } = setup({ PreToolUse: [pre('Bash', a, b)] }, { cwd: dir });
    const result = await call('Bash', { command: 'ls' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain(a);
    expect(result.error?.message).toContain(b);
    expect(details(result).reason).toBe('conflict');
    expect(bodyCalls).toEqual([]);
  });

  it('a rewrite with ask shows the approver the rewritten arguments', async () => {
    const hook = await bashHook(
      dir,
      'rw-ask.sh',
      `echo '${decisionJson('ask', 'check', { updatedInput: { command: 'rewritten' } })}'`,
    );
    const seen: unknown[] = [];
    const { call, bodyCalls } = setup(
      { PreToolUse: [pre('Bash', hook)] },
      {
        cwd: dir,
        approve: (r) => {
          seen.push(r.exec.arguments);
          return { kind: 'allow' };
        },
      },
    );
    await call('Bash', { command: 'original' });
    expect(seen).toEqual([{ command: 'rewritten' }]);
    expect(bodyCalls).toEqual([{ command: 'rewritten' }]);
  });
});

describe('PostToolUse and additionalContext', () => {
  it('decision block makes the result an error the model reads, keeping the tool output', async () => {
    const payloadFile = join(dir, 'post.json');
    const hook = await bashHook(
      dir,
      'post.sh',
      `cat > ${payloadFile}; echo '{"decision":"block","reason":"lint failed: 3 errors"}'`,
    );
    const { call } = setup(
      { PostToolUse: [{ matcher: 'echo', hooks: [{ type: 'command', command: hook }] }] },
      { cwd: dir },
    );
    const result = await call('echo', { text: 'hello' });
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('lint failed: 3 errors');
    expect(result.content[0]).toEqual({ type: 'text', text: 'echo: hello' });
    expect(result.content[1]).toMatchObject({
      type: 'text',
      text: `Error: ${result.error?.message}`,
      _meta: { [HOOKS_META_KEY]: { kind: 'block' } },
    });
    expect(result.structuredContent).toEqual({ echoed: 'hello' });
    expect(details(result)).toMatchObject({ event: 'PostToolUse', reason: 'block' });
    const payload = JSON.parse(await readFile(payloadFile, 'utf8'));
    expect(payload).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'echo',
      tool_input: { text: 'hello' },
      tool_response: { echoed: 'hello' },
    });
  });

  it('exit 2 in PostToolUse blocks with stderr', async () => {
    const hook = await bashHook(dir, 'post2.sh', 'echo "tests fail now" >&2; exit 2');
    const { call } = setup({ PostToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'edit' });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({ type: 'text', text: 'ran: edit' });
    expect(result.error?.message).toContain('tests fail now');
  });

  it('PostToolUse receives the content blocks as tool_response when there is no structuredContent, and skips failed calls', async () => {
    const payloadFile = join(dir, 'post.json');
    const counter = join(dir, 'post-count.txt');
    const hook = await bashHook(dir, 'post.sh', `cat > ${payloadFile}; echo x >> ${counter}`);
    const { call } = setup({ PostToolUse: [pre('*', hook)] }, { cwd: dir });
    await call('Bash', { command: 'ls' });
    expect(JSON.parse(await readFile(payloadFile, 'utf8')).tool_response).toEqual([
      { type: 'text', text: 'ran: ls' },
    ]);
    const failed = await call('echo', { text: 'throw' });
    expect(failed.error?.code).toBe('TOOL_ERROR');
    expect(await readFile(counter, 'utf8')).toBe('x\n');
  });

  it('additionalContext from PreToolUse and PostToolUse is appended as one text block with a structured record', async () => {
    const preHook = await bashHook(
      dir,
      'ctx-pre.sh',
      `echo '${decisionJson('allow', 'ok', { additionalContext: 'the repo uses pnpm' })}'`,
    );
    const postHook = await bashHook(
      dir,
      'ctx-post.sh',
      `echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"3 files changed"}}'`,
    );
    const { call } = setup(
      { PreToolUse: [pre('Bash', preHook)], PostToolUse: [pre('Bash', postHook)] },
      { cwd: dir },
    );
    const result = await call('Bash', { command: 'ls' });
    expect(result.isError).toBe(false);
    expect(result.content).toHaveLength(2);
    const block = result.content[1] as { text: string; _meta: Record<string, unknown> };
    expect(block.text).toContain('the repo uses pnpm');
    expect(block.text).toContain('3 files changed');
    const meta = block._meta[HOOKS_META_KEY] as HookFeedbackMeta;
    expect(meta.kind).toBe('context');
    expect(meta.entries.map((e) => [e.event, e.command, e.text])).toEqual([
      ['PreToolUse', preHook, 'the repo uses pnpm'],
      ['PostToolUse', postHook, '3 files changed'],
    ]);
  });

  it('a failing PostToolUse hook is recorded but lets the result through by default, and blocks with onError: block', async () => {
    const hook = await bashHook(dir, 'crash.sh', 'echo boom >&2; exit 1');
    const lenient = setup({ PostToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const ok = await lenient.call('Bash', { command: 'ls' });
    expect(ok).toMatchObject({ isError: false, content: [{ text: 'ran: ls' }] });
    expect(lenient.runs[0]).toMatchObject({
      status: 'failed',
      decision: 'none',
      failure: expect.stringContaining('boom'),
    });
    const strict = setup(
      { PostToolUse: [pre('Bash', { type: 'command', command: hook, onError: 'block' })] },
      { cwd: dir },
    );
    const blocked = await strict.call('Bash', { command: 'ls' });
    expect(blocked.isError).toBe(true);
    expect(blocked.content[0]).toEqual({ type: 'text', text: 'ran: ls' });
    expect(blocked.error?.message).toContain('exited with code 1');
  });
});

describe('hostile hooks (PreToolUse fails closed by default)', () => {
  it('exit 1: denied, naming the hook and its stderr', async () => {
    const hook = await bashHook(dir, 'one.sh', 'echo "jq: command not found" >&2; exit 1');
    const { call, bodyCalls } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain(hook);
    expect(result.error?.message).toContain('exited with code 1');
    expect(result.error?.message).toContain('jq: command not found');
    expect(bodyCalls).toEqual([]);
  });

  it('exit 1 with onError: allow lets the call through, recording the failure', async () => {
    const hook = await bashHook(dir, 'one.sh', 'exit 1');
    const { call, runs } = setup(
      { PreToolUse: [pre('Bash', { type: 'command', command: hook, onError: 'allow' })] },
      { cwd: dir },
    );
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
    expect(runs[0]).toMatchObject({ status: 'failed', decision: 'none', exitCode: 1 });
  });

  it('JSON-looking output that does not parse: denied', async () => {
    const hook = await bashHook(
      dir,
      'broken.sh',
      `echo '{"hookSpecificOutput": {"permissionDecision": "allow"'`,
    );
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toMatch(/looks like JSON but does not parse/);
  });

  it('JSON with an unknown permissionDecision: denied, saying what is expected', async () => {
    const hook = await bashHook(dir, 'defer.sh', `echo '${decisionJson('defer' as 'allow', 'x')}'`);
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.message).toContain('"allow", "deny" or "ask"');
  });

  it('megabytes of stdout: killed at the cap and denied, saying so', async () => {
    const hook = await bashHook(dir, 'flood.sh', 'head -c 5000000 /dev/zero | tr "\\0" a');
    const { call, runs } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('more than 1 MiB to stdout');
    expect(runs[0]?.status).toBe('failed');
    // The record never carries the flood.
    expect(JSON.stringify(result).length).toBeLessThan(100_000);
  });

  it('a hook that never exits is killed at its timeout with its whole process group', async () => {
    const pidFile = join(dir, 'child.pid');
    const hook = await bashHook(dir, 'hang.sh', `sleep 1000 & echo $! > ${pidFile}; wait`);
    const { call, bodyCalls, runs } = setup(
      { PreToolUse: [pre('Bash', { type: 'command', command: hook, timeout: 1 })] },
      { cwd: dir },
    );
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('did not finish within 1 s');
    expect(runs[0]).toMatchObject({ status: 'failed', exitCode: null, exitSignal: 'SIGKILL' });
    const childPid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(childPid).toBeGreaterThan(0);
    expect(await eventually(() => !isAlive(childPid))).toBe(true);
    expect(bodyCalls).toEqual([]);
  });

  it('a background child that keeps stdout open does not hang the call, and is ended', async () => {
    const pidFile = join(dir, 'bg.pid');
    const hook = await bashHook(
      dir,
      'bg.sh',
      `sleep 1000 &\necho $! > ${pidFile}\necho '${decisionJson('allow', 'fine')}'\nexit 0`,
    );
    const { call, runs } = setup(
      // The timeout is far above the test's own limit: only the drain can end this call in time.
      { PreToolUse: [pre('Bash', { type: 'command', command: hook, timeout: 600 })] },
      { cwd: dir },
    );
    const result = await call('Bash', { command: 'x' });
    expect(result.isError).toBe(false);
    expect(runs[0]).toMatchObject({ status: 'ok', decision: 'allow', exitCode: 0 });
    const childPid = Number((await readFile(pidFile, 'utf8')).trim());
    expect(await eventually(() => !isAlive(childPid))).toBe(true);
  });

  it('a background child that closed its output is left running (only pipe holders are ended)', async () => {
    const pidFile = join(dir, 'quiet.pid');
    const hook = await bashHook(
      dir,
      'quiet-bg.sh',
      `sleep 1000 >/dev/null 2>&1 </dev/null &\necho $! > ${pidFile}\nexit 0`,
    );
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
    const childPid = Number((await readFile(pidFile, 'utf8')).trim());
    try {
      expect(isAlive(childPid)).toBe(true);
    } finally {
      process.kill(childPid, 'SIGKILL');
    }
  });

  it('megabytes of stderr: killed at the cap and denied', async () => {
    const hook = await bashHook(dir, 'flood-err.sh', 'head -c 3000000 /dev/zero >&2');
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.message).toContain('more than 1 MiB to stderr');
  });

  it('maxOutputBytes sets the cap', async () => {
    const hook = await bashHook(
      dir,
      'chatty.sh',
      `echo '${decisionJson('allow', 'x'.repeat(200))}'`,
    );
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir, maxOutputBytes: 100 });
    expect((await call('Bash', { command: 'x' })).error?.message).toContain(
      'more than 100 bytes to stdout',
    );
  });

  it('aborting the call kills running hooks (their children too) and resolves ABORTED', async () => {
    const pidFile = join(dir, 'abort.pid');
    const hook = await bashHook(dir, 'slow.sh', `sleep 1000 & echo $! > ${pidFile}; wait`);
    const controller = new AbortController();
    const { call, bodyCalls, runs } = setup(
      { PreToolUse: [pre('Bash', { type: 'command', command: hook, timeout: 600 })] },
      { cwd: dir },
    );
    const pending = call('Bash', { command: 'x' }, controller.signal);
    const childPid = Number((await waitForFile(pidFile)).trim());
    controller.abort();
    const result = await pending;
    expect(result.error?.code).toBe('ABORTED');
    expect(details(result)).toMatchObject({ event: 'PreToolUse', reason: 'aborted' });
    expect(runs[0]?.status).toBe('aborted');
    expect(await eventually(() => !isAlive(childPid))).toBe(true);
    expect(bodyCalls).toEqual([]);
  });

  it('aborting during PostToolUse hooks kills them and keeps the result the tool produced', async () => {
    const pidFile = join(dir, 'post.pid');
    const hook = await bashHook(dir, 'post-slow.sh', `sleep 1000 & echo $! > ${pidFile}; wait`);
    const controller = new AbortController();
    const { call, bodyCalls, runs } = setup(
      { PostToolUse: [pre('Bash', { type: 'command', command: hook, onError: 'block' })] },
      { cwd: dir },
    );
    const pending = call('Bash', { command: 'x' }, controller.signal);
    const childPid = Number((await waitForFile(pidFile)).trim());
    controller.abort();
    const result = await pending;
    expect(bodyCalls).toEqual([{ command: 'x' }]);
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'ran: x' }] });
    expect(runs[0]).toMatchObject({ status: 'aborted', decision: 'none' });
    expect(await eventually(() => !isAlive(childPid))).toBe(true);
  });

  it('a command that cannot start (cwd gone) fails closed', async () => {
    const { call } = setup({ PreToolUse: [pre('Bash', 'true')] }, { cwd: join(dir, 'missing') });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('could not be started');
  });

  it('a hook that prints a whole decision then crashes still fails closed', async () => {
    const hook = await bashHook(dir, 'liar.sh', `echo '${decisionJson('allow', 'ok')}'; exit 3`);
    const { call } = setup({ PreToolUse: [pre('Bash', hook)] }, { cwd: dir });
    expect((await call('Bash', { command: 'x' })).error?.message).toContain('exited with code 3');
  });

  it('a hook that does not read its (large) stdin still works', async () => {
    const { call } = setup(
      { PreToolUse: [pre('Bash', printing(decisionJson('allow', 'ok')))] },
      { cwd: dir },
    );
    const result = await call('Bash', { command: 'x'.repeat(2_000_000) });
    expect(result.isError).toBe(false);
  });

  it('a throwing onHookRun changes nothing', async () => {
    const { call } = setup(
      { PreToolUse: [pre('Bash', 'true')] },
      {
        cwd: dir,
        onHookRun: () => {
          throw new Error('observer broke');
        },
      },
    );
    expect((await call('Bash', { command: 'x' })).isError).toBe(false);
  });
});

describe('called directly, outside a registry', () => {
  it('never throws on a hostile call object', async () => {
    const interceptor = hooksInterceptor({ hooks: { PreToolUse: [pre('*', 'true')] } });
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    ) as InterceptedExecution;
    const result = await interceptor(hostile, () => Promise.reject(new Error('never')));
    expect(result.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(result.error?.message).toContain('trap');
    const named = await interceptor(
      { callId: 'c', name: 42, arguments: {} } as unknown as InterceptedExecution,
      () => Promise.reject(new Error('never')),
    );
    expect(named).toMatchObject({ callId: 'c', error: { code: 'INTERCEPTOR_ERROR' } });
  });

  it('turns a rejecting next() into a result', async () => {
    const interceptor = hooksInterceptor({ hooks: { PostToolUse: [pre('*', 'true')] } });
    const result = await interceptor(
      { callId: 'c', name: 'x', arguments: {} } as unknown as InterceptedExecution,
      () => Promise.reject(new Error('inner exploded')),
    );
    expect(result.error?.code).toBe('INTERCEPTOR_ERROR');
    expect(result.error?.message).toContain('inner exploded');
  });
});
