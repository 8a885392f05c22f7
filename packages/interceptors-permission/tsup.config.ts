import { packageBuild } from '../../tsup.base';

// shims: the CommonJS build locates the shell grammar's wasm through `import.meta.url`.
export default packageBuild(undefined, { shims: true });
