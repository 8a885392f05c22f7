/**
 * `@deepseek-ai/dsh-user-approval` on both tools services: a `tools/pre-execute` listener asks,
 * the approval service puts the question to its `approval/request` answerers and audits it on the
 * agent's session, and only `allowed-once` runs the tool. Without the service, an ask is denied.
 */
import type { Context } from '@deepseek-ai/cordis';
import { defineTool } from '@deepseek-ai/dsh-tools';
import ApprovalService from '@deepseek-ai/dsh-user-approval';
import { afterEach, describe, expect, it } from 'vitest';
import { boot, HOSTS, type Host, type HostName, liveAgent, type Outcome } from '../test/hosts';

const hosts: Host[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

/** A tool that writes, and the list of what it wrote. */
const writer = (written: string[]) =>
  defineTool({
    name: 'write_file',
    description: 'Write a file.',
    parameters: { path: { type: 'string', required: true } },
    output: { schema: { type: 'string' }, render: (_a, value) => [{ type: 'text', text: value }] },
    execute: async (args) => {
      written.push(args.path);
      return `wrote ${args.path}`;
    },
  });

type Answer = 'allowed-once' | 'rejected' | 'unavailable' | 'no-service';

/** One host: a policy plugin asks about every write; a person answers `answer`. */
async function scenario(name: HostName, answer: Answer, withAgent = true) {
  const host = await boot(name);
  hosts.push(host);
  const written: string[] = [];
  if (answer !== 'no-service') await host.root.plugin(ApprovalService, {});
  const asked: unknown[] = [];
  await host.root.plugin({
    name: 'write-policy',
    inject: ['tools'],
    apply: (ctx: Context) => {
      (ctx as unknown as { tools: { register(d: unknown): void } }).tools.register(writer(written));
      ctx.on('tools/pre-execute', async (exec: { name: string }, next: () => Promise<unknown>) =>
        exec.name === 'write_file' ? { kind: 'ask', reason: 'writes to disk' } : next(),
      );
      // The answerer a UI would register; `unavailable` is what the seam answers with none.
      if (answer === 'allowed-once' || answer === 'rejected') {
        ctx.on('approval/request', async (request: unknown) => {
          asked.push(request);
          return answer;
        });
      }
    },
  } as never);
  const agent = withAgent ? liveAgent(host.root) : undefined;
  const result: Outcome = await host.call('write_file', { path: 'a.txt' }, agent);
  const audit = (agent?.session.events ?? [])
    .map((e) => e.type)
    .filter((t) => t.startsWith('approval/'));
  return { result, written, asked, audit };
}

describe('dsh-user-approval', () => {
  it('runs the call only when the answerer allows it once, on both services', async () => {
    for (const answer of ['allowed-once', 'rejected', 'unavailable'] as const) {
      const [upstream, ours] = await Promise.all(HOSTS.map((h) => scenario(h, answer)));
      if (!upstream || !ours) throw new Error('unreachable');
      const allowed = answer === 'allowed-once';
      for (const run of [upstream, ours]) {
        expect(run.result.isError, answer).toBe(!allowed);
        expect(run.written, answer).toEqual(allowed ? ['a.txt'] : []);
        expect(run.audit, answer).toEqual(['approval/asked', 'approval/decided']);
      }
      expect(ours.asked).toEqual(upstream.asked.map(() => expect.anything()));
      if (allowed) expect(ours.result).toEqual(upstream.result);
      else expect(ours.result.code).toBe('DENIED');
    }
  });

  it('hands the answerer the agent, the tool, the call and the reason, on both services', async () => {
    for (const name of HOSTS) {
      const run = await scenario(name, 'allowed-once');
      expect(run.asked, name).toEqual([
        expect.objectContaining({
          toolName: 'write_file',
          reason: 'writes to disk',
          callId: expect.any(String),
        }),
      ]);
    }
  });

  it('denies an ask when no approval service is loaded, on both services', async () => {
    for (const name of HOSTS) {
      const run = await scenario(name, 'no-service');
      expect(run.result.isError, name).toBe(true);
      expect(run.written, name).toEqual([]);
      expect(run.audit, name).toEqual([]);
    }
  });

  it('denies an ask for a call without an agent (no session to audit to), on both services', async () => {
    for (const name of HOSTS) {
      const run = await scenario(name, 'allowed-once', false);
      expect(run.result.isError, name).toBe(true);
      expect(run.written, name).toEqual([]);
      expect(run.asked, name).toEqual([]);
    }
  });
});
