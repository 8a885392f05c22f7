import { terminalApprover } from './approvers';
import { failedServersNote, load, openGateway } from './cli-gateway';
import { CliFailure, cOut, err, out, warn } from './cli-io';
import { EXIT } from './exit-codes';
import { renderResult, renderTrail } from './output';

/** The JSON object arguments of `call` and `check` (`-`: read from stdin). */
export async function readArgs(text: string, command = 'call'): Promise<Record<string, unknown>> {
  const source = text === '-' ? await readStdin() : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new CliFailure(
      `The arguments are not valid JSON (${(error as Error).message}). Quote them for the shell: dsh-tools ${command} read_file '{"path":"README.md"}'`,
      EXIT.USAGE,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CliFailure(
      'The arguments must be a JSON object, such as \'{"path":"README.md"}\'.',
      EXIT.USAGE,
    );
  }
  return value as Record<string, unknown>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024 * 1024)
      throw new CliFailure('The arguments on stdin exceed 16 MiB.', EXIT.USAGE);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `dsh-tools call`: runs one call through the policies and prints the trail and result. */
export async function callCommand(
  tool: string,
  argsText: string,
  options: { config?: string; json?: boolean },
): Promise<number> {
  const args = await readArgs(argsText);
  const loaded = await load(options.config);
  // A person can answer an ask only on a terminal, and not when stdin carried the arguments.
  const canAsk = process.stdin.isTTY === true && err.isTTY === true && argsText !== '-';
  const gateway = await openGateway(loaded, true, canAsk ? terminalApprover() : undefined);
  const controller = new AbortController();
  const onSigint = () => controller.abort(new Error('interrupted (Ctrl-C)'));
  process.once('SIGINT', onSigint);
  try {
    const callId = `cli-${Date.now().toString(36)}`;
    gateway.trails.begin(callId);
    const result = await gateway.registry.execute({
      callId,
      name: tool,
      arguments: args,
      signal: controller.signal,
    });
    const trail = gateway.trails.take(callId, result);
    if (options.json) {
      out.write(
        `${JSON.stringify({ tool, arguments: args, policies: gateway.policies, trail, result }, null, 2)}\n`,
      );
    } else {
      out.write(
        `${cOut.bold('trail')}\n${renderTrail(trail, cOut)}\n${cOut.bold('result')}\n${renderResult(result, cOut)}\n`,
      );
    }
    if (result.isError && result.error?.code === 'UNKNOWN_TOOL' && gateway.failures.length > 0) {
      warn(`${failedServersNote(gateway)} failed to start; "${tool}" may be one of its tools.`);
      return EXIT.SERVER_FAILED;
    }
    return result.isError ? EXIT.TOOL_ERROR : EXIT.OK;
  } finally {
    process.off('SIGINT', onSigint);
    await gateway.close();
  }
}
