import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { findBwrap } from '@dsh-tools/interceptors-sandbox';
import type {
  ApprovalDecision,
  ApprovalRequest,
  Approver,
  ToolExecutionResult,
} from '@dsh-tools/protocol';
import { approvalQuestion } from './approvers';
import { loadConfig } from './config';
import { exampleServerPath } from './example-server-path';
import { buildGateway, type ServerProgressEvent } from './gateway';
import { renderBlock } from './output';
import type { TrailStep } from './policies';

/** What a scripted call is expected to end with: success, or an error code. */
export type DemoExpectation = 'ok' | string;

/** One tool call of the transcript, as a model would emit it, with what the demo shows by it. */
export interface DemoCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** What it demonstrates, in a few words. */
  readonly shows: string;
  readonly expect: DemoExpectation;
}

/** One model turn: its calls go through `executeAll` together. */
export interface DemoTurn {
  readonly title: string;
  readonly calls: readonly DemoCall[];
}

/** The demo's bridge timeout for the notes server: the `wait` call below outlasts it. */
export const DEMO_TIMEOUT_MS = 1500;

/**
 * The scripted session: what an agent asked to "look at the project, leave a plan and a note"
 * would emit, chosen so that every policy decision the gateway makes shows up once.
 */
export function demoTranscript(): DemoTurn[] {
  return [
    {
      title: 'look around: three read-only calls in one turn, run in parallel (executeAll)',
      calls: [
        {
          tool: 'read_file',
          arguments: { path: 'README.md' },
          shows: 'a read inside the workspace',
          expect: 'ok',
        },
        { tool: 'list_dir', arguments: { path: '.' }, shows: 'a listing', expect: 'ok' },
        {
          tool: 'mcp__notes__search_notes',
          arguments: { query: 'welcome' },
          shows: 'an MCP tool of the example server',
          expect: 'ok',
        },
      ],
    },
    {
      title: 'edit the source: a write that a deny rule forbids',
      calls: [
        {
          tool: 'write_file',
          arguments: { path: 'src/app.js', content: 'console.log("rewritten by the agent");\n' },
          shows: 'permissions.deny "Write(./src/**)"',
          expect: 'DENIED',
        },
      ],
    },
    {
      title: 'write outside the workspace: a path escape',
      calls: [
        {
          tool: 'write_file',
          arguments: { path: '../escaped.txt', content: 'out of bounds' },
          shows: 'the sandbox confines writes to the workspace',
          expect: 'SANDBOX_VIOLATION',
        },
      ],
    },
    {
      title: 'leave a plan: a write no rule covers, so a person is asked',
      calls: [
        {
          tool: 'write_file',
          arguments: { path: 'docs/plan.md', content: '# Plan\n\n1. Read the README.\n' },
          shows: 'mode "default" asks; the approver answers',
          expect: 'ok',
        },
      ],
    },
    {
      title: 'take a note: a PreToolUse hook rewrites the arguments',
      calls: [
        {
          tool: 'mcp__notes__add_note',
          arguments: { title: 'Plan written', text: 'docs/plan.md holds the plan.' },
          shows: 'the hook adds the tag "agent"; the registry validates the rewrite again',
          expect: 'ok',
        },
      ],
    },
    {
      title: "draw the note's card: an image result from the MCP server",
      calls: [
        {
          tool: 'mcp__notes__note_card',
          arguments: { id: 2 },
          shows: 'MCP image content, mapped 1:1',
          expect: 'ok',
        },
      ],
    },
    {
      title: 'wait for something slow: the call outlasts its time limit',
      calls: [
        {
          tool: 'mcp__notes__wait',
          arguments: { ms: 20_000 },
          shows: `the notes server's timeoutMs (${DEMO_TIMEOUT_MS} ms)`,
          expect: 'TIMEOUT',
        },
      ],
    },
  ];
}

// The demo's PreToolUse hook, a real command in Claude Code's contract: it reads the call on stdin
// and answers with `updatedInput`, adding a tag so that notes written by an agent can be found.
const TAG_HOOK = `let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  const call = JSON.parse(input);
  const tags = [...(call.tool_input.tags ?? []), 'agent'];
  process.stdout.write(JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { tags } },
  }));
});
`;

/**
 * Writes the demo's workspace into `dir`: a small project (with a `.env` the sandbox hides), the
 * hook script, and `dsh-tools.json` with the example tools, the example notes server, a
 * permission policy, the sandbox and the hook. Returns the config file's path.
 */
export async function writeDemoWorkspace(
  dir: string,
  options: { bwrapPath?: string } = {},
): Promise<string> {
  await mkdir(join(dir, 'src'), { recursive: true });
  await mkdir(join(dir, '.dsh'), { recursive: true });
  await writeFile(
    join(dir, 'README.md'),
    '# demo-project\n\nA small project the dsh-tools demo agent works on.\n',
  );
  await writeFile(join(dir, 'src', 'app.js'), 'console.log("hello");\n');
  await writeFile(join(dir, '.env'), 'API_KEY=not-for-agents\n');
  const hook = join(dir, '.dsh', 'tag-notes.mjs');
  await writeFile(hook, TAG_HOOK);
  const config = {
    exampleTools: { cwd: '.', writable: true },
    mcpServers: {
      notes: {
        command: process.execPath,
        args: [exampleServerPath()],
        trust: true,
        timeoutMs: DEMO_TIMEOUT_MS,
      },
    },
    permissions: {
      allow: ['Read', 'list_dir', 'mcp__notes'],
      deny: ['Write(./src/**)'],
      defaultMode: 'default',
    },
    sandbox: {
      mode: 'workspace-write',
      ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
    },
    hooks: {
      PreToolUse: [
        {
          matcher: 'mcp__notes__add_note',
          hooks: [
            {
              type: 'command',
              command: `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}`,
              timeout: 30,
            },
          ],
        },
      ],
    },
  };
  const file = join(dir, 'dsh-tools.json');
  await writeFile(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** A question put during the demo and how it was answered. */
export interface DemoAsk {
  readonly question: string;
  readonly answer: 'allow' | 'deny';
  /** `scripted` (no terminal, or `--yes`) or `person`. */
  readonly by: 'scripted' | 'person';
}

/** One call of the demo as it went. */
export interface DemoCallReport extends DemoCall {
  /** `ok` or the error code the call ended with. */
  readonly outcome: string;
  /** Whether the outcome is the one the transcript expects. */
  readonly met: boolean;
  /** The arguments the tool ran with, when a hook rewrote them. */
  readonly effectiveArguments?: Readonly<Record<string, unknown>>;
  readonly trail: readonly TrailStep[];
  /** The call's own time through the policies and the tool, ms. */
  readonly ms: number;
  readonly result: ToolExecutionResult;
  readonly asks: readonly DemoAsk[];
}

/** One turn of the demo as it went. */
export interface DemoTurnReport {
  readonly title: string;
  readonly calls: readonly DemoCallReport[];
  /** Wall time of the turn, ms (less than the sum of its calls when they overlap). */
  readonly ms: number;
}

/** What `dsh-tools demo --json` prints. */
export interface DemoReport {
  readonly workspace: string;
  readonly config: string;
  readonly policies: readonly string[];
  readonly sandboxRunner:
    | { readonly available: true; readonly bwrap: string }
    | { readonly available: false; readonly reason: string };
  readonly servers: readonly { name: string; tools: number; ms: number }[];
  readonly turns: readonly DemoTurnReport[];
  /** Whether every call ended as the transcript expects. */
  readonly ok: boolean;
}

/** Options of {@link runDemo}. */
export interface RunDemoOptions {
  /** The workspace, written by {@link writeDemoWorkspace}. */
  readonly workspace: string;
  readonly config: string;
  /** Answers the asks; `person` when it is a person at a terminal. */
  readonly approver: { readonly approve: Approver; readonly by: 'scripted' | 'person' };
  /** Where bubblewrap is, if not on PATH or in /usr/bin. */
  readonly bwrapPath?: string;
  /** Called as each turn finishes, so a terminal shows the session as it goes. */
  readonly onTurn?: (turn: DemoTurnReport, index: number) => void;
  /** Follows the example server's start (a terminal shows a progress line). */
  readonly onServer?: (event: ServerProgressEvent) => void;
  /** Called once the servers are connected, before the first turn. */
  readonly onReady?: (header: Omit<DemoReport, 'turns' | 'ok'>) => void;
}

/**
 * Runs the transcript through a gateway built from the demo's config (hooks, sandbox and
 * permission in front of the example tools and the example MCP server), one turn at a time, each
 * turn's calls through `executeAll`, recording every call's decision trail.
 */
export async function runDemo(options: RunDemoOptions): Promise<DemoReport> {
  const loaded = await loadConfig(options.config);
  const asks = new Map<string, DemoAsk[]>();
  const approve: Approver = async (request: ApprovalRequest): Promise<ApprovalDecision> => {
    const decision = await options.approver.approve(request);
    const list = asks.get(request.exec.callId) ?? [];
    list.push({
      question: approvalQuestion(request),
      answer: decision.kind,
      by: options.approver.by,
    });
    asks.set(request.exec.callId, list);
    return decision;
  };
  const servers: { name: string; tools: number; ms: number }[] = [];
  const gateway = await buildGateway(loaded, {
    recordTrails: true,
    approver: approve,
    onServer: (event: ServerProgressEvent) => {
      options.onServer?.(event);
      if (event.phase === 'connected') {
        servers.push({ name: event.server, tools: event.tools, ms: event.ms });
      }
    },
  });
  try {
    const failed = gateway.failures[0];
    if (failed) {
      throw new DemoServerError(
        `The example MCP server "${failed.server}" did not start (${failed.error.message}); rebuild the package (pnpm --filter @dsh-tools/cli build) and run the demo again`,
      );
    }
    const bwrap = findBwrap(options.bwrapPath);
    const header = {
      workspace: options.workspace,
      config: options.config,
      policies: gateway.policies,
      sandboxRunner: bwrap
        ? ({ available: true, bwrap } as const)
        : ({
            available: false,
            reason: `bubblewrap (bwrap) was not found ${options.bwrapPath ? `at ${options.bwrapPath}` : 'on PATH or in /usr/bin'}: tools that run commands in the sandbox would fail UNAVAILABLE; the path checks below do not need it`,
          } as const),
      servers,
    };
    options.onReady?.(header);
    const turns: DemoTurnReport[] = [];
    let n = 0;
    for (const [index, turn] of demoTranscript().entries()) {
      const execs = turn.calls.map((call) => ({
        callId: `demo-${++n}`,
        name: call.tool,
        arguments: { ...call.arguments },
      }));
      for (const exec of execs) gateway.trails.begin(exec.callId);
      const started = performance.now();
      const results = await gateway.registry.executeAll(execs);
      const ms = performance.now() - started;
      const calls = turn.calls.map((call, i): DemoCallReport => {
        const result = results[i]!;
        const exec = execs[i]!;
        const trail = gateway.trails.take(exec.callId, result);
        const outcome = result.isError ? (result.error?.code ?? 'TOOL_ERROR') : 'ok';
        const effective = result.arguments?.effective;
        return {
          ...call,
          outcome,
          met: outcome === call.expect,
          ...(effective ? { effectiveArguments: effective as Record<string, unknown> } : {}),
          trail,
          ms: trail[0]?.ms ?? ms,
          result,
          asks: asks.get(exec.callId) ?? [],
        };
      });
      const report = { title: turn.title, calls, ms };
      turns.push(report);
      options.onTurn?.(report, index);
    }
    return { ...header, turns, ok: turns.every((t) => t.calls.every((c) => c.met)) };
  } finally {
    await gateway.close();
  }
}

/** The demo's example MCP server did not start: there is no session to show. */
export class DemoServerError extends Error {
  override readonly name = 'DemoServerError';
}

/** The scripted approver: it allows, as the transcript's user would. */
export function scriptedApprover(): Approver {
  return () => ({ kind: 'allow' });
}

/** A result's content in at most `maxLines` lines, for a transcript. */
export function previewResult(result: ToolExecutionResult, maxLines = 4): string[] {
  if (result.isError) return [`${result.error?.code ?? 'ERROR'}: ${result.error?.message ?? ''}`];
  const lines = result.content
    .flatMap((block) => renderBlock(block).split('\n'))
    .filter((line) => line.trim() !== '');
  return lines.length > maxLines
    ? [
        ...lines.slice(0, maxLines),
        `… ${lines.length - maxLines} more line${lines.length - maxLines === 1 ? '' : 's'}`,
      ]
    : lines;
}
