import { beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, runCli, tempDir, writeConfig } from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const hash = (c: string) => c.repeat(64);
function project() {
  const dir = tempDir();
  writeConfig(dir, {
    exampleTools: { writable: true },
    permissions: { allow: ['write_file', 'read_file', 'list_dir'] },
    clients: [
      { name: 'alice', tokenSha256: hash('a') },
      { name: 'bob', tokenSha256: hash('b'), tools: ['list_*', 'read_file'] },
      { name: 'carol', tokenSha256: hash('c'), mode: 'plan' },
    ],
  });
  return dir;
}

describe('dsh-tools check --client: a call judged as one client of the gateway', () => {
  it("a tool outside the client's tools list is denied before any layer, naming the list", async () => {
    const cwd = project();
    const as = await runCli(
      ['check', 'write_file', '{"path":"a","content":"x"}', '--client', 'bob', '--json'],
      { cwd },
    );
    expect(as.code).toBe(1);
    const report = JSON.parse(as.stdout);
    expect(report).toMatchObject({
      client: { name: 'bob' },
      verdict: 'deny',
      decidedBy: { layer: 'client', outcome: 'vetoed', rule: 'tools: ["list_*","read_file"]' },
    });
    const allowed = await runCli(['check', 'list_dir', '{"path":"."}', '--client', 'bob'], { cwd });
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/client\s+bob/);
  });

  it("the client's permission mode decides, as serve runs its calls", async () => {
    const cwd = project();
    const call = ['check', 'write_file', '{"path":"a","content":"x"}'];
    expect((await runCli(call, { cwd })).code).toBe(0);
    expect((await runCli([...call, '--client', 'alice'], { cwd })).code).toBe(0);
    const carol = await runCli([...call, '--client', 'carol'], { cwd });
    expect(carol.code).toBe(1);
    expect(carol.stdout).toMatch(/client\s+carol \(permission mode plan\)/);
  });

  it('an unknown client is a usage error naming the clients there are', async () => {
    const cwd = project();
    const { code, stderr } = await runCli(['check', 'list_dir', '{}', '--client', 'mallory'], {
      cwd,
    });
    expect(code).toBe(2);
    expect(stderr).toContain('no such client');
    expect(stderr).toContain('"alice", "bob", "carol"');
    const bare = tempDir();
    writeConfig(bare, { exampleTools: true });
    const none = await runCli(['check', 'list_dir', '{}', '--client', 'x'], { cwd: bare });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('has no "clients" section');
  });
});
