import { packageBuild } from '../../tsup.base';

// The main entry is dual (ESM + CommonJS). `./cordis` is ESM-only: it imports @deepseek-ai/cordis,
// which is ESM-only, so a CommonJS build of it could only `require` an ES module, which Node does
// only from 20.19 on (the package claims every Node 20). Neither build cleans: the two run at
// once and would delete each other's files, so the package's build script empties dist first.
export default [
  packageBuild({ index: 'src/index.ts' }, { clean: false }),
  // One build for both ESM-only entries, so that they share one copy of the service (and of
  // TOOL_RUNTIME_SCHEDULER, which must be the same symbol for a host and the agent loop).
  packageBuild(
    { cordis: 'src/cordis.ts', harness: 'src/harness.ts' },
    { format: ['esm'], clean: false },
  ),
];
