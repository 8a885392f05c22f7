import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { assertBuilt, CLI, cleanEnv, tempDir, until, writeConfig } from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const GATED = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'gated-server.mjs');
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

describe('dsh-tools serve over stdio answers the handshake while its servers start', () => {
  it('initialize is answered before an upstream server has started; tools/list waits for it and is complete', async () => {
    const dir = tempDir();
    const gate = join(dir, 'gate');
    writeConfig(dir, {
      mcpServers: {
        gated: { command: process.execPath, args: [GATED], env: { GATE_FILE: gate } },
      },
    });
    const child = spawn(process.execPath, [CLI, 'serve'], { cwd: dir, env: cleanEnv() });
    children.push(child);
    const lines: { id?: unknown; result?: { tools?: { name: string }[] } }[] = [];
    let buffer = '';
    child.stdout.on('data', (d) => {
      buffer += d;
      for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
        lines.push(JSON.parse(buffer.slice(0, i)));
        buffer = buffer.slice(i + 1);
      }
    });
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'early', version: '1' },
      },
    });
    // The gate is closed: the upstream server cannot have started, yet the handshake is answered.
    await until(() => lines.some((l) => l.id === 1));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    writeFileSync(gate, '');
    await until(() => lines.some((l) => l.id === 2), 2400);
    const listed = lines.find((l) => l.id === 2)?.result?.tools?.map((t) => t.name);
    expect(listed).toEqual(['mcp__gated__echo', 'mcp__gated__fail', 'mcp__gated__grow']);
  });
});
