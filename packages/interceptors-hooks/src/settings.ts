import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveHooksConfig } from './config';
import type { HooksConfig, HooksConfigSource } from './types';

/** Settings files larger than this are refused: a settings file is a few kilobytes. */
const MAX_SETTINGS_BYTES = 4 * 1_048_576;

/** Where {@link loadClaudeCodeHooks} looks; every path may be replaced, or `false` to skip it. */
export interface ClaudeCodeSettingsPaths {
  /** The project root; default `process.cwd()`. Project and local paths resolve against it. */
  readonly projectDir?: string;
  /** Default `~/.claude/settings.json`. */
  readonly user?: string | false;
  /** Default `<projectDir>/.claude/settings.json`. */
  readonly project?: string | false;
  /** Default `<projectDir>/.claude/settings.local.json`. */
  readonly local?: string | false;
}

/**
 * Reads the `hooks` blocks of Claude Code's settings files (user, then project, then local, the
 * order Claude Code merges them in) and returns each with its file, ready for
 * `hooksInterceptor({ hooks })`. A missing file, or one without `hooks`, contributes nothing; a
 * file that cannot be read, is not JSON, or holds a malformed `hooks` block (an invalid matcher
 * regular expression included) throws an error naming the file and the bad entry. Every hook is
 * validated here, so a typo fails at start-up rather than at the first tool call.
 *
 * `disableAllHooks` is not honoured: a project's settings file must not be able to switch off the
 * user's own guard hooks. Leave a file out (`project: false`) to ignore its hooks.
 */
export const loadClaudeCodeHooks = async (
  paths: ClaudeCodeSettingsPaths = {},
): Promise<HooksConfigSource[]> => {
  const projectDir = resolve(paths.projectDir ?? process.cwd());
  const files: (string | false)[] = [
    paths.user ?? join(homedir(), '.claude', 'settings.json'),
    paths.project ?? join(projectDir, '.claude', 'settings.json'),
    paths.local ?? join(projectDir, '.claude', 'settings.local.json'),
  ];
  const loaded: HooksConfigSource[] = [];
  for (const file of files) {
    if (file === false) continue;
    const path = resolve(projectDir, file);
    const hooks = await readHooksBlock(path);
    if (hooks === undefined) continue;
    resolveHooksConfig(hooks, path);
    loaded.push(Object.freeze({ source: path, hooks }));
  }
  return loaded;
};

const readHooksBlock = async (path: string): Promise<HooksConfig | undefined> => {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      throw new Error(
        `Claude Code settings ${path} is not a file; point the loader at a JSON file`,
      );
    }
    if (info.size > MAX_SETTINGS_BYTES) {
      throw new Error(
        `Claude Code settings ${path} is ${info.size} bytes, over the ${MAX_SETTINGS_BYTES}-byte limit for a settings file; check that it is the right file`,
      );
    }
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof Error && error.message.startsWith('Claude Code settings')) throw error;
    throw new Error(
      `Claude Code settings ${path} could not be read (${error instanceof Error ? error.message : String(error)}); fix its permissions or leave it out`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SyntaxError(
      `Claude Code settings ${path} is not valid JSON (${(error as Error).message}); fix the file, or leave it out`,
    );
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new TypeError(
      `Claude Code settings ${path} holds ${Array.isArray(json) ? 'an array' : String(json)}; expected an object such as { "hooks": { "PreToolUse": [ … ] } }`,
    );
  }
  const hooks = (json as { hooks?: unknown }).hooks;
  if (hooks === undefined || hooks === null) return undefined;
  return hooks as HooksConfig;
};
