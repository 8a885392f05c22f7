/**
 * The plain glob dialect: the subset of the policies' picomatch dialect that the sandbox enforces
 * (its deny lists, and the narrowing the permission layer hands it). Deliberately small: `*` (any
 * characters in one path component, dots included), `?` (one character), `**` (any number of
 * whole components, none included), a leading `~/` for the home directory, a leading `**` for
 * "anywhere", and anything else relative to the sandbox's cwd. Brackets, braces and negation are
 * refused rather than half-supported: a deny list that silently matches less than its author
 * thinks is the failure this guards against.
 */

/** A deny glob split into its literal directory prefix and the components after it. */
export interface ParsedGlob {
  /** The glob as written. */
  readonly source: string;
  /** Absolute literal prefix before the first wildcard component; `''` for a leading `**`. */
  readonly prefix: string;
  /** The components from the first wildcard on (empty for a literal path). */
  readonly rest: readonly string[];
}

const UNSUPPORTED = /[[\]{}]/;

/**
 * Parses one glob against `cwd` and `home`, or returns why it is refused.
 * Both `cwd` and `home` are absolute, normalised paths.
 */
export function parsePlainGlob(source: string, cwd: string, home: string): ParsedGlob | string {
  if (typeof source !== 'string') return `must be a string (got ${typeof source})`;
  if (source.length === 0) return 'must not be empty';
  if (source.includes('\0')) return 'must not contain a null byte';
  if (UNSUPPORTED.test(source)) {
    return 'uses brackets or braces, which are not supported (use *, ? and ** only)';
  }
  if (source.startsWith('!')) return 'starts with "!": negation is not supported';
  let absolute: string;
  if (source === '~' || source.startsWith('~/')) absolute = home + source.slice(1);
  else if (source.startsWith('/')) absolute = source;
  else if (source.startsWith('**')) absolute = `/${source}`;
  else absolute = `${cwd}/${source}`;
  const components = absolute.split('/').filter((c) => c !== '');
  for (const c of components) {
    if (c === '.' || c === '..') return `must not contain "${c}" components`;
    if (c.includes('**') && c !== '**') return `"${c}": ** must be a whole path component`;
    if (c.startsWith('~')) return `"${c}": ~ is only understood at the start (~/...)`;
  }
  const first = components.findIndex((c) => c.includes('*') || c.includes('?'));
  const literal = first === -1 ? components : components.slice(0, first);
  return {
    source,
    prefix: literal.length === 0 ? (first === -1 ? '/' : '') : `/${literal.join('/')}`,
    rest: first === -1 ? [] : components.slice(first),
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * Compiles a plain glob's components under a (possibly realpath'ed) literal prefix to a RegExp over
 * absolute, normalised paths. On every such path it matches at least what picomatch (`dot: true`)
 * matches for the same glob, so a deny handed over from a picomatch rule never covers less.
 */
export function plainGlobRegExp(prefix: string, rest: readonly string[]): RegExp {
  let source = prefix === '/' ? '' : escapeRegExp(prefix);
  for (const component of rest) {
    if (component === '**') {
      source += '(?:/[^/]+)*';
      continue;
    }
    source += '/';
    for (const ch of component) {
      source += ch === '*' ? '[^/]*' : ch === '?' ? '[^/]' : escapeRegExp(ch);
    }
  }
  // The root itself: a prefix of '/' with no rest is the path "/".
  return new RegExp(`^${source === '' ? '/' : source}$`, 'u');
}
