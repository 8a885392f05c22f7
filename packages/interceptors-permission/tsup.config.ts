import { copyFileSync } from 'node:fs';
import { packageBuild } from '../../tsup.base';

// shims: the CommonJS build locates the shell grammar's wasm through `import.meta.url`.
// The grammar's wasm and its licence are copied beside the bundles after each build: the package
// ships them instead of depending on tree-sitter-bash (a development dependency), whose C sources,
// native prebuilds and install script no user needs.
export default packageBuild(undefined, {
  shims: true,
  onSuccess: async () => {
    copyFileSync(
      'node_modules/tree-sitter-bash/tree-sitter-bash.wasm',
      'dist/tree-sitter-bash.wasm',
    );
    copyFileSync('node_modules/tree-sitter-bash/LICENSE', 'dist/tree-sitter-bash.LICENSE.txt');
  },
});
