import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import {
  claudeCodeSettingsFiles,
  readSettingsFile,
  SettingsFileError,
} from '@dsh-tools/policy-kit';
import { expandHome } from './decide/resolve';
import { PermissionRuleError, parseRuleSets } from './decide/rules';
import { PERMISSION_MODES, type PermissionMode, type PermissionRuleSet } from './types';

/** Where the three Claude Code settings files are; every path may be replaced (tests, other layouts). */
export interface ClaudeSettingsOptions {
  /** The project (what `./x` in rules means); default `process.cwd()`. */
  readonly projectDir?: string;
  /** Default `os.homedir()`. */
  readonly home?: string;
  /** Default `~/.claude/settings.json`. */
  readonly userSettings?: string;
  /** Default `<projectDir>/.claude/settings.json`. */
  readonly projectSettings?: string;
  /** Default `<projectDir>/.claude/settings.local.json`. */
  readonly localSettings?: string;
}

/** One settings file as it was read. */
export interface ClaudeSettingsFile {
  readonly scope: 'user' | 'project' | 'local';
  readonly file: string;
  readonly found: boolean;
}

/** The merged `permissions` blocks, ready to spread into `permissionInterceptor` options. */
export interface ClaudeSettings {
  /** One rule set per file that has rules, lowest precedence first. */
  readonly rules: readonly PermissionRuleSet[];
  /** `defaultMode` of the most specific file that sets it. */
  readonly mode?: PermissionMode;
  /** Every file's `additionalDirectories`, made absolute. */
  readonly additionalDirectories: readonly string[];
  /** Which files were looked at and which existed. */
  readonly files: readonly ClaudeSettingsFile[];
}

const LABEL = {
  user: 'user settings',
  project: 'project settings',
  local: 'local settings',
} as const;

/**
 * Reads the `permissions` block (`allow`, `ask`, `deny`, `defaultMode`, `additionalDirectories`) of
 * Claude Code's user, project and local settings and merges them as Claude Code does: rules of
 * every file apply together (a deny anywhere beats an allow anywhere), the most specific file's
 * `defaultMode` wins (local > project > user), directories add up. Each rule keeps its file, so a
 * trail says which file a rule came from. A missing file is skipped; an unreadable one, malformed
 * JSON or a malformed rule throws, naming the file. The files are found and read by the policy
 * kit, as the hooks interceptor's are: a relative path given here is the project's, a path that is
 * not a file or a file over 4 MiB is refused, a byte-order mark is skipped.
 */
export async function loadClaudeSettings(
  options: ClaudeSettingsOptions = {},
): Promise<ClaudeSettings> {
  const projectDir = resolve(options.projectDir ?? process.cwd());
  const home = options.home ?? homedir();
  const sources = claudeCodeSettingsFiles({
    projectDir,
    home,
    ...(options.userSettings !== undefined && { user: options.userSettings }),
    ...(options.projectSettings !== undefined && { project: options.projectSettings }),
    ...(options.localSettings !== undefined && { local: options.localSettings }),
  });
  const rules: PermissionRuleSet[] = [];
  const additionalDirectories: string[] = [];
  const files: ClaudeSettingsFile[] = [];
  let mode: PermissionMode | undefined;
  for (const { scope, file } of sources) {
    const data = await readSettings(scope, file);
    files.push({ scope, file, found: data !== undefined });
    if (data === undefined) continue;
    const permissions = data.permissions;
    if (permissions === undefined) continue;
    if (permissions === null || typeof permissions !== 'object' || Array.isArray(permissions)) {
      throw new PermissionRuleError(
        `Claude Code ${LABEL[scope]} ${file}: "permissions" must be an object.`,
      );
    }
    const block = permissions as Record<string, unknown>;
    const set: PermissionRuleSet = {
      source: LABEL[scope],
      file,
      root: projectDir,
      settingsDir: dirname(file),
      ...(block.allow !== undefined && { allow: block.allow as string[] }),
      ...(block.ask !== undefined && { ask: block.ask as string[] }),
      ...(block.deny !== undefined && { deny: block.deny as string[] }),
    };
    // Read every rule now, so a malformed one fails loading with its file and position.
    parseRuleSets([set], projectDir);
    if (set.allow || set.ask || set.deny) rules.push(set);
    if (block.defaultMode !== undefined) {
      if (!PERMISSION_MODES.includes(block.defaultMode as PermissionMode)) {
        throw new PermissionRuleError(
          `Claude Code ${LABEL[scope]} ${file}: "defaultMode" ${JSON.stringify(block.defaultMode)} is not one of ${PERMISSION_MODES.join(', ')}.`,
        );
      }
      mode = block.defaultMode as PermissionMode;
    }
    const dirs = block.additionalDirectories;
    if (dirs !== undefined) {
      if (!Array.isArray(dirs) || dirs.some((d) => typeof d !== 'string' || d === '')) {
        throw new PermissionRuleError(
          `Claude Code ${LABEL[scope]} ${file}: "additionalDirectories" must be an array of paths.`,
        );
      }
      for (const d of dirs as string[]) {
        const abs = resolve(projectDir, expandHome(d, home));
        if (!additionalDirectories.includes(abs)) additionalDirectories.push(abs);
      }
    }
  }
  return { rules, ...(mode !== undefined && { mode }), additionalDirectories, files };
}

/**
 * One settings file through the policy kit's reader (missing: `undefined`; not a file, over the
 * size limit, unreadable, not JSON or not an object: refused), its refusal as a
 * `PermissionRuleError` naming the file.
 */
async function readSettings(
  scope: ClaudeSettingsFile['scope'],
  file: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    return await readSettingsFile(file);
  } catch (error) {
    if (!(error instanceof SettingsFileError)) throw error;
    const named = `Claude Code ${LABEL[scope]} ${file}`;
    const detail = error.detail;
    throw new PermissionRuleError(
      error.problem === 'unreadable'
        ? `${named} cannot be read: ${detail}`
        : error.problem === 'not-json'
          ? `${named} is not valid JSON: ${detail}`
          : error.problem === 'not-an-object'
            ? `${named} is not a JSON object.`
            : `${named} ${error.reason}`,
    );
  }
}
