import type { InterceptedExecution } from '@dsh-tools/protocol';
import { describe, expect, it, vi } from 'vitest';
import { makeProject } from '../test/helpers';
import { modelCall, registryWith } from '../test/registry';
import { type PermissionDecision, type PermissionOptions, permissionInterceptor } from './index';

type Told = [InterceptedExecution, PermissionDecision, ('allow' | 'deny' | 'aborted')?];

const setup = (options: PermissionOptions) => {
  const { root, home } = makeProject();
  const told: Told[] = [];
  const policy = permissionInterceptor({
    cwd: root,
    home,
    onDecision: (...args) => told.push(args as Told),
    ...options,
  });
  return { registry: registryWith(policy, root), told };
};

describe('onDecision: every decision, for an audit trail', () => {
  it('tells an allow with the rule and its source, before the call runs', async () => {
    const order: string[] = [];
    let decision: PermissionDecision | undefined;
    const { registry } = setup({
      rules: [{ source: 'team settings', file: '/etc/team.json', allow: ['Bash(echo:*)'] }],
      onDecision: (_exec, d) => {
        decision = d;
        order.push('told');
      },
    });
    registry.on('result', () => order.push('result'));
    const result = await registry.execute(modelCall('Bash', { command: 'echo hi' }));
    expect(result.isError).toBe(false);
    expect(order).toEqual(['told', 'result']);
    expect(decision?.decidedBy).toMatchObject({
      kind: 'rule',
      rule: 'Bash(echo:*)',
      origin: { source: 'team settings' },
    });
  });

  it('tells allows, denies and how each ask ended, with the deciding rule', async () => {
    const approve = vi.fn().mockResolvedValueOnce({ kind: 'allow' }).mockResolvedValueOnce({
      kind: 'deny',
      reason: 'no',
    });
    const { registry, told } = setup({
      rules: { allow: ['Bash(echo:*)'], deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] },
      approve,
    });
    await registry.execute(modelCall('Bash', { command: 'echo hi' }));
    const denied = await registry.execute(modelCall('Bash', { command: 'rm -rf x' }));
    await registry.execute(modelCall('Bash', { command: 'git push origin main' }));
    await registry.execute(modelCall('Bash', { command: 'git push origin dev' }));
    expect(denied.error?.code).toBe('DENIED');
    expect(told.map(([exec, d, answer]) => [exec.arguments.command, d.behavior, answer])).toEqual([
      ['echo hi', 'allow', undefined],
      ['rm -rf x', 'deny', undefined],
      ['git push origin main', 'ask', 'allow'],
      ['git push origin dev', 'ask', 'deny'],
    ]);
    const rule = (d: PermissionDecision) => (d.decidedBy.kind === 'rule' ? d.decidedBy.rule : '');
    expect(told.map(([, d]) => rule(d))).toEqual([
      'Bash(echo:*)',
      'Bash(rm:*)',
      'Bash(git push:*)',
      'Bash(git push:*)',
    ]);
  });

  it('a hook that throws goes to onError and changes no decision', async () => {
    const onError = vi.fn();
    const { registry } = setup({
      rules: { allow: ['Bash(echo:*)'], deny: ['Bash(rm:*)'] },
      onDecision: () => {
        throw new Error('audit disk full');
      },
      onError,
    });
    const allowed = await registry.execute(modelCall('Bash', { command: 'echo hi' }));
    const denied = await registry.execute(modelCall('Bash', { command: 'rm -rf x' }));
    expect(allowed.isError).toBe(false);
    expect(denied.error?.code).toBe('DENIED');
    expect(onError).toHaveBeenCalledTimes(2);
    expect(String(onError.mock.calls[0]?.[0])).toContain('audit disk full');
  });
});
