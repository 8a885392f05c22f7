// tsup's declaration build runs in a worker that drops the `outExtension` function, so with
// "type": "module" the ESM declarations come out as `.d.ts`. Node16 resolution of `.mjs` wants
// `.d.mts`: rename them and point their relative imports at the renamed files.
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dist = join(process.cwd(), 'dist');
for (const file of readdirSync(dist, { recursive: true })) {
  const name = String(file);
  if (!name.endsWith('.d.ts')) continue;
  const from = join(dist, name);
  const to = from.replace(/\.d\.ts$/, '.d.mts');
  const text = readFileSync(from, 'utf8').replace(
    /(from\s+|import\()(['"])(\.{1,2}\/[^'"]+?)(\.d\.ts|\.js|\.mjs)?\2/g,
    (_m, pre, q, spec) => `${pre}${q}${spec}.mjs${q}`,
  );
  writeFileSync(to, text);
  unlinkSync(from);
}
