import { dirname, join } from 'node:path';
import { failedServersNote, load, openGateway } from './cli-gateway';
import { CliFailure, cOut, out } from './cli-io';
import { EXIT } from './exit-codes';
import type { Gateway } from './gateway';
import {
  PINS_FILE,
  PinBook,
  type PinnedDefinition,
  type PinStatus,
  pinnedDefinitionOf,
} from './pins';
import { diffDefinitions } from './pins-diff';

const say = (line: string) => out.write(`${line}\n`);

/** One bridged tool now, against the lockfile. */
interface Reviewed {
  readonly server: string;
  readonly tool: string;
  readonly definition: PinnedDefinition;
  readonly status: PinStatus;
}

/** The config's lockfile; pins need a config file to sit beside. */
async function lockfileOf(configFile: string | undefined) {
  const loaded = await load(configFile);
  if (loaded.file === undefined) {
    throw new CliFailure(
      'Pins need a config file: the lockfile (dsh-tools.lock.json) sits beside it. Create dsh-tools.json, or pass --config.',
      EXIT.USAGE,
    );
  }
  if (loaded.config.pins === 'off') {
    throw new CliFailure(
      `${loaded.file} has "pins": "off": nothing is pinned or held. Remove it (or set "tofu" or "strict") to use pins.`,
      EXIT.USAGE,
    );
  }
  return { loaded, file: join(dirname(loaded.file), PINS_FILE) };
}

/** Every bridged tool of the running servers against `book` (which must be strict: it records nothing). */
function review(gateway: Gateway, book: PinBook): Reviewed[] {
  const out: Reviewed[] = [];
  for (const { name } of gateway.registry.schemas()) {
    const definition = gateway.registry.get(name);
    const bridged = pinnedDefinitionOf(definition);
    if (!bridged) continue;
    out.push({ ...bridged, status: book.statusOf(definition) });
  }
  return out;
}

/** `server` or `server/tool`: whether it names `r`. */
const names = (target: string, r: { server: string; tool: string }) =>
  target === r.server || target === `${r.server}/${r.tool}`;

async function withServers<T>(
  configFile: string | undefined,
  run: (gateway: Gateway, file: string) => Promise<T>,
): Promise<T> {
  const { loaded, file } = await lockfileOf(configFile);
  const gateway = await openGateway(loaded, false, undefined, undefined, {
    pins: { record: false },
  });
  try {
    if (gateway.failures.length > 0) {
      throw new CliFailure(
        `${failedServersNote(gateway)} failed to start: its tools cannot be compared with their pins. Fix the config and run again.`,
        EXIT.SERVER_FAILED,
      );
    }
    return await run(gateway, file);
  } finally {
    await gateway.close();
  }
}

/**
 * `dsh-tools pin list`: each upstream tool against its pin (pinned, changed with the change,
 * new), and pins of tools no server offers any more. Exit 0 when nothing is held, 1 otherwise.
 */
export async function pinListCommand(options: {
  config?: string;
  json?: boolean;
}): Promise<number> {
  return withServers(options.config, async (gateway, file) => {
    const book = await PinBook.open(file, { mode: 'strict', record: false });
    const tools = review(gateway, book);
    const offered = new Set(tools.map((t) => `${t.server}/${t.tool}`));
    const gone = Object.entries(book.lockfile.servers).flatMap(([server, pins]) =>
      Object.keys(pins)
        .filter((tool) => !offered.has(`${server}/${tool}`))
        .map((tool) => `${server}/${tool}`),
    );
    const held = tools.filter((t) => t.status.kind !== 'pinned').length;
    if (options.json) {
      say(
        JSON.stringify({
          file,
          tools: tools.map((t) => ({
            server: t.server,
            tool: t.tool,
            status: t.status.kind,
            ...(t.status.kind === 'changed'
              ? {
                  diff: diffDefinitions(
                    book.pin(t.server, t.tool)?.definition as PinnedDefinition,
                    t.definition,
                    Number.POSITIVE_INFINITY,
                    Number.POSITIVE_INFINITY,
                  ),
                }
              : {}),
          })),
          notOffered: gone,
        }),
      );
      return held > 0 ? EXIT.CHECK_DENY : EXIT.OK;
    }
    const c = cOut;
    say(c.dim(file));
    for (const t of tools) {
      const id = `${t.server}/${t.tool}`;
      if (t.status.kind === 'pinned') say(`${c.green('pinned ')}  ${id}`);
      else if (t.status.kind === 'new') say(`${c.yellow('new    ')}  ${id}  (not pinned yet)`);
      else {
        say(`${c.red('changed')}  ${id}  (held back until approved)`);
        const pin = book.pin(t.server, t.tool)?.definition as PinnedDefinition;
        for (const line of diffDefinitions(pin, t.definition, Infinity, Infinity)) {
          say(`           ${line}`);
        }
      }
    }
    for (const id of gone) say(`${c.dim('gone   ')}  ${id}  (pinned; no server offers it now)`);
    if (held > 0) {
      say(
        c.dim(
          `${held} held back. Read each change, then: dsh-tools pin approve <server>/<tool> (or <server>, or --all).`,
        ),
      );
    }
    return held > 0 ? EXIT.CHECK_DENY : EXIT.OK;
  });
}

/** `dsh-tools pin approve <targets...> | --all`: pins tools as their servers offer them now. */
export async function pinApproveCommand(
  targets: readonly string[],
  options: { config?: string; all?: boolean },
): Promise<number> {
  if (targets.length === 0 && !options.all) {
    throw new CliFailure(
      'Name what to approve: <server>/<tool> or <server> (or --all for every changed or new tool). Read the change first: dsh-tools pin list.',
      EXIT.USAGE,
    );
  }
  return withServers(options.config, async (gateway, file) => {
    const book = await PinBook.open(file, { mode: 'strict' });
    const tools = review(gateway, book);
    for (const target of targets) {
      if (!tools.some((t) => names(target, t))) {
        throw new CliFailure(
          `No server offers "${target}": name a server or a <server>/<tool> that dsh-tools pin list shows.`,
          EXIT.USAGE,
        );
      }
    }
    const chosen = tools.filter(
      (t) =>
        t.status.kind !== 'pinned' &&
        (options.all === true || targets.some((target) => names(target, t))),
    );
    for (const t of chosen) {
      book.approve(t.server, t.tool, t.definition);
      say(
        `${cOut.green('approved')}  ${t.server}/${t.tool}${t.status.kind === 'new' ? ' (new)' : ''}`,
      );
    }
    await book.flushed();
    if (chosen.length === 0)
      say('Nothing to approve: every tool named is pinned as its server offers it.');
    else say(cOut.dim(`${file} updated: a running dsh-tools serve applies it at once.`));
    return EXIT.OK;
  });
}

/** `dsh-tools pin revoke <targets...>`: removes pins (needs no server). */
export async function pinRevokeCommand(
  targets: readonly string[],
  options: { config?: string },
): Promise<number> {
  const { file } = await lockfileOf(options.config);
  const book = await PinBook.open(file, { mode: 'strict' });
  let removed = 0;
  for (const target of targets) {
    const [server, tool, extra] = target.split('/');
    if (!server || extra !== undefined) {
      throw new CliFailure(`"${target}" is not <server> or <server>/<tool>.`, EXIT.USAGE);
    }
    const count = book.revoke(server, tool === undefined ? undefined : [tool]);
    if (count === 0) {
      throw new CliFailure(`Nothing pinned matches "${target}" in ${file}.`, EXIT.USAGE);
    }
    removed += count;
  }
  await book.flushed();
  say(`${removed} pin${removed === 1 ? '' : 's'} removed from ${file}.`);
  return EXIT.OK;
}
