/**
 * The real agent loop on both tools services: the same script (parallel reads, an edit, a denied
 * shell command, an approved write, a failing read, a read-only sub-agent, the goal tools, a
 * repeated call the reminder notices, a tool that defers context), the same plugins. The
 * transcripts are compared whole; each difference is asserted where it is, named in the
 * dsh-tools README's compatibility table, and then taken out, so that anything else that differs
 * fails the comparison.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type Recorded, runScript, type Transcript } from '../test/agent-loop';

let upstream: Transcript;
let ours: Transcript;

beforeAll(async () => {
  upstream = await runScript('upstream');
  ours = await runScript('ours');
}, 60_000);

/** The text the model was shown for one call's result. */
const resultText = (t: Transcript, callId: string, events: readonly Recorded[] = t.events) => {
  const event = events.find(
    (e) =>
      e.type === 'tool/result' &&
      (e.data as { message: { source: { callId: string } } }).message.source.callId === callId,
  );
  const data = event?.data as
    | { message: { content: { content: { text: string }[] }[] }; error?: unknown; meta?: unknown }
    | undefined;
  return {
    text: data?.message.content[0]?.content[0]?.text,
    error: data?.error,
    meta: data?.meta,
  };
};

describe('the agent loop on both tools services', () => {
  it('runs the whole script on ours: every call dispatched, results in model order', () => {
    const types = (t: Transcript) => t.events.map((e) => e.type);
    expect(types(ours)).toEqual(types(upstream));
    const calls = ours.events.filter((e) => e.type === 'tool/call').map((e) => e.data);
    const results = ours.results.map(
      (r) => (r as { message: { source: { callId: string } } }).message.source.callId,
    );
    expect(calls.map((c) => (c as { callId: string }).callId)).toEqual(results);
    expect(results).toEqual([
      'p1',
      'p2',
      'p3',
      'p4',
      'p5',
      'p6',
      'p7',
      'p8',
      'p9',
      'p10',
      'p11',
      'p12',
    ]);
    expect(ours.events.some((e) => e.type === 'todo/write')).toBe(true);
    expect(ours.events.at(-1)).toEqual({
      type: 'turn/end',
      data: { turn: 1, reason: { kind: 'completed' } },
    });
  });

  it('leaves the same files, and asks about the same top-level write', () => {
    expect(ours.files).toEqual({
      'a.txt': 'ONE\ntwo\n',
      'b.txt': 'bee\n',
      'c.txt': 'approved\n',
      'd.txt': null,
    });
    expect(ours.files).toEqual(upstream.files);
    expect(ours.asked[0]).toBe('write:p5');
  });

  it('records the same codes, meta and contexts', () => {
    // A HarnessError's code, the presentation meta of the fs tools, the deferred note, the reminder.
    expect(resultText(ours, 'p6').error).toEqual({ name: 'FsError', code: 'FS_NOT_FOUND' });
    expect(resultText(ours, 'p6')).toEqual(resultText(upstream, 'p6'));
    expect(resultText(ours, 'p1').meta).toMatchObject({ totalLines: 2 });
    expect(resultText(ours, 'p3').meta).toEqual(resultText(upstream, 'p3').meta);
    const contexts = (t: Transcript) =>
      t.events
        .filter((e) => e.type === 'user/message')
        .map((e) => (e.data as { content: { text: string }[] }).content[0]?.text);
    expect(contexts(ours)).toContain('note: remember the goal');
    expect(contexts(ours).length).toBeGreaterThan(2);
    expect(contexts(ours)).toEqual(contexts(upstream));
  });

  it('shows the sub-agent only the tools it was given, and refuses the others', () => {
    expect(ours.offered.at(-1)).toEqual(['read']);
    expect(ours.offered).toEqual(upstream.offered);
    expect(resultText(ours, 'c2', ours.child).error).toEqual({
      name: 'ToolNotFoundError',
      code: 'UNKNOWN_TOOL',
    });
    expect(resultText(ours, 'c1', ours.child)).toEqual(resultText(upstream, 'c1', upstream.child));
  });

  it('differs only where documented', () => {
    // 1. A denial names the plugin that decided (ours) where the harness shows the reason alone.
    expect(resultText(upstream, 'p4').text).toBe('Error: no shell in this session');
    expect(resultText(ours, 'p4').text).toBe(
      'Error: tool "bash" was denied by plugin "scenario" (tools/pre-execute): no shell in this session',
    );
    // 2. A tool the agent cannot see is refused before any policy (ours): nobody is asked about
    //    it. The harness runs the policies first, asks, and then finds no tool.
    expect(upstream.asked).toEqual(['write:p5', 'write:c2']);
    expect(ours.asked).toEqual(['write:p5']);
    const approvals = (t: Transcript) => t.child.filter((e) => e.type.startsWith('approval/'));
    expect(approvals(upstream).map((e) => e.type)).toEqual(['approval/asked', 'approval/decided']);
    expect(approvals(ours)).toEqual([]);
    // 3. The refusal's wording.
    expect(resultText(upstream, 'c2', upstream.child).text).toBe('Error: unknown tool "write"');
    expect(resultText(ours, 'c2', ours.child).text).toBe(
      'Error: Unknown tool "write": no tool of that name is available to this agent (its tools: read). Call one of the tools you were given.',
    );

    // 4. A policy's denial is final on ours: tools/post-execute listeners do not see it (the
    //    harness runs them on it). The refused child call of 2. meets no listener either.
    const only = [
      'tools/post-execute p4',
      'tools/pre-execute c2',
      'tools/execute c2',
      'tools/post-execute c2',
    ];
    expect(upstream.dispatches).toEqual(expect.arrayContaining(only));
    expect(ours.dispatches.filter((d) => only.includes(d))).toEqual([]);
    expect(upstream.dispatches.filter((d) => !only.includes(d))).toEqual(ours.dispatches);

    // Everything else is identical.
    const patch = (t: Transcript, from: Transcript): Transcript =>
      JSON.parse(
        JSON.stringify({
          ...t,
          asked: from.asked,
          dispatches: from.dispatches,
          child: t.child.filter((e) => !e.type.startsWith('approval/')),
        })
          .replaceAll(
            JSON.stringify(resultText(t, 'p4').text).slice(1, -1),
            JSON.stringify(resultText(from, 'p4').text).slice(1, -1),
          )
          .replaceAll(
            JSON.stringify(resultText(t, 'c2', t.child).text).slice(1, -1),
            JSON.stringify(resultText(from, 'c2', from.child).text).slice(1, -1),
          ),
      );
    expect(patch(ours, upstream)).toEqual(patch(upstream, upstream));
  });
});

describe("the harness's invariant checks on ours", () => {
  it('see every stage of every call, in the order the harness checks, and find nothing wrong', () => {
    const stages = (t: Transcript, callId: string) =>
      t.dispatches.filter((d) => d.endsWith(` ${callId}`)).map((d) => d.split(' ')[0]);
    expect(stages(ours, 'p1')).toEqual([
      'tools/pre-execute',
      'tools/execute',
      'tools/post-execute',
      'tools/result',
    ]);
    expect(stages(ours, 'p1')).toEqual(stages(upstream, 'p1'));
    expect(ours.violations).toEqual([]);
  });
});

describe('a turn cancelled while its tools run, on both services', () => {
  const script = {
    parent: [
      {
        calls: [
          { id: 'k1', name: 'read', args: { file_path: 'a.txt' } },
          { id: 'k2', name: 'read', args: { file_path: 'b.txt' } },
          { id: 'k3', name: 'wait', args: {} },
          {
            id: 'k4',
            name: 'edit',
            args: { file_path: 'a.txt', old_string: 'one', new_string: 'X' },
          },
        ],
      },
      { text: 'never sent' },
    ],
    cancelOnWait: true,
  };

  it('records the same results, codes and end of turn, and runs nothing after the cancel', async () => {
    const theirs = await runScript('upstream', script);
    const mine = await runScript('ours', script);
    const summary = (t: Transcript) =>
      t.results.map((r) => {
        const data = r as {
          message: { content: { content: { text: string }[]; isError: boolean }[] };
          error?: unknown;
        };
        return [
          data.message.content[0]?.isError,
          data.message.content[0]?.content[0]?.text.split('\n')[0],
          data.error,
        ];
      });
    // The parallel group started (the reads and the wait), the cancel aborted all three, and the
    // exclusive edit after the group never started. A success that comes after the cancel is
    // ABORTED on both (`wait`); so is the unstarted edit.
    expect(summary(mine)[2]).toEqual(summary(theirs)[2]);
    expect(summary(mine)[3]).toEqual(summary(theirs)[3]);
    expect(summary(mine).map((s) => (s[2] as { code?: string } | undefined)?.code)).toEqual([
      'ABORTED',
      'ABORTED',
      'ABORTED',
      'ABORTED_BEFORE_DISPATCH',
    ]);
    // 5. (documented) A body that fails on its aborted signal: the harness waits for it and keeps
    //    its own error (the fs tool's FS_ABORTED); our registry answers ABORTED at the abort,
    //    without waiting for the body beyond its grace.
    for (const i of [0, 1]) {
      expect(summary(theirs)[i]?.[2]).toEqual({ name: 'FsError', code: 'FS_ABORTED' });
      expect(summary(mine)[i]).toEqual([
        true,
        'Error: The call to tool "read" was aborted by the caller.',
        { name: 'AbortError', code: 'ABORTED' },
      ]);
    }
    expect(mine.files['a.txt']).toBe('one\ntwo\n');
    expect(mine.events.at(-1)).toEqual(theirs.events.at(-1));
    expect(mine.events.map((e) => e.type)).toEqual(theirs.events.map((e) => e.type));
  });
});
