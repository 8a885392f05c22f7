import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bashHook, decisionJson, makeTempDir, setup } from '../test/helpers';
import { loadClaudeCodeHooks } from './settings';

let dir: string;
let cleanup: () => Promise<void>;
let home: string;
let project: string;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  home = join(dir, 'home');
  project = join(dir, 'project');
  await mkdir(join(home, '.claude'), { recursive: true });
  await mkdir(join(project, '.claude'), { recursive: true });
});
afterEach(async () => {
  await cleanup();
});

const settings = (hooks: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, ...extra, hooks }, null, 2);

const userFile = () => join(home, '.claude', 'settings.json');

describe('loadClaudeCodeHooks', () => {
  it('reads user, project and local settings in that order, each hook remembering its file', async () => {
    const entry = (command: string) => ({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }],
    });
    await writeFile(userFile(), settings(entry('user-hook')));
    await writeFile(join(project, '.claude', 'settings.json'), settings(entry('project-hook')));
    await writeFile(join(project, '.claude', 'settings.local.json'), settings(entry('local-hook')));
    const loaded = await loadClaudeCodeHooks({ projectDir: project, user: userFile() });
    expect(loaded.map((l) => l.source)).toEqual([
      userFile(),
      join(project, '.claude', 'settings.json'),
      join(project, '.claude', 'settings.local.json'),
    ]);
    const { runs, call } = setup(loaded, { cwd: project });
    await call('Bash', { command: 'x' });
    // The three commands do not exist: each fails (and blocks), and each record names its file.
    expect(runs.map((r) => [r.hook.command, r.hook.source]).sort()).toEqual(
      [
        ['local-hook', join(project, '.claude', 'settings.local.json')],
        ['project-hook', join(project, '.claude', 'settings.json')],
        ['user-hook', userFile()],
      ].sort(),
    );
  });

  it('skips missing files, files without hooks, and files turned off with false', async () => {
    await writeFile(userFile(), JSON.stringify({ model: 'x' }));
    await writeFile(
      join(project, '.claude', 'settings.json'),
      settings({ PreToolUse: [{ hooks: [{ type: 'command', command: 'p' }] }] }),
    );
    expect(await loadClaudeCodeHooks({ projectDir: project, user: userFile() })).toHaveLength(1);
    expect(
      await loadClaudeCodeHooks({ projectDir: project, user: userFile(), project: false }),
    ).toEqual([]);
    expect(await loadClaudeCodeHooks({ projectDir: join(dir, 'nowhere'), user: false })).toEqual(
      [],
    );
  });

  it('does not honour disableAllHooks (a project must not switch off the user guard)', async () => {
    await writeFile(
      userFile(),
      settings({ PreToolUse: [{ hooks: [{ type: 'command', command: 'guard' }] }] }),
    );
    await writeFile(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({ disableAllHooks: true }),
    );
    const loaded = await loadClaudeCodeHooks({ projectDir: project, user: userFile() });
    expect(loaded.map((l) => l.source)).toEqual([userFile()]);
  });

  it('names the file on invalid JSON, a non-object, a bad hook and an invalid regex', async () => {
    const file = join(project, '.claude', 'settings.json');
    const load = () => loadClaudeCodeHooks({ projectDir: project, user: false });
    await writeFile(file, '{ "hooks": ');
    await expect(load()).rejects.toThrow(`Claude Code settings ${file} is not valid JSON`);
    await writeFile(file, '[1]');
    await expect(load()).rejects.toThrow(/holds an array; expected an object/);
    await writeFile(file, settings({ PreToolUse: [{ hooks: [{ type: 'command', command: 1 }] }] }));
    await expect(load()).rejects.toThrow(
      `Hooks from ${file}: hooks.PreToolUse[0].hooks[0].command is 1; expected a non-empty shell command line.`,
    );
    await writeFile(
      file,
      settings({ PreToolUse: [{ matcher: '*(', hooks: [{ type: 'command', command: 'x' }] }] }),
    );
    await expect(load()).rejects.toThrow(SyntaxError);
  });

  it('refuses a directory and an oversized file, and reads a BOM-prefixed file', async () => {
    const file = join(project, '.claude', 'settings.json');
    await mkdir(file);
    await expect(loadClaudeCodeHooks({ projectDir: project, user: false })).rejects.toThrow(
      /is not a file/,
    );
    const big = join(dir, 'big.json');
    await writeFile(big, `{"x":"${'a'.repeat(5 * 1_048_576)}"}`);
    await expect(
      loadClaudeCodeHooks({ projectDir: project, user: big, project: false, local: false }),
    ).rejects.toThrow(/over the 4194304-byte limit/);
    const bom = join(dir, 'bom.json');
    await writeFile(
      bom,
      `\ufeff${settings({ PreToolUse: [{ hooks: [{ type: 'command', command: 'b' }] }] })}`,
    );
    expect(
      await loadClaudeCodeHooks({ projectDir: project, user: bom, project: false, local: false }),
    ).toHaveLength(1);
  });

  it('loaded hooks run: a real project settings file denies through the registry', async () => {
    const hook = await bashHook(project, 'guard.sh', `echo '${decisionJson('deny', 'from file')}'`);
    await writeFile(
      join(project, '.claude', 'settings.json'),
      settings({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook }] }] }),
    );
    const loaded = await loadClaudeCodeHooks({ projectDir: project, user: false });
    const { call } = setup(loaded, { cwd: project });
    const result = await call('Bash', { command: 'x' });
    expect(result.error?.message).toContain('from file');
    expect(result.error?.message).toContain(join(project, '.claude', 'settings.json'));
  });
});
