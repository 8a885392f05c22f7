import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// A real Node process, because what is tested is whether the process stays alive: a test inside
// vitest's worker cannot see that (the worker is kept alive by vitest itself).
const dir = mkdtempSync(join(tmpdir(), 'registry-lifetime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a call whose body waits only on its signal keeps the process alive until it times out', () => {
  const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
  const script = join(dir, 'main.mts');
  writeFileSync(
    script,
    `import { createToolRegistry } from ${JSON.stringify(entry)};
const registry = createToolRegistry({ timeoutMs: 50, timeoutGraceMs: 20 });
registry.register({
  name: 'wait',
  description: 'waits until stopped',
  parameters: { type: 'object' },
  execute: (_args, exec) => new Promise((_resolve, reject) => {
    exec.signal.addEventListener('abort', () => reject(exec.signal.reason));
  }),
});
const result = await registry.execute({ callId: 'c', name: 'wait', arguments: {} });
console.log(JSON.stringify(result.error));
`,
  );
  const run = spawnSync(process.execPath, ['--import', 'tsx', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(JSON.parse(run.stdout.trim())).toMatchObject({ code: 'TIMEOUT' });
});
