import { fileURLToPath, pathToFileURL } from 'node:url';

// The one reader of `hints.paths` is the policy kit's: the sandbox and the permission layer must
// find the same paths in one call.
export { collectPathArgs, MAX_PATHS_PER_CALL, type PathArg } from '@dsh-tools/policy-kit';

/**
 * Why a path argument that is a `file:` URL is refused, or `undefined` when it is not one. A URL
 * is refused rather than decoded and checked: a tool body may hand the string to `fs` (a relative
 * path whose first directory is `file:`) or to `new URL()` / `fileURLToPath()` (an absolute path,
 * after percent-decoding and dot removal), and no single reading would be the one the body takes.
 * A plain path has one meaning, and the message gives it. "A file: URL" is what Node's URL parser
 * says it is: any case, leading spaces, tabs and newlines inside the scheme, `file:x`,
 * `file://localhost/x`; a file really named `file:x` is passed as `./file:x`.
 */
export function fileUrlProblem(path: string): string | undefined {
  // Node's own parser decides: whatever new URL(path) takes for a file: URL, a body could too.
  if (!URL.canParse(path)) return undefined;
  const url = new URL(path);
  if (url.protocol !== 'file:') return undefined;
  const named = 'is a file: URL, not a path';
  const literal = 'a file really named so is passed as "./file:…"';
  if (url.host !== '') {
    return `${named}, and its host "${url.host}" is not this machine; pass a plain path (${literal})`;
  }
  let plain: string;
  try {
    plain = fileURLToPath(url);
  } catch {
    return `${named}, and it does not decode to a path (an encoded "/"); pass a plain path (${literal})`;
  }
  return `${named}; pass the plain path ${JSON.stringify(plain)} instead (${literal})`;
}

/**
 * Where a body that reads `path` as a URL relative to the cwd (`new URL(path, cwdUrl)`) would
 * land: the URL parser decodes `%2e%2e` to `..`, takes `\` for `/`, drops tabs and newlines and
 * the spaces and controls at either end, so `%2e%2e/x`, `..\x` or `  ../x` leave a directory that
 * the text stays in. `undefined` when it names no local file (another scheme, a host). The sandbox
 * checks this reading too: every reading a body might act on must be permitted.
 */
export function urlReading(path: string, cwd: string): string | undefined {
  try {
    const base = pathToFileURL(cwd.endsWith('/') ? cwd : `${cwd}/`);
    return fileURLToPath(new URL(path, base));
  } catch {
    return undefined;
  }
}
