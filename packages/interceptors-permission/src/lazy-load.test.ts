import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = pathToFileURL(join(packageDir, 'src/index.ts')).href;

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
 * Imports the package's entry (its source, through tsx, so that an eager import added to any
 * source file shows here without a build), marks the moment, then builds a policy, waits until it
 * is ready (the shell parser loaded) and decides a call under its path rule: the second half proves that the log would
 * have shown both libraries. picomatch is CommonJS and required, so `require.cache` is logged too.
 */
const SCRIPT = `
import { register, createRequire } from 'node:module';
import { writeSync } from 'node:fs';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
const permission = await import(${JSON.stringify(entry)});
const required = () => Object.keys(createRequire(import.meta.url).cache).map((f) => 'LOAD ' + f + '\\n').join('');
writeSync(2, required() + 'MARK imported\\n');
const policy = permission.permissionInterceptor({ rules: { deny: ['Read(./.env)', 'Bash(rm:*)'] } });
await policy.ready;
const decision = await policy.explain(permission.exampleExecution('Read(./.env)'));
writeSync(2, required() + 'MARK ready: ' + decision.behavior + '\\n');
`;

/** The modules a fresh process loaded at import, and then for its first policy. */
function loadsOfFreshProcess(): { atImport: string[]; atPolicy: string[]; decision: string } {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', SCRIPT],
    // The package's own directory: tsx reads its tsconfig (sources of siblings by `paths`), and
    // bare specifiers resolve through its node_modules, as for a user of the package.
    { cwd: packageDir, encoding: 'utf8', timeout: 60_000 },
  );
  const lines = run.stderr.split('\n');
  const imported = lines.indexOf('MARK imported');
  const ready = lines.findIndex((l) => l.startsWith('MARK ready: '));
  if (run.status !== 0 || imported === -1 || ready === -1) {
    throw new Error(`the child process failed (status ${run.status}):\n${run.stderr}`);
  }
  const loads = (from: number, to: number) =>
    lines.slice(from, to).filter((l) => l.startsWith('LOAD '));
  return {
    atImport: loads(0, imported),
    atPolicy: loads(imported + 1, ready),
    decision: lines[ready] ?? '',
  };
}

const PICOMATCH = /[\\/]picomatch[\\/]/;
const TREE_SITTER = /[\\/]web-tree-sitter[\\/]/;

describe('loading', () => {
  it('importing the package loads neither picomatch nor tree-sitter; the first policy loads both', () => {
    const { atImport, atPolicy, decision } = loadsOfFreshProcess();
    // The entry itself was loaded and seen by the log: an empty log would prove nothing.
    expect(atImport.some((l) => l.includes('/interceptors-permission/src/index.ts'))).toBe(true);
    expect(atImport.filter((l) => PICOMATCH.test(l) || TREE_SITTER.test(l))).toEqual([]);
    expect(decision).toBe('MARK ready: deny');
    expect(atPolicy.some((l) => PICOMATCH.test(l))).toBe(true);
    expect(atPolicy.some((l) => TREE_SITTER.test(l))).toBe(true);
  });
});
