// Mutation testing of the policy kit (`pnpm mutate:policy-kit`): Stryker changes one thing at a
// time in the kit's sources and runs the kit's own tests against each change; a change no test
// notices (a survivor) is a test that is missing. The kit holds the one copy of what the sandbox
// and the permission layer share (path resolution, the reader of path hints, both glob dialects,
// the approver loop, the settings reader), so a slip here weakens both layers at once; the
// sandbox's and permission's wrappers over it are mutated by their own configs. One file:
// `pnpm mutate:policy-kit --mutate packages/policy-kit/src/resolve-path.ts`.
//
// The tests run through the repository's vitest config, whose aliases are computed from where the
// config file is, so in Stryker's copy they resolve to the copy's (mutated) sources. The copy goes
// under coverage/, which git and Biome already ignore. Results: coverage/mutation/policy-kit.json.

import { fileURLToPath } from 'node:url';

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'pnpm',
  // The permission config exports the vitest runner that switches a static mutant on before the
  // modules load (see its comment); the kit's limits (MAX_SYMLINKS, PATH_MAX, MAX_PATHS_PER_CALL,
  // MAX_SETTINGS_BYTES) and glob tables are module-level constants, so static mutants matter here.
  plugins: [
    '@stryker-mutator/vitest-runner',
    fileURLToPath(new URL('./stryker.permission.config.mjs', import.meta.url)),
  ],
  testRunner: 'vitest-static-aware',
  vitest: { configFile: 'vitest.config.ts', related: false },
  // The kit's tests only: a mutant in a shared primitive must be killed where the primitive lives,
  // not only by an interceptor's end-to-end test that happens to reach it.
  testFiles: ['packages/policy-kit/src/**/*.test.ts'],
  mutate: [
    'packages/policy-kit/src/*.ts',
    '!packages/policy-kit/src/**/*.test.ts',
    // Re-exports only.
    '!packages/policy-kit/src/index.ts',
  ],
  coverageAnalysis: 'perTest',
  // Each static mutant costs a run of every kit test file (a few seconds).
  ignoreStatic: false,
  // Two cores, shared with other runs: one test process.
  concurrency: 1,
  timeoutMS: 30_000,
  tempDirName: 'coverage/.stryker-tmp-policy-kit',
  ignorePatterns: ['dist', 'coverage', 'docs', 'bench', 'examples', '.turbo', '**/*.tsbuildinfo'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'coverage/mutation/policy-kit.html' },
  jsonReporter: { fileName: 'coverage/mutation/policy-kit.json' },
  thresholds: { high: 90, low: 85, break: null },
};
