import { dirname, join } from 'node:path';
import { failedServersNote, load, openGateway } from './cli-gateway';
import { CliFailure, cOut, out } from './cli-io';
import { EXIT } from './exit-codes';
import type { Gateway } from './gateway';
import {
  canonicalJson,
  fingerprint,
  PINS_FILE,
  PinBook,
  type PinnedDefinition,
  type PinStatus,
  pinnedDefinitionOf,
} from './pins';
import { diffDefinitions } from './pins-diff';
import { openSharedState, type SharedState, StateUnavailableError } from './state-redis';

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

/**
 * The pins as a command changes them: in the lockfile, or in the state store when the config has
 * one. A change the file or the store did not take fails the command (it is not reported done).
 */
async function openBook(
  file: string,
  state: SharedState | undefined,
  record: boolean,
): Promise<{ book: PinBook; where: string; written: () => void }> {
  const errors: Error[] = [];
  let book: PinBook;
  try {
    book = await PinBook.open(file, {
      mode: 'strict',
      record,
      onError: (error) => errors.push(error),
      ...(state ? { state } : {}),
    });
  } catch (error) {
    throw storeFailure(error);
  }
  return {
    book,
    where: state ? book.where : file,
    written: () => {
      if (errors[0])
        throw new CliFailure(
          `${errors[0].message} Nothing is done until it is recorded: run the command again.`,
          EXIT.CONFIG,
        );
    },
  };
}

/** A store that did not answer, as a command's failure (anything else unchanged). */
function storeFailure(error: unknown): unknown {
  return error instanceof StateUnavailableError
    ? new CliFailure(
        `${error.message} (dsh-tools pin reads and writes the pins there because dsh-tools.json has a "state" section.)`,
        EXIT.CONFIG,
      )
    : error;
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
  }).catch((error: unknown) => {
    throw storeFailure(error);
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
  return withServers(options.config, async (gateway, lockfile) => {
    const { book, where: file } = await openBook(lockfile, gateway.state, false);
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
          file: lockfile,
          ...(gateway.state ? { store: file } : {}),
          tools: tools.map((t) => ({
            server: t.server,
            tool: t.tool,
            status: t.status.kind,
            offered: fingerprint(t.definition),
            ...(t.status.kind === 'new' ? { definition: t.definition } : {}),
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
      const offered = `${id}@${fingerprint(t.definition).slice(0, 12)}`;
      if (t.status.kind === 'pinned') say(`${c.green('pinned ')}  ${id}`);
      else if (t.status.kind === 'new') {
        say(
          `${c.yellow('new    ')}  ${offered}  (${t.status.revoked ? 'approval revoked' : 'not pinned yet'}; held back until approved)`,
        );
        say(`           ${canonicalJson(t.definition)}`);
      } else {
        say(`${c.red('changed')}  ${offered}  (held back until approved)`);
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
          `${held} held back. Read each change, then approve what you read: dsh-tools pin approve <server>/<tool>@<sha> (or <server>/<tool>, <server>, --all).`,
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
  return withServers(options.config, async (gateway, lockfile) => {
    const { book, where: file, written } = await openBook(lockfile, gateway.state, true);
    const tools = review(gateway, book);
    // `server/tool@sha`: approve only the definition that was read (its fingerprint's prefix).
    const wanted = targets.map((target) => {
      const [name, sha] = target.split('@');
      if (sha !== undefined && !/^[0-9a-f]{8,64}$/.test(sha)) {
        throw new CliFailure(
          `"${target}": after @ give at least 8 hex digits of the fingerprint pin list shows.`,
          EXIT.USAGE,
        );
      }
      if (!tools.some((t) => names(name ?? '', t))) {
        throw new CliFailure(
          `No server offers "${name}": name a server or a <server>/<tool> that dsh-tools pin list shows.`,
          EXIT.USAGE,
        );
      }
      return { name: name ?? '', sha };
    });
    const chosen = tools.filter(
      (t) =>
        t.status.kind !== 'pinned' &&
        (options.all === true || wanted.some((w) => names(w.name, t))),
    );
    for (const t of chosen) {
      const sha = fingerprint(t.definition);
      const expected = wanted.find((w) => names(w.name, t) && w.sha !== undefined)?.sha;
      if (expected !== undefined && !sha.startsWith(expected)) {
        throw new CliFailure(
          `${t.server}/${t.tool}: its server now offers ${sha.slice(0, 12)}, not the ${expected} you named; nothing was approved. Read it again with dsh-tools pin list.`,
          EXIT.CHECK_DENY,
        );
      }
    }
    for (const t of chosen) {
      book.approve(t.server, t.tool, t.definition);
      say(
        `${cOut.green('approved')}  ${t.server}/${t.tool}@${fingerprint(t.definition).slice(0, 12)}${t.status.kind === 'new' ? ' (new)' : ''}`,
      );
      if (t.status.kind === 'changed') {
        for (const path of t.status.paths) say(`            changed: ${path}`);
      }
    }
    await book.flushed();
    written();
    if (chosen.length === 0)
      say('Nothing to approve: every tool named is pinned as its server offers it.');
    else if (gateway.state) {
      say(cOut.dim(`${file} updated: every dsh-tools serve on that store applies it at once.`));
    } else say(cOut.dim(`${file} updated: a running dsh-tools serve applies it at once.`));
    return EXIT.OK;
  });
}

/**
 * `dsh-tools pin revoke <targets...>`: withdraws approvals (needs no server): each tool is held
 * until approved again, in every mode.
 */
export async function pinRevokeCommand(
  targets: readonly string[],
  options: { config?: string },
): Promise<number> {
  const { loaded, file: lockfile } = await lockfileOf(options.config);
  let state: SharedState | undefined;
  try {
    state = loaded.config.state ? await openSharedState(loaded.config.state) : undefined;
  } catch (error) {
    throw storeFailure(error);
  }
  try {
    return await revoke(targets, lockfile, state);
  } finally {
    await state?.close();
  }
}

async function revoke(
  targets: readonly string[],
  lockfile: string,
  state: SharedState | undefined,
): Promise<number> {
  const { book, where: file, written } = await openBook(lockfile, state, true);
  let removed = 0;
  for (const target of targets) {
    const [server, tool, extra] = target.split('/');
    if (!server || extra !== undefined) {
      throw new CliFailure(`"${target}" is not <server> or <server>/<tool>.`, EXIT.USAGE);
    }
    const count = book.revoke(server, tool === undefined ? undefined : [tool]);
    if (count === 0) {
      throw new CliFailure(
        `No approved pin matches "${target}" in ${file} (dsh-tools pin list shows them).`,
        EXIT.USAGE,
      );
    }
    removed += count;
  }
  await book.flushed();
  written();
  say(
    `${removed} approval${removed === 1 ? '' : 's'} revoked in ${file}: held back until approved again.`,
  );
  return EXIT.OK;
}
