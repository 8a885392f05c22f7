import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bash, read } from '../test/helpers';
import { loadClaudeSettings, PermissionRuleError, permissionInterceptor } from './index';

const layout = () => {
  const base = mkdtempSync(join(tmpdir(), 'settings-'));
  const home = join(base, 'home');
  const project = join(base, 'project');
  mkdirSync(join(home, '.claude'), { recursive: true });
  mkdirSync(join(project, '.claude'), { recursive: true });
  const write = (file: string, data: unknown) =>
    writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return {
    home,
    project,
    user: join(home, '.claude', 'settings.json'),
    shared: join(project, '.claude', 'settings.json'),
    local: join(project, '.claude', 'settings.local.json'),
    write,
  };
};

describe('loadClaudeSettings', () => {
  it("merges user, project and local permissions with Claude Code precedence, keeping each rule's file", async () => {
    const l = layout();
    l.write(l.user, {
      permissions: {
        allow: ['Bash(git push:*)'],
        defaultMode: 'acceptEdits',
        additionalDirectories: ['~/notes'],
      },
    });
    l.write(l.shared, {
      permissions: { deny: ['Bash(git push:*)', 'Read(./.env)'], defaultMode: 'default' },
    });
    l.write(l.local, {
      permissions: {
        ask: ['Bash(npm publish:*)'],
        defaultMode: 'plan',
        additionalDirectories: ['../shared'],
      },
    });
    const settings = await loadClaudeSettings({ projectDir: l.project, home: l.home });
    expect(settings.mode).toBe('plan');
    expect(settings.additionalDirectories).toEqual([
      join(l.home, 'notes'),
      join(l.project, '..', 'shared'),
    ]);
    expect(settings.files.map((f) => [f.scope, f.found])).toEqual([
      ['user', true],
      ['project', true],
      ['local', true],
    ]);
    const policy = permissionInterceptor({
      ...settings,
      mode: 'default',
      cwd: l.project,
      home: l.home,
    });
    const push = await policy.explain(bash('git push origin main'));
    expect(push.behavior).toBe('deny');
    expect(push.decidedBy).toEqual({
      kind: 'rule',
      rule: 'Bash(git push:*)',
      origin: { list: 'deny', index: 0, source: 'project settings', file: l.shared },
    });
    const publish = await policy.explain(bash('npm publish'));
    expect(publish.decidedBy).toMatchObject({
      origin: { source: 'local settings', file: l.local },
    });
  });

  it("resolves ./x against the project and /x against the settings file's directory", async () => {
    const l = layout();
    l.write(l.shared, { permissions: { deny: ['Read(./secret.txt)', 'Read(/guarded/**)'] } });
    const settings = await loadClaudeSettings({ projectDir: l.project, home: l.home });
    const policy = permissionInterceptor({ ...settings, cwd: l.project, home: l.home });
    expect((await policy.explain(read('secret.txt'))).behavior).toBe('deny');
    expect((await policy.explain(read('.claude/guarded/x'))).behavior).toBe('deny');
    expect((await policy.explain(read('guarded/x'))).behavior).toBe('allow');
  });

  it('skips missing files; injectable paths', async () => {
    const l = layout();
    const settings = await loadClaudeSettings({
      projectDir: l.project,
      home: l.home,
      userSettings: join(l.home, 'nope.json'),
    });
    expect(settings).toEqual({
      rules: [],
      additionalDirectories: [],
      files: [
        { scope: 'user', file: join(l.home, 'nope.json'), found: false },
        { scope: 'project', file: l.shared, found: false },
        { scope: 'local', file: l.local, found: false },
      ],
    });
  });

  it.each([
    ['malformed JSON', '{"permissions":', /project settings .*settings\.json is not valid JSON/],
    ['a non-object permissions block', { permissions: [] }, /"permissions" must be an object/],
    ['a non-array list', { permissions: { allow: 'Bash' } }, /"allow" must be an array/],
    [
      'a malformed rule',
      { permissions: { deny: ['Bash(rm:*'] } },
      /"Bash\(rm:\*" in project settings \(.*\), deny\[0\] opens "\(" but does not end with "\)"/,
    ],
    [
      'an unknown mode',
      { permissions: { defaultMode: 'yolo' } },
      /"defaultMode" "yolo" is not one of/,
    ],
    ['bad directories', { permissions: { additionalDirectories: [1] } }, /additionalDirectories/],
  ])('fails loading on %s, naming the file', async (_, data, message) => {
    const l = layout();
    l.write(l.shared, data);
    const error = await loadClaudeSettings({ projectDir: l.project, home: l.home }).catch((e) => e);
    expect(error).toBeInstanceOf(PermissionRuleError);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(l.shared);
  });
});
