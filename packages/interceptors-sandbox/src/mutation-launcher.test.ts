/**
 * The launcher (the host bash that becomes bubblewrap, or the program of an unconfined run):
 * variables a run is given reach only the program, never the launcher's own start-up. Written for
 * the mutation run of launcher.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterTests, makeTree } from '../test/fixtures';
import { createSandboxRunner } from './index';

cleanUpAfterTests();

describe('the launcher ignores start-up variables a run is given', () => {
  // Unconfined (no bubblewrap, allowUnsandboxed): the launcher gets the run's environment, so
  // only its `-p` keeps BASH_ENV from running a file before anything else.
  it('BASH_ENV given to an unconfined run is not sourced by the launcher', async () => {
    const t = await makeTree();
    await writeFile(`${t.base}/startup.sh`, `echo sourced >> ${t.base}/marker\n`);
    const r = await createSandboxRunner({
      mode: 'workspace-write',
      cwd: t.ws,
      bwrapPath: '/nonexistent/bwrap',
      allowUnsandboxed: true,
    }).run(['true'], { env: { BASH_ENV: `${t.base}/startup.sh` }, timeoutMs: 20_000 });
    expect(r).toMatchObject({ exitCode: 0, sandboxed: false });
    await expect(readFile(`${t.base}/marker`, 'utf8')).rejects.toThrow(/ENOENT/);
    await t.cleanup();
  });
});
