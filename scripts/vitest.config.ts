import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';

/**
 * The tests of the repository's own scripts (the release check), a project of their own because
 * they test no package. Run alone with `pnpm vitest run --config scripts/vitest.config.ts`; the root
 * vitest.config.ts lists this file among its projects so that `pnpm test` runs them too.
 */
export default defineProject({
  test: {
    name: 'scripts',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    testTimeout: 60_000,
  },
});
