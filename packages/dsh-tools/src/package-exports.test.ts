import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

/**
 * Runs `code` in a fresh Node process inside the package, where `dsh-tools` resolves to the
 * package itself through its `exports` (Node's self-reference), exactly as an installed copy would.
 */
function node(args: readonly string[], code: string) {
  return spawnSync(process.execPath, [...args, '--eval', code], {
    cwd: packageDir,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('the published entries', () => {
  it('exports the main entry dual (ESM + CommonJS) and ./cordis as ESM only, each with its types', () => {
    expect(manifest.exports).toEqual({
      '.': {
        import: { types: './dist/index.d.mts', default: './dist/index.mjs' },
        require: { types: './dist/index.d.cts', default: './dist/index.cjs' },
      },
      // @deepseek-ai/cordis is ESM-only; a CommonJS build would `require` it, which Node below
      // 20.19 cannot do although the package claims Node 20. Import only: the same on every Node.
      './cordis': { import: { types: './dist/cordis.d.mts', default: './dist/cordis.mjs' } },
      // What a stand-in for @deepseek-ai/dsh-tools re-exports: ESM-only, as ./cordis.
      './harness': { import: { types: './dist/harness.d.mts', default: './dist/harness.mjs' } },
      './package.json': './package.json',
    });
    // TypeScript's node10 resolution knows no `exports`: it finds the ESM declarations here.
    expect(manifest.typesVersions).toEqual({
      '*': { cordis: ['./dist/cordis.d.mts'], harness: ['./dist/harness.d.mts'] },
    });
    // 20.3: the first release with AbortSignal.any, which the harness layer uses.
    expect(manifest.engines).toEqual({ node: '>=20.3' });
  });

  it("require('dsh-tools/cordis') fails at resolution, on any Node, naming the entry", () => {
    // Resolution fails before any file is read, so this holds with or without a build.
    const run = node([], "require('dsh-tools/cordis')");
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(run.stderr).toContain(`Package subpath './cordis' is not defined by "exports"`);
  });

  it("import('dsh-tools/cordis') works, from ESM and from CommonJS (dynamic import), and require('dsh-tools') works", () => {
    const built = "run 'pnpm --filter dsh-tools build' first: these load the built entries";
    const esm = node(
      ['--input-type=module'],
      "const m = await import('dsh-tools/cordis'); console.log(typeof m.ToolRegistry, typeof m.Permission);",
    );
    expect(esm.stderr, built).toBe('');
    expect(esm.stdout.trim()).toBe('function function');
    const cjs = node(
      ['--input-type=commonjs'],
      "import('dsh-tools/cordis').then((m) => console.log(typeof m.ToolRegistry, typeof require('dsh-tools').createToolRegistry));",
    );
    expect(cjs.stderr, built).toBe('');
    expect(cjs.stdout.trim()).toBe('function function');
    const harness = node(
      ['--input-type=module'],
      "const m = await import('dsh-tools/harness'); console.log(m.default === m.ToolRuntime, typeof m.defineTool, typeof m.TOOL_RUNTIME_SCHEDULER);",
    );
    expect(harness.stderr, built).toBe('');
    expect(harness.stdout.trim()).toBe('true function symbol');
  });
});
