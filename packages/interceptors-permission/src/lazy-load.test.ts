import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

/**
 * Imports the package's entry, marks the moment, then builds a policy, waits until it is ready (the
 * shell parser loaded) and decides a call under its path rule: the second half proves that the log
 * would have shown both libraries. picomatch is CommonJS and required: the marks log
 * `require.cache` too.
 */
const BODY = `
const permission = await import(${JSON.stringify(entry)});
mark('imported');
const policy = permission.permissionInterceptor({ rules: { deny: ['Read(./.env)', 'Bash(rm:*)'] } });
await policy.ready;
const decision = await policy.explain(permission.exampleExecution('Read(./.env)'));
mark('ready: ' + decision.behavior);
`;

const PICOMATCH = /[\\/]picomatch[\\/]/;
const TREE_SITTER = /[\\/]web-tree-sitter[\\/]/;

describe('loading', () => {
  it('importing the package loads neither picomatch nor tree-sitter; the first policy loads both', () => {
    const [imported, ready] = loadsOfFreshProcess(packageDir, BODY);
    const atImport = imported?.loads ?? [];
    const atPolicy = ready?.loads ?? [];
    // The entry itself was loaded and seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/interceptors-permission/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => PICOMATCH.test(l) || TREE_SITTER.test(l))).toEqual([]);
    expect(imported?.label).toBe('imported');
    expect(ready?.label).toBe('ready: deny');
    expect(atPolicy.some((l) => PICOMATCH.test(l))).toBe(true);
    expect(atPolicy.some((l) => TREE_SITTER.test(l))).toBe(true);
  });
});
