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

/**
 * The dialect's options: a wildcard matches a name that begins with a dot, and a leading `!` is
 * itself, as in bash (to picomatch it negates the whole glob: `!*` matched every name but those
 * `*` matches, where bash matches the names that begin with `!`).
 */
const DIALECT = { dot: true, nonegate: true } as const;

/**
 * A glob as picomatch must read it for the dialect: `[!…]` is a negated class in bash, gitignore
 * and Claude Code's rules, but picomatch 4 reads that `!` as a member (`[!a]` matched `!` or `a`,
 * never `b`), so `cat .[!x]nv`, which bash makes `cat .env`, seemed to reach no `.env`. Written
 * `[^…]`, which picomatch negates. Only where a bracket opens: an escaped `[`, and a `[!` inside
 * another bracket expression, are left as they are.
 */
export function negatedClasses(glob: string): string {
  if (!glob.includes('[!')) return glob;
  let out = '';
  let inside = false;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '\\') {
      out += glob.slice(i, i + 2);
      i++;
    } else if (!inside && ch === '[') {
      inside = true;
      out += '[';
      if (glob[i + 1] === '!' || glob[i + 1] === '^') {
        out += '^';
        i++;
      }
      // A `]` first in the class is a member, not its end.
      if (glob[i + 1] === ']') {
        out += ']';
        i++;
      }
    } else if (inside && ch === '[' && glob[i + 1] === ':') {
      // A POSIX class (`[:digit:]`) inside the brackets, as a whole.
      const end = glob.indexOf(':]', i + 2);
      const stop = end < 0 ? glob.length : end + 2;
      out += glob.slice(i, stop);
      i = stop - 1;
    } else {
      if (inside && ch === ']') inside = false;
      out += ch;
    }
  }
  return out;
}

/**
 * The policies' glob dialect, compiled: picomatch's (`*`, `?`, `**`, `[…]`, `{a,b}`, extglobs) with
 * wildcards matching dotfiles, so that a rule on `secrets/*` covers `secrets/.key` as a person
 * reading it expects. The test is true when any of `globs` matches. The sandbox enforces the plain
 * subset of this dialect (see `plainGlobRegExp`), covering at least what it matches.
 */
export function globMatcher(globs: string | readonly string[]): (path: string) => boolean {
  const read = typeof globs === 'string' ? negatedClasses(globs) : globs.map(negatedClasses);
  return picomatch()(read as string | string[], DIALECT);
}

/** Whether `text` matches `glob` in the dialect, once; compile with {@link globMatcher} to reuse. */
export function globMatches(text: string, glob: string): boolean {
  return picomatch().isMatch(text, negatedClasses(glob), DIALECT);
}
