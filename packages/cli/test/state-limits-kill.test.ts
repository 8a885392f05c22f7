import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRedisState, type RedisState } from '../src/state-redis';
import { assertBuilt, type ServeProcess, startServe, tempDir, until, writeConfig } from './helpers';
import { RawSession, resultText } from './raw-mcp-http';
import { hasRedisServer, type RedisServer, startRedis } from './redis-server';

// A replica of `dsh-tools serve --http` SIGKILLed in the middle of a call: the slot the call held
// in the shared limits is not released by anyone, and comes free when its lease lapses, so the
// client is not locked out for good by a replica that no longer exists.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const ALICE = 'alice-kill-token-0123456789ab';

// An MCP server over stdio (newline-delimited JSON-RPC) whose `hang` never answers.
const HANGING_SERVER = `
const lines = require('node:readline').createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const m = JSON.parse(line);
  const send = (r) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, ...r }) + '\\n');
  const object = { type: 'object', properties: {} };
  if (m.method === 'initialize') {
    send({ result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'hang', version: '1.0.0' } } });
  } else if (m.method === 'tools/list') {
    send({ result: { tools: [
      { name: 'hang', description: 'Never answers.', inputSchema: object },
      { name: 'quick', description: 'Answers at once.', inputSchema: object },
    ] } });
  } else if (m.method === 'tools/call') {
    if (m.params.name === 'quick') send({ result: { content: [{ type: 'text', text: 'quick' }] } });
  } else if (m.id !== undefined) send({ result: {} });
});
`;

describe.runIf(hasRedisServer())(
  'a replica killed mid-call, with limits in the state store',
  () => {
    let redis: RedisServer;
    let state: RedisState;
    const serves: ServeProcess[] = [];
    beforeAll(async () => {
      assertBuilt();
      redis = await startRedis();
      state = await openRedisState({ redis: redis.url, prefix: 'kill-test:' });
    });
    afterAll(async () => {
      await Promise.allSettled(serves.map((s) => s.stop()));
      await state?.close();
      await redis?.stop();
    });

    it('the slot its call held is refused to the other replica, then freed when the lease lapses', async () => {
      const dir = tempDir();
      const server = join(dir, 'hanging-server.cjs');
      writeFileSync(server, HANGING_SERVER);
      writeConfig(dir, {
        mcpServers: { slow: { command: process.execPath, args: [server] } },
        clients: [
          {
            name: 'alice',
            tokenSha256: createHash('sha256').update(ALICE).digest('hex'),
            limits: { concurrent: 1 },
          },
        ],
        state: { redis: redis.url, prefix: 'kill-test:' },
      });
      const [a, b] = [await startServe([], { cwd: dir }), await startServe([], { cwd: dir })] as [
        ServeProcess,
        ServeProcess,
      ];
      serves.push(a, b);
      const onA = await new RawSession(a.url, ALICE).open();
      void onA.call('mcp__slow__hang').catch(() => {});
      const running = 'kill-test:limit:alice:running';
      await until(async () => (await state.redis.zcard(running)) === 1);

      const onB = await new RawSession(b.url, ALICE).open();
      const quick = () =>
        onB.post({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'mcp__slow__quick', arguments: {} },
        });
      const busy = await quick();
      expect(busy.status).toBe(429);
      expect(((await busy.json()) as { error: { message: string } }).error.message).toContain(
        'limit of 1 calls at once for client "alice"',
      );

      const gone = new Promise((resolve) => a.child.once('exit', resolve));
      a.child.kill('SIGKILL');
      await gone;
      // Dead already: not one to stop (stop() waits for an exit that has happened).
      serves.splice(serves.indexOf(a), 1);
      // Nobody released it: the slot is still taken right after the kill…
      expect((await quick()).status).toBe(429);
      // …until the lease of the dead replica's call lapses.
      await until(async () => (await state.redis.zcard(running)) === 0, 1600);
      const freed = await new RawSession(b.url, ALICE).open();
      const call = await freed.call('mcp__slow__quick');
      expect(resultText(await call.result())).toBe('quick');
    });
  },
);
