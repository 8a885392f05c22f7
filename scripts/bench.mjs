// Runs every bench/*.bench.ts (or those named on the command line) one after another, each in
// its own process so that one suite's garbage and JIT state do not colour the next.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../bench/', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const file of files) {
  console.log(`\n# ${file}`);
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--expose-gc', file], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
