import type { ApprovalRequest, InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it } from 'vitest';
import { askApprover } from './approver';

const tool = { name: 't', description: 't', parameters: { type: 'object' }, hints: {} } as const;
const question = {
  exec: { callId: 'c1', name: 't', arguments: {}, tool } as unknown as InterceptedExecution,
  tool: tool as unknown as InterceptedExecution['tool'],
  asker: 'test',
  reason: 'because',
};

describe('askApprover', () => {
  it('passes the question with a live signal and returns an allow or a deny as given', async () => {
    let seen: ApprovalRequest | undefined;
    const allow = await askApprover(
      (request) => {
        seen = request;
        return { kind: 'allow', grant: { uses: 2 } };
      },
      question,
      { timeoutMs: 0 },
    );
    expect(allow).toEqual({ kind: 'allow', grant: { uses: 2 } });
    expect(seen).toMatchObject({ asker: 'test', reason: 'because' });
    expect(seen?.signal.aborted).toBe(false);
    expect(
      await askApprover(async () => ({ kind: 'deny', reason: 'no' }), question, { timeoutMs: 0 }),
    ).toEqual({ kind: 'deny', reason: 'no' });
  });

  it('a throw, sync or async, is failed, and the request signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const sync = await askApprover(
      (request) => {
        signal = request.signal;
        throw new Error('boom');
      },
      question,
      { timeoutMs: 0 },
    );
    expect(sync).toMatchObject({ kind: 'failed', error: new Error('boom') });
    expect(signal?.aborted).toBe(true);
    expect(
      await askApprover(() => Promise.reject(new Error('later')), question, { timeoutMs: 0 }),
    ).toMatchObject({ kind: 'failed' });
  });

  it('an answer of the wrong shape is malformed, a string "timeout" included', async () => {
    for (const answer of ['yes', 'timeout', 'aborted', null, { kind: 'deny', reason: 3 }, {}]) {
      expect(
        await askApprover(() => answer as never, question, { timeoutMs: 0 }),
        JSON.stringify(answer),
      ).toEqual({ kind: 'malformed', answer });
    }
  });

  it('no answer in time is timeout, its signal aborted', async () => {
    let signal: AbortSignal | undefined;
    const outcome = await askApprover(
      (request) => {
        signal = request.signal;
        return new Promise(() => {});
      },
      question,
      { timeoutMs: 20 },
    );
    expect(outcome).toEqual({ kind: 'timeout' });
    expect(signal?.aborted).toBe(true);
  });

  it("the call's abort while waiting is aborted; a call aborted before is never asked", async () => {
    const call = new AbortController();
    let signal: AbortSignal | undefined;
    const pending = askApprover(
      (request) => {
        signal = request.signal;
        return new Promise(() => {});
      },
      question,
      { timeoutMs: 0, signal: call.signal },
    );
    await new Promise((r) => setTimeout(r, 5));
    call.abort();
    expect(await pending).toEqual({ kind: 'aborted' });
    expect(signal?.aborted).toBe(true);
    let asked = false;
    const before = await askApprover(
      () => {
        asked = true;
        return { kind: 'allow' };
      },
      question,
      { timeoutMs: 0, signal: AbortSignal.abort() },
    );
    expect(before).toEqual({ kind: 'aborted' });
    expect(asked).toBe(false);
  });
});
