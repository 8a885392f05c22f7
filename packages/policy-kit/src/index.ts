export { collectPathArgs, MAX_PATHS_PER_CALL, type PathArg } from './path-hints';
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
export { isRecord, quoteValue } from './values';
