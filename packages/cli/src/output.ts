import type { ContentBlock, ToolExecutionResult } from '@dsh-tools/protocol';
import pc from 'picocolors';
import type { InspectReport } from './inspect';
import type { TrailStep } from './policies';

/** Colour functions for one stream, or identity functions when it should stay plain. */
export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour only on a terminal, never with `NO_COLOR` (https://no-color.org) or `TERM=dumb`;
 * `FORCE_COLOR` forces it. picocolors' own detection also turns colour on under `CI`, which would
 * put escape codes into logs and piped output, so the decision is made here, per stream.
 */
export function colorsFor(
  stream: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv = process.env,
): Colors {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  const off = (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb';
  return pc.createColors(forced || (!off && stream.isTTY === true));
}

/** One content block as a line (or lines) a person reads. */
export function renderBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.floor((block.data.length * 3) / 4)} bytes]`;
    case 'resource_link':
      return `[link ${block.uri}${block.name ? ` "${block.name}"` : ''}]`;
    case 'resource':
      return 'text' in block.resource
        ? `[resource ${block.resource.uri}]\n${block.resource.text}`
        : `[resource ${block.resource.uri}, binary]`;
    default:
      return `[${(block as { type: string }).type}]`;
  }
}

/** The decision trail of a call, one step a line. */
export function renderTrail(steps: readonly TrailStep[], c: Colors): string {
  const width = Math.max(8, ...steps.map((s) => s.layer.length));
  return steps
    .map((step) => {
      const outcome =
        step.outcome === 'passed' || step.outcome === 'ran'
          ? c.green(step.outcome)
          : step.outcome === 'rewrote'
            ? c.yellow(step.outcome)
            : c.red(step.outcome);
      const detail = step.code
        ? ` ${c.dim(step.code)}${step.message ? `: ${step.message}` : ''}`
        : '';
      return `  ${step.layer.padEnd(width)}  ${outcome}${detail} ${c.dim(`(${step.ms.toFixed(1)} ms)`)}`;
    })
    .join('\n');
}

/** A call's result: its content, or its error. */
export function renderResult(result: ToolExecutionResult, c: Colors): string {
  const lines: string[] = [];
  if (result.isError && result.error) {
    lines.push(`${c.red(c.bold(result.error.code))} ${result.error.message}`);
  } else {
    for (const block of result.content) lines.push(renderBlock(block));
    const hasText = result.content.some((b) => b.type === 'text');
    if (result.structuredContent && !hasText)
      lines.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return lines.join('\n');
}

function describeSource(source: InspectReport['tools'][number]['source']): string {
  return source.kind === 'mcp'
    ? `mcp server "${source.server}", tool "${source.tool}"`
    : `local${source.plugin ? ` (${source.plugin})` : ''}`;
}

function describeParameters(
  parameters: InspectReport['tools'][number]['parameters'],
  c: Colors,
): string[] {
  const required = new Set(parameters.required ?? []);
  return Object.entries(parameters.properties ?? {}).map(([name, schema]) => {
    const type = Array.isArray(schema.type)
      ? schema.type.join('|')
      : typeof schema.type === 'string'
        ? schema.type
        : 'any';
    const description =
      typeof schema.description === 'string' ? ` ${c.dim(`— ${schema.description}`)}` : '';
    return `      ${name}${required.has(name) ? '' : '?'}: ${c.cyan(type)}${description}`;
  });
}

/** The `inspect` report as text. */
export function renderInspect(report: InspectReport, c: Colors): string {
  const lines: string[] = [];
  lines.push(
    `${c.bold('config')}    ${report.config ?? 'embedded default (no dsh-tools.json here)'}`,
  );
  lines.push(
    `${c.bold('policies')}  ${report.policies.length > 0 ? report.policies.join(' → ') : 'none'}`,
  );
  lines.push(c.bold('servers'));
  if (report.servers.length === 0) lines.push('  none');
  for (const server of report.servers) {
    const status = server.status === 'connected' ? c.green(server.status) : c.red(server.status);
    lines.push(
      `  ${server.name}  ${status}  ${server.tools} tools${server.error ? `\n    ${c.red(server.error.split('\n')[0] ?? '')}` : ''}`,
    );
  }
  lines.push(c.bold(`tools (${report.tools.length}, ≈${report.totalTokens} tokens in all)`));
  for (const tool of report.tools) {
    lines.push(
      `  ${c.bold(tool.name)}  ${c.dim(`≈${tool.tokens} tokens · ${describeSource(tool.source)}`)}`,
    );
    if (tool.description) lines.push(`    ${tool.description}`);
    const params = describeParameters(tool.parameters, c);
    if (params.length > 0) {
      lines.push('    parameters:');
      lines.push(...params);
    }
    const hints = Object.entries(tool.hints)
      .map(([k, v]) => (v === true ? k : `${k}=${JSON.stringify(v)}`))
      .join(', ');
    if (hints) lines.push(`    ${c.dim(`hints: ${hints}`)}`);
  }
  return lines.join('\n');
}
