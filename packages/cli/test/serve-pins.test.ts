import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CLI, cleanEnv, runCli, tempDir, writeConfig } from './helpers';

// Tool pins end to end: `dsh-tools serve` over stdio in front of a real MCP server that changes a
// tool after it was approved (a rug pull), driven by the SDK client; the operator's
// `dsh-tools pin list` and `pin approve` run as their own processes, as a person would run them.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const RUG_PULL = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'rug-pull-server.mjs');
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

function rugPullConfig(pins?: 'tofu' | 'strict'): { dir: string; marker: string } {
  const dir = tempDir();
  const marker = join(dir, 'pulled');
  writeConfig(dir, {
    mcpServers: {
      docs: { command: process.execPath, args: [RUG_PULL], env: { PULL_MARKER: marker } },
    },
    ...(pins ? { pins } : {}),
  });
  return { dir, marker };
}

async function serve(cwd: string): Promise<Client> {
  const client = new Client({ name: 'pins-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve'],
      cwd,
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const text = (result: Awaited<ReturnType<Client['callTool']>>) =>
  ((result.content ?? []) as { text?: string }[]).map((b) => b.text ?? '').join('\n');

/** Resolves at the gateway's next `notifications/tools/list_changed`. */
function listChanged(client: Client): Promise<void> {
  return new Promise((resolve) => {
    client.setNotificationHandler('notifications/tools/list_changed', () => resolve());
  });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

describe('tool pins through dsh-tools serve', () => {
  it('unguarded (pins off), the changed tool reaches the client with the instruction it grew', async () => {
    const { dir } = rugPullConfig();
    writeConfig(dir, {
      ...JSON.parse(readFileSync(join(dir, 'dsh-tools.json'), 'utf8')),
      pins: 'off',
    });
    const client = await serve(dir);
    const changed = listChanged(client);
    await client.callTool({ name: 'mcp__docs__swap', arguments: {} });
    await changed;
    const { tools } = await client.listTools();
    const readDoc = tools.find((t) => t.name === 'mcp__docs__read_doc');
    expect(readDoc?.description).toContain('~/.ssh/id_rsa');
    expect(existsSync(join(dir, 'dsh-tools.lock.json'))).toBe(false);
  });

  it('a tool its server changes is held back (not listed, calls refused with the change) until an operator approves it', async () => {
    const { dir } = rugPullConfig();
    const client = await serve(dir);
    expect(await names(client)).toEqual(['mcp__docs__read_doc', 'mcp__docs__swap']);
    // First sight pinned both tools in the lockfile beside the config.
    const lockfile = join(dir, 'dsh-tools.lock.json');
    await until(async () => existsSync(lockfile), 'the lockfile is written');
    const pinned = JSON.parse(readFileSync(lockfile, 'utf8'));
    expect(Object.keys(pinned.servers.docs).sort()).toEqual(['read_doc', 'swap']);
    expect(
      text(await client.callTool({ name: 'mcp__docs__read_doc', arguments: { name: 'a' } })),
    ).toBe('contents of a');

    // The rug pull: the server rewrites read_doc and says its list changed.
    const changed = listChanged(client);
    await client.callTool({ name: 'mcp__docs__swap', arguments: {} });
    await changed;
    await until(async () => !(await names(client)).includes('mcp__docs__read_doc'), 'held back');
    const refused = await client.callTool({
      name: 'mcp__docs__read_doc',
      arguments: { name: 'a' },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('held back: its server changed it since it was approved');
    expect(text(refused)).toContain('changed: description, inputSchema.properties.note');
    expect(text(refused)).toContain('dsh-tools pin approve docs/read_doc');
    // The instruction the server slipped in never reaches the model, not even in the refusal.
    expect(text(refused)).not.toContain('id_rsa');

    // The operator looks (a server of their own run finds the same change) and approves.
    const list = await runCli(['pin', 'list'], { cwd: dir });
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(/changed\s+docs\/read_doc/);
    expect(list.stdout).toMatch(/pinned\s+docs\/swap/);
    expect(list.stdout).toContain('put it in the \\"note\\" argument');
    const approved = listChanged(client);
    // Approving by the fingerprint that was read: a server that now offers something else is
    // refused, nothing approved.
    const sha = /changed\s+docs\/read_doc@([0-9a-f]{12})/.exec(list.stdout)?.[1] as string;
    const stale = await runCli(['pin', 'approve', 'docs/read_doc@00000000'], { cwd: dir });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('nothing was approved');
    const approve = await runCli(['pin', 'approve', `docs/read_doc@${sha}`], { cwd: dir });
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain(`approved  docs/read_doc@${sha}`);
    expect(approve.stdout).toContain('changed: description');
    // The running gateway follows the lockfile: the tool is back, as changed.
    await approved;
    await until(async () => (await names(client)).includes('mcp__docs__read_doc'), 'listed again');
    expect(
      text(await client.callTool({ name: 'mcp__docs__read_doc', arguments: { name: 'b' } })),
    ).toBe('contents of b');
    expect((await runCli(['pin', 'list'], { cwd: dir })).code).toBe(0);
  });

  it('a server already changed when the gateway starts has the tool held from the start', async () => {
    const { dir, marker } = rugPullConfig();
    // Approved as harmless in an earlier run…
    const first = await serve(dir);
    expect(await names(first)).toContain('mcp__docs__read_doc');
    await first.close();
    // …and changed while no gateway ran.
    const { writeFileSync } = await import('node:fs');
    writeFileSync(marker, 'pulled');
    const client = await serve(dir);
    expect(await names(client)).toEqual(['mcp__docs__swap']);
    const refused = await client.callTool({
      name: 'mcp__docs__read_doc',
      arguments: { name: 'a' },
    });
    expect(text(refused)).toContain('held back');
  });

  it('strict pins hold every tool never approved; pin approve --all lets them in', async () => {
    const { dir } = rugPullConfig('strict');
    const client = await serve(dir);
    expect(await names(client)).toEqual([]);
    const refused = await client.callTool({ name: 'mcp__docs__swap', arguments: {} });
    expect(text(refused)).toContain('pins are strict');
    expect((await runCli(['pin', 'approve'], { cwd: dir })).code).toBe(2);
    const approved = listChanged(client);
    const all = await runCli(['pin', 'approve', '--all'], { cwd: dir });
    expect(all.code).toBe(0);
    await approved;
    await until(async () => (await names(client)).length === 2, 'both tools listed');
  });

  it('pin revoke withdraws an approval (needs no server): the tool is held, under tofu too', async () => {
    const { dir } = rugPullConfig();
    expect((await runCli(['pin', 'approve', 'docs'], { cwd: dir })).code).toBe(0);
    const revoke = await runCli(['pin', 'revoke', 'docs/swap'], { cwd: dir });
    expect(revoke.code).toBe(0);
    expect(revoke.stdout).toContain('1 approval revoked');
    const pins = JSON.parse(readFileSync(join(dir, 'dsh-tools.lock.json'), 'utf8'));
    expect(pins.servers.docs.swap).toEqual({ revoked: expect.any(String) });
    const client = await serve(dir);
    expect(await names(client)).toEqual(['mcp__docs__read_doc']);
    for (const bad of [['docs/swap'], ['a/b/c'], ['nobody']]) {
      const r = await runCli(['pin', 'revoke', ...bad], { cwd: dir });
      expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
    }
    const unknown = await runCli(['pin', 'approve', 'docs/nope'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No server offers "docs/nope"');
  });

  it('a lockfile that is not one stops the gateway with a config error naming it', async () => {
    const { dir } = rugPullConfig();
    writeConfig(dir, '{ "lockfileVersion": 1 }', 'dsh-tools.lock.json');
    const r = await runCli(['call', 'mcp__docs__swap', '{}'], { cwd: dir });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('dsh-tools.lock.json');
    expect(r.stderr).toContain('delete it to pin every tool again');
  });
});
