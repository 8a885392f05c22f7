import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The modules a fresh process loads for `import(entry)`: the entry's source, with the siblings'
 * sources by the tsconfig's `paths`, so that an eager import added to any package that
 * `dsh-tools` re-exports shows here without a build.
 */
function loadsOf(entry: string): readonly string[] {
  const url = pathToFileURL(join(packageDir, entry)).href;
  const [imported] = loadsOfFreshProcess(
    packageDir,
    `await import(${JSON.stringify(url)});\nmark('imported');`,
  );
  return imported?.loads ?? [];
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
