import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalDecision, ApprovalRequest } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { bash, makeProject } from '../test/helpers';
import { modelCall, registryWith } from '../test/registry';
import { type PermissionDecision, type PermissionOptions, permissionInterceptor } from './index';

const setup = (options: PermissionOptions = {}) => {
  const { root, home } = makeProject();
  const clock = { t: 1_000_000 };
  const policy = permissionInterceptor({ cwd: root, home, now: () => clock.t, ...options });
  const registry = registryWith(policy, root);
  return { root, home, clock, policy, registry };
};

const details = (result: { error?: { details?: unknown } }) =>
  (result.error?.details as { permission: PermissionDecision } | undefined)
    ?.permission as PermissionDecision;

describe('asking through the real registry', () => {
  it('allow once runs the call and asks again next time', async () => {
    const approve = vi.fn((_: ApprovalRequest): ApprovalDecision => ({ kind: 'allow' }));
    const { registry } = setup({ approve });
    const first = await registry.execute(modelCall('Bash', { command: 'echo once' }));
    expect(first.isError).toBe(false);
    expect(first.content[0]).toEqual({ type: 'text', text: 'once\n' });
    await registry.execute(modelCall('Bash', { command: 'echo once' }));
    expect(approve).toHaveBeenCalledTimes(2);
    const request = approve.mock.calls[0]?.[0] as ApprovalRequest;
    expect(request.asker).toBe('permission');
    expect(request.tool.name).toBe('Bash');
    expect(request.reason).toContain('echo once');
    expect(request.signal).toBeInstanceOf(AbortSignal);
  });

  it('passes the asking rule and its source to the approver', async () => {
    const approve = vi.fn(
      (_: ApprovalRequest): ApprovalDecision => ({ kind: 'deny', reason: 'not today' }),
    );
    const { registry } = setup({ approve, rules: { ask: ['Bash(git push:*)'] } });
    const result = await registry.execute(modelCall('Bash', { command: 'git push origin main' }));
    expect(approve.mock.calls[0]?.[0]).toMatchObject({
      rule: 'Bash(git push:*)',
      ruleSource: 'options, ask[0]',
    });
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('not today');
    expect(details(result).decidedBy).toMatchObject({ kind: 'rule', rule: 'Bash(git push:*)' });
  });

  it('a grant with an expiry allows without asking until the injected clock passes it', async () => {
    const approve = vi.fn(
      (): ApprovalDecision => ({ kind: 'allow', grant: { expiresInMs: 60_000 } }),
    );
    const { registry, policy, clock } = setup({ approve, rules: { ask: ['Bash(echo:*)'] } });
    expect((await registry.execute(modelCall('Bash', { command: 'echo a' }))).isError).toBe(false);
    const [grant] = await policy.listGrants();
    expect(grant).toMatchObject({
      rule: 'Bash(echo:*)',
      expiresAt: clock.t + 60_000,
      origin: { by: 'approver', at: clock.t },
    });
    expect(grant?.origin.question).toMatchObject({ tool: 'Bash', rule: 'Bash(echo:*)' });
    expect((await registry.execute(modelCall('Bash', { command: 'echo b' }))).isError).toBe(false);
    expect(approve).toHaveBeenCalledTimes(1);
    const explained = await policy.explain(bash('echo c'));
    expect(explained.decidedBy).toMatchObject({ kind: 'grant' });
    clock.t += 60_001;
    await registry.execute(modelCall('Bash', { command: 'echo d' }));
    expect(approve).toHaveBeenCalledTimes(2);
  });

  it('a grant with a use count runs out', async () => {
    let answer: ApprovalDecision = { kind: 'allow', grant: { uses: 2 } };
    const approve = vi.fn(() => answer);
    const { registry, policy } = setup({ approve });
    await registry.execute(modelCall('Bash', { command: 'echo 1' }));
    expect((await policy.listGrants())[0]).toMatchObject({ rule: 'Bash(echo 1)', usesLeft: 2 });
    answer = { kind: 'deny' };
    expect((await registry.execute(modelCall('Bash', { command: 'echo 1' }))).isError).toBe(false);
    expect((await policy.listGrants())[0]?.usesLeft).toBe(1);
    expect((await registry.execute(modelCall('Bash', { command: 'echo 1' }))).isError).toBe(false);
    expect(await policy.listGrants()).toEqual([]);
    const third = await registry.execute(modelCall('Bash', { command: 'echo 1' }));
    expect(third.error?.code).toBe('DENIED');
    expect(approve).toHaveBeenCalledTimes(2);
  });

  it('a shell grant without a rule covers exactly the command asked about, not the whole tool', async () => {
    const approve = vi.fn((): ApprovalDecision => ({ kind: 'allow', grant: {} }));
    const { registry, policy } = setup({ approve });
    await registry.execute(modelCall('Bash', { command: "echo 'a b'" }));
    expect((await policy.listGrants())[0]?.rule).toBe('Bash(echo a\\ b)');
    expect((await policy.explain(bash("echo 'a b'"))).behavior).toBe('allow');
    expect((await policy.explain(bash('echo a b'))).behavior).toBe('ask');
    expect((await policy.explain(bash('rm -rf /'))).behavior).toBe('ask');
  });

  it('revoked grants stop applying; revoking an unknown id says so', async () => {
    const approve = vi.fn((): ApprovalDecision => ({ kind: 'deny', reason: 'no' }));
    const { registry, policy } = setup({ approve });
    const grant = await policy.addGrant({ rule: 'Bash(echo:*)', by: 'test' });
    expect(grant.origin.by).toBe('test');
    expect((await registry.execute(modelCall('Bash', { command: 'echo x' }))).isError).toBe(false);
    expect(await policy.revokeGrant(grant.id)).toBe(true);
    expect(await policy.revokeGrant(grant.id)).toBe(false);
    expect((await registry.execute(modelCall('Bash', { command: 'echo x' }))).error?.code).toBe(
      'DENIED',
    );
    await expect(policy.addGrant({ rule: 'Bash(' })).rejects.toThrow(/Bash\(/);
    await expect(policy.addGrant({ rule: 'Bash(x)', uses: 0 })).rejects.toThrow(/uses/);
  });

  it('a grant never beats a deny rule', async () => {
    const { policy } = setup({ rules: { deny: ['Bash(rm:*)'] } });
    await policy.addGrant({ rule: 'Bash' });
    expect((await policy.explain(bash('rm -rf x'))).behavior).toBe('deny');
    expect((await policy.explain(bash('echo ok'))).behavior).toBe('allow');
  });

  it('an approver that does not answer in time is denied, and its signal aborts', async () => {
    let seen: AbortSignal | undefined;
    const approve = (request: ApprovalRequest) => {
      seen = request.signal;
      return new Promise<ApprovalDecision>(() => undefined);
    };
    const { registry } = setup({ approve, approveTimeoutMs: 20 });
    const result = await registry.execute(modelCall('Bash', { command: 'echo late' }));
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('no answer came within 20 ms');
    expect(seen?.aborted).toBe(true);
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('approver crashed');
      },
    ],
    ['rejects', () => Promise.reject(new Error('approver crashed'))],
  ])('an approver that %s is denied (fail closed), saying why', async (_, approve) => {
    const { registry } = setup({ approve: approve as unknown as () => ApprovalDecision });
    const result = await registry.execute(modelCall('Bash', { command: 'echo x' }));
    expect(result.error?.code).toBe('DENIED');
    expect(result.error?.message).toContain('approver failed (approver crashed)');
  });

  it('no approver, or a malformed answer, is denied', async () => {
    const none = setup();
    const result = await none.registry.execute(modelCall('Bash', { command: 'echo x' }));
    expect(result.error?.message).toContain('no approver is configured');
    const odd = setup({ approve: () => ({ kind: 'maybe' }) as unknown as ApprovalDecision });
    const r2 = await odd.registry.execute(modelCall('Bash', { command: 'echo x' }));
    expect(r2.error?.message).toContain('malformed answer');
  });

  it('serialises asks from parallel calls: one question at a time, all answered', async () => {
    let open = 0;
    let peak = 0;
    const approve = async (): Promise<ApprovalDecision> => {
      open++;
      peak = Math.max(peak, open);
      await new Promise((r) => setTimeout(r, 5));
      open--;
      return { kind: 'allow' };
    };
    const { registry } = setup({ approve });
    const results = await registry.executeAll(
      ['a', 'b', 'c', 'd'].map((x) => modelCall('Bash', { command: `echo ${x}` })),
    );
    expect(results.map((r) => r.content[0])).toEqual(
      ['a', 'b', 'c', 'd'].map((x) => ({ type: 'text', text: `${x}\n` })),
    );
    expect(peak).toBe(1);
  });

  it('a call aborted while queued leaves the queue; one aborted while asked aborts its approver signal', async () => {
    const questions: ApprovalRequest[] = [];
    let release!: (d: ApprovalDecision) => void;
    const approve = (request: ApprovalRequest) => {
      questions.push(request);
      return new Promise<ApprovalDecision>((r) => {
        release = r;
      });
    };
    const { registry } = setup({ approve });
    const first = new AbortController();
    const queued = new AbortController();
    const p1 = registry.execute(modelCall('Bash', { command: 'echo first' }, first.signal));
    const p2 = registry.execute(modelCall('Bash', { command: 'echo queued' }, queued.signal));
    const p3 = registry.execute(modelCall('Bash', { command: 'echo third' }));
    await vi.waitFor(() => expect(questions).toHaveLength(1), { timeout: 15_000 });
    queued.abort();
    const r2 = await p2;
    expect(r2.error?.code).toBe('ABORTED');
    first.abort();
    expect(questions[0]?.signal.aborted).toBe(true);
    expect((await p1).error?.code).toBe('ABORTED');
    await vi.waitFor(() => expect(questions).toHaveLength(2), { timeout: 15_000 });
    expect(questions[1]?.exec.arguments.command).toBe('echo third');
    release({ kind: 'allow' });
    expect((await p3).isError).toBe(false);
  });
});

describe('modes', () => {
  it('plan mode is enforced and can be left at runtime', async () => {
    const { registry, policy, root } = setup({ rules: { allow: ['Edit', 'Bash(echo:*)'] } });
    policy.setMode('plan');
    expect(policy.mode).toBe('plan');
    const edit = await registry.execute(modelCall('Edit', { file_path: 'plan.txt', content: 'x' }));
    expect(edit.error?.code).toBe('DENIED');
    expect(edit.error?.message).toContain('plan mode');
    expect(edit.error?.message).toContain('switching the permission mode');
    expect(existsSync(join(root, 'plan.txt'))).toBe(false);
    // A shell command runs in plan mode only when it is proven read-only.
    expect(
      (await registry.execute(modelCall('Bash', { command: 'echo hi > plan.txt' }))).error?.code,
    ).toBe('DENIED');
    expect(existsSync(join(root, 'plan.txt'))).toBe(false);
    expect((await registry.execute(modelCall('Bash', { command: 'echo hi' }))).isError).toBe(false);
    expect((await registry.execute(modelCall('Read', { file_path: 'README.md' }))).isError).toBe(
      false,
    );
    policy.setMode('default');
    expect(
      (await registry.execute(modelCall('Edit', { file_path: 'plan.txt', content: 'x' }))).isError,
    ).toBe(false);
    expect(readFileSync(join(root, 'plan.txt'), 'utf8')).toBe('x');
    expect(() => policy.setMode('yolo' as never)).toThrow(/"yolo" is not one of default/);
  });

  it('dontAsk denies what would ask, without calling the approver', async () => {
    const approve = vi.fn((): ApprovalDecision => ({ kind: 'allow' }));
    const { registry } = setup({ approve, mode: 'dontAsk', rules: { allow: ['Bash(echo:*)'] } });
    const denied = await registry.execute(modelCall('Bash', { command: 'ls' }));
    expect(denied.error?.message).toContain('mode "dontAsk" denies whatever would ask');
    expect((await registry.execute(modelCall('Bash', { command: 'echo ok' }))).isError).toBe(false);
    expect(approve).not.toHaveBeenCalled();
  });

  it('bypassPermissions runs everything but deny rules and unreadable commands', async () => {
    const { policy } = setup({
      mode: 'bypassPermissions',
      rules: { deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] },
    });
    expect((await policy.explain(bash('ls -la'))).behavior).toBe('allow');
    expect((await policy.explain(bash('git push'))).behavior).toBe('allow');
    expect((await policy.explain(bash('ls && rm x'))).behavior).toBe('deny');
    expect((await policy.explain(bash('$CMD'))).behavior).toBe('ask');
  });

  it('acceptEdits accepts file writes inside cwd and additionalDirectories only', async () => {
    const { policy, root, home } = setup({
      mode: 'acceptEdits',
      rules: { allow: ['Bash(echo:*)'] },
    });
    const edit = (p: string) => ({
      callId: 'e',
      name: 'Edit',
      arguments: { file_path: p },
      tool: {
        name: 'Edit',
        description: '',
        parameters: { type: 'object' as const },
        hints: { paths: [{ arg: 'file_path', access: 'write' as const }] },
        source: { kind: 'local' as const },
      },
    });
    expect((await policy.explain(edit('src/new.ts'))).behavior).toBe('allow');
    expect((await policy.explain(edit(join(home, 'x')))).behavior).toBe('ask');
    const wider = permissionInterceptor({
      cwd: root,
      home,
      mode: 'acceptEdits',
      additionalDirectories: [home],
    });
    expect((await wider.explain(edit(join(home, 'x')))).behavior).toBe('allow');
    expect((await policy.explain(bash('echo x > out.txt'))).behavior).toBe('allow');
    expect((await policy.explain(bash('echo x > /tmp/out.txt'))).behavior).toBe('ask');
    policy.setMode('default');
    expect((await policy.explain(bash('echo x > out.txt'))).behavior).toBe('ask');
  });
});

describe('denials the model reads', () => {
  it('name the rule, its source and what the user can do; details carry the trail', async () => {
    const { registry } = setup({ rules: { deny: ['Bash(rm:*)'], allow: ['Bash(npm test:*)'] } });
    const result = await registry.execute(
      modelCall('Bash', { command: 'npm test && rm -rf build' }),
    );
    expect(result.isError).toBe(true);
    expect(result.error?.code).toBe('DENIED');
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error?.message}` }]);
    expect(result.error?.message).toMatch(
      /deny rule "Bash\(rm:\*\)" \(options, deny\[0\]\) matched "rm -rf build"/,
    );
    expect(result.error?.message).toContain('ask the user to change rule');
    const decision = details(result);
    expect(decision.mode).toBe('default');
    expect(decision.trail).toContainEqual(
      expect.objectContaining({
        kind: 'rule',
        rule: 'Bash(npm test:*)',
        matched: true,
        subject: 'npm test',
      }),
    );
    expect(decision.trail).toContainEqual(
      expect.objectContaining({
        kind: 'rule',
        rule: 'Bash(rm:*)',
        matched: true,
        origin: { list: 'deny', index: 0, source: 'options' },
      }),
    );
  });

  it('a policy whose examples fail rejects ready and denies every call', async () => {
    const { root, home } = makeProject();
    const policy = permissionInterceptor({
      cwd: root,
      home,
      rules: { allow: ['Bash(git:*)'] },
      examples: { deny: ['Bash(git push)'], allow: ['Bash(git status)'] },
    });
    await expect(policy.ready).rejects.toThrow(/"Bash\(git push\)" should be deny but is allow/);
    const registry = registryWith(policy, root);
    const result = await registry.execute(modelCall('Bash', { command: 'git status' }));
    expect(result.error?.message).toContain('failed to load');
  });
});
