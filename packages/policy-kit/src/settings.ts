import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { isRecord } from './values';

/** Settings files larger than this are refused: a settings file is a few kilobytes. */
export const MAX_SETTINGS_BYTES = 4 * 1_048_576;

/** Which of Claude Code's settings files: the user's, the project's shared one, or its local one. */
export type SettingsScope = 'user' | 'project' | 'local';

/** Where Claude Code's settings files are; every path may be replaced, or `false` to skip it. */
export interface SettingsLocations {
  /** The project root; default `process.cwd()`. Relative file paths resolve against it. */
  readonly projectDir?: string;
  /** The home directory holding `.claude/settings.json`; default `os.homedir()`. */
  readonly home?: string;
  /** Default `<home>/.claude/settings.json`. */
  readonly user?: string | false;
  /** Default `<projectDir>/.claude/settings.json`. */
  readonly project?: string | false;
  /** Default `<projectDir>/.claude/settings.local.json`. */
  readonly local?: string | false;
}

/** One settings file to read, with its scope; `file` is absolute. */
export interface SettingsFile {
  readonly scope: SettingsScope;
  readonly file: string;
}

/**
 * Claude Code's settings files in the order it merges them, least specific first (user, project,
 * local), each made absolute against the project; a location given as `false` is left out.
 */
export function claudeCodeSettingsFiles(locations: SettingsLocations = {}): SettingsFile[] {
  const projectDir = resolve(locations.projectDir ?? process.cwd());
  const home = locations.home ?? homedir();
  const files: [SettingsScope, string | false][] = [
    ['user', locations.user ?? join(home, '.claude', 'settings.json')],
    ['project', locations.project ?? join(projectDir, '.claude', 'settings.json')],
    ['local', locations.local ?? join(projectDir, '.claude', 'settings.local.json')],
  ];
  return files
    .filter((entry): entry is [SettingsScope, string] => entry[1] !== false)
    .map(([scope, file]) => ({ scope, file: resolve(projectDir, file) }));
}

/** What is wrong with a settings file that exists. */
export type SettingsProblem =
  | 'not-a-file'
  | 'too-large'
  | 'unreadable'
  | 'not-json'
  | 'not-an-object';

/**
 * A settings file that exists but cannot be used. `problem` says which way, `detail` what the
 * system or the JSON parser said (or the size, the kind of value), so that a policy can phrase its
 * own message; the message names the file and what to do.
 */
export class SettingsFileError extends Error {
  /** The message without the file: `is not valid JSON (…); fix the file, or leave it out`. */
  readonly reason: string;
  constructor(
    readonly file: string,
    readonly problem: SettingsProblem,
    readonly detail: string,
  ) {
    const reason = PHRASES[problem](detail);
    super(`Claude Code settings ${file} ${reason}`);
    this.name = 'SettingsFileError';
    this.reason = reason;
  }
}

const PHRASES: Record<SettingsProblem, (detail: string) => string> = {
  'not-a-file': () => 'is not a file; point the loader at a JSON file',
  'too-large': (size) =>
    `is ${size} bytes, over the ${MAX_SETTINGS_BYTES}-byte limit for a settings file; check that it is the right file`,
  unreadable: (why) => `could not be read (${why}); fix its permissions or leave it out`,
  'not-json': (why) => `is not valid JSON (${why}); fix the file, or leave it out`,
  'not-an-object': (what) => `holds ${what}; expected a JSON object`,
};

/**
 * Reads one Claude Code settings file: its top-level object, or `undefined` when the file does not
 * exist (a missing settings file is the common case, not an error). Fails closed, with a
 * {@link SettingsFileError}, on a path that is not a regular file, a file over
 * {@link MAX_SETTINGS_BYTES} (refused before it is read), one that cannot be read, is not JSON or
 * whose JSON is not an object. A leading byte-order mark is skipped, as editors on Windows write one.
 */
export async function readSettingsFile(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) return fail(file, 'not-a-file', '');
    if (info.size > MAX_SETTINGS_BYTES) return fail(file, 'too-large', String(info.size));
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof SettingsFileError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return fail(file, 'unreadable', error instanceof Error ? error.message : String(error));
  }
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return fail(file, 'not-json', (error as Error).message);
  }
  if (!isRecord(json)) {
    return fail(file, 'not-an-object', Array.isArray(json) ? 'an array' : String(json));
  }
  return json;
}

const fail = (file: string, problem: SettingsProblem, detail: string): never => {
  throw new SettingsFileError(file, problem, detail);
};
