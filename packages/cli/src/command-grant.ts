import {
  createPermissionGrant,
  type PermissionGrant,
  PermissionRuleError,
} from '@dsh-tools/interceptors-permission';
import { load } from './cli-gateway';
import { CliFailure, cOut, out, warn } from './cli-io';
import type { LoadedConfig } from './config';
import { EXIT } from './exit-codes';
import { createRedisGrantStore, type RedisGrantStore } from './state-grants';
import { openSharedState, type SharedState, StateUnavailableError } from './state-redis';

const say = (line: string) => out.write(`${line}\n`);

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `2h`, `90s`, `1d`, `500ms`, `1.5h` as milliseconds; a usage failure otherwise. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * (UNITS[match[2] as string] as number) : Number.NaN;
  if (!(Number.isFinite(ms) && ms >= 1)) {
    throw new CliFailure(
      `--for "${text}" is not a duration: give a number and a unit (ms, s, m, h, d), such as 30m or 2h.`,
      EXIT.USAGE,
    );
  }
  return Math.round(ms);
}

/** The config's grant store: Redis, which every `serve` replica of that config reads. */
async function openStore(
  configFile: string | undefined,
): Promise<{ loaded: LoadedConfig; state: SharedState; store: RedisGrantStore }> {
  const loaded = await load(configFile);
  const label = loaded.file ?? 'the embedded default config';
  const settings = loaded.config.state;
  if (!settings) {
    throw new CliFailure(
      `${label} has no "state" section, so each "dsh-tools serve" keeps its grants in its own memory (those its approvers give) and nothing outside it can add or remove one. Grants for a running serve need a shared store: add "state": { "redis": "redis://host:6379" } to the config and run serve and this command with it.`,
      EXIT.USAGE,
    );
  }
  if (!loaded.config.permissions) {
    warn(
      `${label} has no "permissions" section: serve runs no permission policy, so grants change nothing until it has one.`,
    );
  }
  let state: SharedState;
  try {
    state = await openSharedState(settings);
  } catch (error) {
    throw storeFailure(error);
  }
  return { loaded, state, store: createRedisGrantStore(state, { listen: false }) };
}

/** A store that did not answer, as a command's failure (anything else unchanged). */
function storeFailure(error: unknown): unknown {
  return error instanceof StateUnavailableError
    ? new CliFailure(
        `${error.message} (dsh-tools grant works on the grants there because the config has a "state" section.)`,
        EXIT.CONFIG,
      )
    : error;
}

async function withStore<T>(
  configFile: string | undefined,
  run: (store: RedisGrantStore, where: string) => Promise<T>,
): Promise<T> {
  const { state, store } = await openStore(configFile);
  try {
    return await run(store, `${state.where} (prefix ${JSON.stringify(state.prefix)})`);
  } catch (error) {
    throw storeFailure(error);
  } finally {
    store.close();
    await state.close();
  }
}

/** One grant on one line: id, rule, uses left, until when, who gave it. */
function grantLine(grant: PermissionGrant): string {
  const uses = grant.usesLeft === undefined ? 'unlimited uses' : `${grant.usesLeft} uses left`;
  const until =
    grant.expiresAt === undefined
      ? 'until revoked'
      : `until ${new Date(grant.expiresAt).toISOString()}`;
  return `${grant.id}  ${cOut.green(grant.rule)}  ${cOut.dim(`(${uses}, ${until}, by ${grant.origin.by})`)}`;
}

/**
 * `dsh-tools grant add <rule> [--uses N] [--for <duration>]`: a grant every replica of `serve`
 * on the config's store applies from its next call. Printed once the store has acknowledged it.
 */
export async function grantAddCommand(
  rule: string,
  options: { config?: string; uses?: number; for?: string; by?: string; json?: boolean },
): Promise<number> {
  const expiresInMs = options.for === undefined ? undefined : parseDuration(options.for);
  let grant: PermissionGrant;
  try {
    grant = createPermissionGrant({
      rule,
      by: options.by ?? 'operator',
      expiresInMs,
      uses: options.uses,
    });
  } catch (error) {
    if (!(error instanceof PermissionRuleError)) throw error;
    throw new CliFailure(
      `${error.message} Write the rule as in "permissions.allow", such as "Bash(npm test)" or "mcp__github".`,
      EXIT.USAGE,
    );
  }
  return withStore(options.config, async (store, where) => {
    const stored = await store.add(grant);
    if (options.json) say(JSON.stringify({ store: where, grant: stored }));
    else say(`${cOut.green('granted')}  ${grantLine(stored)}`);
    return EXIT.OK;
  });
}

/** `dsh-tools grant list`: the grants in force in the config's store. */
export async function grantListCommand(options: {
  config?: string;
  json?: boolean;
}): Promise<number> {
  return withStore(options.config, async (store, where) => {
    const grants = [...(await store.list())].sort((a, b) => a.origin.at - b.origin.at);
    if (options.json) {
      say(JSON.stringify({ store: where, grants }));
      return EXIT.OK;
    }
    say(cOut.dim(where));
    for (const grant of grants) say(grantLine(grant));
    if (grants.length === 0) say(cOut.dim('no grants in force'));
    return EXIT.OK;
  });
}

/** `dsh-tools grant revoke <id>`: removes a grant; every replica refuses it from its next call. */
export async function grantRevokeCommand(
  id: string,
  options: { config?: string },
): Promise<number> {
  return withStore(options.config, async (store, where) => {
    if (!(await store.revoke(id))) {
      throw new CliFailure(
        `No grant ${JSON.stringify(id)} in ${where}: it was revoked, used up or expired, or the id is not one that dsh-tools grant list shows.`,
        EXIT.USAGE,
      );
    }
    say(`${cOut.green('revoked')}  ${id}`);
    return EXIT.OK;
  });
}
