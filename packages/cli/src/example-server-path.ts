import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The folder of this module in either build (CJS has __dirname; ESM has import.meta.url).
const here: string =
  typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));

/**
 * The example MCP server shipped in the package (`dist/example-server.mjs`). From the sources
 * (tests, `tsx`) the built copy is used, since the server is a separate program.
 */
export function exampleServerPath(): string {
  const beside = join(here, 'example-server.mjs');
  return existsSync(beside) ? beside : join(here, '..', 'dist', 'example-server.mjs');
}
