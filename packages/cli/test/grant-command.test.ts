/**
 * `dsh-tools grant add | list | revoke`, run as the built bin, on the config's Redis store, and
 * seen by a gateway built from the same config (as `serve` builds it).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../src/gateway';
import { assertBuilt, loadedIn, runCli, tempDir, writeConfig } from './helpers';
import { freePort, hasRedisServer, type RedisServer, startRedis } from './redis-server';

describe('dsh-tools grant', () => {
  beforeAll(() => assertBuilt());

  it('without a "state" section, says that grants for a running serve need one (exit 2)', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { mcpServers: {}, permissions: {} });
    const result = await runCli(['grant', 'list', '--config', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${config} has no "state" section`);
    expect(result.stderr).toContain('Grants for a running serve need a shared store');
  });

  it('refuses a malformed rule, duration or use count before touching the store (exit 2)', async () => {
    const dir = tempDir();
    // A store nobody listens on: reaching it would fail with exit 3, not 2.
    const port = await freePort();
    const config = writeConfig(dir, {
      mcpServers: {},
      permissions: {},
      state: { redis: `redis://127.0.0.1:${port}`, deadlineMs: 200 },
    });
    const rule = await runCli(['grant', 'add', 'Bash(', '--config', config]);
    expect(rule.code).toBe(2);
    expect(rule.stderr).toContain('opens "(" but does not end with ")"');
    const duration = await runCli(['grant', 'add', 'Bash(ls)', '--for', '5x', '--config', config]);
    expect(duration.code).toBe(2);
    expect(duration.stderr).toContain('--for "5x" is not a duration');
    const uses = await runCli(['grant', 'add', 'Bash(ls)', '--uses', '0', '--config', config]);
    expect(uses.code).toBe(2);
    expect(uses.stderr).toContain('--uses must be a whole number above 0');
  });

  it('a store that does not answer is named, password hidden (exit 3)', async () => {
    const dir = tempDir();
    const port = await freePort();
    const config = writeConfig(dir, {
      mcpServers: {},
      permissions: {},
      state: { redis: `redis://u:hunter2@127.0.0.1:${port}`, deadlineMs: 200 },
    });
    const result = await runCli(['grant', 'add', 'Bash(ls)', '--config', config]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`redis://u:***@127.0.0.1:${port}`);
    expect(result.stderr).not.toContain('hunter2');
  });
});

describe.runIf(hasRedisServer())('dsh-tools grant on a real Redis, seen by a gateway', () => {
  let server: RedisServer;
  let gateway: Gateway;
  let config: string;
  beforeAll(async () => {
    assertBuilt();
    server = await startRedis();
    const dir = tempDir();
    mkdirSync(join(dir, 'out'));
    const settings = {
      mcpServers: {},
      exampleTools: { writable: true },
      permissions: {},
      state: { redis: server.url, prefix: 'cmd:', deadlineMs: 1000 },
    };
    config = writeConfig(dir, settings);
    gateway = await buildGateway(loadedIn(dir, settings));
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.stop();
  });

  let calls = 0;
  const write = async () => {
    const result = await gateway.registry.execute({
      callId: `c${++calls}`,
      name: 'write_file',
      arguments: { path: `out/${calls}.txt`, content: 'x' },
    });
    return result.isError ? (result.error?.code ?? 'no code') : 'ran';
  };
  const list = async () => {
    const result = await runCli(['grant', 'list', '--json', '--config', config]);
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout).grants as { id: string; usesLeft?: number }[];
  };

  it('add, use, list, revoke: the gateway applies what the operator grants, and stops at the revoke', async () => {
    expect(await write()).toBe('DENIED');
    const added = await runCli([
      'grant',
      'add',
      'write_file',
      '--uses',
      '3',
      '--for',
      '1h',
      '--json',
      '--config',
      config,
    ]);
    expect(added.code).toBe(0);
    const { grant } = JSON.parse(added.stdout);
    expect(grant).toMatchObject({ rule: 'write_file', usesLeft: 3, origin: { by: 'operator' } });
    expect(grant.expiresAt - Date.now()).toBeGreaterThan(3_500_000);
    await expect.poll(write).toBe('ran');
    expect(await list()).toMatchObject([{ id: grant.id, usesLeft: 2 }]);

    const text = await runCli(['grant', 'list', '--config', config]);
    expect(text.stdout).toContain(`${grant.id}  write_file  (2 uses left, until `);
    expect(text.stdout).toContain(', by operator)');

    const revoked = await runCli(['grant', 'revoke', grant.id, '--config', config]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked  ${grant.id}`);
    expect(await write()).toBe('DENIED');
    expect(await list()).toEqual([]);
    const again = await runCli(['grant', 'revoke', grant.id, '--config', config]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`No grant "${grant.id}"`);
  });
});
