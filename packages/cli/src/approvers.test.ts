import { PassThrough } from 'node:stream';
import type { ApprovalRequest } from '@dsh-tools/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalApprover } from './approvers';

// The property test runs on a fixed seed (FC_SEED=<n> explores others); a failure names the seed.
const seed = Number(process.env.FC_SEED ?? 25);
console.info(`terminalApprover property test: fast-check seed ${seed}`);

function request(name: string, signal = new AbortController().signal): ApprovalRequest {
  return {
    exec: { callId: `c-${name}`, name, arguments: { path: 'a.txt' } },
    tool: { name, description: '', parameters: { type: 'object' } },
    asker: 'permission',
    reason: 'writes a file',
    rule: 'Write(*)',
    ruleSource: 'dsh-tools.json',
    signal,
  } as unknown as ApprovalRequest;
}

/** A terminal stand-in: what the approver wrote, and a way to type a line. */
function fakeTerminal() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk) => {
    written += String(chunk);
  });
  return {
    input,
    output,
    written: () => written,
    type: (line: string) => input.write(`${line}\n`),
    /** Resolves once the approver has written `text`. */
    waitFor: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (written.includes(text)) {
            output.off('data', check);
            resolve();
          }
        };
        output.on('data', check);
        check();
      }),
  };
}

describe('terminalApprover', () => {
  it('asks the question with the rule and where it comes from, and allows a typed yes', async () => {
    const term = fakeTerminal();
    const decision = terminalApprover(term)(request('write_file'));
    await term.waitFor('(y/N)');
    expect(term.written()).toContain('permission: writes a file (rule Write(*) in dsh-tools.json)');
    expect(term.written()).toContain('Allow write_file {"path":"a.txt"}?');
    term.type('y');
    expect(await decision).toEqual({ kind: 'allow' });
  });

  it('allows only y or yes (any case, surrounding blanks); every other answer denies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constantFrom('y', 'Y', 'yes', ' YES ', 'Yes', '', 'n', 'no', 'yy', 'ye', 'y es', 'ok'),
          fc.string({ maxLength: 8 }).filter((s) => !/[\r\n]/.test(s)),
        ),
        async (answer) => {
          const term = fakeTerminal();
          const decision = terminalApprover(term)(request('write_file'));
          await term.waitFor('(y/N)');
          term.type(answer);
          const expected = ['y', 'yes'].includes(answer.trim().toLowerCase()) ? 'allow' : 'deny';
          expect((await decision).kind).toBe(expected);
        },
      ),
      { seed, numRuns: 60 },
    );
  });

  it('denies, saying the person did not allow it, when input ends unanswered', async () => {
    const term = fakeTerminal();
    const decision = terminalApprover(term)(request('write_file'));
    await term.waitFor('(y/N)');
    term.input.end();
    expect(await decision).toEqual({
      kind: 'deny',
      reason: 'The person at the terminal did not allow this call.',
    });
  });

  it('denies on Ctrl-C at a terminal (readline reads keys there)', async () => {
    const term = fakeTerminal();
    Object.assign(term.output, { isTTY: true, columns: 80 });
    const decision = terminalApprover(term)(request('write_file'));
    await term.waitFor('(y/N)');
    term.input.write('y\x03');
    expect((await decision).kind).toBe('deny');
  });

  it('denies when the call is aborted while it waits, and stops reading the terminal', async () => {
    const term = fakeTerminal();
    const controller = new AbortController();
    const decision = terminalApprover(term)(request('write_file', controller.signal));
    await term.waitFor('(y/N)');
    expect(term.input.listenerCount('data')).toBeGreaterThan(0);
    controller.abort();
    expect((await decision).kind).toBe('deny');
    expect(term.input.listenerCount('data')).toBe(0);
    // A yes typed afterwards allows nothing: nobody is asking any more.
    term.type('y');
  });

  it('denies an already aborted call without asking', async () => {
    const term = fakeTerminal();
    const controller = new AbortController();
    controller.abort();
    expect((await terminalApprover(term)(request('write_file', controller.signal))).kind).toBe(
      'deny',
    );
    expect(term.written()).toBe('');
  });

  it('asks one question at a time: a second ask waits for the first answer', async () => {
    const term = fakeTerminal();
    const approve = terminalApprover(term);
    const first = approve(request('first_tool'));
    const second = approve(request('second_tool'));
    await term.waitFor('Allow first_tool');
    expect(term.written()).not.toContain('second_tool');
    term.type('n');
    expect((await first).kind).toBe('deny');
    await term.waitFor('Allow second_tool');
    term.type('yes');
    expect((await second).kind).toBe('allow');
  });
});
