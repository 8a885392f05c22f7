import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

/**
 * Imports the package's entry, creates a registry, marks the moment, then registers a tool with a
 * pattern, which must load Ajv and the regex engine: that half proves the log would have shown
 * them. Ajv is loaded with `require`: the marks log `require.cache` too.
 */
const BODY = `
const { createToolRegistry } = await import(${JSON.stringify(entry)});
const registry = createToolRegistry();
mark('imported');
registry.register({
  name: 't',
  description: '',
  parameters: { type: 'object', properties: { a: { type: 'string', pattern: '^a+$' } } },
  execute: () => [],
});
mark('registered');
`;

const AJV = /[\\/]node_modules[\\/](\.pnpm[\\/])?ajv[@\\/]/;
const RE2 = /[\\/]node_modules[\\/](\.pnpm[\\/])?re2js[@\\/]/;

describe('loading', () => {
  it('importing the package loads neither Ajv nor the regex engine; the first compile loads both', () => {
    const [imported, registered] = loadsOfFreshProcess(packageDir, BODY);
    expect([imported?.label, registered?.label]).toEqual(['imported', 'registered']);
    const atImport = imported?.loads ?? [];
    const atRegister = registered?.loads ?? [];
    // The entry itself was seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/registry/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => AJV.test(l) || RE2.test(l))).toEqual([]);
    expect(atRegister.some((l) => AJV.test(l))).toBe(true);
    expect(atRegister.some((l) => RE2.test(l))).toBe(true);
  });

  // The builds load Ajv differently from the source (tsup shims import.meta.url in the CommonJS
  // one): each is checked when it has been built (`pnpm build`, which `pnpm test` runs first).
  for (const file of ['dist/index.cjs', 'dist/index.mjs']) {
    const built = join(packageDir, file);
    it.skipIf(!existsSync(built))(
      `the built ${file} also loads them on the first compile only`,
      () => {
        const script = `
        const { createRequire } = require('node:module');
        const cache = () => Object.keys(createRequire(${JSON.stringify(built)}).cache);
        (async () => {
          const registry = ${file.endsWith('.cjs') ? `require(${JSON.stringify(built)})` : `await import(${JSON.stringify(pathToFileURL(built).href)})`};
          const before = cache();
          const message = registry.compileSchema({ type: 'string', pattern: '^(a+)+$' }).validate('a'.repeat(40) + '!');
          console.log(JSON.stringify({ before, after: cache(), message }));
        })();`;
        const run = spawnSync(process.execPath, ['-e', script], {
          cwd: packageDir,
          encoding: 'utf8',
          timeout: 60_000,
        });
        if (run.status !== 0)
          throw new Error(`the child process failed (status ${run.status}):\n${run.stderr}`);
        const { before, after, message } = JSON.parse(run.stdout) as {
          before: string[];
          after: string[];
          message: string;
        };
        expect(before.filter((f) => AJV.test(f) || RE2.test(f))).toEqual([]);
        expect(after.some((f) => AJV.test(f))).toBe(true);
        expect(after.some((f) => RE2.test(f))).toBe(true);
        expect(message).toMatch(/must match pattern/);
      },
    );
  }
});
