import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CLI, cleanEnv, runCli, tempDir } from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const here = dirname(fileURLToPath(import.meta.url));
const EXAMPLE = join(here, '..', 'example', 'dsh-tools.json');
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

describe('the newcomer path: the example config copied into a new folder', () => {
  it('serve starts with every server of the copy, and its notes tools answer', async () => {
    const folder = tempDir('dsh-newcomer-');
    copyFileSync(EXAMPLE, join(folder, 'dsh-tools.json'));
    const client = new Client({ name: 'newcomer', version: '1.0.0' });
    clients.push(client);
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve'],
        cwd: folder,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['read_file', 'list_dir', 'mcp__notes__search_notes']),
    );
    const found = await client.callTool({
      name: 'mcp__notes__search_notes',
      arguments: { query: 'welcome' },
    });
    expect(found.isError).toBe(false);
  });

  it('inspect on the copy connects the notes server (exit 0, no failure)', async () => {
    const folder = tempDir('dsh-newcomer-');
    copyFileSync(EXAMPLE, join(folder, 'dsh-tools.json'));
    const { code, stderr, stdout } = await runCli(['inspect'], { cwd: folder });
    expect({ code, stderr: stderr.includes('failed to start') }).toEqual({
      code: 0,
      stderr: false,
    });
    expect(stdout).toContain('mcp__notes__search_notes');
  });
});
