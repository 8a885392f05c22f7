/**
 * The DeepSeek Harness's real agent loop (`@deepseek-ai/dsh-agent-loop`) with its real tool
 * plugins, driven by a scripted model: a small provider on `@deepseek-ai/dsh-llm`'s adapter
 * interface that answers each request with the next step of a fixed script. The same app is
 * booted on upstream's `tools` service and on ours; {@link runScript} returns what a person could
 * compare: the durable session events, the tool results as the loop recorded them, and what the
 * model was sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import AgentLoop from '@deepseek-ai/dsh-agent-loop';
import LocalBashExecutor from '@deepseek-ai/dsh-bash-local';
import LocalFileSystem from '@deepseek-ai/dsh-fs-local';
import GoalService from '@deepseek-ai/dsh-goal';
import InvariantRegistry from '@deepseek-ai/dsh-invariants';
import { createUserMessage, LlmAdapter, LlmRuntime } from '@deepseek-ai/dsh-llm';
import * as RepeatToolReminder from '@deepseek-ai/dsh-repeat-tool-reminder';
import { SessionId, SessionStore } from '@deepseek-ai/dsh-session';
import * as ShellEnv from '@deepseek-ai/dsh-shell-env';
import LocalSubprocessRuntime from '@deepseek-ai/dsh-subprocess-local';
import SystemPrompt from '@deepseek-ai/dsh-system-prompt';
import * as ToolAskUser from '@deepseek-ai/dsh-tool-ask-user';
import * as ToolBash from '@deepseek-ai/dsh-tool-bash';
import * as ToolCallTimeoutPolicy from '@deepseek-ai/dsh-tool-call-timeout-policy';
import * as ToolFs from '@deepseek-ai/dsh-tool-fs';
import * as ToolGoal from '@deepseek-ai/dsh-tool-goal';
import * as ToolTodo from '@deepseek-ai/dsh-tool-todo';
import { defineTool, TOOL_RUNTIME_SCHEDULER, ToolRuntime } from '@deepseek-ai/dsh-tools';
import * as ToolsInvariant from '@deepseek-ai/dsh-tools/invariant';
import ApprovalService from '@deepseek-ai/dsh-user-approval';
import UserQuestionService from '@deepseek-ai/dsh-user-questions';
import { ToolRegistry } from 'dsh-tools/cordis';
import type { HostName } from './hosts';

// The loop uses Promise.withResolvers (Node 22); this repository's floor is Node 20.
(Promise as unknown as { withResolvers?: unknown }).withResolvers ??= <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { promise, resolve, reject };
};

/** One model call the script answers: text, tool calls, or both. */
export interface ScriptStep {
  readonly text?: string;
  readonly calls?: readonly {
    readonly id: string;
    readonly name: string;
    readonly args: unknown;
  }[];
}

// biome-ignore lint/suspicious/noExplicitAny: the two services type ctx differently
type Any = any;

/** A provider that replays a fixed script, one step per request, and records each request. */
class ScriptedModel extends LlmAdapter {
  readonly requests: Any[] = [];
  constructor(private readonly steps: ScriptStep[]) {
    super();
  }
  override providerInfo(provider: string) {
    return { id: provider, name: provider };
  }
  override async resolveModel(provider: string, model: string) {
    return { provider, id: model, name: model };
  }
  async *stream(options: Any): AsyncIterable<Any> {
    this.requests.push(options);
    const step = this.steps.shift() ?? { text: '(the script has ended)' };
    let index = 0;
    if (step.text !== undefined) {
      yield { type: 'block-start', index, blockType: 'text' };
      yield { type: 'text-delta', index, text: step.text };
      yield { type: 'block-end', index, block: { type: 'text', text: step.text } };
      index++;
    }
    for (const call of step.calls ?? []) {
      const args = JSON.stringify(call.args);
      yield { type: 'block-start', index, blockType: 'tool-call' };
      yield { type: 'tool-call-delta', index, id: call.id, name: call.name, argumentsDelta: args };
      const block = { type: 'tool-call', id: call.id, name: call.name, arguments: args };
      yield { type: 'block-end', index, block };
      index++;
    }
    yield { type: 'finish', reason: step.calls ? 'tool-calls' : 'stop' };
  }
}

/** A session event, with what differs on every run (ids, times, paths) replaced. */
export interface Recorded {
  readonly type: string;
  readonly data: unknown;
}

/** What one run of the script leaves to compare. */
export interface Transcript {
  /** The parent agent's durable session events. */
  readonly events: readonly Recorded[];
  /** The sub-agent's. */
  readonly child: readonly Recorded[];
  /** The `tool/result` events: the result the model sees and the recorded error code and meta. */
  readonly results: readonly unknown[];
  /** The tool names each request offered the model, parent and child. */
  readonly offered: readonly (readonly string[])[];
  /** The files afterwards. */
  readonly files: Readonly<Record<string, string | null>>;
  /** What the approval service was asked. */
  readonly asked: readonly string[];
  /** The `tools/*` dispatches reported on `internal/dispatch`, in order, by call. */
  readonly dispatches: readonly string[];
  /** What the harness's invariant checks (`@deepseek-ai/dsh-tools/invariant`) found wrong. */
  readonly violations: readonly string[];
}

/** The script: the parent's steps, then (provider `child`) the sub-agent's. */
export const PARENT: ScriptStep[] = [
  {
    calls: [
      { id: 'p1', name: 'read', args: { file_path: 'a.txt' } },
      { id: 'p2', name: 'read', args: { file_path: 'b.txt' } },
    ],
  },
  {
    calls: [
      {
        id: 'p3',
        name: 'edit',
        args: { file_path: 'a.txt', old_string: 'one', new_string: 'ONE' },
      },
      { id: 'p4', name: 'bash', args: { command: 'rm -rf /', description: 'clean up' } },
    ],
  },
  {
    calls: [
      { id: 'p5', name: 'write', args: { file_path: 'c.txt', content: 'approved\n' } },
      { id: 'p6', name: 'read', args: { file_path: 'missing.txt' } },
    ],
  },
  { calls: [{ id: 'p7', name: 'delegate', args: { task: 'read a.txt' } }] },
  {
    calls: [
      { id: 'p8', name: 'create_goal', args: { objective: 'tidy the files' } },
      { id: 'p9', name: 'get_goal', args: {} },
      { id: 'p10', name: 'get_goal', args: {} },
      { id: 'p11', name: 'note', args: { text: 'remember the goal' } },
      {
        id: 'p12',
        name: 'todo_write',
        args: { todos: [{ content: 'tidy', status: 'in_progress' }] },
      },
    ],
  },
  { text: 'All done.' },
];

export const CHILD: ScriptStep[] = [
  {
    calls: [
      { id: 'c1', name: 'read', args: { file_path: 'a.txt' } },
      { id: 'c2', name: 'write', args: { file_path: 'd.txt', content: 'child\n' } },
    ],
  },
  { text: 'a.txt starts with ONE.' },
];

/** Replaces what differs between runs (ids, times, the temporary folder) with fixed markers. */
const normalize = (value: unknown, dir: string): unknown =>
  JSON.parse(
    JSON.stringify(value ?? null)
      .replaceAll(dir, '<dir>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/"(at|createdAt|startedAt|endedAt|updatedAt|timestamp|time)":\s*\d+/g, '"$1":0')
      .replace(/"(durationMs|elapsedMs)":\s*\d+/g, '"$1":0')
      .replace(/"mtimeMs":\s*[\d.]+/g, '"mtimeMs":0'),
  );

/** A script other than the default, and whether to cancel the turn once `wait` runs. */
export interface ScriptOptions {
  readonly parent?: readonly ScriptStep[];
  readonly child?: readonly ScriptStep[];
  readonly cancelOnWait?: boolean;
  /** Present the tools in Code Mode, with the worker-thread code runtime loaded. */
  readonly codeMode?: boolean;
}

/** The worker-thread code runtime, loaded on first need (on Node 20 through the strip hooks). */
let codeRuntime: Promise<object> | undefined;
const loadCodeRuntime = (): Promise<object> => {
  codeRuntime ??= (async () => {
    const nodeModule = await import('node:module');
    if (!('stripTypeScriptTypes' in nodeModule)) {
      nodeModule.register('./strip-types-hooks.mjs', import.meta.url);
    }
    const { WorkerThreadCodeRuntime } = (await import(
      '@deepseek-ai/dsh-code-runtime-worker-thread'
    )) as unknown as { WorkerThreadCodeRuntime: object };
    return WorkerThreadCodeRuntime;
  })();
  return codeRuntime;
};

/** Runs the whole script on `name`'s tools service; the transcript, normalized. */
export async function runScript(name: HostName, options: ScriptOptions = {}): Promise<Transcript> {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-loop-'));
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\n');
  writeFileSync(join(dir, 'b.txt'), 'bee\n');
  const app = new Context();
  const parentModel = new ScriptedModel([...(options.parent ?? PARENT)]);
  const childModel = new ScriptedModel([...(options.child ?? CHILD)]);
  let cancel = () => {};
  const asked: string[] = [];
  const dispatches: string[] = [];
  const violations: string[] = [];
  let childSession: Any;
  try {
    await app.plugin(SystemPrompt, {});
    await app.plugin(AgentRegistry);
    await app.plugin(SessionStore);
    await app.plugin(LlmRuntime);
    await app.plugin(InvariantRegistry as Any, {});
    // A failed invariant throws inside its listener; both services contain it, and report it.
    app.on(
      'internal/dispatch' as Any,
      ((_mode: string, event: string, args: Any[]) => {
        if (event.startsWith('tools/') && event !== 'tools/change') {
          dispatches.push(`${event} ${args[0]?.callId}`);
        }
      }) as Any,
      { global: true } as Any,
    );
    const report = (error: unknown) => {
      if ((error as { code?: unknown })?.code === 'INVARIANT') violations.push(String(error));
    };
    const log = { warn: report, error: report, info() {}, debug() {}, success() {} };
    (app as Any).logger = Object.assign(() => log, log);
    const mode = options.codeMode ? { mode: 'code' } : {};
    if (options.codeMode) await app.plugin((await loadCodeRuntime()) as Any, {});
    if (name === 'upstream') await app.plugin(ToolRuntime, mode);
    else {
      await app.plugin(ToolRegistry, {
        schedulerKey: TOOL_RUNTIME_SCHEDULER,
        onError: report,
        ...mode,
      });
    }
    await app.plugin(ToolsInvariant as Any, {});
    await app.plugin(ApprovalService, {});
    await app.plugin(LocalFileSystem as Any, { cwd: dir });
    await app.plugin(GoalService as Any, {});
    await app.plugin(AgentLoop, { agents: [] });
    await app.plugin(ToolFs as Any, {});
    // The real shell tool, over the harness's local shell stack; the policy denies every call.
    await app.plugin(LocalSubprocessRuntime as Any, {});
    await app.plugin(LocalBashExecutor as Any, {});
    await app.plugin(ShellEnv as Any, { dshHome: dir });
    await app.plugin(ToolBash as Any, { enableRunInBackground: false });
    // Registered for the schemas the model is offered (compared byte for byte); not called.
    await app.plugin(UserQuestionService as Any, {});
    await app.plugin(ToolAskUser as Any, {});
    await app.plugin(ToolTodo as Any, { allowParallelInProgress: false });
    await app.plugin(ToolGoal as Any, {});
    await app.plugin(RepeatToolReminder as Any, { thresholds: [2] });
    await app.plugin(ToolCallTimeoutPolicy as Any, {});
    const ctx = app as Any;
    ctx.llm.registerAdapter(['scripted'], parentModel);
    ctx.llm.registerAdapter(['child'], childModel);
    await app.plugin({
      name: 'scenario',
      inject: ['tools', 'agents'],
      apply(inner: Any) {
        // A program's read of a.txt waits in tools/execute until its read of b.txt gets there:
        // the two overlap on every machine, not only where the code runtime's two messages
        // arrive before the first file is read (on a loaded machine they may not).
        let bReached!: () => void;
        const reachedB = new Promise<void>((resolve) => {
          bReached = resolve;
        });
        inner.on('tools/execute', async (exec: Any, next: () => Promise<unknown>) => {
          if (exec.name === 'read' && String(exec.callId).includes(':code:')) {
            if (exec.arguments?.file_path === 'b.txt') bReached();
            else if (exec.arguments?.file_path === 'a.txt') await reachedB;
          }
          return next();
        });
        // A policy: no shell command runs here; writes ask a person, who approves.
        inner.on('tools/pre-execute', async (exec: Any, next: () => Promise<unknown>) => {
          if (exec.name === 'bash') return { kind: 'deny', reason: 'no shell in this session' };
          if (exec.name === 'write') return { kind: 'ask', reason: 'writes a file' };
          return next();
        });
        inner.on('approval/request', async (request: Any) => {
          asked.push(`${request.toolName}:${request.callId}`);
          return 'allowed-once';
        });
        // A tool that runs until its call is cancelled (the test cancels the turn once it runs).
        inner.tools.register(
          defineTool({
            name: 'wait',
            description: 'Waits until cancelled.',
            parameters: {},
            output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
            isConcurrencySafe: () => true,
            execute: (_args: Any, exec: Any) =>
              new Promise((resolve) => {
                exec.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
                // At once: the calls started before it are still in flight (their I/O cannot
                // have completed within the loop's synchronous hand-offs).
                if (options.cancelOnWait) cancel();
              }),
          }),
        );
        // A tool that defers context to the next request, as the goal tools do in a goal round.
        inner.tools.register(
          defineTool({
            name: 'note',
            description: 'Remember something for the next step.',
            parameters: { text: { type: 'string', required: true } },
            output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
            execute: async (args: Any, exec: Any) => {
              exec.deferContext(
                createUserMessage({
                  content: [{ type: 'text', text: `note: ${args.text}` }],
                  source: { kind: 'plugin', plugin: 'note', form: 'notice', summary: 'note' },
                } as Any),
              );
              return 'noted';
            },
          }),
        );
        // A sub-agent that may only read: its own scope, a restricted tool set.
        inner.tools.register(
          defineTool({
            name: 'delegate',
            description: 'Hand a task to a read-only sub-agent.',
            parameters: { task: { type: 'string', required: true } },
            output: { schema: { type: 'string' }, render: (_a, v) => [{ type: 'text', text: v }] },
            execute: async (args: Any, exec: Any) => {
              const handle = await inner.agents.create({
                sessionId: SessionId('child'),
                meta: { cwd: dir, parentSession: exec.agent.id, origin: 'subagent' },
                agentOptions: { provider: 'child', model: 'm' },
                setup: (agentCtx: Any) => {
                  agentCtx.tools.restrict({ allow: ['read'] });
                },
              });
              childSession = handle.agent.session;
              handle.agent.followup(
                createUserMessage({
                  content: [{ type: 'text', text: args.task }],
                  source: { kind: 'user' },
                } as Any),
              );
              await new Promise((resolve) => setTimeout(resolve, 10));
              await handle.agent.whenIdle();
              const last = [...handle.agent.session.events]
                .reverse()
                .find((e: Any) => e.type === 'assistant/message');
              await handle.dispose();
              return String(last?.data.message.content[0]?.text ?? '');
            },
          }),
        );
      },
    } as Any);
    const handle = await ctx.agents.create({
      sessionId: SessionId('parent'),
      meta: { cwd: dir },
      agentOptions: { provider: 'scripted', model: 'm' },
    });
    const agent = handle.agent;
    cancel = () => agent.cancel({ kind: 'user' });
    agent.followup(
      createUserMessage({
        content: [{ type: 'text', text: 'Tidy the files.' }],
        source: { kind: 'user' },
      } as Any),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    await agent.whenIdle();
    const events = [...agent.session.events].map((e: Any) => ({ type: e.type, data: e.data }));
    const child = [...(childSession?.events ?? [])].map((e: Any) => ({
      type: e.type,
      data: e.data,
    }));
    const files: Record<string, string | null> = {};
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) {
      try {
        files[file] = readFileSync(join(dir, file), 'utf8');
      } catch {
        files[file] = null;
      }
    }
    await handle.dispose();
    const offered = [...parentModel.requests, ...childModel.requests].map((r: Any) =>
      (r.tools ?? []).map((t: Any) => t.name),
    );
    return normalize(
      {
        events,
        child,
        results: events.filter((e) => e.type === 'tool/result').map((e) => e.data),
        offered,
        files,
        asked,
        dispatches,
        violations,
      },
      dir,
    ) as Transcript;
  } finally {
    await app.fiber.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}
