import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { cErr } from './cli-io';
import type { DemoOptions } from './command-demo';
import type { ServeOptions } from './command-serve';
import { HTTP_DEFAULTS } from './http-defaults';

// Each command's module is imported by its action, never up front: `--help`, `--version` and a
// usage error then load commander alone, and a command loads only what it uses (serve the MCP
// server SDK and the HTTP stack; inspect, call, check and demo the config schema, the registry,
// the bridge and the policies; inspect alone the tokenizer).

/**
 * The version in the package's manifest, read when asked: the bin and this module sit in dist/
 * (or src/), one folder below package.json.
 */
function packageVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
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

const EXIT_HELP = `
Exit codes:
  0  success
  1  the tool call returned an error result (call); the call would be denied or refused (check)
  2  usage error: unknown command or option, arguments that are not a JSON object
  3  the config file is missing, not JSON, invalid, or asks for a policy this version cannot enforce
  4  a configured MCP server failed to start (inspect and call still print what they can)
  5  serve could not start (no token for a non-loopback address, port in use)
  6  the call would ask a person (check)
 70  an internal error (a bug: please report it)

Config: --config <file>, default ./dsh-tools.json; without one, an embedded example config is
used (example file tools on the current directory and an example MCP server).`;

/** The `dsh-tools` commander program; each command's action reports its exit code to `setExit`. */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('dsh-tools')
    .description(
      'Inspect, call, check and serve the tools of MCP servers and local plugins, behind dsh-tools policies; demo shows it all.',
    )
    .version(packageVersion())
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
    .action(async (options) => {
      const { inspectCommand } = await import('./command-inspect');
      setExit(await inspectCommand(options));
    });

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
    .action(async (tool: string, argsText: string, options) => {
      const { callCommand } = await import('./command-call');
      setExit(await callCommand(tool, argsText, options));
    });

  program
    .command('check')
    .description(
      'Say which rule, mode or hook decides a call, and where that rule comes from, without running the tool.',
    )
    .argument('<tool>', 'the tool name, as inspect lists it (mcp__<server>__<tool> for MCP tools)')
    .argument('[json-args]', 'the arguments as a JSON object, or - to read them from stdin', '{}')
    .addOption(configOption())
    .option(
      '--json',
      'print one JSON object { verdict, decidedBy, steps, hooks, permission } for scripts',
    )
    .option(
      '--run-hooks',
      'also run the PreToolUse hooks that match (they are commands: they may have side effects)',
    )
    .option(
      '--client <name>',
      "check as that client of the config's clients: its tools list and its permission mode",
    )
    .addHelpText(
      'after',
      `
The call goes through the registry (unknown tools and invalid arguments are refused as in a real
call) and every configured policy, outermost first: hooks, sandbox, permission. The tool itself is
never run and nobody is asked: the sandbox's path checks run as they are, the permission policy
answers with explain() (the rule, the list and file it came from, or the mode).

Hooks are commands with side effects (they may log, notify, write files), so check does NOT run
them by default: it lists the PreToolUse hooks whose matcher selects the tool and says the verdict
holds unless one of them decides otherwise. --run-hooks runs those PreToolUse hooks (never the
PostToolUse ones, as no result is produced); a hook's "ask" is then reported, and a rewrite is
judged by the layers inside, as in a real call.

Examples:
  dsh-tools check write_file '{"path":".env","content":"x"}'
  dsh-tools check mcp__notes__add_note '{"title":"t","text":"x"}' --json
${EXIT_HELP}`,
    )
    .action(async (tool: string, argsText: string, options) => {
      const { checkCommand } = await import('./command-check');
      setExit(await checkCommand(tool, argsText, options));
    });

  const pin = program
    .command('pin')
    .description(
      'Tool pins: each upstream tool is pinned in dsh-tools.lock.json (beside the config); a tool its server changes is held back until approved.',
    );
  pin
    .command('list')
    .description(
      'Compare every upstream tool with its pin: pinned, changed (held back; the change is shown) or new.',
    )
    .addOption(configOption())
    .option('--json', 'print one JSON object { file, tools, notOffered } for scripts')
    .addHelpText(
      'after',
      '\nExit codes: 0 nothing is held back, 1 a tool is held back, 3 config, 4 a server failed.',
    )
    .action(async (options) => {
      const { pinListCommand } = await import('./command-pin');
      setExit(await pinListCommand(options));
    });
  pin
    .command('approve')
    .description(
      'Pin tools as their servers offer them now (after reading the change in pin list).',
    )
    .argument('[targets...]', '<server>/<tool> or <server>')
    .addOption(configOption())
    .option('--all', 'approve every changed or new tool')
    .action(async (targets: string[], options) => {
      const { pinApproveCommand } = await import('./command-pin');
      setExit(await pinApproveCommand(targets, options));
    });
  pin
    .command('revoke')
    .description(
      'Remove pins (under "tofu" the tool is pinned again as next seen; under "strict" it is held).',
    )
    .argument('<targets...>', '<server>/<tool> or <server>')
    .addOption(configOption())
    .action(async (targets: string[], options) => {
      const { pinRevokeCommand } = await import('./command-pin');
      setExit(await pinRevokeCommand(targets, options));
    });

  const grant = program
    .command('grant')
    .description(
      'Permission grants every replica of serve shares (config "state"): add one, list them, revoke one.',
    );
  grant
    .command('add')
    .description(
      'Grant calls matching an allow rule, on every replica from its next call: for a number of uses, a time, or until revoked.',
    )
    .argument('<rule>', 'an allow rule, as in permissions.allow: "Bash(npm test)", "mcp__github"')
    .addOption(configOption())
    .addOption(
      new Option('--uses <n>', 'how many calls it allows (default: unlimited)').argParser(
        positiveInt('--uses'),
      ),
    )
    .option('--for <duration>', 'how long it lasts: 30m, 2h, 1d (default: until revoked)')
    .option('--by <name>', 'who gave it, as recorded with it', 'operator')
    .option('--json', 'print one JSON object { store, grant } for scripts')
    .addHelpText(
      'after',
      `
The grant is printed once the store has it. Without a "state" section in the config each serve
keeps its own grants in memory, and this command refuses (exit 2): it has nowhere to put them.

Examples:
  dsh-tools grant add 'Bash(npm test)' --uses 3
  dsh-tools grant add mcp__github --for 2h

Exit codes: 0 granted, 2 usage (a malformed rule or duration, no "state"), 3 config or the store
did not answer.`,
    )
    .action(async (rule: string, options) => {
      const { grantAddCommand } = await import('./command-grant');
      setExit(await grantAddCommand(rule, options));
    });
  grant
    .command('list')
    .description('List the grants in force: id, rule, uses left, until when, who gave it.')
    .addOption(configOption())
    .option('--json', 'print one JSON object { store, grants } for scripts')
    .addHelpText(
      'after',
      '\nExit codes: 0 listed, 2 no "state", 3 config or the store did not answer.',
    )
    .action(async (options) => {
      const { grantListCommand } = await import('./command-grant');
      setExit(await grantListCommand(options));
    });
  grant
    .command('revoke')
    .description('Revoke a grant: every replica refuses it from its next call.')
    .argument('<id>', 'the id grant list shows')
    .addOption(configOption())
    .addHelpText(
      'after',
      '\nExit codes: 0 revoked, 2 no such grant or no "state", 3 config or the store did not answer.',
    )
    .action(async (id: string, options) => {
      const { grantRevokeCommand } = await import('./command-grant');
      setExit(await grantRevokeCommand(id, options));
    });

  const audit = program
    .command('audit')
    .description('Work with the audit trail that serve, call and demo write (config "audit").');
  audit
    .command('verify')
    .description(
      'Check the hash chain of an audit trail and say where it breaks: rotated files oldest first, then the current one.',
    )
    .argument(
      '<files...>',
      'the trail file(s): dsh-tools.audit.jsonl.<n>, …, dsh-tools.audit.jsonl',
    )
    .option('--json', 'print one JSON object { ok, lines, broken, head, notes } for scripts')
    .addHelpText(
      'after',
      `
Exit codes: 0 the chain holds, 1 it breaks (the first break is named: file, line, why), 2 usage.
A hash chain shows every changed, inserted, removed or reordered line, but not lines cut from the
end: keep the head it prints somewhere else and compare.`,
    )
    .action(async (files: string[], options) => {
      const { auditVerifyCommand } = await import('./command-audit');
      setExit(await auditVerifyCommand(files, options));
    });

  program
    .command('demo')
    .description(
      "Run a scripted agent session through hooks, sandbox and permission against the example tools and the example MCP server, printing each call's trail and timing.",
    )
    .option(
      '--json',
      'print one JSON object { turns: [{ calls: [{ outcome, met, trail, result }] }], ok }',
    )
    .option('-y, --yes', 'answer the asks with the scripted approver even on a terminal')
    .option('--keep', 'keep the demo workspace (a temporary directory) to look at afterwards')
    .option('--bwrap <path>', 'where bubblewrap is, if not on PATH or in /usr/bin')
    .addHelpText(
      'after',
      `
The demo writes a small workspace and its dsh-tools.json into a temporary directory (removed
afterwards unless --keep), starts the example MCP server, and plays a transcript of tool calls
as a model would emit them: three read-only calls in one turn (run in parallel by executeAll), a
write a deny rule forbids, a write outside the workspace (the sandbox), a write that asks a
person, a note whose arguments a PreToolUse hook rewrites, an image result from the MCP server,
and a call that outlasts its time limit. On a terminal you answer the ask yourself; otherwise
(or with --yes) a scripted approver allows it. Without bubblewrap the demo still runs: the
sandbox's path checks do not need it, and the header says the runner is unavailable.

Exit code 0 when every call ended as scripted, 1 otherwise, 4 when the example server did not start.
${EXIT_HELP}`,
    )
    .action(async (options: DemoOptions) => {
      const { demoCommand } = await import('./command-demo');
      setExit(await demoCommand(options));
    });

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
    .action(async (options: ServeOptions) => {
      const { serveCommand } = await import('./command-serve');
      setExit(await serveCommand(options));
    });

  return program;
}
