import {
  claudeCodeSettingsFiles,
  readSettingsFile,
  SettingsFileError,
  type SettingsLocations,
} from '@dsh-tools/policy-kit';
import { resolveHooksConfig } from './config';
import type { HooksConfig, HooksConfigSource } from './types';

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
 * validated here, so a typo fails at start-up rather than at the first tool call. The files are
 * found and read by the policy kit, as the permission interceptor's are (the same size limit,
 * the same refusal of what is not a file).
 *
 * `disableAllHooks` is not honoured: a project's settings file must not be able to switch off the
 * user's own guard hooks. Leave a file out (`project: false`) to ignore its hooks.
 */
export const loadClaudeCodeHooks = async (
  paths: ClaudeCodeSettingsPaths = {},
): Promise<HooksConfigSource[]> => {
  const loaded: HooksConfigSource[] = [];
  for (const { file } of claudeCodeSettingsFiles(paths as SettingsLocations)) {
    const hooks = await readHooksBlock(file);
    if (hooks === undefined) continue;
    resolveHooksConfig(hooks, file);
    loaded.push(Object.freeze({ source: file, hooks }));
  }
  return loaded;
};

const readHooksBlock = async (path: string): Promise<HooksConfig | undefined> => {
  let json: Record<string, unknown> | undefined;
  try {
    json = await readSettingsFile(path);
  } catch (error) {
    // The error classes this loader has always thrown: a SyntaxError for JSON, a TypeError for a
    // value of the wrong kind.
    if (error instanceof SettingsFileError && error.problem === 'not-json')
      throw new SyntaxError(error.message);
    if (error instanceof SettingsFileError && error.problem === 'not-an-object')
      throw new TypeError(
        `Claude Code settings ${path} holds ${error.detail}; expected an object such as { "hooks": { "PreToolUse": [ … ] } }`,
      );
    throw error;
  }
  const hooks = json?.hooks;
  if (hooks === undefined || hooks === null) return undefined;
  return hooks as HooksConfig;
};
