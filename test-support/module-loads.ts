// Shared by the packages' fresh-process loading tests; not part of any package.
import { spawnSync } from 'node:child_process';

/** Logs every module the ESM loader resolves, from the loader's thread, on stderr, in order. */
const HOOK = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'LOAD ' + resolved.url + '\\n');
  return resolved;
}`;

/** The modules a fresh process loaded up to one `mark(label)`, since the mark before it. */
export interface LoadSegment {
  readonly label: string;
  readonly loads: readonly string[];
}

/**
 * Runs `body` (ES module source) in a fresh Node process through tsx, in `cwd` (a package's
 * directory: tsx reads its tsconfig, so siblings resolve to their sources, and an eager import
 * added to any source file shows here without a build). Every module the process loads is
 * logged; `body` calls `mark(label)` where the log is to be cut, and each mark also logs the
 * CommonJS modules in `require.cache` (which the loader hook does not see). Returns one segment
 * per mark, in order; throws with the child's stderr if it failed or marked nothing.
 */
export function loadsOfFreshProcess(cwd: string, body: string): LoadSegment[] {
  const script = `
import { register, createRequire } from 'node:module';
import { writeSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const required = () => Object.keys(createRequire(import.meta.url).cache).map((f) => 'LOAD ' + f + '\\n').join('');
const mark = (label) => writeSync(2, required() + 'MARK ' + String(label).split('\\n')[0] + '\\n');
${body}`;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    {
      cwd,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  const segments: LoadSegment[] = [];
  let loads: string[] = [];
  for (const line of run.stderr.split('\n')) {
    if (line.startsWith('LOAD ')) loads.push(line);
    else if (line.startsWith('MARK ')) {
      segments.push({ label: line.slice('MARK '.length), loads });
      loads = [];
    }
  }
  if (run.status !== 0 || segments.length === 0) {
    throw new Error(`the child process failed (status ${run.status}):\n${run.stderr}`);
  }
  return segments;
}
