import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const packages = readdirSync(`${root}packages`).filter((dir) =>
  existsSync(`${root}packages/${dir}/package.json`),
);

/**
 * Tests import sibling packages by their npm names; these aliases resolve those names to the
 * sources, so `pnpm test` needs no build and a test always runs the code beside it. Subpath
 * exports (`@dsh-tools/define-tool/zod3`) map to `src/<subpath>.ts`.
 */
const alias = packages.flatMap((dir) => {
  const { name } = JSON.parse(readFileSync(`${root}packages/${dir}/package.json`, 'utf8'));
  const escaped = name.replace(/[/\\^$*+?.()|[\]{}-]/g, '\\$&');
  return [
    { find: new RegExp(`^${escaped}$`), replacement: `${root}packages/${dir}/src/index.ts` },
    {
      find: new RegExp(`^${escaped}/(?!package\\.json$)(.+)$`),
      replacement: `${root}packages/${dir}/src/$1.ts`,
    },
  ];
});

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      ...packages.map((dir) => ({
        extends: true as const,
        test: {
          name: dir,
          root: `${root}packages/${dir}`,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          typecheck: {
            enabled: true,
            include: ['src/**/*.test-d.ts'],
            tsconfig: `${root}packages/${dir}/tsconfig.json`,
          },
        },
      })),
      {
        extends: true as const,
        test: {
          name: 'examples',
          root: `${root}examples`,
          include: ['*/src/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'upstream-compat/**'],
        },
      },
      // The DeepSeek Harness's published plugins on both tools services: a project of its own, so
      // it runs alone (`--project upstream-compat`) and against the sources, like a package.
      {
        extends: true as const,
        test: {
          name: 'upstream-compat',
          root: `${root}examples/upstream-compat`,
          include: ['src/**/*.test.ts'],
        },
      },
      // The repository's own scripts (the release check).
      `${root}scripts/vitest.config.ts`,
    ],
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, where the
    // longest files (the attack corpora, the sandbox's escapes, the CLI's servers) mostly wait on
    // the processes they start. Three at least, so that those waits overlap.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
