import { packageBuild } from '../../tsup.base';

export default packageBuild({ index: 'src/index.ts', zod3: 'src/zod3.ts' });
