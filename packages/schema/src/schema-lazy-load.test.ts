import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

/** Imports the entry, marks, then compiles a schema with a pattern: that half must load both. */
const BODY = `
const { compileSchema } = await import(${JSON.stringify(entry)});
mark('imported');
compileSchema({ type: 'string', pattern: '^a+$' }).validate('a');
mark('compiled');
`;

const AJV = /[\\/]node_modules[\\/](\.pnpm[\\/])?ajv[@\\/]/;
const RE2 = /[\\/]node_modules[\\/](\.pnpm[\\/])?re2js[@\\/]/;

describe('loading', () => {
  it('importing the package loads neither Ajv nor the regex engine; the first compile loads both', () => {
    const [imported, compiled] = loadsOfFreshProcess(packageDir, BODY);
    expect([imported?.label, compiled?.label]).toEqual(['imported', 'compiled']);
    const atImport = imported?.loads ?? [];
    const atCompile = compiled?.loads ?? [];
    // The entry itself was seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/schema/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => AJV.test(l) || RE2.test(l))).toEqual([]);
    expect(atCompile.some((l) => AJV.test(l))).toBe(true);
    expect(atCompile.some((l) => RE2.test(l))).toBe(true);
  });
});
