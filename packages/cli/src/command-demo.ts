import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalApprover } from './approvers';
import { CliFailure, cErr, cOut, err, out } from './cli-io';
import {
  type DemoCallReport,
  type DemoReport,
  DemoServerError,
  type DemoTurnReport,
  previewResult,
  runDemo,
  scriptedApprover,
  writeDemoWorkspace,
} from './demo';
import { EXIT } from './exit-codes';
import { type Colors, renderTrail } from './output';

const ms = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(1)} ms`);

function renderHeader(header: Omit<DemoReport, 'turns' | 'ok'>, c: Colors): string {
  const runner = header.sandboxRunner.available
    ? `bubblewrap at ${header.sandboxRunner.bwrap}`
    : c.yellow(`unavailable: ${header.sandboxRunner.reason}`);
  return [
    c.bold('dsh-tools demo: a scripted agent session through hooks, sandbox and permission'),
    `${c.bold('workspace')}       ${header.workspace}`,
    `${c.bold('config')}          ${header.config}`,
    `${c.bold('policies')}        ${header.policies.join(' → ')} → tool`,
    `${c.bold('sandbox runner')}  ${runner}`,
    `${c.bold('servers')}         ${header.servers.map((s) => `${s.name} (${s.tools} tools, connected in ${ms(s.ms)})`).join(', ')}`,
  ].join('\n');
}

function renderCall(call: DemoCallReport, c: Colors): string {
  const mark = call.met ? c.green('✓') : c.red('✗');
  const outcome = call.outcome === 'ok' ? c.green('ok') : c.red(call.outcome);
  const lines = [
    `  ${mark} ${c.bold(call.tool)} ${JSON.stringify(call.arguments)}`,
    `    ${c.dim(call.shows)}: ${outcome}${call.met ? '' : c.red(` (expected ${call.expect})`)} ${c.dim(`in ${ms(call.ms)}`)}`,
  ];
  if (call.effectiveArguments) {
    lines.push(`    ${c.yellow('rewritten to')} ${JSON.stringify(call.effectiveArguments)}`);
  }
  for (const ask of call.asks) {
    const question = ask.question.split('\n').join(' / ');
    lines.push(
      `    ${c.yellow('asked')} ${question}\n    ${c.yellow('answer')} ${ask.answer} (${ask.by === 'person' ? 'the person at the terminal' : 'scripted approver'})`,
    );
  }
  lines.push(renderTrail(call.trail, c).replace(/^ {2}/gm, '    '));
  // An error's message is already the last line of the trail.
  if (!call.result.isError) {
    for (const line of previewResult(call.result)) lines.push(`    ${c.dim('→')} ${line}`);
  }
  return lines.join('\n');
}

function renderTurn(turn: DemoTurnReport, index: number, c: Colors): string {
  const parallel =
    turn.calls.length > 1
      ? `, ${turn.calls.length} calls overlapped: ${ms(turn.calls.reduce((s, x) => s + x.ms, 0))} of calls in`
      : ', in';
  return [
    '',
    `${c.bold(`turn ${index + 1}`)}  ${turn.title} ${c.dim(`(${parallel.slice(2)} ${ms(turn.ms)})`)}`,
    ...turn.calls.map((call) => renderCall(call, c)),
  ].join('\n');
}

/** The options of `dsh-tools demo`, as commander parses them. */
export interface DemoOptions {
  json?: boolean;
  yes?: boolean;
  keep?: boolean;
  bwrap?: string;
}

/** `dsh-tools demo`: runs the scripted session and prints it; resolves with the exit code. */
export async function demoCommand(options: DemoOptions): Promise<number> {
  const workspace = await realpath(await mkdtemp(join(tmpdir(), 'dsh-tools-demo-')));
  const interactive = process.stdin.isTTY === true && err.isTTY === true && options.yes !== true;
  try {
    const config = await writeDemoWorkspace(
      workspace,
      options.bwrap ? { bwrapPath: options.bwrap } : {},
    );
    const report = await runDemo({
      workspace,
      config,
      approver: interactive
        ? { approve: terminalApprover(), by: 'person' }
        : { approve: scriptedApprover(), by: 'scripted' },
      ...(options.bwrap ? { bwrapPath: options.bwrap } : {}),
      // A progress line while the example server starts, on a terminal only (logs stay clean).
      ...(err.isTTY === true
        ? {
            onServer: (event) => {
              err.write(
                event.phase === 'connecting'
                  ? cErr.dim(`starting the example MCP server "${event.server}"…`)
                  : '\r\x1b[K',
              );
            },
          }
        : {}),
      ...(options.json
        ? {}
        : {
            onReady: (header) => out.write(`${renderHeader(header, cOut)}\n`),
            onTurn: (turn, index) => out.write(`${renderTurn(turn, index, cOut)}\n`),
          }),
    }).catch((error: unknown) => {
      if (error instanceof DemoServerError) throw new CliFailure(error.message, EXIT.SERVER_FAILED);
      throw error;
    });
    if (options.json) {
      out.write(`${JSON.stringify(report, null, 2)}\n`);
    } else {
      const calls = report.turns.flatMap((t) => t.calls);
      const met = calls.filter((x) => x.met).length;
      out.write(
        `\n${report.ok ? cOut.green(`${met}/${calls.length} calls ended as scripted.`) : cOut.red(`${calls.length - met} of ${calls.length} calls did not end as scripted (marked ✗ above).`)}\n` +
          `Next: keep the workspace (dsh-tools demo --keep) and ask which rule decides a call without running it:\n  dsh-tools check write_file '{"path":"src/app.js","content":""}' --config <workspace>/dsh-tools.json\nor look at dsh-tools inspect, call and serve (dsh-tools --help).\n`,
      );
      if (options.keep) out.write(`The workspace is kept: ${workspace}\n`);
    }
    return report.ok ? EXIT.OK : EXIT.TOOL_ERROR;
  } finally {
    if (!options.keep) await rm(workspace, { recursive: true, force: true });
  }
}
