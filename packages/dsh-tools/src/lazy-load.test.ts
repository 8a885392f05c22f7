import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Logs every module a fresh Node process resolves, from the module loader's thread, on stderr
 * (writeSync: the lines land in the order things happened, among the script's own marks).
 */
const HOOK = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  writeSync(2, 'LOAD ' + resolved.url + '\\n');
  return resolved;
}`;

/**
 * The modules a fresh process loads for `import(entry)`: the entry's source through tsx, with the
 * siblings' sources by the tsconfig's `paths`, so that an eager import added to any package that
 * `dsh-tools` re-exports shows here without a build. CommonJS modules are read from
 * `require.cache`, which the loader hook does not see.
 */
function loadsOf(entry: string): string[] {
  const url = pathToFileURL(join(packageDir, entry)).href;
  const script = `
import { register, createRequire } from 'node:module';
import { writeSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
await import(${JSON.stringify(url)});
const cached = Object.keys(createRequire(import.meta.url).cache);
writeSync(2, cached.map((f) => 'LOAD ' + f + '\\n').join('') + 'MARK imported\\n');
`;
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { cwd: packageDir, encoding: 'utf8', timeout: 60_000 },
  );
  const lines = run.stderr.split('\n');
  if (run.status !== 0 || !lines.includes('MARK imported')) {
    throw new Error(`the child process failed (status ${run.status}):\n${run.stderr}`);
  }
  return lines.filter((l) => l.startsWith('LOAD '));
}

/** What a host pays for only when it uses it: each is loaded at first use, never at import. */
const HEAVY = {
  'MCP client SDK': /[\\/]@modelcontextprotocol[\\/]/,
  zod: /[\\/]zod[\\/]/,
  Ajv: /[\\/]ajv(-formats)?[\\/]/,
  re2js: /[\\/]re2js[\\/]/,
  picomatch: /[\\/]picomatch[\\/]/,
  'tree-sitter': /[\\/]web-tree-sitter[\\/]/,
};

const heavyIn = (loads: readonly string[]) =>
  Object.entries(HEAVY)
    .filter(([, pattern]) => loads.some((l) => pattern.test(l)))
    .map(([name]) => name);

describe('importing the entries loads nothing heavy', () => {
  it.each([
    ['dsh-tools', 'src/index.ts'],
    ['dsh-tools/cordis', 'src/cordis.ts'],
  ])('%s', (_name, entry) => {
    const loads = loadsOf(entry);
    // Every re-exported package was loaded and seen by the log: an empty log would prove nothing.
    for (const sibling of ['registry', 'mcp-bridge', 'interceptors-permission']) {
      expect(loads.some((l) => l.includes(`/packages/${sibling}/src/index.ts`))).toBe(true);
    }
    expect(heavyIn(loads)).toEqual([]);
  });
});
