import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { main } from './main';

const trace = async () => {
  const lines: string[] = [];
  await main((line) => lines.push(line));
  return lines;
};

/** The lines of one call, from its `call` line up to the next `call`, `turn` or `plugin` line. */
const callLines = (lines: readonly string[], callId: string) => {
  const start = lines.findIndex((line) => line.startsWith('call') && line.endsWith(`(${callId})`));
  expect(start, `no call ${callId} in the trace`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^(call|turn|plugin|done)\b/.test(line));
  return rest.slice(0, end === -1 ? undefined : end);
};

it('boots the service beside the system prompt and feeds it the tools', async () => {
  const lines = await trace();
  expect(lines[0]).toMatch(/^boot/);
  expect(lines).toContain('change   + read_note');
  expect(lines).toContain('change   + slow_search');
  const prompts = lines.filter((line) => line.startsWith('prompt'));
  expect(prompts).toEqual([
    'prompt   the model sees mcp__calendar__next_event, read_note, slow_search',
    'prompt   the model sees no tools',
  ]);
});

it('traces a success, a rewrite, a veto, invalid arguments and a timeout', async () => {
  const lines = await trace();
  expect(callLines(lines, 'c1')).toEqual([
    'policy   allow read_note {"title":"todo"}',
    'result   read_note (c1): ok  buy milk; review the tools PR',
  ]);
  expect(callLines(lines, 'c2')).toEqual([
    'policy   rewrite title "Ideas" -> "ideas"',
    'result   read_note (c2): ok  a plugin per MCP server',
  ]);
  const veto = callLines(lines, 'c3');
  expect(veto[0]).toBe('policy   deny read_note {"title":"secrets"}');
  expect(veto[1]).toMatch(/^result {3}read_note \(c3\): DENIED {2}Error: .*secrets/);
  // The audit plugin's listener threw: contained, reported to the cordis logger, naming it.
  expect(veto[2]).toBe(
    'logger   [error] observer tool "read_note" call "c3" listener of plugin "audit": the audit store is unreachable',
  );
  expect(veto).toHaveLength(3);
  const invalid = callLines(lines, 'c4');
  expect(invalid).toHaveLength(1);
  expect(invalid[0]).toMatch(/^result {3}read_note \(c4\): INVALID_ARGS {2}Error: .*title/);
  const timeout = callLines(lines, 'c5');
  expect(timeout[0]).toBe('policy   allow slow_search {"query":"milk"}');
  expect(timeout.at(-1)).toMatch(/^result {3}slow_search \(c5\): TIMEOUT {2}Error: .*slow_search/);
});

it('connects a real MCP server as a plugin and calls its tool through the policy', async () => {
  const lines = await trace();
  const loaded = lines.indexOf('plugin   loaded "calendar" (an MCP server in its own process)');
  expect(loaded).toBeGreaterThan(0);
  expect(lines.slice(loaded - 2, loaded)).toEqual([
    'change   + mcp__calendar__next_event',
    'mcp      calendar: connecting -> connected',
  ]);
  expect(callLines(lines, 'm1')).toEqual([
    'policy   allow mcp__calendar__next_event {"calendar":"work"}',
    'result   mcp__calendar__next_event (m1): ok  stand-up, 10:00, room 4',
  ]);
  // Disposing the plugin closes the bridge (its tool goes) and ends the server process.
  const disposed = lines.indexOf('plugin   disposed "calendar": its server process has ended');
  expect(disposed).toBeGreaterThan(0);
  expect(lines.slice(disposed - 2, disposed)).toEqual([
    'change   - mcp__calendar__next_event',
    'mcp      calendar: connected -> closed',
  ]);
});

it('runs the Hooks, Sandbox and Permission plugins, each stopping a call, and drops them on dispose', async () => {
  const lines = await trace();
  expect(lines).toContain('plugin   loaded "hooks" (a PreToolUse hook, .hooks/guard.sh)');
  expect(lines).toContain('plugin   loaded "sandbox" (workspace-write, root <workspace>)');
  expect(lines).toContain('plugin   loaded "permission" (allow echo, curl and save_note; deny rm)');
  // Allowed by all three, run by the body through bubblewrap.
  expect(callLines(lines, 's1').at(-1)).toBe('result   shell (s1): ok  hello from the sandbox');
  // The real sh hook exits 2: denied with its stderr, before the sandbox and permission.
  expect(callLines(lines, 's2')[1]).toMatch(
    /^result {3}shell \(s2\): DENIED {2}Error: .*PreToolUse hook .*guard\.sh.*downloads are not allowed/,
  );
  expect(callLines(lines, 's3')[1]).toMatch(
    /^result {3}shell \(s3\): DENIED {2}Error: .*deny rule "Bash\(rm:\*\)"/,
  );
  expect(callLines(lines, 's4')[1]).toMatch(
    /^result {3}save_note \(s4\): SANDBOX_VIOLATION {2}Error: .*"\.\.\/outside\.txt".*<workspace>/,
  );
  expect(callLines(lines, 's5')[1]).toBe('result   save_note (s5): ok  saved ideas.txt');
  expect(callLines(lines, 's5')[2]).toBe(
    `mode     ctx.permission.setMode('plan'): mode is now "plan"`,
  );
  expect(callLines(lines, 's6')[1]).toMatch(/^result {3}save_note \(s6\): DENIED {2}.*plan mode/);
  expect(lines).toContain(
    'plugin   disposed "permission", "sandbox" and "hooks": their interceptors are gone',
  );
  // After dispose the deny rule no longer applies, and the shell has no runner to use.
  expect(callLines(lines, 's7')[1]).toMatch(
    /^result {3}shell \(s7\): UNAVAILABLE {2}Error: .*no sandbox interceptor is installed/,
  );
});

it('runs a model turn with executeAll', async () => {
  const lines = await trace();
  const turn = lines.slice(lines.findIndex((line) => line.startsWith('turn')));
  expect(turn).toContain('result   read_note (c6): ok  buy milk; review the tools PR');
  expect(turn.find((line) => line.includes('(c7)'))).toMatch(/TOOL_ERROR .*nope/);
});

it('disposing the tool plugin removes its tools from the registry and the prompt', async () => {
  const lines = await trace();
  const disposed = lines.indexOf('plugin   disposed "notes"');
  expect(disposed).toBeGreaterThan(0);
  expect(lines.slice(disposed - 2, disposed).sort()).toEqual([
    'change   - read_note',
    'change   - slow_search',
  ]);
  expect(callLines(lines, 'c8')[0]).toMatch(/^result {3}read_note \(c8\): UNKNOWN_TOOL/);
  expect(lines.at(-1)).toBe('done     app disposed');
});

it('runs as its own process to the end and exits 0', async () => {
  const app = fileURLToPath(new URL('..', import.meta.url));
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  // `pnpm demo` runs the built packages; this test runs the sources, so it needs no build: a
  // tsconfig whose paths point every package at its sources, handed to tsx.
  const dir = mkdtempSync(join(tmpdir(), 'cordis-app-'));
  const tsconfig = join(dir, 'tsconfig.json');
  writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: join(root, 'tsconfig.base.json'),
      compilerOptions: {
        paths: {
          '@dsh-tools/define-tool/zod3': [join(root, 'packages/define-tool/src/zod3.ts')],
          '@dsh-tools/*': [join(root, 'packages/*/src/index.ts')],
          'dsh-tools/cordis': [join(root, 'packages/dsh-tools/src/cordis.ts')],
          'dsh-tools': [join(root, 'packages/dsh-tools/src/index.ts')],
        },
      },
    }),
  );
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: app,
      env: { ...process.env, TSX_TSCONFIG_PATH: tsconfig },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // The whole trace, exactly as in-process: a process that exits early (say, while a call
    // waits only on its timeout) would cut it short.
    expect(run.stdout.trimEnd().split('\n')).toEqual(await trace());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
