import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { minGzipSize } from '../../../scripts/bundle-size';

const sizeOf = (entry: string) => minGzipSize(fileURLToPath(new URL(entry, import.meta.url)));

it('ships the engine in at most 1 KB min+gzip', async () => {
  const size = await sizeOf('./index.ts');
  expect(size).toBeGreaterThan(200);
  expect(size).toBeLessThanOrEqual(1024);
});

it('ships the emitter entry in at most 512 B min+gzip', async () => {
  const size = await sizeOf('./emitter.ts');
  expect(size).toBeGreaterThan(100);
  expect(size).toBeLessThanOrEqual(512);
});
