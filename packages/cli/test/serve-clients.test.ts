import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertBuilt,
  cleanEnv,
  runCli,
  type ServeProcess,
  startServe,
  tempDir,
  until,
  writeConfig,
} from './helpers';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });
beforeAll(() => assertBuilt());

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const clients: Client[] = [];
const serves: ServeProcess[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.allSettled(serves.map((s) => s.stop()));
});

function clientsConfig(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'tokens'));
  writeFileSync(join(dir, 'tokens', 'bob'), `${BOB}\n`);
  writeConfig(dir, {
    exampleTools: { writable: false },
    permissions: { allow: ['read_file', 'list_dir'] },
    clients: [
      { name: 'alice', tokenSha256: createHash('sha256').update(ALICE).digest('hex') },
      { name: 'bob', tokenFile: 'tokens/bob', tools: ['read_file'] },
    ],
  });
  return dir;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'clients-test', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('dsh-tools serve --http with a clients section', () => {
  it('each client authenticates with its own token (hash in the config, or a token file) and sees its own tools', async () => {
    const serve = await startServe([], {
      cwd: clientsConfig(),
      env: cleanEnv({ DSH_TOOLS_TOKEN: 'ignored-shared-token-0123456789' }),
    });
    serves.push(serve);
    await until(() => serve.stderr().includes('clients: alice, bob'));
    const alice = await connect(serve.url, ALICE);
    const bob = await connect(serve.url, BOB);
    expect((await alice.listTools()).tools.map((t) => t.name)).toEqual(['read_file', 'list_dir']);
    expect((await bob.listTools()).tools.map((t) => t.name)).toEqual(['read_file']);
    // With a clients section, the shared token opens nothing.
    await expect(connect(serve.url, 'ignored-shared-token-0123456789')).rejects.toThrow();
  });

  it('refuses to start when a client’s token file is missing, naming the client and the file', async () => {
    const dir = clientsConfig();
    writeConfig(dir, {
      clients: [{ name: 'carol', tokenFile: 'tokens/carol' }],
    });
    const { code, stderr } = await runCli(['serve', '--http', '127.0.0.1:0'], { cwd: dir });
    expect(code).toBe(5);
    expect(stderr).toContain('client "carol"');
    expect(stderr).toContain('tokens/carol');
  });
});
