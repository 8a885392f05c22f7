import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedIn, tempDir } from '../test/helpers';
import { type Message, RawSession, resultText } from '../test/raw-mcp-http';
import { buildGateway, type Gateway } from './gateway';
import { type HttpGateway, serveGatewayHttp } from './http';
import { createElicitationApprovals } from './serve';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const TOKEN = 'ask-token-0123456789abcdef';
const dir = tempDir('dsh-serve-ask-');
writeFileSync(join(dir, 'a.txt'), 'a');
const loaded = loadedIn(dir, {
  mcpServers: {},
  exampleTools: { writable: false },
  permissions: { ask: ['list_dir'], allow: ['read_file'] },
});

let gateway: Gateway;
let http: HttpGateway;
beforeAll(async () => {
  const approvals = createElicitationApprovals();
  gateway = await buildGateway(loaded, {
    approver: approvals.approver,
    askScope: (exec) => approvals.scopeOf(exec.callId),
  });
  http = await serveGatewayHttp(gateway, { port: 0, token: TOKEN, approvals, maxSessions: 64 });
});
afterAll(async () => {
  await http.close();
  await gateway.close();
});

const open = (capabilities: Record<string, unknown> = { elicitation: {} }) =>
  new RawSession(http.url, TOKEN).open(capabilities);
const allow = () => ({ result: { action: 'accept', content: { allow: true } } });

describe('serve --http: a question travels on the call’s own stream', () => {
  it('a client that never opens a GET stream is asked on the POST’s SSE stream, answers, and the call completes', async () => {
    const session = await open();
    const call = await session.call('list_dir', {});
    const question = await call.next();
    expect(question.method).toBe('elicitation/create');
    expect(String(question.params?.message)).toContain('list_dir');
    await session.answer(question, allow());
    const done = await call.next();
    expect(done.id).toBe(call.id);
    expect(done.result?.isError).toBe(false);
    expect(resultText(done)).toContain('a.txt');
  });
});

/** Opens `n` sessions and starts one asking call in each; resolves once every question is out. */
async function pendingQuestions(n: number) {
  const sessions = await Promise.all(Array.from({ length: n }, () => open()));
  const calls = await Promise.all(sessions.map((s) => s.call('list_dir', {})));
  // Every client sees its question before any client has answered: nobody waits on another.
  const questions = await Promise.all(calls.map((c) => c.next()));
  return { sessions, calls, questions };
}

describe('serve --http: no global queue of questions', () => {
  for (const n of [2, 10]) {
    it(`${n} clients each have a question pending at once, and each answer decides its own call`, async () => {
      const { sessions, calls, questions } = await pendingQuestions(n);
      expect(questions.map((q) => q.method)).toEqual(Array(n).fill('elicitation/create'));
      // Answer in reverse order, allowing the even ones: each call gets its own client's answer.
      for (let i = n - 1; i >= 0; i--) {
        const answer = i % 2 === 0 ? allow() : { result: { action: 'decline' as const } };
        await sessions[i]!.answer(questions[i]!, answer);
      }
      const results = await Promise.all(calls.map((c) => c.next()));
      results.forEach((r, i) => {
        expect(r.result?.isError).toBe(i % 2 !== 0);
      });
    });
  }

  it('within one session, questions are put one at a time', async () => {
    const session = await open();
    const first = await session.call('list_dir', {});
    const q1 = await first.next();
    // Not awaited: the response's headers come with its first event, which is the question.
    const second = session.call('list_dir', { path: '.' });
    const q2 = second.then((call) => call.next());
    // The second question waits for the first answer; give it every chance to arrive early.
    const early = await Promise.race([
      q2,
      new Promise<'none'>((r) => setTimeout(() => r('none'), 300)),
    ]);
    expect(early).toBe('none');
    await session.answer(q1, allow());
    expect((await first.next()).result?.isError).toBe(false);
    const question = await q2;
    expect(String(question.params?.message)).toContain('{"path":"."}');
    await session.answer(question, allow());
    expect((await (await second).next()).result?.isError).toBe(false);
  });
});

describe('serve: every denial and question says what is true', () => {
  const noDoublePeriod = (text: string) => expect(text).not.toMatch(/\.\./);

  it('a client without elicitation is told no one could be asked, with the tool, the rule and what to do', async () => {
    const session = await open({});
    const done = await (await session.call('list_dir', {})).result();
    const text = resultText(done);
    expect(done.result?.isError).toBe(true);
    expect(text).not.toContain('The user denied');
    expect(text).toContain('"list_dir"');
    expect(text).toContain('rule "list_dir"');
    expect(text).toContain('dsh-tools.json');
    expect(text).toContain('no one was asked');
    expect(text).toContain('permissions.allow');
    expect(text).toContain('supports elicitation');
    noDoublePeriod(text);
  });

  it('declined, cancelled, unticked and failed answers each read true, without a double period', async () => {
    const session = await open();
    const cases: [string, (q: Message) => { result: unknown } | { error: unknown }, RegExp][] = [
      [
        'decline',
        () => ({ result: { action: 'decline' } }),
        /The user denied tool "list_dir": they declined/,
      ],
      ['cancel', () => ({ result: { action: 'cancel' } }), /they cancelled the question/],
      [
        'untick',
        () => ({ result: { action: 'accept', content: { allow: false } } }),
        /without ticking "Allow this call"/,
      ],
      [
        'error',
        () => ({ error: { code: -32603, message: 'the client broke' } }),
        /the question went to the MCP client, but no answer came back \(.*the client broke.*\)/,
      ],
    ];
    for (const [label, answer, expected] of cases) {
      const done = await (await session.call('list_dir', {})).result(answer);
      const text = resultText(done);
      expect({ label, text }).toEqual({ label, text: expect.stringMatching(expected) });
      expect(done.result?.isError).toBe(true);
      noDoublePeriod(text);
    }
    // The question itself names the tool, its arguments and the rule.
    const call = await session.call('list_dir', { path: '.' });
    const question = await call.next();
    const message = String(question.params?.message);
    expect(message).toContain('list_dir {"path":"."}');
    expect(message).toContain('rule list_dir');
    noDoublePeriod(message);
    await session.answer(question, allow());
    await call.next();
  });
});
