import type { LoadedConfig } from './config';
import { exampleServerPath } from './example-server-path';

/**
 * The config used when there is no `dsh-tools.json` and no `--config`: the example file tools on
 * `cwd` and the example notes server started over stdio with this very Node. It needs nothing
 * installed beyond this package, so `npx @dsh-tools/cli inspect` shows something real at once.
 */
export function defaultConfig(cwd: string = process.cwd()): LoadedConfig {
  return {
    config: {
      mcpServers: {
        notes: { command: process.execPath, args: [exampleServerPath()], trust: true },
      },
      exampleTools: { cwd },
    },
    file: undefined,
    baseDir: cwd,
    warnings: [],
  };
}
