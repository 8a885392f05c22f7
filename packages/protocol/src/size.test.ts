import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { minGzipSize } from '../../../scripts/bundle-size';

it('ships at most 0.5 KB min+gzip of runtime code', async () => {
  const size = await minGzipSize(fileURLToPath(new URL('./index.ts', import.meta.url)));
  expect(size).toBeGreaterThan(100);
  expect(size).toBeLessThanOrEqual(512);
});
