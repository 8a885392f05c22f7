import { packageBuild } from '../../tsup.base';

export default packageBuild({ index: 'src/index.ts', cordis: 'src/cordis.ts' });
