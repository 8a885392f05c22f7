import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Approver } from '@dsh-tools/protocol';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { terminalApprover } from './approvers';
import { ConfigError, type LoadedConfig, loadConfig } from './config';
import { defaultConfig } from './default-config';
import { EXIT } from './exit-codes';
import { buildGateway, type Gateway, type ServerProgressEvent } from './gateway';
import { HTTP_DEFAULTS, isLoopbackHost, serveGatewayHttp } from './http';
import { inspectGateway } from './inspect';
import { colorsFor, renderInspect, renderResult, renderTrail } from './output';
import { PolicyConfigError, PolicyUnavailableError } from './policies';
import { createElicitationApprovals, serveGatewayStdio } from './serve';

const VERSION = '0.0.0';
const out = process.stdout;
const err = process.stderr;
const cOut = colorsFor(out);
const cErr = colorsFor(err);

/** A failure that ends the command with a message and an exit code. */
class CliFailure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

function warn(message: string): void {
  err.write(`${cErr.yellow('warning')} ${message}\n`);
}

/**
 * The connection progress of the configured servers on stderr: one line rewritten in place on a
 * terminal, a line per server that failed otherwise (logs stay short).
 */
function progressReporter(total: number): {
  onServer: (event: ServerProgressEvent) => void;
  done: () => void;
} {
  const tty = err.isTTY === true;
  let finished = 0;
  const pending = new Set<string>();
  const draw = () => {
    if (!tty || total === 0) return;
    const names = [...pending].join(', ');
    err.write(
      `\r\x1b[K${cErr.dim(`connecting MCP servers ${finished}/${total}${names ? `: ${names}` : ''}`)}`,
    );
  };
  return {
    onServer(event) {
      if (event.phase === 'connecting') pending.add(event.server);
      else {
        pending.delete(event.server);
        finished++;
      }
      if (event.phase === 'failed') {
        if (tty) err.write('\r\x1b[K');
        err.write(
          `${cErr.red('error')} MCP server "${event.server}" failed to start: ${event.error.message}\n`,
        );
      }
      draw();
    },
    done() {
      if (tty && total > 0) err.write('\r\x1b[K');
    },
  };
}

async function load(configFile: string | undefined): Promise<LoadedConfig> {
  const loaded = await loadConfig(configFile, { fallback: () => defaultConfig() });
  for (const warning of loaded.warnings) warn(warning);
  return loaded;
}

async function openGateway(
  loaded: LoadedConfig,
  recordTrails = false,
  approver?: Approver,
): Promise<Gateway> {
  const progress = progressReporter(Object.keys(loaded.config.mcpServers).length);
  try {
    return await buildGateway(loaded, {
      onServer: progress.onServer,
      recordTrails,
      ...(approver ? { approver } : {}),
    });
  } finally {
    progress.done();
  }
}

function failedServersNote(gateway: Gateway): string {
  return gateway.failures.map((f) => `"${f.server}"`).join(', ');
}

async function inspectCommand(options: { config?: string; json?: boolean }): Promise<number> {
  const loaded = await load(options.config);
  const gateway = await openGateway(loaded);
  try {
    const report = await inspectGateway(gateway, loaded.file);
    out.write(
      options.json ? `${JSON.stringify(report, null, 2)}\n` : `${renderInspect(report, cOut)}\n`,
    );
    if (gateway.failures.length > 0) {
      warn(
        `the tools of ${failedServersNote(gateway)} are missing above: fix the server's entry in the config and run again.`,
      );
      return EXIT.SERVER_FAILED;
    }
    return EXIT.OK;
  } finally {
    await gateway.close();
  }
}

async function readArgs(text: string): Promise<Record<string, unknown>> {
  const source = text === '-' ? await readStdin() : text;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    throw new CliFailure(
      `The arguments are not valid JSON (${(error as Error).message}). Quote them for the shell: dsh-tools call read_file '{"path":"README.md"}'`,
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

async function callCommand(
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

/** `host:port`, `:port`, `port` or `[v6]:port`. */
function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]*):)?(\d{1,5})$/.exec(value.trim());
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65_535) {
    throw new InvalidArgumentError('expected host:port, such as 127.0.0.1:8765, or a port alone.');
  }
  const host = match[1] ? match[1].replace(/^\[|\]$/g, '') : HTTP_DEFAULTS.host;
  return { host, port };
}

function positiveInt(name: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidArgumentError(`${name} must be a whole number above 0.`);
    return n;
  };
}

async function resolveToken(
  options: { tokenEnv: string; tokenFile?: string },
  host: string,
): Promise<{ token: string; generated: boolean }> {
  let token: string | undefined;
  let from = '';
  if (options.tokenFile) {
    try {
      token = (await readFile(options.tokenFile, 'utf8')).trim();
      from = `the file ${options.tokenFile}`;
    } catch (error) {
      throw new CliFailure(
        `Cannot read the token file ${options.tokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
        EXIT.SERVE_FAILED,
      );
    }
  } else if (process.env[options.tokenEnv]) {
    token = process.env[options.tokenEnv]?.trim();
    from = `the environment variable ${options.tokenEnv}`;
  }
  if (token !== undefined && token !== '') {
    if (token.length < 16) {
      throw new CliFailure(
        `The bearer token from ${from} is ${token.length} characters; use at least 16 (openssl rand -hex 32).`,
        EXIT.SERVE_FAILED,
      );
    }
    return { token, generated: false };
  }
  if (!isLoopbackHost(host)) {
    throw new CliFailure(
      `Refusing to serve on ${host} without a bearer token: set ${options.tokenEnv} (or pass --token-file) to a secret of at least 16 characters, or bind a loopback address.`,
      EXIT.SERVE_FAILED,
    );
  }
  return { token: randomBytes(24).toString('base64url'), generated: true };
}

interface ServeOptions {
  config?: string;
  http?: { host: string; port: number };
  tokenEnv: string;
  tokenFile?: string;
  allowOrigin?: string[];
  allowHost?: string[];
  maxBodyBytes: number;
  maxSessions: number;
  allowPartial?: boolean;
}

async function serveCommand(options: ServeOptions): Promise<number> {
  // Every check that can refuse comes before a server process starts.
  const tokenInfo = options.http ? await resolveToken(options, options.http.host) : undefined;
  const loaded = await load(options.config);
  const approvals = createElicitationApprovals();
  const gateway = await openGateway(loaded, false, approvals.approver);
  if (gateway.failures.length > 0 && !options.allowPartial) {
    await gateway.close();
    throw new CliFailure(
      `Not serving: ${failedServersNote(gateway)} failed to start (see above). Fix the config, or pass --allow-partial to serve the others.`,
      EXIT.SERVER_FAILED,
    );
  }
  const tools = gateway.registry.schemas().length;
  let stop: () => Promise<void>;
  let done: Promise<void>;
  if (options.http && tokenInfo) {
    let http: Awaited<ReturnType<typeof serveGatewayHttp>>;
    try {
      http = await serveGatewayHttp(gateway, {
        host: options.http.host,
        port: options.http.port,
        token: tokenInfo.token,
        ...(options.allowOrigin ? { allowedOrigins: options.allowOrigin } : {}),
        ...(options.allowHost ? { allowedHosts: options.allowHost } : {}),
        maxBodyBytes: options.maxBodyBytes,
        maxSessions: options.maxSessions,
        approvals,
      });
    } catch (error) {
      await gateway.close();
      const code = (error as NodeJS.ErrnoException).code;
      throw new CliFailure(
        code === 'EADDRINUSE'
          ? `Port ${options.http.port} on ${options.http.host} is in use: pick another with --http ${options.http.host}:<port> (0 picks a free one).`
          : `Cannot listen on ${options.http.host}:${options.http.port}: ${(error as Error).message}`,
        EXIT.SERVE_FAILED,
      );
    }
    err.write(`dsh-tools serve: ${tools} tools on ${http.url} (Streamable HTTP)\n`);
    if (tokenInfo.generated) {
      err.write(
        `bearer token (generated; set ${options.tokenEnv} to choose one): ${tokenInfo.token}\n`,
      );
    }
    let resolveDone: () => void = () => {};
    done = new Promise((resolve) => {
      resolveDone = resolve;
    });
    stop = async () => {
      await http.close();
      resolveDone();
    };
  } else {
    const stdio = await serveGatewayStdio(gateway, { approvals });
    err.write(`dsh-tools serve: ${tools} tools over stdio\n`);
    stop = stdio.stop;
    done = stdio.done;
  }
  const onSignal = () => void stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  await gateway.close();
  return EXIT.OK;
}

const EXIT_HELP = `
Exit codes:
  0  success
  1  the tool call returned an error result (call)
  2  usage error: unknown command or option, arguments that are not a JSON object
  3  the config file is missing, not JSON, invalid, or asks for a policy this version cannot enforce
  4  a configured MCP server failed to start (inspect and call still print what they can)
  5  serve could not start (no token for a non-loopback address, port in use)
 70  an internal error (a bug: please report it)

Config: --config <file>, default ./dsh-tools.json; without one, an embedded example config is
used (example file tools on the current directory and an example MCP server).`;

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('dsh-tools')
    .description(
      'Inspect, call and serve the tools of MCP servers and local plugins, behind dsh-tools policies.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', EXIT_HELP)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(cErr.red(text)) });

  const configOption = () =>
    new Option(
      '-c, --config <file>',
      'the config file (default ./dsh-tools.json, else the embedded example)',
    );

  program
    .command('inspect')
    .description(
      'List the tools as the model sees them (names, descriptions, parameters), with hints, source and size in tokens.',
    )
    .addOption(configOption())
    .option('--json', 'print one JSON object for scripts')
    .addHelpText('after', EXIT_HELP)
    .action(async (options) => setExit(await inspectCommand(options)));

  program
    .command('call')
    .description(
      'Run one call through the configured policies and print the decision trail and the result.',
    )
    .argument('<tool>', 'the tool name, as inspect lists it (mcp__<server>__<tool> for MCP tools)')
    .argument('[json-args]', 'the arguments as a JSON object, or - to read them from stdin', '{}')
    .addOption(configOption())
    .option('--json', 'print one JSON object { tool, arguments, trail, result } for scripts')
    .addHelpText(
      'after',
      `\nExamples:\n  dsh-tools call list_dir '{"path":"."}'\n  dsh-tools call mcp__notes__search_notes '{"query":"welcome"}' --json\n${EXIT_HELP}`,
    )
    .action(async (tool: string, argsText: string, options) =>
      setExit(await callCommand(tool, argsText, options)),
    );

  program
    .command('serve')
    .description(
      'Serve the configured tools as one MCP server: over stdio, or Streamable HTTP with --http.',
    )
    .addOption(configOption())
    .addOption(
      new Option(
        '--http <host:port>',
        `serve Streamable HTTP on ${HTTP_DEFAULTS.path} (loopback by default; port 0 picks one)`,
      ).argParser(parseListen),
    )
    .option(
      '--token-env <name>',
      'environment variable holding the bearer token',
      'DSH_TOOLS_TOKEN',
    )
    .option('--token-file <path>', 'file holding the bearer token (instead of --token-env)')
    .option('--allow-origin <origin...>', 'browser origins allowed besides loopback ones')
    .option('--allow-host <name...>', 'Host header names allowed besides loopback ones')
    .addOption(
      new Option('--max-body-bytes <n>', 'largest request body')
        .default(HTTP_DEFAULTS.maxBodyBytes)
        .argParser(positiveInt('--max-body-bytes')),
    )
    .addOption(
      new Option('--max-sessions <n>', 'concurrent sessions')
        .default(HTTP_DEFAULTS.maxSessions)
        .argParser(positiveInt('--max-sessions')),
    )
    .option('--allow-partial', 'serve even when some configured servers failed to start')
    .addHelpText(
      'after',
      `\nOver HTTP every request needs "Authorization: Bearer <token>". Without ${'$'}DSH_TOOLS_TOKEN or --token-file,
a loopback address gets a generated token (printed on stderr); any other address is refused.
Requests with an Origin header other than a loopback one or --allow-origin are refused (DNS rebinding).
${EXIT_HELP}`,
    )
    .action(async (options: ServeOptions) => setExit(await serveCommand(options)));

  return program;
}

/** Runs the command line; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = EXIT.OK;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end through here too, with exit code 0.
      return error.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
    }
    if (
      error instanceof ConfigError ||
      error instanceof PolicyUnavailableError ||
      error instanceof PolicyConfigError
    ) {
      err.write(`${cErr.red('error')} ${error.message}\n`);
      return EXIT.CONFIG;
    }
    if (error instanceof CliFailure) {
      err.write(`${cErr.red('error')} ${error.message}\n`);
      return error.exitCode;
    }
    err.write(
      `${cErr.red('internal error')} ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return EXIT.INTERNAL;
  }
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // Bridged servers and sockets are closed by now; a stray handle must not keep the CLI alive.
    setTimeout(() => process.exit(code), 2000).unref();
  },
  (error: unknown) => {
    err.write(`internal error ${String(error)}\n`);
    process.exit(EXIT.INTERNAL);
  },
);
