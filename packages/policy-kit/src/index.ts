export { type ApproverOutcome, type AskApproverOptions, askApprover } from './approver';
export { GLOB_CHARS, globMatcher, globMatches } from './glob';
export { collectPathArgs, MAX_PATHS_PER_CALL, type PathArg } from './path-hints';
export { type ParsedGlob, parsePlainGlob, plainGlobRegExp } from './plain-glob';
export {
  isInside,
  lexicalAbsolute,
  MAX_SYMLINKS,
  NAME_MAX,
  PATH_MAX,
  PathResolutionError,
  parentOf,
  pathShapeProblem,
  type ResolveMode,
  type ResolvePathOptions,
  resolvePath,
} from './resolve-path';
export {
  claudeCodeSettingsFiles,
  MAX_SETTINGS_BYTES,
  readSettingsFile,
  type SettingsFile,
  SettingsFileError,
  type SettingsLocations,
  type SettingsProblem,
  type SettingsScope,
} from './settings';
export { isRecord, quoteValue } from './values';
