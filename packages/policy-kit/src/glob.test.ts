import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadsOfFreshProcess } from '../../../test-support/module-loads';
import { GLOB_CHARS, globMatcher, globMatches } from './glob';

describe('the glob dialect', () => {
  it('is picomatch with wildcards matching dotfiles, any of several globs', () => {
    const test = globMatcher(['/p/secrets/*', '/p/**/*.{pem,key}']);
    expect(test('/p/secrets/.hidden')).toBe(true);
    expect(test('/p/a/b/x.key')).toBe(true);
    expect(test('/p/a/b/x.txt')).toBe(false);
    expect(globMatches('.env.local', '.env*')).toBe(true);
    expect(globMatches('a', '[bc]')).toBe(false);
    expect(GLOB_CHARS.test('a[b]')).toBe(true);
    expect(GLOB_CHARS.test('plain.txt')).toBe(false);
  });

  it('importing the kit does not load picomatch; the first glob compiled does', () => {
    const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
    const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;
    const [imported, compiled] = loadsOfFreshProcess(
      packageDir,
      `const kit = await import(${JSON.stringify(entry)});
mark('imported');
mark('compiled: ' + kit.globMatcher('/a/*')('/a/b'));`,
    );
    const picomatch = (l: string) => /[\\/]picomatch[\\/]/.test(l);
    expect(imported?.loads.some((l) => l.includes('/policy-kit/src/index.ts'))).toBe(true);
    expect(imported?.loads.filter(picomatch)).toEqual([]);
    expect(compiled?.label).toBe('compiled: true');
    expect(compiled?.loads.some(picomatch)).toBe(true);
  });
});
