// Mutation testing of the sandbox's runner and path check (`pnpm mutate:sandbox`): Stryker
// changes one thing at a time in these files and runs the sandbox's tests against each change; a
// change no test notices (a survivor) is a test that is missing. One file only:
// `pnpm mutate:sandbox --mutate packages/interceptors-sandbox/src/path-args.ts`.
//
// The tests run through the repository's vitest config, whose aliases are computed from where the
// config file is, so in Stryker's copy they resolve to the copy's (mutated) sources. The copy goes
// under coverage/, which git and Biome already ignore.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'pnpm',
  plugins: ['@stryker-mutator/vitest-runner'],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.config.ts', related: false },
  // Only the sandbox project's tests: other packages import the sandbox too, but they would only
  // make every mutant slower to judge, and a mutant must be killed by the sandbox's own tests.
  testFiles: ['packages/interceptors-sandbox/src/**/*.test.ts'],
  // resolve-path.ts and path-args.ts are the sandbox's own part of path handling now (argument
  // checks, the file: URL readings); the resolver and the hint reader they wrap are the policy
  // kit's and are mutated by `pnpm mutate:policy-kit` against the kit's tests.
  mutate: [
    'packages/interceptors-sandbox/src/{runner,spawn-and-wait,masks,bwrap-args,policy,resolve-path,path-args}.ts',
  ],
  coverageAnalysis: 'perTest',
  // A static mutant (one in code that runs when a module loads, like `const isInside = (…) =>`)
  // needs the module loaded afresh, and under this runner it is not: such a mutant ran every test
  // and "survived" though the same change, made by hand, fails 107 of them. They are left out
  // rather than counted as survivors, and each would cost a whole run of the suite.
  ignoreStatic: true,
  // The sandbox tests start real processes and bubblewrap: two cores, one test process.
  concurrency: 1,
  timeoutMS: 30_000,
  tempDirName: 'coverage/.stryker-tmp',
  ignorePatterns: ['dist', 'coverage', 'docs', 'bench', 'examples', '.turbo', '**/*.tsbuildinfo'],
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'coverage/mutation/sandbox.html' },
  thresholds: { high: 90, low: 85, break: null },
};
