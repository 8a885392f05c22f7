// Runs every bench/*.bench.ts (or those whose names contain an argument) one after another, each
// in its own process so that one suite's garbage and JIT state do not colour the next.
//
// Each file is compiled with esbuild first rather than run through tsx: tsx transpiles with
// keepNames, which wraps every closure in a defineProperty call and makes closure-heavy code (a
// hand-written compose, say) several times slower than what users run. Packages stay external,
// so @dsh-tools/* resolve through node_modules to their built dist (run `pnpm build` first).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dir = fileURLToPath(new URL('../bench/', import.meta.url));
const out = `${dir}.out/`;
mkdirSync(out, { recursive: true });
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const outfile = `${out}${file.replace(/\.ts$/, '.mjs')}`;
  await build({
    entryPoints: [`${dir}${file}`],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  const run = spawnSync(process.execPath, ['--expose-gc', outfile], { cwd: dir, stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
