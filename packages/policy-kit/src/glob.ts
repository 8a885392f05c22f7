import { createRequire } from 'node:module';
import type Picomatch from 'picomatch';

let loaded: typeof Picomatch | undefined;
/**
 * picomatch, required at the first glob compiled rather than at import: a host that imports a
 * policy without path rules never pays for it. A synchronous require, because compiling rules and
 * matching are synchronous (picomatch is CommonJS, so this is the module an import would give).
 */
const picomatch = (): typeof Picomatch =>
  (loaded ??= createRequire(import.meta.url)('picomatch') as typeof Picomatch);

/**
 * Characters that make a path component a pattern rather than a name: every character picomatch
 * reads as syntax on its own (`+` and `@` are syntax only before a `(`). A quote, a group or a
 * backslash is syntax too: `"My Keys"` is the directory `My Keys` to picomatch, so a component
 * holding one is no literal directory to match a path's prefix against.
 */
export const GLOB_CHARS = /[*?[\]{}()|\\"!]/;

/** The dialect's one option: a wildcard matches a name that begins with a dot. */
const DIALECT = { dot: true } as const;

/**
 * The policies' glob dialect, compiled: picomatch's (`*`, `?`, `**`, `[…]`, `{a,b}`, extglobs) with
 * wildcards matching dotfiles, so that a rule on `secrets/*` covers `secrets/.key` as a person
 * reading it expects. The test is true when any of `globs` matches. The sandbox enforces the plain
 * subset of this dialect (see `plainGlobRegExp`), covering at least what it matches.
 */
export function globMatcher(globs: string | readonly string[]): (path: string) => boolean {
  return picomatch()(globs as string | string[], DIALECT);
}

/** Whether `text` matches `glob` in the dialect, once; compile with {@link globMatcher} to reuse. */
export function globMatches(text: string, glob: string): boolean {
  return picomatch().isMatch(text, glob, DIALECT);
}
