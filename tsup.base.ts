import { defineConfig, type Options } from 'tsup';

/**
 * The one build every package shares: ESM (.mjs) + CJS (.cjs) with their own declarations
 * (.d.mts / .d.cts), so that `attw --pack` finds no masquerading types under either resolution.
 */
export const packageBuild = (
  entry: Record<string, string> = { index: 'src/index.ts' },
  overrides: Options = {},
) =>
  defineConfig({
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    tsconfig: 'tsconfig.build.json',
    target: 'node20',
    platform: 'node',
    sourcemap: false,
    clean: true,
    treeshake: true,
    outExtension: ({ format }) =>
      format === 'esm' ? { js: '.mjs', dts: '.d.mts' } : { js: '.cjs', dts: '.d.cts' },
    ...overrides,
  });
