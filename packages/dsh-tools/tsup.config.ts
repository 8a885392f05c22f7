import { packageBuild } from '../../tsup.base';

// The main entry is dual (ESM + CommonJS). `./cordis` is ESM-only: it imports @deepseek-ai/cordis,
// which is ESM-only, so a CommonJS build of it could only `require` an ES module, which Node does
// only from 20.19 on (the package claims every Node 20). Neither build cleans: the two run at
// once and would delete each other's files, so the package's build script empties dist first.
export default [
  packageBuild({ index: 'src/index.ts' }, { clean: false }),
  packageBuild({ cordis: 'src/cordis.ts' }, { format: ['esm'], clean: false }),
  packageBuild({ harness: 'src/harness.ts' }, { format: ['esm'], clean: false }),
];
