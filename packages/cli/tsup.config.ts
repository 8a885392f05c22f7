import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { packageBuild } from '../../tsup.base';

// The two builds below run in parallel, so neither may clean dist/: it is emptied once, here.
rmSync('dist', { recursive: true, force: true });

export default [
  // The library entry (loadConfig, buildGateway, serveGatewayHttp, …): dual ESM + CJS with types.
  packageBuild(undefined, { clean: false }),
  // The programs: the `dsh-tools` bin and the example MCP server of the embedded default config.
  // ESM only, no declarations; `clean: false` so that they do not delete the library build.
  // commander and picocolors are bundled in: loaded from ESM, a CommonJS package costs a parse by
  // Node's export lexer on every start, and they are all `--help` loads (their licences go to
  // dist/cli.LICENSES.txt). Their CommonJS code requires Node's built-ins, so every chunk gets a
  // `require` of its own.
  defineConfig({
    entry: { cli: 'src/cli.ts', 'example-server': 'src/example-server.ts' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    tsconfig: 'tsconfig.build.json',
    target: 'node20',
    platform: 'node',
    dts: false,
    clean: false,
    treeshake: true,
    noExternal: ['commander', 'picocolors'],
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __dshCreateRequire } from 'node:module';\nconst require = __dshCreateRequire(import.meta.url);",
    },
    onSuccess: async () => {
      const licences = ['commander', 'picocolors'].map(
        (name) => `${name}\n\n${readFileSync(`node_modules/${name}/LICENSE`, 'utf8')}`,
      );
      writeFileSync('dist/cli.LICENSES.txt', licences.join(`\n${'-'.repeat(72)}\n\n`));
    },
  }),
  // inspect's tokenizer: the o200k encoding with gpt-tokenizer's code bundled in (a development
  // dependency, so only this one encoding ships), loaded by tokenCounter() from the library and
  // the bin alike. Its licence goes beside it.
  defineConfig({
    entry: { o200k: 'src/o200k.ts' },
    format: ['esm'],
    outExtension: () => ({ js: '.mjs' }),
    tsconfig: 'tsconfig.build.json',
    target: 'node20',
    platform: 'node',
    dts: false,
    clean: false,
    minify: true,
    noExternal: ['gpt-tokenizer'],
    onSuccess: async () => {
      copyFileSync('node_modules/gpt-tokenizer/LICENSE', 'dist/o200k.LICENSE.txt');
    },
  }),
];
