import { packageBuild } from '../../tsup.base';

// shims: the CommonJS build requires picomatch lazily through `import.meta.url`.
export default packageBuild(undefined, { shims: true });
