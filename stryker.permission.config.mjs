// Mutation testing of the permission package's decision code (`pnpm mutate:permission`): Stryker
// changes one thing at a time in these files and runs the package's unit tests against each
// change; a change no test notices (a survivor) is a test that is missing. One file or folder:
// `pnpm mutate:permission --mutate 'packages/interceptors-permission/src/grants/*.ts'`.
//
// The tests run through the repository's vitest config, whose aliases are computed from where the
// config file is, so in Stryker's copy they resolve to the copy's (mutated) sources. The copy goes
// under coverage/, which git and Biome already ignore. Results: coverage/mutation/permission.json
// and, one file per mutant as it is judged (so a run stopped early still leaves them),
// coverage/mutation/permission-events/.

import { fileURLToPath } from 'node:url';
import { strykerPlugins as vitestPlugins } from '@stryker-mutator/vitest-runner';

// Stryker 9.6.1 runs a static mutant (one in code that runs when a module loads, like the list of
// dangerous environment variables) with "runtime" activation whenever `testFiles` is set: the
// mutant is switched on in a `beforeAll`, after the module has loaded unmutated, so every static
// mutant "survives" (with the sandbox's config, removing `BASH_ENV` from that list survived a test
// that asserts it is there). Vitest loads the modules afresh for every run of a test file, so
// switching the mutant on when the setup file loads (before the test file imports anything) is
// right for every mutant; this runner is Stryker's vitest runner with only that changed.
const vitest = vitestPlugins.find((plugin) => plugin.name === 'vitest');
const vitestStaticAware = (injector) => {
  const runner = vitest.factory(injector);
  return {
    capabilities: () => runner.capabilities(),
    init: () => runner.init(),
    dryRun: (options) => runner.dryRun(options),
    mutantRun: (options) => runner.mutantRun({ ...options, mutantActivation: 'static' }),
    dispose: () => runner.dispose(),
  };
};
vitestStaticAware.inject = vitest.factory.inject;
/** Stryker loads this file as a plugin too (see `plugins`), in every test-runner process. */
export const strykerPlugins = [
  { kind: 'TestRunner', name: 'vitest-static-aware', factory: vitestStaticAware },
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'pnpm',
  plugins: ['@stryker-mutator/vitest-runner', fileURLToPath(import.meta.url)],
  testRunner: 'vitest-static-aware',
  vitest: { configFile: 'vitest.config.ts', related: false },
  // The unit tests beside the sources only. The attack corpora (test/attacks/) start real
  // processes against a real git repository and take minutes: they prove the whole, while a
  // mutant in the decision code must be killed by a unit test.
  testFiles: ['packages/interceptors-permission/src/**/*.test.ts'],
  mutate: [
    'packages/interceptors-permission/src/{decide,grants,shell,shell/models}/*.ts',
    '!packages/interceptors-permission/src/**/*.test.ts',
    // Example policies for the README and `explain`, not decisions.
    '!packages/interceptors-permission/src/decide/examples.ts',
  ],
  coverageAnalysis: 'perTest',
  // Unlike the sandbox's config, static mutants are kept (see the runner above): the decision
  // tables are module-level constants (the dangerous environment variables, the writing
  // redirections, the program models), and a slip in one of them is what this run is for. Each
  // costs a run of every test file, which these unit tests make affordable (about 10 s).
  ignoreStatic: false,
  // Two cores, shared with other runs: one test process.
  concurrency: 1,
  timeoutMS: 30_000,
  tempDirName: 'coverage/.stryker-tmp-permission',
  ignorePatterns: ['dist', 'coverage', 'docs', 'bench', 'examples', '.turbo', '**/*.tsbuildinfo'],
  reporters: ['clear-text', 'progress', 'html', 'json', 'event-recorder'],
  htmlReporter: { fileName: 'coverage/mutation/permission.html' },
  jsonReporter: { fileName: 'coverage/mutation/permission.json' },
  eventReporter: { baseDir: 'coverage/mutation/permission-events' },
  thresholds: { high: 90, low: 85, break: null },
};
