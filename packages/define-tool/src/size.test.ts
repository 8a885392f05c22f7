import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { minGzipSize } from '../../../scripts/bundle-size';

const entry = fileURLToPath(new URL('./index.ts', import.meta.url));

it('ships at most 1.5 KB min+gzip', async () => {
  const size = await minGzipSize(entry);
  expect(size).toBeGreaterThan(500);
  expect(size).toBeLessThanOrEqual(1536);
});

it('bundles nothing but its own sources: the protocol is imported for types only', async () => {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
  });
  const inputs = Object.keys(metafile.inputs);
  expect(inputs.length).toBeGreaterThan(1);
  for (const input of inputs) expect(input).toMatch(/^src\/[\w-]+\.ts$/);
});

it('declares no runtime dependency but @dsh-tools/protocol, and zod-to-json-schema as an optional peer', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(Object.keys(pkg.dependencies ?? {})).toEqual(['@dsh-tools/protocol']);
  expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['zod-to-json-schema']);
  expect(pkg.peerDependenciesMeta).toEqual({ 'zod-to-json-schema': { optional: true } });
});
