import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { minGzipSize } from '../../../scripts/bundle-size';

it('ships at most 1 KB min+gzip', async () => {
  const size = await minGzipSize(fileURLToPath(new URL('./index.ts', import.meta.url)));
  expect(size).toBeGreaterThan(200);
  expect(size).toBeLessThanOrEqual(1024);
});
