/**
 * Asking the approver and the messages of a refusal (approval.ts). Each test fails under a
 * one-line change the mutation run (`pnpm mutate:permission`) found uncovered in approval.ts.
 */
import type { ApprovalDecision, ApprovalRequest, InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { edit, makeProject, read } from '../../test/helpers';
import { type PermissionOptions, permissionInterceptor } from '../index';
import type { PermissionDecision } from '../types';
import { createAskPerson } from './approval';

const { root, home } = makeProject();

const run = async (options: PermissionOptions, exec: InterceptedExecution) => {
  const permission = permissionInterceptor({ cwd: root, home, ...options });
  await permission.ready;
  let ran = false;
  const result = await permission(exec, async () => {
    ran = true;
    return { callId: exec.callId, content: [], isError: false };
  });
  return { ran, result };
};

const asked: PermissionDecision = {
  behavior: 'ask',
  reason: 'no rule covers "x"',
  decidedBy: { kind: 'mode' },
  mode: 'default',
  grants: [],
  trail: [],
} as unknown as PermissionDecision;

describe('plan mode refusals', () => {
  it('an ask rule on a read-only tool is refused in plan mode, naming the rule, not the mode', async () => {
    const approve = vi.fn((): ApprovalDecision => ({ kind: 'allow' }));
    const { ran, result } = await run(
      { mode: 'plan', rules: { ask: ['Read(./README.md)'] }, approve },
      read('README.md'),
    );
    expect(ran).toBe(false);
    expect(approve).not.toHaveBeenCalled();
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toMatch(
      /^Tool "Read" cannot run in plan mode without asking, and plan mode never asks: .*Read\(\.\/README\.md\).*Present the plan/,
    );
  });
});

describe('a refusal outside plan mode', () => {
  it('dontAsk says what the user can do, not plan mode', async () => {
    const { ran, result } = await run({ mode: 'dontAsk' }, edit('x.txt'));
    expect(ran).toBe(false);
    expect(result.error?.message).toMatch(
      /^Permission denied for tool "Edit": .*\. To run it, the user can add an allow rule for it or switch to a mode that asks\.$/,
    );
  });
});

describe('createAskPerson', () => {
  it('a call aborted before it is asked is aborted, and the approver is never asked', async () => {
    const approve = vi.fn((): ApprovalDecision => ({ kind: 'allow' }));
    const ask = createAskPerson({ approve }, 0);
    const exec = { ...read('README.md'), signal: AbortSignal.abort() };
    expect(await ask(exec, asked)).toEqual({ kind: 'aborted' });
    expect(approve).not.toHaveBeenCalled();
  });

  it('a deny whose reason is not a string is the person denying without a reason', async () => {
    const ask = createAskPerson({ approve: () => ({ kind: 'deny', reason: 5 }) as never }, 0);
    const answer = await ask(read('README.md'), asked);
    expect(answer).toEqual({
      kind: 'deny',
      message:
        'The user denied tool "Read": no reason given. (It was asked because no rule covers "x".) Do not retry the same call; adjust the approach or ask the user.',
    });
  });

  it('an answer of another shape is malformed, and denied', async () => {
    const ask = createAskPerson({ approve: () => 'yes' as never }, 0);
    expect(await ask(read('README.md'), asked)).toEqual({
      kind: 'deny',
      message:
        'Permission denied for tool "Read": the approver gave a malformed answer ("yes"), so it is denied (fail closed).',
    });
  });

  it('an allow without a grant keeps none; a question asked by the mode names no rule', async () => {
    const approve = vi.fn((_: ApprovalRequest): ApprovalDecision => ({ kind: 'allow' }));
    const answer = await createAskPerson({ approve }, 0)(read('README.md'), asked);
    expect(answer).toStrictEqual({ kind: 'allow' });
    const request = approve.mock.calls[0]?.[0] as ApprovalRequest;
    expect('rule' in request).toBe(false);
    expect('ruleSource' in request).toBe(false);
  });

  it('an allow with a grant keeps the grant', async () => {
    const ask = createAskPerson({ approve: () => ({ kind: 'allow', grant: { uses: 2 } }) }, 0);
    expect(await ask(read('README.md'), asked)).toStrictEqual({
      kind: 'allow',
      grant: { uses: 2 },
    });
  });

  it('a call aborted while the approver is asked is aborted', async () => {
    const controller = new AbortController();
    const ask = createAskPerson(
      {
        approve: () => {
          controller.abort();
          return new Promise<ApprovalDecision>(() => {});
        },
      },
      0,
    );
    const exec = { ...read('README.md'), signal: controller.signal };
    expect(await ask(exec, asked)).toStrictEqual({ kind: 'aborted' });
  });

  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    ['x'.repeat(100), `"${'x'.repeat(79)}`],
    [Object.assign(() => {}, { kind: 'deny' }), 'undefined'],
  ])('the answer %j is malformed, shown cut to 80 characters', async (bad, shown) => {
    const ask = createAskPerson({ approve: () => bad as never }, 0);
    expect(await ask(read('README.md'), asked)).toEqual({
      kind: 'deny',
      message: `Permission denied for tool "Read": the approver gave a malformed answer (${shown}), so it is denied (fail closed).`,
    });
  });

  it('a deny with an empty reason says no reason was given', async () => {
    const ask = createAskPerson({ approve: () => ({ kind: 'deny', reason: '' }) }, 0);
    const answer = await ask(read('README.md'), asked);
    expect(answer).toMatchObject({ message: expect.stringContaining(': no reason given.') });
  });
});
