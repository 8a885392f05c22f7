import { isRecord, quoteValue } from '@dsh-tools/policy-kit';
import { compileMatcher, type ToolMatcher } from './matcher';
import type { HookErrorPolicy, HookEvent, HookIdentity } from './types';

/** Claude Code's default hook timeout, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The longest timeout a Node timer holds (2^31 - 1 ms), in whole seconds. */
export const MAX_TIMEOUT_SECONDS = 2_147_483;

const EVENTS: readonly HookEvent[] = ['PreToolUse', 'PostToolUse'];

/** One runnable hook: its identity plus its compiled matcher. */
export interface ResolvedHook extends HookIdentity {
  readonly matches: ToolMatcher;
}

/** The hooks of both events, in configuration order. */
export interface ResolvedHooks {
  readonly PreToolUse: readonly ResolvedHook[];
  readonly PostToolUse: readonly ResolvedHook[];
}

const HOOK_SHAPE =
  '{ "type": "command", "command": "<shell command>", "timeout"?: <seconds>, "onError"?: "block" | "allow" }';
const GROUP_SHAPE = '{ "matcher": "<tool name, A|B, regex or *>", "hooks": [ <hook>, … ] }';

/**
 * Validates one `hooks` block (Claude Code's settings shape) and resolves it into runnable hooks,
 * each remembering `source`. Throws a `TypeError` (a `SyntaxError` for a bad regular expression)
 * that names the source, quotes the bad entry and says what is expected.
 */
export const resolveHooksConfig = (raw: unknown, source: string): ResolvedHooks => {
  const fail = (path: string, value: unknown, expected: string): never => {
    throw new TypeError(
      `Hooks from ${source}: ${path} is ${quoteValue(value)}; expected ${expected}.`,
    );
  };
  const out: { PreToolUse: ResolvedHook[]; PostToolUse: ResolvedHook[] } = {
    PreToolUse: [],
    PostToolUse: [],
  };
  try {
    if (!isRecord(raw)) {
      fail(
        'hooks',
        raw,
        'an object like { "PreToolUse": [ { "matcher": "Bash", "hooks": [ … ] } ] }',
      );
    }
    const config = raw as Record<string, unknown>;
    for (const key of Object.keys(config)) {
      const event = EVENTS.find((e) => e.toLowerCase() === key.toLowerCase());
      if (event !== undefined && event !== key) {
        fail(`hooks key ${JSON.stringify(key)}`, key, `the event name spelled "${event}"`);
      }
    }
    for (const event of EVENTS) {
      const groups = config[event];
      if (groups === undefined) continue;
      if (!Array.isArray(groups)) fail(`hooks.${event}`, groups, `an array of ${GROUP_SHAPE}`);
      const list = groups as unknown[];
      for (let g = 0; g < list.length; g++) {
        const group = list[g];
        const groupPath = `hooks.${event}[${g}]`;
        if (!isRecord(group)) fail(groupPath, group, GROUP_SHAPE);
        const { matcher, hooks } = group as Record<string, unknown>;
        if (matcher !== undefined && typeof matcher !== 'string') {
          fail(`${groupPath}.matcher`, matcher, 'a string (a tool name, "A|B", a regex or "*")');
        }
        let matches: ToolMatcher;
        try {
          matches = compileMatcher(matcher as string | undefined);
        } catch (error) {
          throw new SyntaxError(
            `Hooks from ${source}: ${groupPath}.matcher: ${(error as Error).message}.`,
          );
        }
        if (!Array.isArray(hooks)) fail(`${groupPath}.hooks`, hooks, `an array of ${HOOK_SHAPE}`);
        const hookList = hooks as unknown[];
        for (let h = 0; h < hookList.length; h++) {
          const hook = hookList[h];
          const path = `${groupPath}.hooks[${h}]`;
          if (!isRecord(hook)) fail(path, hook, HOOK_SHAPE);
          const { type, command, timeout, onError } = hook as Record<string, unknown>;
          if (type !== 'command') {
            fail(
              `${path}.type`,
              type,
              `"command" (only command hooks run here; remove or move ${path} ${quoteValue(hook, 120)} if it is a prompt, agent, http or mcp_tool hook)`,
            );
          }
          if (typeof command !== 'string' || command.trim() === '') {
            fail(`${path}.command`, command, 'a non-empty shell command line');
          }
          if (
            timeout !== undefined &&
            (typeof timeout !== 'number' ||
              !Number.isFinite(timeout) ||
              timeout <= 0 ||
              timeout > MAX_TIMEOUT_SECONDS)
          ) {
            fail(
              `${path}.timeout`,
              timeout,
              `a number of seconds above 0 and at most ${MAX_TIMEOUT_SECONDS} (default ${DEFAULT_TIMEOUT_SECONDS})`,
            );
          }
          if (onError !== undefined && onError !== 'block' && onError !== 'allow') {
            fail(`${path}.onError`, onError, '"block" or "allow"');
          }
          out[event].push(
            Object.freeze({
              event,
              command: command as string,
              matcher: (matcher as string | undefined) ?? '',
              source,
              path,
              timeoutSeconds: (timeout as number | undefined) ?? DEFAULT_TIMEOUT_SECONDS,
              onError:
                (onError as HookErrorPolicy | undefined) ??
                (event === 'PreToolUse' ? 'block' : 'allow'),
              matches,
            }),
          );
        }
      }
    }
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError) throw error;
    // A getter or Proxy trap threw while the block was read.
    throw new TypeError(
      `Hooks from ${source} could not be read (${error instanceof Error ? error.message : String(error)}); pass plain JSON data.`,
    );
  }
  return out;
};

/**
 * Validates and merges the `hooks` option: one block, or several blocks with their sources
 * (concatenated in order, as Claude Code merges settings files).
 */
export const resolveHooksOption = (hooks: unknown): ResolvedHooks => {
  if (!Array.isArray(hooks)) return resolveHooksConfig(hooks, 'the hooks option');
  const merged: { PreToolUse: ResolvedHook[]; PostToolUse: ResolvedHook[] } = {
    PreToolUse: [],
    PostToolUse: [],
  };
  for (let i = 0; i < hooks.length; i++) {
    const entry: unknown = hooks[i];
    if (!isRecord(entry) || typeof entry.source !== 'string' || entry.source === '') {
      throw new TypeError(
        `hooksInterceptor: hooks[${i}] is ${quoteValue(entry)}; expected { "source": "<file or label>", "hooks": { "PreToolUse": [ … ] } } (what loadClaudeCodeHooks returns), or pass one hooks object instead of an array.`,
      );
    }
    const resolved = resolveHooksConfig(entry.hooks, entry.source);
    merged.PreToolUse.push(...resolved.PreToolUse);
    merged.PostToolUse.push(...resolved.PostToolUse);
  }
  return merged;
};
