import type { SandboxDescription } from '@dsh-tools/interceptors-sandbox';
import { type CheckReport, type CheckStep, checkCall } from './check';
import { failedServersNote, load, openGateway } from './cli-gateway';
import { CliFailure, cOut, out, warn } from './cli-io';
import { readArgs } from './command-call';
import type { ClientConfig, LoadedConfig } from './config';
import { EXIT } from './exit-codes';
import { matchesTool } from './http-identities';
import type { Colors } from './output';

function renderStep(step: CheckStep, width: number, c: Colors): string {
  const word = step.outcome.padEnd(7);
  const outcome =
    step.outcome === 'passed'
      ? c.green(word)
      : step.outcome === 'asks' || step.outcome === 'rewrote' || step.outcome === 'not-run'
        ? c.yellow(word)
        : c.red(word);
  const pad = ' '.repeat(width + 13);
  const lines = [`  ${step.layer.padEnd(width)}  ${outcome}  ${step.reason}`];
  if (step.rule || step.source) {
    lines.push(
      `${pad}${c.dim(`rule: ${step.rule ?? '-'}${step.source ? `  (from ${step.source})` : ''}`)}`,
    );
  }
  return lines.join('\n');
}

const MiB = 1024 * 1024;
const size = (bytes: number) =>
  bytes % (1024 * MiB) === 0 ? `${bytes / (1024 * MiB)} GiB` : `${Math.round(bytes / MiB)} MiB`;

/** The sandbox limits the call's processes would run under, one line per kind. */
function renderSandbox(sandbox: SandboxDescription, c: Colors): string[] {
  const l = sandbox.limits;
  const list = (globs: readonly string[]) => (globs.length > 0 ? globs.join(', ') : 'none');
  return [
    `${c.bold('sandbox')}  every process of the call runs in mode "${sandbox.mode}"${
      sandbox.narrowedBy.length > 0 ? `, narrowed by ${sandbox.narrowedBy.join(' and ')}` : ''
    }`,
    `  writes     ${sandbox.writable.length > 0 ? sandbox.writable.join(', ') : 'nowhere'}`,
    `  no read    ${list(sandbox.denyRead)}`,
    `  no write   ${list(sandbox.denyWrite)}`,
    `  network    ${sandbox.network ? 'allowed' : 'none'}`,
    `  limits     ${l.processes} processes, ${size(l.memoryBytes)} memory, ${l.cpuSeconds} s CPU, ` +
      `${size(l.fileSizeBytes)} per file, ${l.openFiles} open files, /tmp ${size(l.tmpBytes)}`,
  ];
}

/** A check report as a person reads it. */
export function renderCheck(report: CheckReport, c: Colors): string {
  const lines = [
    `${c.bold('check')}  ${report.tool} ${JSON.stringify(report.arguments)}`,
    ...(report.client
      ? [
          `${c.bold('client')}  ${report.client.name}${report.client.mode ? ` (permission mode ${report.client.mode})` : ''}`,
        ]
      : []),
    `${c.bold('config')}  ${report.config ?? 'embedded default (no dsh-tools.json here)'}`,
    `${c.bold('policies')}  ${report.policies.length > 0 ? report.policies.join(' → ') : 'none configured'}`,
  ];
  if (report.effectiveArguments) {
    lines.push(`${c.bold('rewritten to')}  ${JSON.stringify(report.effectiveArguments)}`);
  }
  const width = Math.max(8, ...report.steps.map((s) => s.layer.length));
  lines.push(c.bold('steps'));
  if (report.steps.length === 0) lines.push('  (no layer had anything to say about this call)');
  for (const step of report.steps) lines.push(renderStep(step, width, c));
  const verdict =
    report.verdict === 'allow'
      ? c.green('allow')
      : report.verdict === 'ask'
        ? c.yellow('ask')
        : c.red('deny');
  const by = report.decidedBy;
  lines.push(
    `${c.bold('verdict')}  ${verdict}  ${
      by
        ? `decided by ${by.layer}${by.rule ? `: ${by.rule}` : ''}${by.source ? ` (from ${by.source})` : ''}`
        : report.policies.length === 0
          ? 'no policy is configured, so the call would run'
          : 'every configured layer lets it through'
    }`,
  );
  if (report.sandbox && report.verdict !== 'deny') lines.push(...renderSandbox(report.sandbox, c));
  const unrun = report.steps.find((s) => s.outcome === 'not-run');
  if (unrun && report.verdict !== 'deny') {
    lines.push(c.dim('  (unless a PreToolUse hook decides otherwise: run again with --run-hooks)'));
  }
  lines.push(c.dim('The tool was not run.'));
  return lines.join('\n');
}

/** The config's client named `name`, or a usage error naming the clients there are. */
function clientOf(loaded: LoadedConfig, name: string): ClientConfig {
  const clients = loaded.config.clients ?? [];
  const client = clients.find((c) => c.name === name);
  if (client) return client;
  throw new CliFailure(
    clients.length === 0
      ? `check --client ${JSON.stringify(name)}: ${loaded.file ?? 'the embedded config'} has no "clients" section; add one, or leave --client out.`
      : `check --client ${JSON.stringify(name)}: no such client in ${loaded.file ?? 'the config'}; its clients are ${clients.map((c) => JSON.stringify(c.name)).join(', ')}.`,
    EXIT.USAGE,
  );
}

/** `dsh-tools check`: decides a call without running it; resolves with the exit code. */
export async function checkCommand(
  tool: string,
  argsText: string,
  options: { config?: string; json?: boolean; runHooks?: boolean; client?: string },
): Promise<number> {
  const args = await readArgs(argsText, 'check');
  let loaded = await load(options.config);
  const client = options.client === undefined ? undefined : clientOf(loaded, options.client);
  const as = client && { name: client.name, ...(client.mode ? { mode: client.mode } : {}) };
  if (client?.tools && !client.tools.some((pattern) => matchesTool(pattern, tool))) {
    // serve refuses it before any layer: the client does not see the tool at all.
    const step: CheckStep = {
      layer: 'client',
      outcome: 'vetoed',
      reason: `Tool ${JSON.stringify(tool)} is not in client "${client.name}"'s tools list, so serve neither lists it to that client nor runs its calls.`,
      rule: `tools: ${JSON.stringify(client.tools)}`,
      source: `clients[name=${client.name}] of ${loaded.file ?? 'the embedded config'}`,
    };
    const report: CheckReport = {
      tool,
      arguments: args,
      ...(as ? { client: as } : {}),
      config: loaded.file ?? null,
      policies: [],
      verdict: 'deny',
      decidedBy: step,
      steps: [step],
      hooks: { ran: false, matched: [] },
    };
    out.write(
      options.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderCheck(report, cOut)}\n`,
    );
    return EXIT.CHECK_DENY;
  }
  // The client's own permission mode, as serve runs its calls.
  if (client?.mode && loaded.config.permissions) {
    loaded = {
      ...loaded,
      config: {
        ...loaded.config,
        permissions: { ...loaded.config.permissions, defaultMode: client.mode },
      },
    };
  }
  const subject = loaded;
  const checked = await checkCall(
    subject,
    (policies) => openGateway(subject, false, undefined, policies, { pins: { record: false } }),
    tool,
    args,
    { runHooks: options.runHooks === true },
  );
  const { gateway } = checked;
  const report: CheckReport = as ? { ...checked.report, client: as } : checked.report;
  try {
    out.write(
      options.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderCheck(report, cOut)}\n`,
    );
    if (report.decidedBy?.code === 'UNKNOWN_TOOL' && gateway.failures.length > 0) {
      warn(`${failedServersNote(gateway)} failed to start; "${tool}" may be one of its tools.`);
      return EXIT.SERVER_FAILED;
    }
    return report.verdict === 'allow'
      ? EXIT.OK
      : report.verdict === 'ask'
        ? EXIT.CHECK_ASK
        : EXIT.CHECK_DENY;
  } finally {
    await gateway.close();
  }
}
