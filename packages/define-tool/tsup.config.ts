import { packageBuild } from '../../tsup.base';

// The /zod3 entry imports the main entry's types by package name, kept external: its declarations
// then import them from "@dsh-tools/define-tool" instead of sharing a declaration chunk, whose
// relative import the .d.ts -> .d.mts rename would leave pointing at a file that is gone.
export default packageBuild(
  { index: 'src/index.ts', zod3: 'src/zod3.ts' },
  { external: ['@dsh-tools/define-tool'] },
);
