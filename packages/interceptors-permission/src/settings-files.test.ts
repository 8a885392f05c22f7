/**
 * The settings files are read by the policy kit's reader, the one the hooks interceptor uses: the
 * two loaders once disagreed (this one read a directory's error as "cannot be read", read a file
 * of any size whole, and refused a byte-order mark as "not valid JSON").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermissionRuleError } from './decide/rules';
import { loadClaudeSettings } from './settings';

let dir: string;
let project: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'perm-settings-'));
  project = join(dir, 'project');
  mkdirSync(join(project, '.claude'), { recursive: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const only = (user: string) =>
  loadClaudeSettings({
    projectDir: project,
    home: dir,
    userSettings: user,
    projectSettings: join(dir, 'none.json'),
    localSettings: join(dir, 'none-local.json'),
  });

describe('settings files, read by the policy kit', () => {
  it('refuses a directory where a settings file should be, naming it', async () => {
    const folder = join(dir, 'folder.json');
    mkdirSync(folder);
    const error = await only(folder).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect(error.message).toBe(
      `Claude Code user settings ${folder} is not a file; point the loader at a JSON file`,
    );
  });

  it('refuses a file over 4 MiB without reading it', async () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, `{"x":"${'a'.repeat(4 * 1_048_576)}"}`);
    const error = await only(big).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect(error.message).toMatch(/over the 4194304-byte limit for a settings file/);
  });

  it('reads a file that starts with a byte-order mark', async () => {
    const bom = join(dir, 'bom.json');
    writeFileSync(bom, `\ufeff${JSON.stringify({ permissions: { deny: ['Read(./.env)'] } })}`);
    const settings = await only(bom);
    expect(settings.rules).toMatchObject([{ source: 'user settings', deny: ['Read(./.env)'] }]);
  });

  it("takes a relative settings path as the project's", async () => {
    writeFileSync(
      join(project, 'team.json'),
      JSON.stringify({ permissions: { allow: ['Bash(ls:*)'] } }),
    );
    const settings = await only('team.json');
    expect(settings.files[0]).toEqual({
      scope: 'user',
      file: join(project, 'team.json'),
      found: true,
    });
  });
});
