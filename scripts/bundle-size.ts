import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * The min+gzip size in bytes of what a user's bundler ships for one entry: the entry bundled with
 * everything it imports at runtime (type-only imports vanish), minified, gzipped at level 9.
 */
export async function minGzipSize(entry: string): Promise<number> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) throw new Error(`esbuild produced no output for ${entry}`);
  return gzipSync(code, { level: 9 }).length;
}
