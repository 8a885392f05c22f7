/**
 * The scripts the reader models judge (scripts.ts): a sed script, an awk program, a jq filter.
 * Each case fails under a change the mutation run (`pnpm mutate:permission`) found surviving, or
 * under the old code of a fix made in that round.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bash, makeProject } from '../../../test/helpers';
import { type PermissionInterceptor, permissionInterceptor } from '../../index';
import { loadShellParser } from '../parser';

const { root, home } = makeProject();
let policy: PermissionInterceptor;
beforeAll(async () => {
  await loadShellParser();
  policy = permissionInterceptor({
    cwd: root,
    home,
    rules: {
      allow: ['Bash(awk:*)', 'Bash(gawk:*)', 'Bash(sed:*)', 'Bash(jq:*)'],
      deny: ['Read(./.env)', 'Edit(./src/**)', 'Bash(rm:*)'],
    },
  });
  await policy.ready;
});
const explain = (line: string) => policy.explain(bash(line));

describe('gawk calls a function by a name held in a variable, system() too', () => {
  // Before, only `system(` spelled out was seen: `f = "sys" "tem"; @f("cmd")` was allowed under
  // Bash(awk:*), and gawk ran cmd.
  const attack = `gawk 'BEGIN { f = "sys" "tem"; @f("touch src/pwned") }'`;
  const hasGawk = spawnSync('gawk', ['--version']).status === 0;
  it.skipIf(!hasGawk)('runs the command (run for real)', () => {
    const dir = makeProject().root;
    spawnSync('bash', ['-c', attack], { cwd: dir });
    expect(existsSync(join(dir, 'src', 'pwned'))).toBe(true);
  });
  it.each([
    attack,
    `awk 'BEGIN { f = "sys" "tem"; @f("touch src/pwned") }'`,
    `awk '{ @f($0) }' README.md`,
    `awk '{ @ns::f($0) }' README.md`,
    `awk '{ @f ($0) }' README.md`,
  ])('%s: asked', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('ask');
    expect(d.reason).toContain('reaches beyond its input');
  });
  it.each([
    `awk '{ print $1 }' README.md`,
    `awk '$1 ~ /@x/' README.md`,
    `awk '{ print "@f(" }' README.md`,
  ])('%s: no indirect call, allowed', async (line) => {
    const d = await explain(line);
    expect(d.behavior, d.reason).toBe('allow');
  });
});
