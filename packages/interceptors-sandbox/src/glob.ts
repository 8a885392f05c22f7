// Deny-list globs are the policy kit's plain dialect (`*`, `?`, `**`; brackets, braces and negation
// refused), the subset of the permission rules' dialect that both layers read alike.
export {
  type ParsedGlob,
  parsePlainGlob as parseGlob,
  plainGlobRegExp as compileGlob,
} from '@dsh-tools/policy-kit';
