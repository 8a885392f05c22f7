import { packageBuild } from '../../tsup.base';

// Two entries: the engine, and the contained emitter (`@dsh-tools/waterfall/emitter`), so that a
// user of one does not ship the other.
export default packageBuild({ index: 'src/index.ts', emitter: 'src/emitter.ts' });
