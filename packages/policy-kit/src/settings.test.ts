import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  claudeCodeSettingsFiles,
  MAX_SETTINGS_BYTES,
  readSettingsFile,
  SettingsFileError,
} from './settings';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'policy-kit-settings-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The error `readSettingsFile(file)` rejects with. */
const failure = (file: string) =>
  readSettingsFile(file).then(
    (value) => {
      throw new Error(`read an object with keys ${Object.keys(value ?? {})}`);
    },
    (error: unknown) => error as SettingsFileError,
  );

describe('claudeCodeSettingsFiles', () => {
  it("lists user, project and local, in Claude Code's merge order, absolute", () => {
    expect(claudeCodeSettingsFiles({ projectDir: '/p', home: '/h' })).toEqual([
      { scope: 'user', file: '/h/.claude/settings.json' },
      { scope: 'project', file: '/p/.claude/settings.json' },
      { scope: 'local', file: '/p/.claude/settings.local.json' },
    ]);
  });

  it('takes replacements (relative to the project) and leaves out a file given as false', () => {
    expect(
      claudeCodeSettingsFiles({
        projectDir: '/p',
        home: '/h',
        user: false,
        project: 'conf/s.json',
      }),
    ).toEqual([
      { scope: 'project', file: '/p/conf/s.json' },
      { scope: 'local', file: '/p/.claude/settings.local.json' },
    ]);
  });
});

describe('readSettingsFile', () => {
  it('reads the top-level object, skipping a byte-order mark; a missing file is undefined', async () => {
    const file = join(dir, 'bom.json');
    writeFileSync(file, '\ufeff{"hooks":{}}');
    expect(await readSettingsFile(file)).toEqual({ hooks: {} });
    expect(await readSettingsFile(join(dir, 'missing.json'))).toBeUndefined();
  });

  it('refuses a directory, naming it', async () => {
    const sub = join(dir, 'a-dir.json');
    mkdirSync(sub);
    const error = await failure(sub);
    expect(error).toBeInstanceOf(SettingsFileError);
    expect(error).toMatchObject({ file: sub, problem: 'not-a-file' });
    expect(error.message).toBe(
      `Claude Code settings ${sub} is not a file; point the loader at a JSON file`,
    );
  });

  it('refuses a file over the limit before reading it, and reads one at the limit', async () => {
    const big = join(dir, 'big.json');
    // `{"x":"` and `"}` are 8 bytes.
    writeFileSync(big, `{"x":"${'a'.repeat(MAX_SETTINGS_BYTES - 7)}"}`);
    expect(await failure(big)).toMatchObject({
      problem: 'too-large',
      detail: String(MAX_SETTINGS_BYTES + 1),
    });
    writeFileSync(big, `{"x":"${'a'.repeat(MAX_SETTINGS_BYTES - 8)}"}`);
    expect(Object.keys((await readSettingsFile(big)) ?? {})).toEqual(['x']);
  });

  it('refuses what is not JSON, and JSON that is not an object', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{ "hooks": ');
    const notJson = await failure(file);
    expect(notJson.problem).toBe('not-json');
    expect(notJson.reason).toMatch(/^is not valid JSON \(.+\); fix the file, or leave it out$/);
    for (const [text, what] of [
      ['[1]', 'an array'],
      ['null', 'null'],
      ['7', '7'],
    ]) {
      writeFileSync(file, text as string);
      expect(await failure(file)).toMatchObject({ problem: 'not-an-object', detail: what });
    }
  });

  it('refuses a path it cannot look up (under a regular file), naming the system error', async () => {
    const file = join(dir, 'plain.json');
    writeFileSync(file, '{}');
    const error = await failure(join(file, 'settings.json'));
    expect(error).toMatchObject({ problem: 'unreadable' });
    expect(error.detail).toMatch(/ENOTDIR/);
  });
});
